#!/usr/bin/env python3
"""Measurements and Markdown tables for scripts/bench-api.sh.

  wrk_report.py record WRK_OUTPUT LABEL RESULTS_TSV BUSY(0|1)
      Reads the output of `wrk --latency` and appends one line to RESULTS_TSV: label,
      requests/s, p50 and p99 latency in microseconds, responses that were not 2xx, socket
      errors, requests, and whether the machine was busy when the run started. Prints a
      one-line summary.
  wrk_report.py compare RESULTS_TSV TITLE (NAME API_LABEL NGINX_LABEL)...
      A table with rows api, nginx and their ratio per
      case (medians of the runs), and whether the targets hold: requests/s at least 1.0x
      nginx's, p99 at most 1.5x nginx's, no errors.
  wrk_report.py keys RESULTS_TSV TITLE ONE_LABEL THOUSAND_LABEL
      One key against 1,000 keys in the keys file.
  wrk_report.py filters RESULTS_TSV TITLE (NAME LABEL)...
      Filtered listings: whether each holds p99 <= 5 ms and >= 20,000 requests/s, 0 errors.
  wrk_report.py redis RESULTS_TSV TITLE LOCAL_LABEL REDIS_LABEL
      Shared rate limits against per-copy counting: requests/s at least 0.8x, p99 at most
      2 ms more.
  wrk_report.py single RESULTS_TSV LABEL
      The median figures of LABEL as `req/s p50 p99 non2xx socket_errors`, for the shell.
"""

from __future__ import annotations

import re
import statistics
import sys

UNITS = {"us": 1.0, "ms": 1e3, "s": 1e6}


def micros(text: str) -> float:
    match = re.fullmatch(r"([0-9.]+)(us|ms|s)", text)
    if not match:
        sys.exit(f"not a wrk latency: {text!r}")
    return float(match.group(1)) * UNITS[match.group(2)]


def parse_wrk(path: str) -> tuple[float, float, float, int, int, int]:
    rps = p50 = p99 = None
    non2xx = socket_errors = requests = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("Requests/sec:"):
                rps = float(line.split()[1])
            elif line.startswith("50%"):
                p50 = micros(line.split()[1])
            elif line.startswith("99%"):
                p99 = micros(line.split()[1])
            elif line.startswith("Non-2xx or 3xx responses:"):
                non2xx = int(line.split(":")[1])
            elif line.startswith("Socket errors:"):
                socket_errors = sum(int(n) for n in re.findall(r"\d+", line))
            elif re.match(r"\d+ requests in ", line):
                requests = int(line.split()[0])
    if rps is None or p50 is None or p99 is None:
        sys.exit(f"{path}: not the output of wrk --latency")
    return rps, p50, p99, non2xx, socket_errors, requests


def load(path: str) -> tuple[dict[str, list[tuple[float, ...]]], dict[str, int]]:
    runs: dict[str, list[tuple[float, ...]]] = {}
    busy: dict[str, int] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            label, *values, was_busy = line.rstrip("\n").split("\t")
            runs.setdefault(label, []).append(tuple(float(v) for v in values))
            busy[label] = busy.get(label, 0) + int(was_busy)
    return runs, busy


def median(runs: list[tuple[float, ...]]) -> tuple[float, float, float, int, int, int]:
    """Median requests/s and latencies; errors and requests summed over the runs."""
    return (
        statistics.median(r[0] for r in runs),
        statistics.median(r[1] for r in runs),
        statistics.median(r[2] for r in runs),
        int(sum(r[3] for r in runs)),
        int(sum(r[4] for r in runs)),
        int(sum(r[5] for r in runs)),
    )


def latency(us: float) -> str:
    return f"{us / 1e3:.2f} ms"


def errors(non2xx: int, socket_errors: int) -> str:
    return f"{non2xx:,}" + (f" (+{socket_errors:,} socket errors)" if socket_errors else "")


def require(runs: dict[str, list[tuple[float, ...]]], label: str) -> list[tuple[float, ...]]:
    if label not in runs:
        sys.exit(f"no runs recorded as {label}")
    return runs[label]


def compare(results: str, title: str, cases: list[tuple[str, str, str]]) -> None:
    runs, busy = load(results)
    print(title)
    print()
    print("| case | server | requests/s | p50 | p99 | non-2xx | target |")
    print("|---|---|---:|---:|---:|---:|---|")
    all_hold = True
    noisy = []
    for name, api_label, nginx_label in cases:
        api = median(require(runs, api_label))
        nginx = median(require(runs, nginx_label))
        n_runs = len(runs[api_label])
        for server, m in (("shiplog-api", api), ("nginx", nginx)):
            print(f"| {name} | {server} | {m[0]:,.0f} | {latency(m[1])} | {latency(m[2])} "
                  f"| {errors(m[3], m[4])} | |")
        rps_ratio = api[0] / nginx[0]
        p50_ratio = api[1] / nginx[1]
        p99_ratio = api[2] / nginx[2]
        holds = rps_ratio >= 1.0 and p99_ratio <= 1.5 and api[3] + api[4] == 0
        all_hold &= holds
        verdict = "holds" if holds else "**missed**"
        print(f"| {name} | **api / nginx** | **{rps_ratio:.2f}x** | {p50_ratio:.2f}x "
              f"| **{p99_ratio:.2f}x** | | {verdict} (≥ 1.0x, ≤ 1.5x, 0 errors) |")
        if busy.get(api_label, 0) + busy.get(nginx_label, 0):
            noisy.append(name)
    print()
    print(f"Medians of {n_runs} runs each, alternating shiplog-api and nginx. "
          + ("All targets hold." if all_hold else "Not every target holds."))
    if noisy:
        print(f"Note: the machine was busy with other work when some runs of {', '.join(noisy)} started.")


