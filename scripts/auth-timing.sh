#!/usr/bin/env bash
# Runs scripts/auth_timing.py against a release shiplog-api serving tests/fixtures/api/basic
# with one fresh key: near-miss and random keys, interleaved, compared (see that script).
# Usage: bash scripts/auth-timing.sh [SAMPLES]   (default 5000 per class)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/api-server.sh

cargo build --quiet --release --bin shiplog-api
work=$(mktemp -d)
trap 'stop_api; rm -rf "$work"' EXIT
key=$(write_key_file "$work/keys.yaml" acme)
start_api target/release/shiplog-api "$work/server.log" \
    --content tests/fixtures/api/basic --keys "$work/keys.yaml"
python3 scripts/auth_timing.py "$API_ADDR" "$key" --samples "${1:-5000}"
