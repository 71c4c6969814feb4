#!/usr/bin/env python3
"""Where shiplog's CPU time goes, from `perf script` output (see scripts/bench-build.sh --profile).

  perf_stages.py PERF_SCRIPT_OUTPUT

The input is `perf script -F comm,tid,time,ip,sym` of a `perf record -e cpu-clock
--call-graph dwarf` of one `shiplog generate`. Each sample is charged to the innermost frame
of its stack that belongs to a known stage (so time in malloc, memcpy or the kernel counts
for the stage that called it). Prints two Markdown tables: the stages, largest first, and
the three phases of a build (load, render in memory, write) with the stretch of wall-clock
time each took, from the samples' timestamps.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

# (stage, frame pattern, pattern some frame of the stack must also match). Each sample is
# checked from the innermost frame outwards; within a frame, rules in this order.
RULES = [
    ("sanitizing HTML (ammonia, html5ever)", r"ammonia::|html5ever::|markup5ever|tendril::", None),
    ("Markdown to HTML (pulldown-cmark, shiplog's link handling, url)",
     r"pulldown_cmark::|shiplog::content::markdown|\burl::|idna::", None),
    ("YAML front matter and _org.yaml (serde_yaml)",
     r"serde_yaml::|unsafe_libyaml::|shiplog::yaml::|front_matter", None),
    ("RSS feeds (rss crate, quick-xml)", r"\brss::|quick_xml::|shiplog::render::rss", None),
    ("JSON feeds (serde_json)", r"serde_json::|shiplog::render::json_feed", r"shiplog::render::json_feed"),
    ("templating: `scrollable` filter on entry HTML", r"scroll_regions|scrollable_filter", None),
    ("templating: tera rendering", r"\btera::|\bpest::", None),
    ("templating: building the context (views, serde_json::Value, escaping)",
     r"serde_json::|shiplog::render::page::|shiplog::render::tags::", None),
    ("removing the previous output tree", r"remove_dir_all", None),
    ("writing files into the staging folder (mkdir, open, write)",
     r"write_tree|std::fs::write|create_dir_all|fs::DirBuilder", None),
    ("reading content files (walkdir, open, read)",
     r"walkdir::|std::fs::read|read_to_string|org_files|org_folders", None),
    ("dates (chrono)", r"\bchrono::", None),
    ("other shiplog code (index, sorting, collecting, freeing)", r"\bshiplog::", None),
]
COMPILED = [
    (name, re.compile(pattern), re.compile(within) if within else None)
    for name, pattern, within in RULES
]


HEADER_TIME = re.compile(r"\s(\d+\.\d+):")

PHASES = [
    ("load: read, parse front matter, Markdown, sanitize",
     ("reading", "YAML", "Markdown", "sanitizing")),
    ("render in memory: templates and feeds", ("templating", "RSS", "JSON")),
    ("write: staging folder and swap", ("writing", "removing")),
]


def samples(path: str):
    """Yields (time or None, stack innermost first) for each sample."""
    stack: list[str] = []
    when = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if stack:
                    yield when, stack
                stack = []
            elif line.startswith(("\t", " ")):
                parts = line.strip().split(None, 1)
                stack.append(parts[1] if len(parts) > 1 else "")
            else:  # the sample's header line: command, thread, time
                found = HEADER_TIME.search(line)
                when = float(found.group(1)) if found else None
    if stack:
        yield when, stack


def stage_of(stack: list[str]) -> str:
    for frame in stack:  # innermost first
        for name, pattern, within in COMPILED:
            if pattern.search(frame) and (
                within is None or any(within.search(f) for f in stack)
            ):
                return name
    if any("[unknown]" in frame for frame in stack) or len(stack) < 3:
        return "unattributed (stack not unwound)"
    return "other (runtime start-up, rayon, allocator outside a stage)"


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    counts: Counter[str] = Counter()
    kernel: Counter[str] = Counter()
    times: dict[str, list[float]] = {}
    total = 0
    for when, stack in samples(sys.argv[1]):
        total += 1
        name = stage_of(stack)
        counts[name] += 1
        # System calls and page faults.
        if any(frame.startswith(("entry_SYSCALL", "asm_exc_page_fault")) for frame in stack):
            kernel[name] += 1
        if when is not None:
            for phase, prefixes in PHASES:
                if name.startswith(prefixes):
                    times.setdefault(phase, []).append(when)
    if not total:
        sys.exit("no samples")
    print(f"CPU time by stage ({total:,} samples of one cold build):\n")
    print("| stage | share of CPU time | of which in the kernel (system calls, page faults) |")
    print("|---|---:|---:|")
    for name, n in counts.most_common():
        print(f"| {name} | {100 * n / total:.1f} % | {100 * kernel[name] / total:.1f} % |")
    if not times:
        return
    start = min(min(t) for t in times.values())
    end = max(max(t) for t in times.values())
    print("\nPhases (wall-clock stretch: 1st to 99th percentile of the phase's sample times):\n")
    print("| phase | share of CPU time | wall-clock stretch | share of the run |")
    print("|---|---:|---:|---:|")
    for phase, _ in PHASES:
        stamps = sorted(times.get(phase, []))
        if not stamps:
            continue
        first = stamps[len(stamps) // 100]
        last = stamps[len(stamps) * 99 // 100]
        print(f"| {phase} | {100 * len(stamps) / total:.1f} % | {first - start:.2f} s to "
              f"{last - start:.2f} s | {100 * (last - first) / (end - start):.0f} % |")


if __name__ == "__main__":
    main()
