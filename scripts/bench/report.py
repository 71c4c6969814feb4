#!/usr/bin/env python3
"""Measurements and Markdown tables for scripts/bench-build.sh.

  report.py record TIME_FILE LABEL RESULTS_TSV BUSY(0|1)
      Reads the output of `/usr/bin/time -v -o TIME_FILE` and appends one line to
      RESULTS_TSV: label, wall seconds, peak RSS in KiB, user and system CPU seconds, and
      whether the machine was busy with other work when the run started.
  report.py compare RESULTS_TSV SHIPLOG_LABEL HUGO_LABEL SHIPLOG_FILES HUGO_FILES TITLE
  report.py scale RESULTS_TSV BASE_LABEL BASE_FILES BASE_NAME BIG_LABEL BIG_FILES BIG_NAME
  report.py incremental RESULTS_TSV COLD_LABEL EDIT_LABEL IDENTICAL(yes|no)
      Print a Markdown table of the medians of the runs recorded under each label.
  report.py split RESULTS_TSV SMALL_NAME SMALL_ENTRIES BIG_NAME BIG_ENTRIES (ROW_NAME SMALL_LABEL BIG_LABEL)...
      Print, for each row, the medians of the small and the big runs and their ratios: wall
      time, user CPU time and system CPU time.
"""

from __future__ import annotations

import statistics
import sys


def parse_time(path: str) -> tuple[float, int, float, float]:
    wall = rss = None
    user = system = 0.0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("Elapsed (wall clock) time"):
                value = line.rsplit(": ", 1)[1]
                seconds = 0.0
                for part in value.split(":"):
                    seconds = seconds * 60 + float(part)
                wall = seconds
            elif line.startswith("Maximum resident set size"):
                rss = int(line.rsplit(": ", 1)[1])
            elif line.startswith("User time (seconds)"):
                user = float(line.rsplit(": ", 1)[1])
            elif line.startswith("System time (seconds)"):
                system = float(line.rsplit(": ", 1)[1])
            elif line.startswith("Exit status") and not line.endswith(": 0"):
                sys.exit(f"{path}: the measured command failed ({line})")
    if wall is None or rss is None:
        sys.exit(f"{path}: not the output of /usr/bin/time -v")
    return wall, rss, user, system


BUSY: dict[str, int] = {}


