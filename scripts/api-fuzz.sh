#!/usr/bin/env bash
# Schemathesis against openapi.yaml and a live shiplog-api (release build) serving the
# tests/fixtures/api/basic content: every generated request (valid and invalid page, limit,
# tag, since and q, Accept-Encoding, one entry by id,
# If-None-Match, HEAD, other methods; with the key and, for ignored_auth, without) must get no 5xx and a response
# that matches the schema (status, content type, headers, body).
#
# Usage: bash scripts/api-fuzz.sh [PYTHON_VENV]   (default target/fuzz-venv, made from
# scripts/fuzz-requirements.txt when missing or stale). SCHEMATHESIS_MAX_TIME bounds the fuzzing
# phase (default 60 s).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/api-server.sh

venv=${1:-target/fuzz-venv}
if [[ ! -x $venv/bin/schemathesis ]] || ! cmp -s scripts/fuzz-requirements.txt "$venv/requirements.txt"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet -r scripts/fuzz-requirements.txt
    cp scripts/fuzz-requirements.txt "$venv/requirements.txt"
fi

work=$(mktemp -d)
trap 'stop_api; rm -rf "$work"' EXIT
start_basic_api "$work"
key=$API_KEY
echo "shiplog-api at $API_ADDR"

status=0
"$venv/bin/schemathesis" run openapi.yaml \
    --url "http://$API_ADDR" \
    --header "Authorization: Bearer $key" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,ignored_auth \
    --max-time "${SCHEMATHESIS_MAX_TIME:-60}" \
    --workers 2 \
    --seed 8 \
    --no-color || status=$?

stop_api
if grep -q '"level":"error"' "$work/server.log"; then
    echo "the server logged errors:" >&2
    grep '"level":"error"' "$work/server.log" >&2
    status=1
fi
exit $status
