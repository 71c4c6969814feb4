#!/usr/bin/env python3
"""Content edits under load, for scripts/bench-api.sh.

  reload_edits.py --addr HOST:PORT --key KEY --entry FILE --scratch DIR [--edits 100]
                  [--within 1.0]

Changes the title of the entry FILE (whose org the key reads) EDITS times. Each edit is
written whole to a file in DIR (outside the content folder, on the same file system) and
renamed over FILE, as editors save; then the listing
(`limit=100`, so the whole org of the benchmark corpus) is polled on one kept-alive
connection until it holds the new title, and the time from the rename to the first response
with it is recorded. The next edit starts once the last one is visible (at most 30 s).

Prints one line: `edits visible late max_s median_s non2xx`, where late counts the edits
that took longer than WITHIN seconds and non2xx the poller's own responses that were not
200. Exits 1 if an edit never became visible.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import sys
import time

GIVE_UP = 30.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--addr", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--entry", required=True)
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--within", type=float, default=1.0)
    args = parser.parse_args()

    host, port = args.addr.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    headers = {"Authorization": f"Bearer {args.key}"}
    non2xx = 0

    def titles() -> set[str]:
        nonlocal connection, non2xx
        try:
            connection.request("GET", "/api/v1/changelogs?page=1&limit=100", headers=headers)
            response = connection.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            # The server closed the kept-alive connection: open another.
            connection.close()
            connection = http.client.HTTPConnection(host, int(port), timeout=10)
            return set()
        if response.status != 200:
            non2xx += 1
            return set()
        return {item["title"] for item in json.loads(body)["data"]}

    with open(args.entry, encoding="utf-8") as f:
        original = f.read()
    if not re.search(r"^title: .*$", original, flags=re.M):
        sys.exit(f"{args.entry}: no `title:` line to edit")
    delays = []
    try:
        for n in range(1, args.edits + 1):
            title = f"Reload under load, edit {n} of {args.edits} ({os.getpid()})"
            text = re.sub(r"^title: .*$", f'title: "{title}"', original, count=1, flags=re.M)
            temporary = os.path.join(args.scratch, "edited-entry.md")
            with open(temporary, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(temporary, args.entry)
            written = time.monotonic()
            while title not in titles():
                if time.monotonic() - written > GIVE_UP:
                    print(f"edit {n} not visible after {GIVE_UP:.0f} s", file=sys.stderr)
                    return 1
                time.sleep(0.005)
            delays.append(time.monotonic() - written)
    finally:
        with open(args.entry, "w", encoding="utf-8") as f:
            f.write(original)
    late = sum(1 for d in delays if d > args.within)
    print(f"{len(delays)} {late} {max(delays):.3f} {statistics.median(delays):.3f} {non2xx}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
