#!/usr/bin/env bash
# API benchmark of shiplog-api: the authenticated listing against nginx sending the same
# bytes as a static file (plain, and gzip with gzip_static), its filters, shared rate limits
# through Redis, memory, and reloads under load, on the synthetic corpus of
# scripts/bench-build.sh.
# Prints Markdown tables (also saved to target/bench-api/results.md).
#
# Usage: scripts/bench-api.sh [MODE...] [--duration S] [--runs R] [--orgs N] [--entries M]
#                             [--seed S]
#
#   (no mode)    all below
#   --compare    N orgs x M entries, one key: GET /api/v1/changelogs with page=1&limit=20,
#                page=1&limit=100 and a deep page (the last full one of limit=20). For each,
#                the body is fetched once and saved, plain and gzipped (as the API sends
#                it); nginx (2 workers, access log off, keep-alive, gzip_static on) serves
#                those files on another loopback port; wrk (--latency, 64 connections,
#                2 threads, the Bearer header on the API side) runs against both,
#                alternately, R times each, without and with `Accept-Encoding: gzip`
#   --filters    one org of BENCH_FILTER_ENTRIES (10,000) entries: `q` with two words, and
#                `tag` + `since`, each the same query throughout (cached after the first) and
#                a different one per request (random words, tags, months and pages: mostly
#                made anew); targets p99 <= 5 ms and >= 20,000 requests/s
#   --redis      the page=1&limit=20 case counted by the copy and through a redis-server on
#                loopback (--redis), alternately
#   --keys       the page=1&limit=20 case with 1 key and with 1,000 keys in the keys file
#   --memory     the server's resident set on BENCH_BIG_ORGS (1000) orgs x M entries, after
#                loading and after wrk has asked for random pages of random orgs (a key per
#                org), plain, gzip and br, for 3 x S seconds
#   --reload     E edits of an entry's title while wrk runs against the listing: every
#                edit must show in the listing within 1 s, and wrk must see no non-2xx
#
#   --duration S seconds of each wrk run (env BENCH_DURATION, default 10)
#   --runs R     runs per server and case, at least 2 (env BENCH_RUNS, default 3)
#   --orgs N     organizations (env BENCH_ORGS, default 100)
#   --entries M  entries per organization (env BENCH_ENTRIES, default 100)
#   --seed S     corpus seed (env BENCH_SEED, default 42)
#   --edits E    edits of --reload (env BENCH_EDITS, default 100)
#
# nginx sends files with `sendfile on` (as Debian's nginx.conf has it): the body goes from
# the page cache to the socket without being copied through nginx; BENCH_NGINX_SENDFILE=off
# makes it read and write the body as a server of generated responses must.
#
# Before each timed run it waits (up to BENCH_IDLE_WAIT seconds, default 20) for a second in
# which the CPUs are at least 90 % idle; a run that had to start anyway is flagged. wrk, the
# server and nginx share the machine's cores, as they would on one host.
#
# Runs from the repository root on a Debian machine with Rust and Python 3; installs wrk,
# nginx and redis-server with apt-get when they are missing. All it writes is under target/bench-api/ (keys,
# nginx's files, logs, a copy of the corpus for the edits) and the corpora under
# target/bench/corpus/ (shared with scripts/bench-build.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

DURATION=${BENCH_DURATION:-10}
RUNS=${BENCH_RUNS:-3}
ORGS=${BENCH_ORGS:-100}
ENTRIES=${BENCH_ENTRIES:-100}
SEED=${BENCH_SEED:-42}
BIG_ORGS=${BENCH_BIG_ORGS:-1000}
FILTER_ENTRIES=${BENCH_FILTER_ENTRIES:-10000}
IDLE_WAIT=${BENCH_IDLE_WAIT:-20}
NGINX_SENDFILE=${BENCH_NGINX_SENDFILE:-on}
EDITS=${BENCH_EDITS:-100}
CONNECTIONS=64
THREADS=2

