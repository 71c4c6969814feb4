#!/usr/bin/env python3
"""Runs README.md's shell blocks, in order, in a fresh clone, as a new user would.

A clone of this repository's HEAD is made in a temporary folder, with no `shiplog` on the
PATH, and every line of every ```sh block runs there from the top of the README down:
`cargo install --locked --path .` installs into the temporary folder (CARGO_INSTALL_ROOT), and the
later blocks call `shiplog` and `shiplog-api` by name, as the README does. A ```markdown
block after `shiplog new` is written into the file that command printed.

Some lines cannot just run and exit:
- `cargo test` is skipped: CI's test step runs it;
- a `serve` line starts the server, waits for each org's page to answer (holding every entry
  the tour wrote so far), then stops it with Ctrl-C's signal;
- a `shiplog-api` line starts the server and waits for /healthz; it runs until the end;
- `KEY=shl_...` takes the key `shiplog keys new` printed, and the `curl` after it must get a
  2xx answer listing every entry the tour wrote.
After a `shiplog generate`, each entry the tour wrote must have its page in `public/`.

    python3 scripts/readme-tour.py

Cargo's target folder is this checkout's (CARGO_TARGET_DIR), so only shiplog itself is
built again. Prints each command and its output; closes with `readme tour: N commands, M
checks passed` and exits non-zero on the first failure, naming its README line.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SERVE_PORT = 8080
API = "http://127.0.0.1:8081"
# Building shiplog again in the clone happens in the first command that needs it.
BUILD_DEADLINE = 900
START_DEADLINE = 30


class TourFailed(Exception):
    """A README command that failed or did not do what the README says."""


def blocks(readme):
    """Each fenced block of `readme`: its language, its lines and the line it starts on."""
    lines = readme.splitlines()
    i = 0
    while i < len(lines):
        opening = re.match(r"^```(\w*)\s*$", lines[i])
        if not opening:
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        yield opening.group(1), lines[start:end], start + 1
        i = end + 1


def without_comment(line):
    """`line` without a trailing shell comment (` # ...`)."""
    return re.sub(r"(^|\s+)#\s.*$", "", line).strip()


def path_without_shiplog(path):
    """PATH without the folders that already hold a `shiplog`: the tour installs its own."""
    return os.pathsep.join(
        folder for folder in path.split(os.pathsep) if folder and not (Path(folder) / "shiplog").exists()
    )


def port_is_free(port):
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def get(url, host=None):
    """Status and body of a GET, or (None, reason) when nothing answers."""
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as error:
        return None, str(error)


def wait_for(what, ready, process, deadline):
    """Polls `ready()` until it is true; fails when `process` exits or time runs out."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if ready():
            return
        if process.poll() is not None:
            raise TourFailed(f"{what}: exited with {process.returncode} before it was ready")
        time.sleep(0.2)
    raise TourFailed(f"{what}: not ready within {deadline} s")


