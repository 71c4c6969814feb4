#!/usr/bin/env bash
# Soak: 60 s of load on a release shiplog-api while its content changes all the time.
#
# A synthetic corpus (scripts/bench/corpus.py: 20 organizations of 250 entries) is served
# with a key for org-000. wrk sends GET /api/v1/changelogs with random page (1-15) and limit
# (1-100) on 16 connections, while an editor rewrites an entry of org-000 every 0.1 s and adds
# or deletes one every 0.5 s (each file written aside and renamed in, as editors and git do),
# so the server re-reads and swaps its index continuously. Passes when:
#
# * every response was 2xx, with no socket error (connect, read, write, timeout);
# * the content was really reloaded all along (at least SOAK_SECONDS / 6 reloads), no reload
#   failed, the last one succeeded, and nothing was logged at level error;
# * resident memory does not grow: VmRSS is sampled once a second; after a 10 s warm-up the
#   samples are cut into two halves, and the highest of the second half must be at most 10%
#   above the highest of the first (the server hands memory back after each reload, so the
#   samples swing by half; a leak raises the peaks, and a peak over half the run is steady
#   where one over 10 s is not). A lower peak in the second half is memory handed back, not
#   a leak: one reload's passing spike in the first half made it 12% lower once. All samples
#   are printed.
#
# Usage: bash scripts/soak.sh   (SOAK_SECONDS=60 by default; installs wrk with apt-get when
# missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/api-server.sh

seconds=${SOAK_SECONDS:-60}
warmup=10
window=10  # the fewest memory samples in each half of the run
if ((seconds < warmup + 2 * window)); then
    echo "SOAK_SECONDS must be at least $((warmup + 2 * window))" >&2
    exit 2
fi

if ! command -v wrk >/dev/null; then
    echo "installing wrk"
    if [[ $(id -u) == 0 ]]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq && $sudo apt-get install -y -qq wrk >/dev/null
fi

cargo build --quiet --release --bin shiplog-api
work=$(mktemp -d)
editor_pid=""
sampler_pid=""
cleanup() {
    [[ -n $editor_pid ]] && kill "$editor_pid" 2>/dev/null || true
    [[ -n $sampler_pid ]] && kill "$sampler_pid" 2>/dev/null || true
    stop_api
    rm -rf "$work"
}
trap cleanup EXIT

python3 scripts/bench/corpus.py --orgs 20 --entries 250 --shiplog "$work/site" >/dev/null
key=$(write_key_file "$work/keys.yaml" org-000)
start_api target/release/shiplog-api "$work/server.log" \
    --content "$work/site/content" --config "$work/site/shiplog.yaml" --keys "$work/keys.yaml"
echo "shiplog-api at $API_ADDR (pid $API_PID), $(find "$work/site/content" -name '*.md' | wc -l) entries"

# The editor: valid changes only, each file complete when it appears.
org=$work/site/content/org-000
mkdir -p "$work/aside"
edit_content() {
    local n=0 victim date
    while true; do
        n=$((n + 1))
        victim=$(find "$org" -name '*.md' | sort | sed -n "$((n % 200 + 1))p")
        { cat "$victim"; printf '\nEdited in the soak, pass %d.\n' "$n"; } >"$work/aside/edit.md"
        mv "$work/aside/edit.md" "$victim"
        if ((n % 5 == 0)); then
            if [[ -e $org/soak-added.md ]]; then
                rm "$org/soak-added.md"
            else
                date=$(date -u +%Y-%m-%dT%H:%M:%SZ -d '1 hour ago')
                printf -- '---\ntitle: "Soak entry %d"\ndate: %s\ntags: [soak]\n---\nAdded by the soak.\n' \
                    "$n" "$date" >"$work/aside/added.md"
                mv "$work/aside/added.md" "$org/soak-added.md"
            fi
        fi
        sleep 0.1
    done
}
edit_content &
editor_pid=$!

# VmRSS in KiB once a second: "second kib".
sample_memory() {
    local t=0
    while true; do
        printf '%d %s\n' "$t" "$(awk '/^VmRSS:/ {print $2}' "/proc/$API_PID/status")"
        t=$((t + 1))
        sleep 1
    done >"$work/rss.txt"
}
sample_memory &
sampler_pid=$!

