#!/usr/bin/env bash
# The browser proof of the generated pages: builds the example content for a localhost
# server, then runs check.mjs (Playwright in Debian's Chromium, axe-core, the Nu HTML
# checker, page weight); then writes the XSS corpus (xss/vectors.json) into a content
# folder with xss/generate.mjs, builds it and runs xss/check.mjs on it. Installs Chromium
# (apt) and the npm packages when missing; never downloads a browser of its own. Last,
# languages.mjs checks the pages of each built-in language (tests/fixtures/languages),
# layout.mjs that long tags and titles overlap nothing (tests/fixtures/long-tags),
# search.mjs the search box on them and on an org of 1,000 entries;
# assets.mjs shows that no published file (an SVG with script) can run script.
# Screenshots go to target/screenshots/.
#
#   bash tests/browser/run.sh
#
# Each part closes with `browser: N passed, M failed` or `xss: N passed, M failed`; exits
# non-zero if either failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

PUBLIC=target/browser-public
XSS_CONTENT=target/xss-content
XSS_PUBLIC=target/xss-public
LANGUAGES_PUBLIC=target/languages-public
LONG_TAGS_PUBLIC=target/long-tags-public
SEARCH_CORPUS=target/search-corpus
SEARCH_PUBLIC=target/search-public
CONFIG=tests/browser/shiplog.yaml
NOW=2026-11-21T00:00:00Z

if [[ ! -x /usr/bin/chromium ]]; then
    echo "   installing Debian's chromium"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
fi
# Japanese, Chinese and Korean glyphs for the screenshots of those languages.
if ! fc-list 2>/dev/null | grep -qi "wenquanyi micro hei"; then
    echo "   installing a CJK font (fonts-wqy-microhei)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq fonts-wqy-microhei >/dev/null
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

status=0
cargo run --quiet --release -- generate --config "$CONFIG" --output "$PUBLIC" --now "$NOW"
node tests/browser/check.mjs "$PUBLIC" "$CONFIG" || status=1

node tests/browser/xss/generate.mjs "$XSS_CONTENT"
cargo run --quiet --release -- generate --content "$XSS_CONTENT" --config "$CONFIG" --output "$XSS_PUBLIC" --now "$NOW"
node tests/browser/xss/check.mjs "$XSS_PUBLIC" "$CONFIG" || status=1

# The "what's new" widget on a host page of another origin, under a strict CSP.
node tests/browser/widget.mjs target/release/shiplog content "$XSS_CONTENT" || status=1

# The pages in each built-in language: words, right to left, screenshots, axe, Nu.
cargo run --quiet --release -- generate --content tests/fixtures/languages/content --config "$CONFIG" \
    --output "$LANGUAGES_PUBLIC" --now "$NOW"
node tests/browser/languages.mjs "$LANGUAGES_PUBLIC" "$CONFIG" || status=1

# Long tags, many tags and long titles never overlap an entry's other pieces, 320-1920 px.
cargo run --quiet --release -- generate --content tests/fixtures/long-tags/content --config "$CONFIG" \
    --output "$LONG_TAGS_PUBLIC" --now "$NOW"
node tests/browser/layout.mjs "$LONG_TAGS_PUBLIC" "$CONFIG" || status=1

# The search: keyboard, axe, and its budgets on an org of 1,000 entries whose feed holds
# them all.
python3 scripts/bench/corpus.py --orgs 1 --entries 1000 --shiplog "$SEARCH_CORPUS"
printf 'org_url: %s\nfeed_limit: 1000\n' "$(sed -n 's/^org_url: *//p' "$CONFIG")" >"$SEARCH_CORPUS/browser.yaml"
cargo run --quiet --release -- generate --content "$SEARCH_CORPUS/content" --config "$SEARCH_CORPUS/browser.yaml" \
    --output "$SEARCH_PUBLIC" --now "$NOW"
node tests/browser/search.mjs "$LANGUAGES_PUBLIC" "$SEARCH_PUBLIC" "$CONFIG" || status=1

# No published file (an SVG with script) runs script on the changelog's host.
node tests/browser/assets.mjs target/release/shiplog "$PUBLIC/_headers" || status=1
exit $status