class Tour:
    """The clone, its environment and what the commands so far have made."""

    def __init__(self, clone, env):
        self.clone = clone
        self.env = env
        self.variables = {}
        self.entries = []  # (path relative to the clone, title) of each `shiplog new`
        self.key = None
        self.background = []
        self.commands = 0
        self.checks = 0

    def check(self, what, ok, detail=""):
        if not ok:
            raise TourFailed(f"{what}{': ' + detail[:2000] if detail else ''}")
        self.checks += 1
        print(f"   ok  {what}")

    def run(self, command):
        """Runs one line as the user would type it; returns its standard output."""
        self.commands += 1
        print(f"$ {command}", flush=True)
        env = {**self.env, **self.variables}
        done = subprocess.run(
            ["bash", "-c", command], cwd=self.clone, env=env, capture_output=True, text=True,
            timeout=BUILD_DEADLINE,
        )
        for line in (done.stdout + done.stderr).splitlines()[-40:]:
            print(f"    {line[:160]}{'…' if len(line) > 160 else ''}")
        if done.returncode != 0:
            raise TourFailed(f"exited with {done.returncode}")
        return done.stdout

    def start(self, command):
        """Starts a server line in its own process group, as a terminal would."""
        self.commands += 1
        print(f"$ {command} &", flush=True)
        log = open(self.clone / f".tour-{len(self.background)}.log", "w+")
        process = subprocess.Popen(
            ["bash", "-c", f"exec {command}"], cwd=self.clone, env={**self.env, **self.variables},
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        self.background.append((process, log))
        return process

    def stop(self, process, signal_number=signal.SIGINT):
        """Sends `signal_number`; whether the process ended by itself within 10 s."""
        try:
            os.killpg(process.pid, signal_number)
        except ProcessLookupError:
            return True
        try:
            process.wait(timeout=10)
            return True
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return False

    def stop_all(self):
        for process, log in self.background:
            self.stop(process, signal.SIGTERM)
            log.close()

    def line(self, command):
        """One line of a ```sh block."""
        if command == "cargo test":
            print("$ cargo test   (skipped: CI's test step runs it)")
            return
        assignment = re.fullmatch(r"([A-Z_]+)=(\S+)", command)
        if assignment:
            name, value = assignment.groups()
            if value == "shl_...":
                self.check("`shiplog keys new` printed a key before the README uses it", self.key is not None)
                value = self.key
            self.variables[name] = value
            print(f"$ {name}=…")
            return
        if command.endswith(" serve") or command == "shiplog serve":
            return self.serve(command)
        if command.split()[0] == "shiplog-api":
            return self.api(command)
        output = self.run(command)
        words = command.split()
        if words[:2] == ["shiplog", "new"]:
            self.wrote_entry(words, output)
        elif words[:3] == ["shiplog", "keys", "new"]:
            found = re.search(r"shl_[A-Za-z0-9_-]+", output)
            self.check("`shiplog keys new` prints the key", found is not None, output)
            self.key = found.group(0)
        elif words[:2] == ["curl", "-i"]:
            status = re.match(r"HTTP/\S+ (\d+)", output)
            self.check("the API answers 2xx", status is not None and status.group(1).startswith("2"), output)
            for _, title in self.entries:
                self.check(f"the API lists “{title}”", title in output, output)
        if "generate" in words:
            for path, title in self.entries:
                slug = Path(path).stem if Path(path).stem != "index" else Path(path).parent.name
                org = Path(path).parts[1]
                page = self.clone / "public" / org / "changelog" / slug / "index.html"
                self.check(f"`{command}` wrote the page of “{title}”", page.is_file(), str(page))

    def wrote_entry(self, words, output):
        path = output.strip().splitlines()[-1] if output.strip() else ""
        self.check("`shiplog new` prints the path of a file it wrote", (self.clone / path).is_file(), output)
        title = re.search(r'"([^"]+)"', " ".join(words))
        self.entries.append((path, title.group(1) if title else ""))

    def serve(self, command):
        self.check(f"port {SERVE_PORT} is free for `{command}`", port_is_free(SERVE_PORT))
        process = self.start(command)
        orgs = sorted(p.name for p in (self.clone / "content").iterdir() if p.is_dir())
        url = f"http://127.0.0.1:{SERVE_PORT}/changelog/"
        host = f"acme.localhost:{SERVE_PORT}"
        wait_for(command, lambda: get(url, host)[0] == 200, process, BUILD_DEADLINE)
        for org in orgs:
            status, body = get(url, f"{org}.localhost:{SERVE_PORT}")
            self.check(f"{org}.localhost:{SERVE_PORT}/changelog/ answers 200", status == 200, body)
            for path, title in self.entries:
                if Path(path).parts[1] == org:
                    self.check(f"{org}'s page shows “{title}”", title in body, body)
        status, body = get(f"http://127.0.0.1:{SERVE_PORT}/", f"localhost:{SERVE_PORT}")
        self.check("localhost:8080 lists the organizations", status == 200 and all(o in body for o in orgs), body)
        self.check(f"`{command}` stops on Ctrl-C within 10 s", self.stop(process))

    def api(self, command):
        self.check("port 8081 is free for `shiplog-api`", port_is_free(8081))
        process = self.start(command)
        wait_for(command, lambda: get(f"{API}/healthz")[0] == 200, process, START_DEADLINE)
        print("   ok  shiplog-api answers /healthz")

    def markdown(self, lines):
        """A Markdown block after `shiplog new`: the entry as the user writes it."""
        self.check("a ```markdown block follows a `shiplog new`", bool(self.entries))
        path, title = self.entries[-1]
        (self.clone / path).write_text("\n".join(lines) + "\n")
        self.check(f"the block is the entry “{title}”", f"title: {title}" in lines)
        print(f"   wrote the Markdown block into {path}")


def main():
    readme = (REPO / "README.md").read_text()
    work = Path(tempfile.mkdtemp(prefix="shiplog-tour-"))
    clone = work / "shiplog"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = env.get("CARGO_TARGET_DIR", str(REPO / "target"))
    env["CARGO_INSTALL_ROOT"] = str(work / "cargo")
    env["PATH"] = os.pathsep.join([str(work / "cargo" / "bin"), path_without_shiplog(env["PATH"])])
    tour = Tour(clone, env)
    status = 0
    try:
        for language, lines, at in blocks(readme):
            try:
                if language == "sh":
                    for line in lines:
                        if without_comment(line):
                            tour.line(without_comment(line))
                elif language == "markdown":
                    tour.markdown(lines)
            except (TourFailed, subprocess.TimeoutExpired) as error:
                print(f"FAIL README.md:{at}: {error}")
                status = 1
                break
    finally:
        tour.stop_all()
        shutil.rmtree(work, ignore_errors=True)
    print(f"readme tour: {tour.commands} commands, {tour.checks} checks passed{', then a failure' if status else ''}")
    return status


if __name__ == "__main__":
    sys.exit(main())