DO_COMPARE=0 DO_KEYS=0 DO_MEMORY=0 DO_RELOAD=0 DO_FILTERS=0 DO_REDIS=0
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
while (($#)); do
    case $1 in
        --compare) DO_COMPARE=1 ;;
        --keys) DO_KEYS=1 ;;
        --memory) DO_MEMORY=1 ;;
        --reload) DO_RELOAD=1 ;;
        --filters) DO_FILTERS=1 ;;
        --redis) DO_REDIS=1 ;;
        --duration) DURATION=${2:?--duration needs a number}; shift ;;
        --runs) RUNS=${2:?--runs needs a number}; shift ;;
        --orgs) ORGS=${2:?--orgs needs a number}; shift ;;
        --entries) ENTRIES=${2:?--entries needs a number}; shift ;;
        --seed) SEED=${2:?--seed needs a number}; shift ;;
        --edits) EDITS=${2:?--edits needs a number}; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "bench-api: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if ((DO_COMPARE + DO_KEYS + DO_MEMORY + DO_RELOAD + DO_FILTERS + DO_REDIS == 0)); then
    DO_COMPARE=1 DO_KEYS=1 DO_MEMORY=1 DO_RELOAD=1 DO_FILTERS=1 DO_REDIS=1
fi
for n in "$DURATION" "$RUNS" "$ORGS" "$ENTRIES" "$SEED" "$BIG_ORGS" "$IDLE_WAIT" "$EDITS" "$FILTER_ENTRIES"; do
    [[ $n =~ ^[0-9]+$ ]] || { echo "bench-api: '$n' is not a number" >&2; exit 2; }
done
if ((RUNS < 2)); then echo "bench-api: --runs must be at least 2" >&2; exit 2; fi
if ((DURATION < 1)); then echo "bench-api: --duration must be at least 1" >&2; exit 2; fi
if ((ENTRIES < 20)); then echo "bench-api: --entries must be at least 20" >&2; exit 2; fi
[[ $NGINX_SENDFILE == on || $NGINX_SENDFILE == off ]] || { echo "bench-api: BENCH_NGINX_SENDFILE is on or off" >&2; exit 2; }

BENCH=$PWD/target/bench-api
RESULTS=$BENCH/results.tsv
REPORT=$BENCH/results.md
mkdir -p "$BENCH/logs" "$BENCH/bin"
# say, fail, fmt, as_root, make_corpus, wait_for_idle
source scripts/bench/lib.sh
: >"$RESULTS"
: >"$REPORT"

# Prints a table to stdout and adds it to results.md.
emit() { tee -a "$REPORT"; echo | tee -a "$REPORT"; }

# Every process this script starts, stopped on the way out.
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# --- tools ----------------------------------------------------------------------------