def load(path: str) -> dict[str, list[tuple[float, int, float, float]]]:
    runs: dict[str, list[tuple[float, int, float, float]]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            label, wall, rss, user, system, busy = line.rstrip("\n").split("\t")
            runs.setdefault(label, []).append((float(wall), int(rss), float(user), float(system)))
            BUSY[label] = BUSY.get(label, 0) + int(busy)
    return runs


def busy_note(*labels: str) -> None:
    busy = sum(BUSY.get(label, 0) for label in labels)
    if busy:
        print(f"\nNote: {busy} of these runs started while other work kept the CPUs busy: "
              "their times are less reliable.")


def medians(runs: dict, label: str) -> tuple[float, float, float, list[float]]:
    """Median wall time, peak RSS and CPU time of a label's runs, and each run's wall time."""
    if label not in runs:
        sys.exit(f"no runs recorded for {label}")
    rows = runs[label]
    return (
        statistics.median(r[0] for r in rows),
        statistics.median(r[1] for r in rows),
        statistics.median(r[2] + r[3] for r in rows),
        [r[0] for r in rows],
    )


def median_cpu(runs: dict, label: str) -> tuple[float, float]:
    """Median user and system CPU time of a label's runs."""
    rows = runs[label]
    return statistics.median(r[2] for r in rows), statistics.median(r[3] for r in rows)


def cpu_split(runs: dict, label: str) -> str:
    """Median user and system CPU time: `2.1 + 5.3 s`."""
    user, system = median_cpu(runs, label)
    return f"{user:.2f} + {system:.2f} s"


def secs(value: float) -> str:
    return f"{value:.2f} s"


def mib(kib: float) -> str:
    return f"{kib / 1024:,.0f} MiB"


def count(text: str) -> str:
    return f"{int(text):,}"


def each(walls: list[float]) -> str:
    return ", ".join(f"{w:.2f}" for w in walls)


def compare(args: list[str]) -> None:
    path, ship, hugo, ship_files, hugo_files, title = args
    runs = load(path)
    s_wall, s_rss, s_cpu, s_each = medians(runs, ship)
    h_wall, h_rss, h_cpu, h_each = medians(runs, hugo)
    print(f"{title}\n")
    print("| generator | files written | median wall time | median peak memory (RSS) | median CPU time | CPU user + system | each run (s) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    print(f"| shiplog | {count(ship_files)} | {secs(s_wall)} | {mib(s_rss)} | {secs(s_cpu)} | {cpu_split(runs, ship)} | {each(s_each)} |")
    print(f"| Hugo 0.168.0 | {count(hugo_files)} | {secs(h_wall)} | {mib(h_rss)} | {secs(h_cpu)} | {cpu_split(runs, hugo)} | {each(h_each)} |")
    print(f"| **Hugo / shiplog** | | **{h_wall / s_wall:.2f}×** | **{h_rss / s_rss:.2f}×** | {h_cpu / s_cpu:.2f}× | | |")
    busy_note(ship, hugo)


def scale(args: list[str]) -> None:
    path, base, base_files, base_name, big, big_files, big_name = args
    runs = load(path)
    b_wall, b_rss, b_cpu, b_each = medians(runs, base)
    g_wall, g_rss, g_cpu, g_each = medians(runs, big)
    print("| shiplog corpus | files written | median wall time | median peak memory (RSS) | median CPU time | CPU user + system | time vs the smaller corpus | each run (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    print(f"| {base_name} | {count(base_files)} | {secs(b_wall)} | {mib(b_rss)} | {secs(b_cpu)} | {cpu_split(runs, base)} | 1.00× | {each(b_each)} |")
    print(f"| {big_name} | {count(big_files)} | {secs(g_wall)} | {mib(g_rss)} | {secs(g_cpu)} | {cpu_split(runs, big)} | **{g_wall / b_wall:.2f}×** | {each(g_each)} |")
    busy_note(base, big)


def incremental(args: list[str]) -> None:
    path, cold, edit, identical, files, rewritten = args
    runs = load(path)
    c_wall, c_rss, _, c_each = medians(runs, cold)
    e_wall, e_rss, _, e_each = medians(runs, edit)
    print("| shiplog build | median wall time | median peak memory (RSS) | CPU user + system | % of the cold build's time | each run (s) |")
    print("|---|---:|---:|---:|---:|---|")
    print(f"| cold (no output folder, no cache) | {secs(c_wall)} | {mib(c_rss)} | {cpu_split(runs, cold)} | 100 % | {each(c_each)} |")
    print(f"| again after appending a line to one entry | {secs(e_wall)} | {mib(e_rss)} | {cpu_split(runs, edit)} | **{100 * e_wall / c_wall:.0f} %** | {each(e_each)} |")
    print(f"\nOutput identical (`diff -r`) to a cold build of the edited content: **{identical}**")
    print(f"\nFiles rewritten by each build after the edit (of {count(files)}): {', '.join(rewritten.split())}")
    busy_note(cold, edit)


def split(args: list[str]) -> None:
    if len(args) < 8 or (len(args) - 5) % 3:
        sys.exit(__doc__)
    path, small_name, small_entries, big_name, big_entries, *rows = args
    runs = load(path)
    linear = int(big_entries) / int(small_entries)
    print(f"What each part costs on {big_name} against {small_name} (medians; linear is "
          f"{linear:.3g}×):\n")
    print(f"| run | wall time, {small_name} | wall time, {big_name} | wall time ratio | user CPU ratio | system CPU ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    labels = []
    for name, small, big in zip(rows[::3], rows[1::3], rows[2::3]):
        s_wall, _, _, _ = medians(runs, small)
        b_wall, _, _, _ = medians(runs, big)
        s_user, s_sys = median_cpu(runs, small)
        b_user, b_sys = median_cpu(runs, big)
        print(f"| {name} | {secs(s_wall)} | {secs(b_wall)} | **{ratio(s_wall, b_wall)}** | "
              f"{ratio(s_user, b_user)} | {ratio(s_sys, b_sys)} |")
        labels += [small, big]
    busy_note(*labels)


def ratio(small: float, big: float) -> str:
    """`big / small` as `10.12×`, or `—` where the small run's time is too short to divide by
    (under 0.1 s: /usr/bin/time counts in hundredths)."""
    return f"{big / small:.2f}×" if small >= 0.1 else "—"


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    command, args = sys.argv[1], sys.argv[2:]
    if command == "record":
        time_file, label, results, busy = args
        wall, rss, user, system = parse_time(time_file)
        with open(results, "a", encoding="utf-8") as f:
            f.write(f"{label}\t{wall}\t{rss}\t{user}\t{system}\t{int(busy)}\n")
        flag = " (machine busy)" if busy == "1" else ""
        print(f"{wall:.2f} s, {mib(rss)}, CPU {user:.2f} user + {system:.2f} sys{flag}")
    elif command == "compare":
        compare(args)
    elif command == "scale":
        scale(args)
    elif command == "incremental":
        incremental(args)
    elif command == "split":
        split(args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
