#!/usr/bin/env bash
# The changelog search's keystroke latency against a plain text box on the same page, side
# by side in one run: an org of 1,000 entries (scripts/bench/corpus.py) whose page 1 gets a
# query typed a key at a time with the CPU slowed down four times; prints each run and the
# medians of both, and their ratio. Needs what tests/browser/run.sh installs (Chromium,
# tests/browser/node_modules).
#
#   bash scripts/bench-search.sh [RUNS]       (default 5)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUNS=${1:-5}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench-search: RUNS must be a number" >&2; exit 2; }
CORPUS=target/bench/search-corpus
PUBLIC=target/bench/search-public
ORG_URL='http://{org}.localhost:47832'
mkdir -p target/bench
python3 scripts/bench/corpus.py --orgs 1 --entries 1000 --shiplog "$CORPUS" >/dev/null
printf 'org_url: %s\nfeed_limit: 1000\n' "$ORG_URL" >"$CORPUS/bench.yaml"
cargo build --release --quiet --bin shiplog
rm -rf "$PUBLIC"
target/release/shiplog generate --content "$CORPUS/content" --config "$CORPUS/bench.yaml" \
    --output "$PUBLIC" --now 2026-11-21T00:00:00Z --quiet
node scripts/bench/search_keys.mjs "$PUBLIC" "$ORG_URL" "$RUNS" | tee target/bench/search-keys.jsonl
python3 - target/bench/search-keys.jsonl <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
def med(box, key):
    return statistics.median(run[box][key] for run in runs)
print()
print("| text box | median keystroke (ms) | worst keystroke, median of runs (ms) |")
print("|---|---:|---:|")
for box in ("plain", "search"):
    print(f"| {box} | {med(box, 'median'):.0f} | {med(box, 'worst'):.0f} |")
print(f"| search's own script per key | {med('search', 'script_median'):.1f} | {med('search', 'script_worst'):.1f} |")
print(f"| **search / plain** | **{med('search', 'median') / med('plain', 'median'):.2f}x** | "
      f"**{med('search', 'worst') / med('plain', 'worst'):.2f}x** |")
PY
