# Shared by the API scripts (api-fuzz.sh, auth-timing.sh, soak.sh); source it.
# Starts a real shiplog-api on a free loopback port with a fresh key for one organization.

# write_key_file FILE ORG -> prints a new random key and writes FILE holding only its
# digest, with a rate limit no test load reaches.
write_key_file() {
    local file=$1 org=$2 key digest
    key="shl_$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    digest=$(printf '%s' "$key" | sha256sum | cut -d' ' -f1)
    printf 'keys:\n  - name: %s-load\n    org: %s\n    sha256: %s\n    rate_limit_per_minute: 4000000000\n' \
        "$org" "$org" "$digest" >"$file"
    printf '%s\n' "$key"
}

# start_api BINARY LOG_FILE ARGS... -> sets API_PID and API_ADDR (host:port) once the server
# logs that it listens; fails after 60 s or if the server exits first.
start_api() {
    local binary=$1 log=$2
    shift 2
    "$binary" --listen 127.0.0.1:0 "$@" 2>"$log" &
    API_PID=$!
    local deadline=$((SECONDS + 60))
    API_ADDR=""
    while [[ -z $API_ADDR ]]; do
        API_ADDR=$(grep -m1 '"event":"listening"' "$log" | sed -E 's/.*"addr":"([^"]+)".*/\1/' || true)
        if [[ -n $API_ADDR ]]; then
            break
        fi
        if ! kill -0 "$API_PID" 2>/dev/null || ((SECONDS > deadline)); then
            echo "shiplog-api did not start:" >&2
            cat "$log" >&2
            return 1
        fi
        sleep 0.1
    done
}

# stop_api -> SIGTERM, and waits for the exit.
stop_api() {
    if [[ -n ${API_PID:-} ]] && kill -0 "$API_PID" 2>/dev/null; then
        kill -TERM "$API_PID"
        wait "$API_PID" || true
    fi
    API_PID=""
}

# start_basic_api WORK -> builds the release shiplog-api and starts it on the basic API
# fixture with a fresh key for `acme` (keys file and log in WORK); sets API_KEY too.
start_basic_api() {
    local work=$1
    cargo build --quiet --release --bin shiplog-api
    API_KEY=$(write_key_file "$work/keys.yaml" acme)
    start_api target/release/shiplog-api "$work/server.log" \
        --content tests/fixtures/api/basic --keys "$work/keys.yaml"
}
