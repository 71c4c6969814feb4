"""Exactly once across fresh CI machines and kills: every run starts from a fresh clone of
a repository (as a CI machine does) with the journal kept in a branch of it
(`--state-branch`), over pushes and timer runs with a scheduled entry coming due; then one
run of 50 deliveries killed with SIGKILL at 20 random points and re-run each time. The
receivers count what they got: each entry exactly once each, nothing lost, nothing repeated.
"""

import collections
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

import receivers
from test_announce import SHIPLOG, world, write_entry  # noqa: F401 (the fixture)

CHANNELS = """title: Acme changelog
announce:
  - type: webhook
    url_env: HOOK_URL
    secret_env: HOOK_SECRET
    allow_insecure: true
  - type: slack
    url_env: SLACK_URL
    allow_insecure: true
"""


def receivers_env(world, work=""):
    """The variables of CHANNELS, for receivers that each work `work` ms a delivery."""
    query = f"?work={work}" if work else ""
    return {"HOOK_URL": f"http://127.0.0.1:{world['port']}/webhook/exact{query}",
            "HOOK_SECRET": receivers.SECRET,
            "SLACK_URL": f"http://127.0.0.1:{world['port']}/slack{query}"}


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


class Repository:
    """A bare `origin`, a clone the team pushes from, and fresh clones for CI runs."""

    def __init__(self, root):
        self.root = root
        self.origin = root / "origin.git"
        git(root, "init", "--quiet", "--bare", "-b", "main", str(self.origin))
        self.work = root / "team"
        git(root, "clone", "--quiet", str(self.origin), str(self.work))
        self.org = self.work / "content" / "acme"
        self.org.mkdir(parents=True)
        (self.org / "_org.yaml").write_text(CHANNELS)
        (self.work / "shiplog.yaml").write_text("org_url: https://{org}.changelog.example\n")
        self.runs = 0

    def push(self, message):
        git(self.work, "add", "-A")
        git(self.work, "commit", "--quiet", "-m", message)
        git(self.work, "push", "--quiet", "origin", "HEAD:main")

    def fresh_clone(self):
        self.runs += 1
        clone = self.root / f"ci-{self.runs}"
        git(self.root, "clone", "--quiet", str(self.origin), str(clone))
        return clone


