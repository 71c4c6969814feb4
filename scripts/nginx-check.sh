#!/usr/bin/env bash
# Runs examples/nginx.conf in a real nginx and checks, for every example organization,
# what a browser, a feed reader, a crawler and a CDN get: routing by Host, status codes,
# media types, the headers that public/_headers also lists, the redirects, and every URL
# of the org's sitemap.xml.
#
#   bash scripts/nginx-check.sh      (from anywhere; works in the repository's root)
#
# On a bare Debian machine run it as root: it installs nginx (and curl) with apt-get when
# they are missing. The nginx it starts is its own (prefix, pid, logs and temp files under
# target/nginx/, on a free port of 127.0.0.1) and is stopped on exit. One line per check,
# then `nginx: N passed, M failed`; the exit status is 1 when anything failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd -P)

EXAMPLE=examples/nginx.conf
EXAMPLE_ROOT=/srv/shiplog/public # the path examples/nginx.conf serves
DOMAIN=changelog.example.com
NOW=2026-11-21T00:00:00Z
PUBLIC=$ROOT/target/nginx-public
WORK=$ROOT/target/nginx

NOSNIFF="nosniff"
CACHE_CONTROL="public, max-age=300, must-revalidate"
SVG_POLICY="default-src 'none'; style-src 'unsafe-inline'; sandbox"
HTML="text/html; charset=utf-8"
RSS="application/rss+xml; charset=utf-8"
ATOM="application/atom+xml; charset=utf-8"
JSON_FEED="application/feed+json; charset=utf-8"
XML="application/xml; charset=utf-8"
TEXT="text/plain; charset=utf-8"
MARKDOWN="text/markdown; charset=utf-8"
JAVASCRIPT="text/javascript; charset=utf-8"

PASSED=0
FAILED=0
DONE=""
NGINX_STARTED=""

# --- reporting ----------------------------------------------------------------------

summary() {
    DONE=1
    echo "nginx: $PASSED passed, $FAILED failed"
}

# A problem that stops the run: counts as a failed check.
die() {
    echo "FAIL $*"
    FAILED=$((FAILED + 1))
    if [[ -f $WORK/error.log ]] && [[ -s $WORK/error.log ]]; then
        echo "---- $WORK/error.log (last lines)"
        tail -n 20 "$WORK/error.log"
        echo "----"
    fi
    summary
    exit 1
}

stop_nginx() {
    [[ -n $NGINX_STARTED ]] || return 0
    local pid="" deadline=$((SECONDS + 5))
    # With `daemon on` the master writes its pid file right after it forks.
    while [[ ! -s $WORK/nginx.pid ]] && ((SECONDS < deadline)); do sleep 0.05; done
    [[ -s $WORK/nginx.pid ]] && pid=$(<"$WORK/nginx.pid")
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    deadline=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.05; done
    NGINX_STARTED=""
}

on_exit() {
    local status=$?
    stop_nginx
    if [[ -z $DONE ]]; then
        echo "FAIL setup: a command failed (exit $status)"
        FAILED=$((FAILED + 1))
        summary
        exit 1
    fi
}
trap on_exit EXIT

# --- nginx and curl -----------------------------------------------------------------