find_nginx() {
    command -v nginx 2>/dev/null || { [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx; } || true
}

ensure_tools() {
    local packages=()
    command -v wrk >/dev/null || packages+=(wrk)
    [[ -n $(find_nginx) ]] || packages+=(nginx-light)
    command -v curl >/dev/null || packages+=(curl)
    command -v redis-server >/dev/null || packages+=(redis-server)
    ((${#packages[@]})) || return 0
    say "installing ${packages[*]} (Debian packages)"
    # Keep the package from starting a system-wide nginx on port 80 while installing.
    local policy=/usr/sbin/policy-rc.d made_policy=""
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
        as_root chmod 755 "$policy"
        made_policy=1
    fi
    local status=0
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null 2>&1 || {
        as_root apt-get update -qq >/dev/null &&
            as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
    } || status=$?
    [[ -z $made_policy ]] || as_root rm -f "$policy"
    ((status == 0)) || fail "apt-get install ${packages[*]} failed (exit $status)"
}

build_api() {
    say "building shiplog-api (cargo build --release)"
    cargo build --release --quiet --bin shiplog-api ||
        fail "cargo build --release failed (an unfinished edit? try again in a few minutes)"
    # A copy, so that a rebuild by someone else cannot change the binary mid-benchmark.
    cp target/release/shiplog-api "$BENCH/bin/shiplog-api"
    API=$BENCH/bin/shiplog-api
}

# --- keys -----------------------------------------------------------------------------

# The benchmark's keys: "shl_bench_<org>", with a rate limit no benchmark reaches (the
# default, 2,000 a minute, is the point of a rate limit, not of a throughput test).
key_of() { echo "shl_bench_$1"; }

# write_keys FILE ORG...: a keys file with one key per ORG.
write_keys() {
    local file=$1 org
    shift
    {
        echo "keys:"
        for org in "$@"; do
            printf '  - name: bench-%s\n    org: %s\n    sha256: %s\n    rate_limit_per_minute: 4294967295\n' \
                "$org" "$org" "$(printf '%s' "$(key_of "$org")" | sha256sum | cut -d' ' -f1)"
        done
    } >"$file"
}

# write_many_keys FILE ORG COUNT: COUNT-1 keys of random digests (for ORG), then ORG's key.
write_many_keys() {
    local file=$1 org=$2 count=$3 i
    {
        echo "keys:"
        for ((i = 1; i < count; i++)); do
            printf '  - name: other-%d\n    org: %s\n    sha256: %s\n' \
                "$i" "$org" "$(head -c 32 /dev/urandom | sha256sum | cut -d' ' -f1)"
        done
    } >"$file"
    write_keys "$file.last" "$org"
    tail -n +2 "$file.last" >>"$file"
    rm "$file.last"
}

# --- servers --------------------------------------------------------------------------

# start_api SITE KEYS [FLAG...]: shiplog-api on a free loopback port; sets API_PID, API_ADDR,
# API_LOG. The server writes its log line of every request as always; only the other lines
# are kept (those of a long run would fill gigabytes).
start_api() {
    local site=$1 keys=$2
    shift 2
    API_LOG=$BENCH/logs/api.log
    : >"$API_LOG"
    "$API" --content "$site/content" --config "$site/shiplog.yaml" --keys "$keys" \
        --listen 127.0.0.1:0 "$@" 2> >(grep --line-buffered -v '"event":"request"' >>"$API_LOG") &
    API_PID=$!
    PIDS+=("$API_PID")
    local deadline=$((SECONDS + 300)) line=""
    until line=$(grep -m1 '"event":"listening"' "$API_LOG"); do
        kill -0 "$API_PID" 2>/dev/null || { cat "$API_LOG" >&2; fail "shiplog-api did not start"; }
        ((SECONDS < deadline)) || fail "shiplog-api did not listen within 300 s"
        sleep 0.1
    done
    API_ADDR=$(sed 's/.*"addr":"\([^"]*\)".*/\1/' <<<"$line")
}

stop_api() {
    kill -TERM "$API_PID"
    wait "$API_PID" || true
}

# rss_of PID: "VmRSS VmHWM" in MiB.
rss_of() {
    awk '/^VmRSS:/ {rss = $2} /^VmHWM:/ {hwm = $2} END {printf "%.0f %.0f\n", rss / 1024, hwm / 1024}' \
        "/proc/$1/status"
}

# start_nginx DIR: nginx serving the files of DIR/www on a free loopback port, 2 workers,
# no access log, keep-alive without a request cap; sets NGINX_PORT.
start_nginx() {
    local dir=$1 nginx conf_dir user_line=""
    nginx=$(find_nginx)
    conf_dir=$(dirname "$("$nginx" -V 2>&1 | sed -n 's/.*--conf-path=\([^ ]*\).*/\1/p')")
    [[ $conf_dir != . ]] || conf_dir=/etc/nginx
    # As root, nginx would switch its workers to `nobody`, who may not read this checkout.
    if ((EUID == 0)); then user_line="user $(stat -c %U "$dir") $(stat -c %G "$dir");"; fi
    mkdir -p "$dir/tmp"
    local attempt
    for attempt in 1 2 3 4 5 6 7 8; do
        NGINX_PORT=$((20000 + RANDOM % 30000))
        cat >"$dir/nginx.conf" <<EOF
# Written by scripts/bench-api.sh: nginx serving the saved listing bodies as static files.
$user_line
daemon off;
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events {
    worker_connections 1024;
}
http {
    default_type application/json;
    access_log off;
    sendfile $NGINX_SENDFILE;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 100000000;
    open_file_cache max=64 inactive=60s;
    client_body_temp_path $dir/tmp/client_body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $dir/www;
        gzip_static on;
    }
}
EOF
        : >"$dir/error.log"
        "$nginx" -p "$dir/" -c "$dir/nginx.conf" -e "$dir/error.log" 2>>"$dir/error.log" &
        NGINX_PID=$!
        local deadline=$((SECONDS + 15))
        until curl -s -o /dev/null "http://127.0.0.1:$NGINX_PORT/"; do
            if ! kill -0 "$NGINX_PID" 2>/dev/null; then break; fi
            ((SECONDS < deadline)) || fail "nginx does not answer on 127.0.0.1:$NGINX_PORT"
            sleep 0.05
        done
        if kill -0 "$NGINX_PID" 2>/dev/null; then
            PIDS+=("$NGINX_PID")
            return
        fi
        grep -q 'Address already in use' "$dir/error.log" || { cat "$dir/error.log" >&2; fail "nginx did not start"; }
    done
    fail "found no free port for nginx"
}

# --- measuring ------------------------------------------------------------------------

# with_headers ARG...: sets HEADERS to `-H ARG` for each ARG, until `--`; the argument after
# `--` (a wrk script) becomes `-s SCRIPT`.
with_headers() {
    HEADERS=()
    while (($#)); do
        if [[ $1 == -- ]]; then
            HEADERS+=(-s "$2")
            return
        fi
        HEADERS+=(-H "$1")
        shift
    done
}

# run_wrk LABEL URL [HEADER...] [-- SCRIPT]: one timed wrk run, recorded in $RESULTS.
run_wrk() {
    local label=$1 url=$2 out
    shift 2
    with_headers "$@"
    out=$BENCH/logs/$label.$(date +%s%N).wrk
    wait_for_idle
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "${HEADERS[@]}" "$url" >"$out"
    printf '   %-16s %s\n' "$label" "$(python3 scripts/bench/wrk_report.py record "$out" "$label" "$RESULTS" "$BUSY")" >&2
}

# warm_up URL [HEADER...]: two seconds of load, not recorded.
warm_up() {
    local url=$1
    shift
    with_headers "$@"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "${HEADERS[@]}" "$url" >/dev/null
}

# fetch URL FILE [HEADER...]: the body of a 200 response into FILE, as sent (compressed
# when a header asks for it).
fetch() {
    local url=$1 file=$2 status
    shift 2
    with_headers "$@"
    status=$(curl -s -o "$file" -w '%{http_code}' "${HEADERS[@]}" "$url")
    [[ $status == 200 ]] || fail "GET $url answered $status: $(head -c 300 "$file")"
}

# --- the four measurements ------------------------------------------------------------

ORG=org-000
AUTH="Authorization: Bearer $(key_of "$ORG")"
GZIP="Accept-Encoding: gzip"
DEEP_PAGE=$((ENTRIES / 20))
CASES=("page=1&limit=20" "page=1&limit=100" "page=$DEEP_PAGE&limit=20")
CASE_NAMES=("limit=20, page 1" "limit=100, page 1" "limit=20, page $DEEP_PAGE (deep)")
LISTING=/api/v1/changelogs

compare() {
    make_corpus "$ORGS" "$ENTRIES"
    write_keys "$BENCH/keys-one.yaml" "$ORG"
    start_api "$CORPUS/shiplog" "$BENCH/keys-one.yaml"
    local nginx_dir=$BENCH/nginx i
    rm -rf "$nginx_dir"
    mkdir -p "$nginx_dir/www"
    for i in "${!CASES[@]}"; do
        fetch "http://$API_ADDR$LISTING?${CASES[$i]}" "$nginx_dir/www/case-$i.json" "$AUTH"
        fetch "http://$API_ADDR$LISTING?${CASES[$i]}" "$nginx_dir/www/case-$i.json.gz" "$AUTH" "$GZIP"
        gzip -dc "$nginx_dir/www/case-$i.json.gz" | cmp -s - "$nginx_dir/www/case-$i.json" ||
            fail "the gzipped body of ${CASES[$i]} is not the plain one"
    done
    say "saved the bodies: $(for i in "${!CASES[@]}"; do printf '%s %s B; ' "${CASES[$i]}" "$(stat -c %s "$nginx_dir/www/case-$i.json")"; done)"
    start_nginx "$nginx_dir"
    for i in "${!CASES[@]}"; do
        cmp -s <(curl -s "http://127.0.0.1:$NGINX_PORT/case-$i.json") "$nginx_dir/www/case-$i.json" ||
            fail "nginx does not send the saved body of ${CASES[$i]}"
        cmp -s <(curl -s -H "$GZIP" "http://127.0.0.1:$NGINX_PORT/case-$i.json") "$nginx_dir/www/case-$i.json.gz" ||
            fail "nginx does not send the saved gzipped body of ${CASES[$i]}"
    done
    say "shiplog-api on $API_ADDR (pid $API_PID), nginx on 127.0.0.1:$NGINX_PORT (pid $NGINX_PID)"
    local args=() gzip_args=()
    for i in "${!CASES[@]}"; do
        local api_url="http://$API_ADDR$LISTING?${CASES[$i]}" nginx_url="http://127.0.0.1:$NGINX_PORT/case-$i.json"
        say "${CASE_NAMES[$i]}: $RUNS runs of ${DURATION} s each, alternately, gzip then plain"
        warm_up "$api_url" "$AUTH" "$GZIP"
        warm_up "$nginx_url" "$GZIP"
        local run
        for ((run = 1; run <= RUNS; run++)); do
            run_wrk "api-gzip-$i" "$api_url" "$AUTH" "$GZIP"
            run_wrk "nginx-gzip-$i" "$nginx_url" "$GZIP"
        done
        for ((run = 1; run <= RUNS; run++)); do
            run_wrk "api-$i" "$api_url" "$AUTH"
            run_wrk "nginx-$i" "$nginx_url"
        done
        args+=("${CASE_NAMES[$i]}" "api-$i" "nginx-$i")
        gzip_args+=("${CASE_NAMES[$i]}" "api-gzip-$i" "nginx-gzip-$i")
    done
    stop_api
    python3 scripts/bench/wrk_report.py compare "$RESULTS" \
        "GET $LISTING with \`$GZIP\` on $(fmt "$ORGS") orgs × $(fmt "$ENTRIES") entries, wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, against nginx's gzip_static sending the same compressed bytes (sendfile $NGINX_SENDFILE):" \
        "${gzip_args[@]}" | emit
    python3 scripts/bench/wrk_report.py compare "$RESULTS" \
        "The same without Accept-Encoding, against nginx sending the same plain body:" \
        "${args[@]}" | emit
}

# write_random_filters q|tag FILE: a wrk script asking, per request, for a page (1 to 3) of
# a different query: two random words of the corpus, or a random tag and a random month of
# 2026.
write_random_filters() {
    local kind=$1 file=$2
    {
        python3 - <<'PY'
import sys
sys.path.insert(0, "scripts/bench")
import corpus
print("local words = {" + ",".join('"%s"' % w for w in corpus.WORDS) + "}")
print("local tags = {" + ",".join('"%s"' % t for t in corpus.TAGS) + "}")
PY
        echo "local kind = \"$kind\""
        cat <<'LUA'
request = function()
  local query
  if kind == "q" then
    query = "q=" .. words[math.random(#words)] .. "+" .. words[math.random(#words)]
  else
    query = string.format("tag=%s&since=2026-%02d-01T00:00:00Z", tags[math.random(#tags)], math.random(12))
  end
  local path = string.format("/api/v1/changelogs?%s&page=%d", query, math.random(3))
  return wrk.format("GET", path)
end
LUA
    } >"$file"
}

filters() {
    make_corpus 1 "$FILTER_ENTRIES"
    local org
    org=$(basename "$(find "$CORPUS/shiplog/content" -mindepth 1 -maxdepth 1 -type d | head -1)")
    write_keys "$BENCH/keys-filters.yaml" "$org"
    local auth
    auth="Authorization: Bearer $(key_of "$org")"
    start_api "$CORPUS/shiplog" "$BENCH/keys-filters.yaml"
    local q_path="$LISTING?q=retry+faster" tag_path="$LISTING?tag=security&since=2026-06-01T00:00:00Z"
    local path found
    for path in "$q_path" "$tag_path"; do
        found=$(curl -s -H "$auth" "http://$API_ADDR$path" | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"])')
        say "$path: $found of $(fmt "$FILTER_ENTRIES") entries"
        ((found > 0)) || fail "$path selects nothing: not a fair benchmark"
    done
    write_random_filters q "$BENCH/random-q.lua"
    write_random_filters tag "$BENCH/random-tag.lua"
    warm_up "http://$API_ADDR$q_path" "$auth"
    local run
    say "filters on one org of $(fmt "$FILTER_ENTRIES") entries: $RUNS runs of ${DURATION} s each"
    for ((run = 1; run <= RUNS; run++)); do
        run_wrk filter-q "http://$API_ADDR$q_path" "$auth"
        run_wrk filter-tag "http://$API_ADDR$tag_path" "$auth"
        run_wrk filter-q-random "http://$API_ADDR/" "$auth" -- "$BENCH/random-q.lua"
        run_wrk filter-tag-random "http://$API_ADDR/" "$auth" -- "$BENCH/random-tag.lua"
    done
    stop_api
    python3 scripts/bench/wrk_report.py filters "$RESULTS" \
        "Filters on one org of $(fmt "$FILTER_ENTRIES") entries, wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s (medians of $RUNS runs):" \
        "\`q=retry faster\`, the same query" filter-q \
        "\`tag=security&since=2026-06-01T00:00:00Z\`, the same query" filter-tag \
        "\`q\` of two random words, page 1-3" filter-q-random \
        "random \`tag\` + \`since\` a random month, page 1-3" filter-tag-random | emit
}

# start_redis: a redis-server on a free loopback port, saving nothing; sets REDIS_URL.
start_redis() {
    local port=$((20000 + RANDOM % 30000))
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >"$BENCH/logs/redis.log" 2>&1 &
    PIDS+=("$!")
    REDIS_URL="redis://127.0.0.1:$port"
    local deadline=$((SECONDS + 15))
    until [[ $(redis-cli -p "$port" ping 2>/dev/null) == PONG ]]; do
        ((SECONDS < deadline)) || fail "redis-server did not answer on port $port"
        sleep 0.05
    done
}

redis() {
    make_corpus "$ORGS" "$ENTRIES"
    write_keys "$BENCH/keys-one.yaml" "$ORG"
    start_redis
    local url_path="$LISTING?${CASES[0]}" run
    say "rate limits counted by the copy and through Redis: $RUNS runs each, alternately"
    for ((run = 1; run <= RUNS; run++)); do
        start_api "$CORPUS/shiplog" "$BENCH/keys-one.yaml"
        ((run > 1)) || warm_up "http://$API_ADDR$url_path" "$AUTH"
        run_wrk rate-local "http://$API_ADDR$url_path" "$AUTH"
        stop_api
        start_api "$CORPUS/shiplog" "$BENCH/keys-one.yaml" --redis "$REDIS_URL"
        run_wrk rate-redis "http://$API_ADDR$url_path" "$AUTH"
        ! grep -q '"counting":"local"' "$API_LOG" || fail "shiplog-api counted locally: $(cat "$API_LOG")"
        stop_api
    done
    python3 scripts/bench/wrk_report.py redis "$RESULTS" \
        "Shared rate limits, GET $LISTING?${CASES[0]} (medians of $RUNS runs each, one copy, $(redis-server --version | cut -d' ' -f1-3) on loopback):" \
        rate-local rate-redis | emit
}

keys() {
    make_corpus "$ORGS" "$ENTRIES"
    write_keys "$BENCH/keys-one.yaml" "$ORG"
    write_many_keys "$BENCH/keys-1000.yaml" "$ORG" 1000
    local url_path="$LISTING?${CASES[0]}" run
    say "1 key against 1,000 keys (the benchmark's key last): $RUNS runs each, alternately"
    for ((run = 1; run <= RUNS; run++)); do
        start_api "$CORPUS/shiplog" "$BENCH/keys-one.yaml"
        ((run > 1)) || warm_up "http://$API_ADDR$url_path" "$AUTH"
        run_wrk keys-1 "http://$API_ADDR$url_path" "$AUTH"
        stop_api
        start_api "$CORPUS/shiplog" "$BENCH/keys-1000.yaml"
        run_wrk keys-1000 "http://$API_ADDR$url_path" "$AUTH"
        stop_api
    done
    python3 scripts/bench/wrk_report.py keys "$RESULTS" \
        "Keys file size, GET $LISTING?${CASES[0]} (medians of $RUNS runs each):" keys-1 keys-1000 | emit
}

memory() {
    make_corpus "$BIG_ORGS" "$ENTRIES"
    local big=$CORPUS orgs=() dir
    for dir in "$big/shiplog/content"/*/; do
        dir=${dir%/}
        orgs+=("${dir##*/}")
    done
    write_keys "$BENCH/keys-all.yaml" "${orgs[@]}"
    # A wrk script that asks, per request, for a random page (1 to 6) and limit (1 to 100)
    # of a random org with that org's key.
    {
        echo "local orgs = {"
        printf '  "%s",\n' "${orgs[@]}"
        echo "}"
        cat <<'EOF'
request = function()
  local org = orgs[math.random(#orgs)]
  local path = string.format("/api/v1/changelogs?page=%d&limit=%d", math.random(6), math.random(100))
  local encodings = { "identity", "gzip", "br" }
  return wrk.format("GET", path, { ["Authorization"] = "Bearer shl_bench_" .. org,
    ["Accept-Encoding"] = encodings[math.random(3)] })
end
EOF
    } >"$BENCH/random-pages.lua"
    say "loading $(fmt "$BIG_ORGS") orgs × $(fmt "$ENTRIES") entries"
    local started=$SECONDS
    start_api "$big/shiplog" "$BENCH/keys-all.yaml"
    local load_seconds=$((SECONDS - started))
    local loaded after out
    loaded=$(rss_of "$API_PID")
    say "   loaded in about $load_seconds s: VmRSS, VmHWM $loaded MiB"
    out=$BENCH/logs/memory.wrk
    wait_for_idle
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$((DURATION * 3))s" --latency -s "$BENCH/random-pages.lua" \
        "http://$API_ADDR/" >"$out"
    python3 scripts/bench/wrk_report.py record "$out" memory "$RESULTS" "$BUSY" >/dev/null
    after=$(rss_of "$API_PID")
    say "   after $((DURATION * 3)) s of random pages of random orgs: VmRSS, VmHWM $after MiB"
    stop_api
    local figures
    figures=$(python3 scripts/bench/wrk_report.py single "$RESULTS" memory)
    read -r rps _ _ non2xx socket_errors <<<"$figures"
    read -r rss_loaded hwm_loaded <<<"$loaded"
    read -r rss_after hwm_after <<<"$after"
    # The target is the resident set while serving (VmRSS, in MiB < 300 MB); the peak
    # (VmHWM) is shown beside it: it is reached while loading.
    local verdict="holds"
    ((rss_loaded < 286 && rss_after < 286)) || verdict="**missed**"
    {
        echo "Memory of shiplog-api on $(fmt "$BIG_ORGS") orgs × $(fmt "$ENTRIES") entries ($(fmt $((BIG_ORGS * ENTRIES))) entries, a key per org), loaded in about $load_seconds s:"
        echo
        echo "| when | resident (VmRSS) | peak so far (VmHWM) | target: resident < 300 MB |"
        echo "|---|---:|---:|---|"
        echo "| loaded | $rss_loaded MiB | $hwm_loaded MiB | |"
        echo "| after $((DURATION * 3)) s of random pages (1-6) and limits (1-100) of random orgs, plain, gzip or br ($(fmt "$rps") req/s, $non2xx non-2xx, $socket_errors socket errors) | $rss_after MiB | $hwm_after MiB | $verdict |"
    } | emit
}

reload() {
    make_corpus "$ORGS" "$ENTRIES"
    local site=$BENCH/reload-site
    say "copying the $ORGS x $ENTRIES corpus for the edits"
    rm -rf "$site" "$BENCH/scratch"
    mkdir -p "$BENCH/scratch"
    cp -r "$CORPUS/shiplog" "$site"
    local entry
    entry=$(find "$site/content/$ORG" -name '*.md' | LC_ALL=C sort | sed -n 1p)
    write_keys "$BENCH/keys-one.yaml" "$ORG"
    start_api "$site" "$BENCH/keys-one.yaml"
    local out=$BENCH/logs/reload.wrk
    say "wrk on $LISTING?${CASES[0]} while $EDITS edits of ${entry#"$site"/} land"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d600s --latency -H "$AUTH" "http://$API_ADDR$LISTING?${CASES[0]}" >"$out" &
    local wrk_pid=$!
    PIDS+=("$wrk_pid")
    local edits
    edits=$(python3 scripts/bench/reload_edits.py --addr "$API_ADDR" --key "$(key_of "$ORG")" \
        --entry "$entry" --scratch "$BENCH/scratch" --edits "$EDITS" --within 1.0) ||
        fail "an edit did not show in the listing (log: target/bench-api/logs/api.log)"
    # wrk prints its figures when interrupted.
    kill -INT "$wrk_pid"
    wait "$wrk_pid" || true
    local reloads failed
    reloads=$(grep -c '"event":"content_reloaded"' "$API_LOG" || true)
    failed=$(grep -c '"event":"reload_failed"' "$API_LOG" || true)
    stop_api
    python3 scripts/bench/wrk_report.py record "$out" reload "$RESULTS" 0 >/dev/null
    local figures
    figures=$(python3 scripts/bench/wrk_report.py single "$RESULTS" reload)
    read -r rps p50 p99 non2xx socket_errors <<<"$figures"
    read -r visible late max_delay median_delay poller_non2xx <<<"$edits"
    local verdict="holds"
    ((late == 0 && non2xx == 0 && socket_errors == 0 && poller_non2xx == 0)) || verdict="**missed**"
    {
        echo "Reload under load: $EDITS edits of an entry's title (each written whole and renamed into place) while wrk runs on $LISTING?${CASES[0]}:"
        echo
        echo "| edits visible | later than 1 s | slowest | median | reloads (failed) | wrk req/s | wrk p99 | wrk non-2xx | target |"
        echo "|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        echo "| $visible | $late | $max_delay s | $median_delay s | $reloads ($failed) | $(fmt "$rps") | $(awk -v us="$p99" 'BEGIN {printf "%.2f ms", us / 1000}') | $non2xx (+$socket_errors socket errors, $poller_non2xx of the poller) | $verdict |"
    } | emit
}

ensure_tools
build_api
say "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $("$API" --version); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2); $("$(find_nginx)" -v 2>&1)"
if ((DO_COMPARE)); then compare; fi
if ((DO_KEYS)); then keys; fi
if ((DO_MEMORY)); then memory; fi
if ((DO_RELOAD)); then reload; fi
if ((DO_FILTERS)); then filters; fi
if ((DO_REDIS)); then redis; fi
say "tables saved to target/bench-api/results.md"
