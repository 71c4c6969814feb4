# Shell helpers shared by scripts/bench-build.sh and scripts/bench-api.sh (sourced, from the
# repository root). They read the caller's SEED (corpus seed) and IDLE_WAIT (seconds).

say() { printf '>> %s\n' "$*" >&2; }
fail() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }
fmt() { printf "%'d" "$1" 2>/dev/null || printf '%d' "$1"; }

as_root() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }

# make_corpus ORGS ENTRIES: the shiplog site of that size in $CORPUS, under
# target/bench/corpus/ (reused while the generator and the seed are the same).
make_corpus() {
    local orgs=$1 entries=$2
    CORPUS=$PWD/target/bench/corpus/${orgs}x${entries}-seed$SEED
    local stamp
    stamp=$(sha256sum <scripts/bench/corpus.py | cut -c1-16)
    if [[ -f $CORPUS/.stamp && $(cat "$CORPUS/.stamp") == "$stamp" ]]; then
        say "corpus $orgs orgs x $entries entries: reusing target/bench/corpus/${CORPUS##*/}"
        return
    fi
    say "generating corpus: $orgs orgs x $entries entries (seed $SEED)"
    rm -rf "$CORPUS"
    python3 scripts/bench/corpus.py --orgs "$orgs" --entries "$entries" --seed "$SEED" \
        --shiplog "$CORPUS/shiplog"
    echo "$stamp" >"$CORPUS/.stamp"
}

# Percentage of CPU time that was idle (or waiting for I/O) over the next second.
idle_percent() {
    local a b
    read -ra a </proc/stat
    sleep 1
    read -ra b </proc/stat
    local total=0 i
    for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
    local idle=$((b[4] + b[5] - a[4] - a[5]))
    echo $((total > 0 ? 100 * idle / total : 100))
}

# Waits for a quiet machine; sets BUSY=1 when it gave up after IDLE_WAIT seconds.
wait_for_idle() {
    local waited=0 idle
    BUSY=0
    while idle=$(idle_percent); ((idle < 90)); do
        waited=$((waited + 1))
        if ((waited == 5)); then say "   waiting for the machine to settle (CPUs $((100 - idle)) % busy)"; fi
        if ((waited >= IDLE_WAIT)); then
            say "   still busy after ${IDLE_WAIT}s: timing anyway (flagged)"
            BUSY=1
            return
        fi
    done
}