cat >"$work/load.lua" <<'LUA'
math.randomseed(8)
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SOAK_KEY")
request = function()
  local path = string.format("/api/v1/changelogs?page=%d&limit=%d", math.random(1, 15), math.random(1, 100))
  return wrk.format("GET", path)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests=%d non2xx=%d connect=%d read=%d write=%d timeout=%d p99_ms=%.1f\n",
    summary.requests, e.status, e.connect, e.read, e.write, e.timeout, latency:percentile(99) / 1000))
end
LUA
SOAK_KEY=$key wrk --threads 2 --connections 16 --duration "${seconds}s" --timeout 10s \
    --script "$work/load.lua" "http://$API_ADDR" | tee "$work/wrk.txt"

kill "$sampler_pid" "$editor_pid" 2>/dev/null || true
wait "$sampler_pid" "$editor_pid" 2>/dev/null || true
sampler_pid=""
editor_pid=""
# With the editor stopped, a SIGHUP reload must succeed: the server ends on a good index.
before=$(wc -l <"$work/server.log")
kill -HUP "$API_PID"
deadline=$((SECONDS + 30))
until tail -n +"$((before + 1))" "$work/server.log" | grep -q '"event":"content_reloaded"'; do
    if ((SECONDS > deadline)); then
        echo "no successful reload after the edits stopped"
        break
    fi
    sleep 0.1
done
stop_api

reloads=$(grep -c '"event":"content_reloaded"' "$work/server.log" || true)
errors=$(grep -c '"level":"error"' "$work/server.log" || true)
grep '"level":"error"' "$work/server.log" | head -5 || true
last_reload=$(grep -E '"event":"(content_reloaded|reload_failed)"' "$work/server.log" | tail -1)
if [[ $last_reload != *content_reloaded* ]]; then
    echo "the last reload failed: $last_reload"
    errors=$((errors + 1))
fi
failed_reloads=$errors

python3 - "$work/rss.txt" "$work/wrk.txt" "$seconds" "$warmup" "$window" "$reloads" "$failed_reloads" "$errors" <<'PY'
import re, sys
rss_file, wrk_file, seconds, warmup, window, reloads, failed, errors = sys.argv[1:]
seconds, warmup, window = int(seconds), int(warmup), int(window)
reloads, failed, errors = int(reloads), int(failed), int(errors)
samples = [tuple(map(int, line.split())) for line in open(rss_file) if len(line.split()) == 2]
print("VmRSS samples (s: MiB):", " ".join(f"{t}:{kib / 1024:.1f}" for t, kib in samples))
result = re.search(r"RESULT (.*)", open(wrk_file).read())
counts = dict(pair.split("=") for pair in result.group(1).split()) if result else {}
problems = []
if not counts:
    problems.append("wrk printed no result")
else:
    for name in ("non2xx", "connect", "read", "write", "timeout"):
        if int(counts[name]) != 0:
            problems.append(f"{counts[name]} {name} errors")
    if int(counts["requests"]) == 0:
        problems.append("no request was made")
if reloads < seconds // 6:  # the content must really change all along (about one reload a second when the machine is idle)
    problems.append(f"only {reloads} content reloads")
if failed:
    problems.append(f"{failed} reloads failed")
if errors and not failed:
    problems.append(f"{errors} log lines at level error")
after_warmup = [(t, kib) for t, kib in samples if t >= warmup]
if len(samples) < warmup + 2 * window or len(after_warmup) < 2 * window:
    problems.append(f"only {len(samples)} memory samples")
else:
    # The highest point of each half: the server hands memory back after every reload, so
    # the low points swing widely and say nothing about a leak, which raises the peaks.
    half = len(after_warmup) // 2
    first, second = after_warmup[:half], after_warmup[half:]
    baseline = max(kib for _, kib in first)
    end = max(kib for _, kib in second)
    change = (end - baseline) / baseline
    print(f"VmRSS highest of {first[0][0]}-{first[-1][0]} s {baseline / 1024:.1f} MiB, "
          f"of {second[0][0]}-{second[-1][0]} s {end / 1024:.1f} MiB: {change:+.1%}")
    if change > 0.10:
        problems.append(f"resident memory grew by {change:+.1%} (limit +10%)")
print(f"requests {counts.get('requests')}, non-2xx {counts.get('non2xx')}, p99 {counts.get('p99_ms')} ms, "
      f"content reloads {reloads}, failed reloads {failed}")
if problems:
    print("soak FAILED: " + "; ".join(problems))
    sys.exit(1)
print("soak passed")
PY
