#!/usr/bin/env bash
# Runs scripts/auth_timing.py against a release shiplog-api serving tests/fixtures/api/basic
# with one fresh key: near-miss and random keys, interleaved, compared (see that script).
# Usage: bash scripts/auth-timing.sh [SAMPLES]   (default 5000 per class)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/api-server.sh

work=$(mktemp -d)
trap 'stop_api; rm -rf "$work"' EXIT
start_basic_api "$work"
key=$API_KEY
python3 scripts/auth_timing.py "$API_ADDR" "$key" --samples "${1:-5000}"
