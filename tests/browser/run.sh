#!/usr/bin/env bash
# The browser proof of the generated pages: builds the example content for a localhost
# server, then runs check.mjs (Playwright in Debian's Chromium, axe-core, the Nu HTML
# checker, page weight). Installs Chromium (apt) and the npm packages when missing; never
# downloads a browser of its own. Screenshots go to target/screenshots/.
#
#   bash tests/browser/run.sh
#
# Closes with `browser: N passed, M failed`; exits non-zero on any failure.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

PUBLIC=target/browser-public
CONFIG=tests/browser/shiplog.yaml
NOW=2026-11-21T00:00:00Z

if [[ ! -x /usr/bin/chromium ]]; then
    echo "   installing Debian's chromium"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
fi
if ! command -v java >/dev/null; then
    echo "   installing a Java runtime for the Nu HTML checker"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq default-jre-headless >/dev/null
fi

# npm ci when the lock file changed since the last install. No install scripts: vnu-jar's
# would fetch a Java runtime, and the machine's is used instead.
if ! cmp -s tests/browser/package-lock.json tests/browser/node_modules/.installed-lock.json; then
    (cd tests/browser && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    cp tests/browser/package-lock.json tests/browser/node_modules/.installed-lock.json
fi

cargo run --quiet --release -- generate --config "$CONFIG" --output "$PUBLIC" --now "$NOW"
node tests/browser/check.mjs "$PUBLIC" "$CONFIG"