def keys(results: str, title: str, one_label: str, thousand_label: str) -> None:
    runs, _ = load(results)
    one = median(require(runs, one_label))
    thousand = median(require(runs, thousand_label))
    print(title)
    print()
    print("| keys in the keys file | requests/s | p50 | p99 | non-2xx |")
    print("|---|---:|---:|---:|---:|")
    for name, m in (("1", one), ("1,000", thousand)):
        print(f"| {name} | {m[0]:,.0f} | {latency(m[1])} | {latency(m[2])} | {errors(m[3], m[4])} |")
    print(f"| **1,000 / 1** | **{thousand[0] / one[0]:.2f}x** | {thousand[1] / one[1]:.2f}x "
          f"| {thousand[2] / one[2]:.2f}x | |")


def filters(results: str, title: str, cases: list[tuple[str, str]]) -> None:
    runs, busy = load(results)
    print(title)
    print()
    print("| query | requests/s | p50 | p99 | non-2xx | target (≥ 20,000 req/s, p99 ≤ 5 ms) |")
    print("|---|---:|---:|---:|---:|---|")
    for name, label in cases:
        m = median(require(runs, label))
        holds = m[0] >= 20_000 and m[2] <= 5_000 and m[3] + m[4] == 0
        flag = " (machine busy)" if busy.get(label) else ""
        print(f"| {name} | {m[0]:,.0f} | {latency(m[1])} | {latency(m[2])} | {errors(m[3], m[4])} "
              f"| {'holds' if holds else '**missed**'}{flag} |")


def redis(results: str, title: str, local_label: str, redis_label: str) -> None:
    runs, _ = load(results)
    local = median(require(runs, local_label))
    shared = median(require(runs, redis_label))
    print(title)
    print()
    print("| rate limits counted | requests/s | p50 | p99 | non-2xx |")
    print("|---|---:|---:|---:|---:|")
    for name, m in (("by the copy (no --redis)", local), ("in Redis (--redis)", shared)):
        print(f"| {name} | {m[0]:,.0f} | {latency(m[1])} | {latency(m[2])} | {errors(m[3], m[4])} |")
    ratio = shared[0] / local[0]
    added = (shared[2] - local[2]) / 1e3
    holds = ratio >= 0.8 and added <= 2.0 and shared[3] + shared[4] == 0
    print(f"| **Redis / copy** | **{ratio:.2f}x** | {shared[1] / local[1]:.2f}x | **{added:+.2f} ms** "
          f"| {'holds' if holds else '**missed**'} (≥ 0.8x, ≤ +2 ms) |")


def main() -> int:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    command, args = sys.argv[1], sys.argv[2:]
    if command == "record" and len(args) == 4:
        wrk_output, label, results, was_busy = args
        rps, p50, p99, non2xx, socket_errors, requests = parse_wrk(wrk_output)
        with open(results, "a", encoding="utf-8") as f:
            f.write(f"{label}\t{rps}\t{p50}\t{p99}\t{non2xx}\t{socket_errors}\t{requests}\t{was_busy}\n")
        flag = " (machine busy)" if was_busy == "1" else ""
        print(f"{rps:>10,.0f} req/s  p50 {latency(p50):>9}  p99 {latency(p99):>9}  "
              f"non-2xx {errors(non2xx, socket_errors)}{flag}")
    elif command == "compare" and len(args) >= 5 and len(args) % 3 == 2:
        triples = args[2:]
        compare(args[0], args[1], [tuple(triples[i:i + 3]) for i in range(0, len(triples), 3)])
    elif command == "keys" and len(args) == 4:
        keys(*args)
    elif command == "filters" and len(args) >= 4 and len(args) % 2 == 0:
        pairs = args[2:]
        filters(args[0], args[1], [tuple(pairs[i:i + 2]) for i in range(0, len(pairs), 2)])
    elif command == "redis" and len(args) == 4:
        redis(*args)
    elif command == "single" and len(args) == 2:
        runs, _ = load(args[0])
        m = median(require(runs, args[1]))
        print(f"{m[0]:.0f} {m[1]:.0f} {m[2]:.0f} {m[3]} {m[4]}")
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