find_nginx() {
    command -v nginx 2>/dev/null || { [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx; } || true
}

install_missing() {
    local packages=()
    [[ -n $(find_nginx) ]] || packages+=(nginx)
    command -v curl >/dev/null 2>&1 || packages+=(curl)
    ((${#packages[@]})) || return 0
    if ((EUID != 0)); then
        die "setup: ${packages[*]} missing; run as root to install them with apt-get"
    fi
    echo "installing ${packages[*]} with apt-get"
    # Keep the package from starting a system-wide nginx on port 80 while installing.
    local policy=/usr/sbin/policy-rc.d made_policy=""
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        made_policy=1
    fi
    local status=0
    {
        DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                "${packages[@]}" >/dev/null
    } || status=$?
    [[ -z $made_policy ]] || rm -f "$policy"
    ((status == 0)) || die "setup: apt-get install ${packages[*]} failed (exit $status)"
}

install_missing
NGINX=$(find_nginx)
NGINX_CONF_DIR=$(dirname "$("$NGINX" -V 2>&1 | sed -n 's/.*--conf-path=\([^ ]*\).*/\1/p')")
[[ $NGINX_CONF_DIR != . ]] || NGINX_CONF_DIR=/etc/nginx
[[ -f $NGINX_CONF_DIR/mime.types ]] || die "setup: no mime.types in $NGINX_CONF_DIR"
echo "using $("$NGINX" -v 2>&1) ($NGINX)"

# --- the site -----------------------------------------------------------------------

# nginx takes the paths unquoted: refuse the few characters that would need quoting.
case $ROOT in
*[[:space:]\;\{\}\"\'\$\#\&\\]*) die "setup: the repository path has a character nginx needs quoted: $ROOT" ;;
esac

cargo run --release -- generate --output target/nginx-public --now "$NOW" --quiet

ORGS=()
for dir in "$PUBLIC"/*/; do
    dir=${dir%/}
    [[ -d $dir/changelog ]] && ORGS+=("${dir##*/}")
done
((${#ORGS[@]})) || die "setup: no organization in $PUBLIC"
echo "organizations: ${ORGS[*]}"

# --- render the example and start nginx ---------------------------------------------

# The acme line of the `map` is commented out in the example; the check enables it, so it
# proves that a per-organization frame-ancestors value works (and the line's syntax).
ACME_LINE=$(grep -E '^[[:space:]]*#[[:space:]]*acme "[^"]*";' "$EXAMPLE" || true)
[[ -n $ACME_LINE ]] || die "setup: $EXAMPLE has no commented \`acme \"...\";\` line in its map"
ACME_ANCESTORS=$(sed -E 's/^[^"]*"([^"]*)".*/\1/' <<<"$ACME_LINE")

# ::1 is there on most machines, not in every container.
IPV6=""
if [[ -r /proc/net/if_inet6 ]] && grep -q '^0\{31\}1 ' /proc/net/if_inet6; then IPV6=1; fi

# Count of a fixed string's lines in the example: each rewrite below must find its target.
count() { grep -cF -- "$1" "$EXAMPLE" || true; }
[[ $(count "$EXAMPLE_ROOT/") -ge 1 ]] || die "setup: $EXAMPLE no longer mentions $EXAMPLE_ROOT/"
[[ $(count "listen 80") -ge 2 ]] || die "setup: $EXAMPLE has no \`listen 80\` lines"
[[ $(count "$DOMAIN") -ge 1 ]] || die "setup: $EXAMPLE does not serve $DOMAIN"

render() { # port -> target/nginx/site.conf
    local port=$1 v6
    if [[ -n $IPV6 ]]; then v6="s#listen \\[::\\]:80#listen [::1]:$port#"; else v6='/listen \[::\]:80/d'; fi
    sed -E -e "s#$EXAMPLE_ROOT#$PUBLIC#g" \
        -e "s#listen 80#listen 127.0.0.1:$port#" \
        -e "$v6" \
        -e 's/^([[:space:]]*)#[[:space:]]*(acme "[^"]*";)/\1\2/' \
        "$EXAMPLE" >"$WORK/site.conf"
}

# Workers read the files as their owner (as root, nginx would switch them to `nobody`,
# who may not be able to read a checkout under /root).
USER_LINE=""
if ((EUID == 0)); then
    USER_LINE="user $(stat -c %U "$PUBLIC") $(stat -c %G "$PUBLIC");"
fi

write_main_conf() {
    cat >"$WORK/nginx.conf" <<EOF
# Written by scripts/nginx-check.sh: a throw-away nginx for examples/nginx.conf (site.conf).
$USER_LINE
daemon on;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/error.log warn;
events {
    worker_connections 64;
}
http {
    include $NGINX_CONF_DIR/mime.types;
    default_type application/octet-stream;
    access_log off;
    client_body_temp_path $WORK/tmp/client_body;
    proxy_temp_path $WORK/tmp/proxy;
    fastcgi_temp_path $WORK/tmp/fastcgi;
    uwsgi_temp_path $WORK/tmp/uwsgi;
    scgi_temp_path $WORK/tmp/scgi;
    include $WORK/site.conf;
}
EOF
}

# A leftover nginx of an interrupted run of this script (its pid file, its own prefix).
if [[ -s $WORK/nginx.pid ]]; then
    old=$(<"$WORK/nginx.pid")
    if [[ -r /proc/$old/cmdline ]] && tr '\0' ' ' <"/proc/$old/cmdline" | grep -qF "$WORK"; then
        kill -TERM "$old" 2>/dev/null || true
    fi
fi
rm -rf "$WORK"
mkdir -p "$WORK/tmp"
write_main_conf

NGINX_ARGS=(-p "$WORK/" -c "$WORK/nginx.conf")
if "$NGINX" -h 2>&1 | grep -qE '^[[:space:]]+-e '; then
    NGINX_ARGS+=(-e "$WORK/error.log") # the log of start-up, before the config is read
fi

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

PORT=""
for _ in 1 2 3 4 5 6 7 8; do
    candidate=$((20000 + RANDOM % 30000))
    port_in_use "$candidate" && continue
    render "$candidate"
    : >"$WORK/error.log"
    "$NGINX" "${NGINX_ARGS[@]}" -t 2>"$WORK/test.log" || {
        cat "$WORK/test.log"
        die "setup: nginx -t refused the rendered $EXAMPLE"
    }
    NGINX_STARTED=1
    if "$NGINX" "${NGINX_ARGS[@]}" 2>>"$WORK/error.log"; then
        PORT=$candidate
        break
    fi
    NGINX_STARTED=""
    grep -q 'Address already in use' "$WORK/error.log" || die "setup: nginx did not start"
done
[[ -n $PORT ]] || die "setup: found no free port"

echo "rendered $EXAMPLE: root $EXAMPLE_ROOT -> target/nginx-public, listen 80 -> 127.0.0.1:$PORT${IPV6:+ and [::1]:$PORT}, the map's acme line enabled"

# Wait until nginx answers (it binds before it forks, but give it a deadline anyway).
deadline=$((SECONDS + 15))
until curl -s -o /dev/null --max-time 1 -H "Host: ${ORGS[0]}.$DOMAIN" "http://127.0.0.1:$PORT/"; do
    ((SECONDS < deadline)) || die "setup: nginx does not answer on 127.0.0.1:$PORT"
    sleep 0.05
done

# --- checks -------------------------------------------------------------------------

HDR=$WORK/response.headers
BODY=$WORK/response.body
STATUS=""
CURL_EXIT=0

# fetch HOST PATH [curl args...]: sets STATUS, CURL_EXIT, $HDR and $BODY.
fetch() {
    local host=$1 path=$2 address=${ADDRESS:-127.0.0.1}
    shift 2
    : >"$HDR"
    : >"$BODY"
    CURL_EXIT=0
    STATUS=$(curl -s -o "$BODY" -D "$HDR" -w '%{http_code}' --max-time 5 \
        -H "Host: $host" "$@" "http://$address:$PORT$path") || CURL_EXIT=$?
    tr -d '\r' <"$HDR" >"$HDR.tmp" && mv "$HDR.tmp" "$HDR"
}

# header NAME: the value of the response's header NAME (empty when absent).
header() {
    sed -n "s/^$1:[[:space:]]*//Ip" "$HDR" | tail -n 1
}

PROBLEMS=()
expect_header() { # NAME VALUE
    local got
    got=$(header "$1")
    if ! grep -qi "^$1:" "$HDR"; then
        PROBLEMS+=("no $1 (expected \`$2\`)")
    elif [[ $got != "$2" ]]; then
        PROBLEMS+=("$1 is \`$got\`, expected \`$2\`")
    fi
}
# expect_policies VALUE...: the Content-Security-Policy headers are exactly these, in order.
expect_policies() {
    local got want
    got=$(sed -n 's/^Content-Security-Policy:[[:space:]]*//Ip' "$HDR")
    want=$(printf '%s\n' "$@")
    [[ $got == "${want%$'\n'}" ]] || PROBLEMS+=("Content-Security-Policy is \`${got//$'\n'/ | }\`, expected \`${want//$'\n'/ | }\`")
}
expect_status() {
    [[ $STATUS == "$1" ]] || PROBLEMS+=("status $STATUS, expected $1")
}
expect_body() { # FILE
    cmp -s "$BODY" "$1" || PROBLEMS+=("body differs from ${1#"$ROOT"/}")
}
# The three headers every response of an org's host carries.
expect_common() { # ORG
    local ancestors="*"
    [[ $1 != acme ]] || ancestors=$ACME_ANCESTORS
    expect_header X-Content-Type-Options "$NOSNIFF"
    expect_header Cache-Control "$CACHE_CONTROL"
    if [[ ${2:-} == image/svg+xml ]]; then
        # An SVG may hold script: it also gets the policy under which none runs.
        expect_policies "frame-ancestors $ancestors" "$SVG_POLICY"
    else
        expect_policies "frame-ancestors $ancestors"
    fi
    # The feeds may be read by a page of any origin (the widget's fetch); nothing else.
    if [[ ${2:-} == "$RSS" || ${2:-} == "$JSON_FEED" || ${2:-} == "$ATOM" ]]; then
        expect_header Access-Control-Allow-Origin "*"
    elif grep -qi '^Access-Control-Allow-Origin:' "$HDR"; then
        PROBLEMS+=("Access-Control-Allow-Origin on a response that is not a feed")
    fi
}

# report DESCRIPTION: one line for the check, from PROBLEMS.
report() {
    if ((${#PROBLEMS[@]} == 0)); then
        echo "ok   $1"
        PASSED=$((PASSED + 1))
    else
        local text
        text=$(printf '; %s' "${PROBLEMS[@]}")
        echo "FAIL $1: ${text#; }"
        FAILED=$((FAILED + 1))
    fi
    PROBLEMS=()
}

# check_file ORG PATH TYPE: a file of the tree, served with its type and the headers.
check_file() {
    local org=$1 path=$2 type=$3 file
    file=$PUBLIC/$org${path%/}
    if [[ $path == */ ]]; then file=$file/index.html; fi
    fetch "$org.$DOMAIN" "$path"
    expect_status 200
    expect_header Content-Type "$type"
    expect_body "$file"
    expect_common "$org" "$type"
    report "$org $path [200, $type, the file's bytes, 3 headers]"
}

check_redirect() { # ORG PATH STATUS LOCATION
    fetch "$1.$DOMAIN" "$2"
    expect_status "$3"
    expect_header Location "$4"
    expect_common "$1"
    report "$1 $2 [$3 to $4, 3 headers]"
}

type_of() { # FILE -> the media type nginx should send, or nothing when not listed here
    case ${1##*.} in
    svg) echo "image/svg+xml" ;;
    png) echo "image/png" ;;
    jpg | jpeg) echo "image/jpeg" ;;
    gif) echo "image/gif" ;;
    webp) echo "image/webp" ;;
    css) echo "text/css; charset=utf-8" ;;
    txt) echo "$TEXT" ;;
    pdf) echo "application/pdf" ;;
    mp4) echo "video/mp4" ;;
    esac
}

# locs FILE: the <loc> URLs of a sitemap file, one a line.
locs() {
    sed -n 's:.*<loc>\(.*\)</loc>.*:\1:p' "$1" | sed 's/&amp;/\&/g'
}

# check_sitemap ORG: every page URL of the org's sitemap.xml (or of the sitemaps of its
# sitemap index) answers with the page: its path requested with the org's Host.
check_sitemap() {
    local org=$1 url path file count=0
    local sitemaps=("$PUBLIC/$org/sitemap.xml")
    if grep -q '<sitemapindex' "$PUBLIC/$org/sitemap.xml"; then
        sitemaps=()
        while IFS= read -r url; do
            path=/${url#*://*/}
            check_file "$org" "$path" "$XML"
            sitemaps+=("$PUBLIC/$org$path")
        done < <(locs "$PUBLIC/$org/sitemap.xml")
    fi
    for file in "${sitemaps[@]}"; do
        [[ -f $file ]] || continue
        while IFS= read -r url; do
            path=/${url#*://*/}
            count=$((count + 1))
            fetch "$org.$DOMAIN" "$path"
            if [[ $STATUS != 200 ]]; then
                PROBLEMS+=("$path: status $STATUS")
            elif [[ $(header Content-Type) != "$HTML" ]]; then
                PROBLEMS+=("$path: Content-Type \`$(header Content-Type)\`")
            elif [[ $path != */ ]] || ! cmp -s "$BODY" "$PUBLIC/$org${path}index.html"; then
                PROBLEMS+=("$path: not the bytes of ${path#/}index.html")
            fi
        done < <(locs "$file")
    done
    ((count)) || PROBLEMS+=("no <loc> in its sitemap")
    report "$org: the $count page URLs of its sitemap [200, $HTML, the page's bytes]"
}

# The config is clean: `nginx -t` says nothing but that it is fine.
while IFS= read -r line; do
    PROBLEMS+=("$line")
done < <(grep -vE 'syntax is ok|test is successful' "$WORK/test.log" || true)
report "nginx -t [the rendered $EXAMPLE has no warnings]"

ASSETS=""
for org in "${ORGS[@]}"; do
    tree=$PUBLIC/$org/changelog
    check_file "$org" /changelog/ "$HTML"
    check_file "$org" /changelog/feed.xml "$RSS"
    check_file "$org" /changelog/feed.json "$JSON_FEED"
    check_file "$org" /changelog/atom.xml "$ATOM"
    check_file "$org" /changelog/llms.txt "$TEXT"
    check_file "$org" /changelog/widget.js "$JAVASCRIPT"
    [[ ! -f $tree/page/2/index.html ]] || check_file "$org" /changelog/page/2/ "$HTML"

    entry=""
    for dir in "$tree"/*/; do
        dir=${dir%/}
        case ${dir##*/} in page | tags) continue ;; esac
        if [[ -f $dir/index.html ]]; then entry=${dir##*/} && break; fi
    done
    if [[ -n $entry ]]; then
        check_file "$org" "/changelog/$entry/" "$HTML"
        check_file "$org" "/changelog/$entry/index.md" "$MARKDOWN"
    else
        PROBLEMS+=("no entry page in the tree") && report "$org: an entry page"
    fi

    tag=""
    for dir in "$tree"/tags/*/; do
        if [[ -d $dir ]]; then
            tag=$(basename "$dir")
            break
        fi
    done
    if [[ -n $tag ]]; then
        check_file "$org" "/changelog/tags/$tag/" "$HTML"
        check_file "$org" "/changelog/tags/$tag/feed.xml" "$RSS"
        check_file "$org" "/changelog/tags/$tag/feed.json" "$JSON_FEED"
        check_file "$org" "/changelog/tags/$tag/atom.xml" "$ATOM"
    fi

    # For crawlers, at the root of the host: robots.txt, and the sitemap unless the org is
    # noindex (then robots.txt turns every crawler away, and there is no sitemap).
    check_file "$org" /robots.txt "$TEXT"
    # The org's icon, where browsers look for it without a link.
    check_file "$org" /favicon.ico image/x-icon
    if [[ -f $PUBLIC/$org/sitemap.xml ]]; then
        check_file "$org" /sitemap.xml "$XML"
        check_sitemap "$org"
    elif ! grep -qx 'Disallow: /' "$PUBLIC/$org/robots.txt"; then
        PROBLEMS+=("not in the tree, and robots.txt does not turn crawlers away")
        report "$org /sitemap.xml"
    fi

    # Files copied from the content folder (images beside entries).
    while IFS= read -r -d '' file; do
        type=$(type_of "$file")
        [[ -n $type ]] || continue
        check_file "$org" "${file#"$PUBLIC/$org"}" "$type"
        ASSETS+=" $org${file#"$PUBLIC/$org"}"
    done < <(find "$tree" -type f ! -name '*.html' ! -name 'feed.xml' ! -name 'feed.json' ! -name 'atom.xml' \
        ! -name 'index.md' ! -path "$tree/widget.js" ! -path "$tree/llms.txt" -print0 | sort -z)

    check_redirect "$org" / 302 /changelog/
    check_redirect "$org" /changelog 301 /changelog/
    [[ -z $entry ]] || check_redirect "$org" "/changelog/$entry" 301 "/changelog/$entry/"

    fetch "$org.$DOMAIN" /changelog/no-such-entry/
    expect_status 404
    expect_common "$org"
    report "$org /changelog/no-such-entry/ [404, 3 headers]"
done

# The image of acme's example entry must be among the files checked above.
ACME_IMAGE=acme/changelog/2026-09-08-retention-dashboard/retention-chart.svg
[[ " $ASSETS " == *" $ACME_IMAGE "* ]] || PROBLEMS+=("not in the tree")
report "$ACME_IMAGE was checked [image/svg+xml]"

# Feeds are sent compressed to clients that ask, and still decode to the same bytes.
fetch "acme.$DOMAIN" /changelog/feed.json --compressed
expect_status 200
expect_header Content-Encoding gzip
expect_header Vary Accept-Encoding
expect_body "$PUBLIC/acme/changelog/feed.json"
report "acme /changelog/feed.json with Accept-Encoding: gzip [gzip, Vary: Accept-Encoding, same bytes]"

# Hosts: case and port do not matter; other hosts are not served.
fetch "ACME.Changelog.Example.COM" /changelog/
expect_status 200
expect_body "$PUBLIC/acme/changelog/index.html"
report "Host ACME.Changelog.Example.COM [acme's changelog]"

fetch "acme.$DOMAIN:443" /changelog/feed.xml
expect_status 200
expect_body "$PUBLIC/acme/changelog/feed.xml"
report "Host acme.$DOMAIN:443 [acme's feed]"

fetch "no-such-org.$DOMAIN" /changelog/
expect_status 404
report "Host no-such-org.$DOMAIN, an org without a folder [404]"

for host in example.com "acme.$DOMAIN.evil.test" "$DOMAIN" "a.b.$DOMAIN" "_headers.$DOMAIN"; do
    fetch "$host" /changelog/
    # 444: nginx closes the connection without an answer (curl: empty reply, exit 52).
    [[ $CURL_EXIT == 52 && $STATUS == 000 ]] || PROBLEMS+=("got status $STATUS (curl exit $CURL_EXIT), expected no answer")
    report "Host $host [not served: connection closed]"
done

if [[ -n $IPV6 ]]; then
    ADDRESS="[::1]" fetch "acme.$DOMAIN" /changelog/
    expect_status 200
    expect_header Content-Type "$HTML"
    expect_body "$PUBLIC/acme/changelog/index.html"
    report "acme /changelog/ over IPv6, [::1] [200, $HTML, the file's bytes]"
fi

# public/_headers (for Netlify and Cloudflare Pages) must ask for what nginx sends. It is
# compared when this shiplog writes it; the checks above do not need it.
rule() { # PATH NAME: the value that public/_headers gives header NAME under PATH
    awk -v path="$1" -v name="$2" '
        /^[^[:space:]#]/ { inside = ($0 == path); next }
        inside && index($0, ":") {
            line = $0; sub(/^[[:space:]]+/, "", line)
            key = substr(line, 1, index(line, ":") - 1)
            if (tolower(key) == tolower(name)) {
                value = substr(line, index(line, ":") + 1); sub(/^[[:space:]]+/, "", value)
                print value
            }
        }' "$PUBLIC/_headers"
}
expect_rule() { # PATH NAME VALUE
    local got
    got=$(rule "$1" "$2")
    [[ $got == "$3" ]] || PROBLEMS+=("$1 $2 is \`$got\`, nginx sends \`$3\`")
}
if [[ -f $PUBLIC/_headers ]]; then
    expect_rule "/*" X-Content-Type-Options "$NOSNIFF"
    expect_rule "/*" Cache-Control "$CACHE_CONTROL"
    expect_rule "/*feed.xml" Content-Type "$RSS"
    expect_rule "/*feed.json" Content-Type "$JSON_FEED"
    expect_rule "/*atom.xml" Content-Type "$ATOM"
    expect_rule "/*atom.xml" Access-Control-Allow-Origin "*"
    expect_rule "/*/index.md" Content-Type "$MARKDOWN"
    expect_rule "/*.svg" Content-Security-Policy "$SVG_POLICY"
    report "public/_headers [the headers nginx sends to every org, the feeds' and index.md's types, the SVG policy]"
    for org in "${ORGS[@]}"; do
        # An org with embed_origins has its own frame-ancestors rule; without, any site may
        # frame it: no rule, as nginx's `frame-ancestors *` says. (acme's restricted value
        # here comes from the example's map line, not from its content.)
        got=$(rule "/$org/changelog/*" Content-Security-Policy)
        [[ $org == acme || -z $got ]] || PROBLEMS+=("/$org/changelog/* restricts framing to \`$got\`, nginx allows any site")
        report "public/_headers for $org [its framing rule agrees with nginx]"
    done
else
    echo "skip public/_headers: not written by this build of shiplog"
fi

summary
((FAILED == 0))