def announce_in(clone, env, now, **popen):
    return subprocess.Popen(
        [str(SHIPLOG), "announce", "--now", now, "--state-branch", "shiplog-state"],
        cwd=clone, env={"PATH": os.environ["PATH"], **env},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def finish(process):
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, out + err
    return out


def got(log, start):
    """Deliveries per receiver since `start` (the log's lengths then), by entry id."""
    hooks = [payload["entry"]["id"] for _, payload in log.of("exact")[start["exact"]:]]
    slack = [payload["blocks"][0]["text"]["text"] for _, payload in log.of("slack")[start["slack"]:]]
    return collections.Counter(hooks), collections.Counter(slack)


def test_each_entry_once_over_pushes_and_timer_runs_on_fresh_machines(world, tmp_path):
    log = world["log"]
    env = receivers_env(world)
    start = {"exact": len(log.of("exact")), "slack": len(log.of("slack"))}
    repo = Repository(tmp_path)
    write_entry(repo.org, "one", "One", "2026-11-01")
    repo.push("first entry")
    assert "first run: 1 published entry" in finish(announce_in(repo.fresh_clone(), env, "2026-11-02T00:00:00Z"))

    steps = [
        # (entries pushed before the run, the run's time)
        ([("two", "Two", "2026-11-03"), ("three", "Three", "2026-11-04"), ("later", "Later", "2026-11-10")],
         "2026-11-05T00:00:00Z"),
        ([], "2026-11-06T00:00:00Z"),          # an hourly timer run, nothing new
        ([("four", "Four", "2026-11-07")], "2026-11-08T00:00:00Z"),
        ([], "2026-11-10T01:00:00Z"),          # the timer finds the scheduled entry due
        ([], "2026-11-10T02:00:00Z"),
    ]
    for pushed, now in steps:
        for name, title, date in pushed:
            write_entry(repo.org, name, title, date)
        if pushed:
            repo.push("entries")
        finish(announce_in(repo.fresh_clone(), env, now))
    hooks, slack = got(log, start)
    expected = {"two": 1, "three": 1, "four": 1, "later": 1}
    assert dict(hooks) == expected, hooks
    assert dict(slack) == {"Two": 1, "Three": 1, "Four": 1, "Later": 1}, slack


def test_kills_at_random_points_lose_and_repeat_nothing(world, tmp_path):
    log = world["log"]
    # Receivers that work 50 ms on each delivery, as a real service does.
    env = receivers_env(world, work=50)
    repo = Repository(tmp_path)
    write_entry(repo.org, "seed", "Seed", "2026-10-01")
    repo.push("seed")
    finish(announce_in(repo.fresh_clone(), env, "2026-10-02T00:00:00Z"))
    for number in range(25):
        write_entry(repo.org, f"entry-{number:02}", f"Entry {number:02}", f"2026-11-{number + 1:02}")
    repo.push("25 entries")
    start = {"exact": len(log.of("exact")), "slack": len(log.of("slack"))}
    clone = repo.fresh_clone()
    rng = random.Random(int(os.environ.get("KILL_SEED", time.time_ns())))
    kills = []
    # Each run is killed a random time after it starts (it needs about 60 ms before its
    # first delivery, then some 55 ms a delivery), and the next one carries on in the same
    # clone, as a retried CI step would; the 21st runs to its end.
    while len(kills) < 20:
        process = announce_in(clone, env, "2026-12-01T00:00:00Z")
        point = rng.uniform(0.03, 0.15)
        try:
            process.wait(timeout=point)
            process.communicate()
            break
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.communicate()
            kills.append(round(point, 3))
    finish(announce_in(clone, env, "2026-12-01T00:00:00Z"))
    hooks, slack = got(log, start)
    ids = collections.Counter(key for key, _ in log.of("exact")[start["exact"]:])
    names = [f"entry-{n:02}" for n in range(25)]
    report = {
        "deliveries_received": sum(hooks.values()) + sum(slack.values()),
        "kills": len(kills),
        "kill_points_s": kills,
        "lost": sum(1 for n in names if hooks[n] == 0) + sum(1 for n in names if slack[f"Entry {n[6:]}"] == 0),
        # Repeats as received; a Standard Webhooks receiver drops the webhook's by its id.
        "webhook_repeats_received": sum(c - 1 for c in hooks.values() if c > 1),
        "slack_repeats": sum(c - 1 for c in slack.values() if c > 1),
    }
    print("kill test:", json.dumps(report))
    Path(os.environ.get("KILL_REPORT", tmp_path / "kill-report.json")).write_text(json.dumps(report))
    assert len(kills) == 20, f"the run ended before its 20th kill: {report}"
    assert report["lost"] == 0, report
    assert len(ids) == 25 and set(hooks) == set(names), "one webhook-id per entry, whatever was repeated"
    assert report["slack_repeats"] == 0 and report["webhook_repeats_received"] == 0, report


def test_two_runs_at_once_on_one_machine_take_turns(world, tmp_path):
    log = world["log"]
    env = receivers_env(world, work=30)
    repo = Repository(tmp_path)
    write_entry(repo.org, "seed", "Seed", "2026-10-01")
    repo.push("seed")
    clone = repo.fresh_clone()
    finish(announce_in(clone, env, "2026-10-02T00:00:00Z"))
    for number in range(5):
        write_entry(clone / "content" / "acme", f"both-{number}", f"Both {number}", f"2026-11-0{number + 1}")
    start = {"exact": len(log.of("exact")), "slack": len(log.of("slack"))}
    first = announce_in(clone, env, "2026-12-01T00:00:00Z")
    second = announce_in(clone, env, "2026-12-01T00:00:00Z")
    finish(first)
    finish(second)
    hooks, slack = got(log, start)
    assert dict(hooks) == {f"both-{n}": 1 for n in range(5)}, hooks
    assert sum(slack.values()) == 5


def test_a_branch_of_code_is_never_taken_for_the_journal(world, tmp_path):
    repo = Repository(tmp_path)
    write_entry(repo.org, "seed", "Seed", "2026-10-01")
    repo.push("seed")
    clone = repo.fresh_clone()
    process = subprocess.run([str(SHIPLOG), "announce", "--state-branch", "main"], cwd=clone,
                             capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    assert process.returncode == 2, process.stderr
    assert "the branch `main` holds other files than announce.jsonl" in process.stderr
    git(clone, "fetch", "--quiet", "origin")
    files = subprocess.run(["git", "ls-tree", "-r", "--name-only", "origin/main"], cwd=clone,
                           capture_output=True, text=True).stdout.split()
    assert "content/acme/seed.md" in files
