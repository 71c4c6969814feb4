#!/usr/bin/env python3
"""Synthetic changelog corpus for scripts/bench-build.sh.

Usage:
  corpus.py --orgs N --entries M [--seed S] [--shiplog DIR] [--hugo DIR [--like PAGE] [--tag-pages]]

Writes N organizations of M entries each, the same for every run with the same seed:

* --shiplog DIR: a shiplog site: DIR/shiplog.yaml and DIR/content/<org>/{_org.yaml,*.md}.
* --hugo DIR: the same entries as a Hugo site that does the same work: one section per org
  (a list paginated by 20, one page per entry, an RSS, an Atom and a JSON feed of the
  newest 50), and with --tag-pages one term page per (org, tag) with the same pagination and
  feeds (shiplog's changelog/tags/<tag>/); a sitemap and robots.txt; link card tags in every
  page's head. The layouts inline the style sheet and script of a page shiplog built
  (--like) so that pages weigh about the same. (shiplog's llms.txt and per-entry index.md
  have no Hugo twin here: shiplog does that work on top.)

Entries are realistic: a few paragraphs with inline markup, a list, a fenced code block, a
table, a root-relative link, an image, 1-3 tags, a summary on about half, and dates spread
over the three years before 2026-11-20 (all in the past for --now 2026-11-21).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import sys
from datetime import datetime, timedelta, timezone

END = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)
SPAN_SECONDS = 3 * 365 * 24 * 3600

TAGS = [
    "feature", "fix", "improvement", "api", "security", "performance",
    "integrations", "billing", "mobile", "deprecation",
]
OFFSETS = ["Z", "+00:00", "+01:00", "+02:00", "-05:00", "-08:00", "+05:30", "+09:00"]
PRODUCTS = [
    "dashboards", "webhooks", "audit log", "exports", "billing portal", "search",
    "notifications", "SSO", "SCIM provisioning", "API tokens", "reports", "workflows",
    "the query editor", "alerts", "the mobile app", "team roles", "data retention",
    "the CLI", "integrations", "usage limits",
]
VERBS = [
    "Faster", "Redesigned", "Bulk actions for", "Filters in", "Scheduled", "Audit trail for",
    "Dark mode for", "Keyboard shortcuts in", "Fixed timeouts in", "Retries for",
    "Granular permissions for", "CSV import for", "Deprecating legacy", "Improved",
]
WORDS = (
    "the team workspace project report event user account request response page chart "
    "query filter export import schedule timezone limit plan customer admin member role "
    "token endpoint payload delivery retry window latency cache index browser setting "
    "default option column row record history change update release version migration "
    "now also still only faster safer clearer simpler every each any most many several "
    "shows keeps sends makes lets moves counts groups sorts checks saves loads opens "
    "with without before after during across between inside within through over under"
).split()
LANGS = [
    ("sh", ["curl -H \"Authorization: Bearer $TOKEN\" \\", "  https://api.example.com/v2/{p}?limit=50"]),
    ("json", ["{{", "  \"event\": \"{p}.updated\",", "  \"retry\": true,", "  \"attempts\": 3", "}}"]),
    ("python", ["client = Client(token)", "for item in client.{p}.list(limit=100):", "    print(item.id, item.status)"]),
    ("yaml", ["{p}:", "  enabled: true", "  retention_days: 90"]),
]


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 18))]
    # A little inline markup, as real entries have.
    i = rng.randrange(len(words))
    kind = rng.random()
    if kind < 0.3:
        words[i] = f"**{words[i]}**"
    elif kind < 0.5:
        words[i] = f"`{words[i]}_{rng.randint(1, 99)}`"
    elif kind < 0.6:
        words[i] = f"*{words[i]}*"
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def paragraph(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(2, 4)))


def slugify(text: str) -> str:
    out = []
    for c in text.lower():
        if c.isalnum():
            out.append(c)
        elif out and out[-1] != "-":
            out.append("-")
    return "".join(out).strip("-")


def entry(rng: random.Random, number: int) -> dict:
    product = rng.choice(PRODUCTS)
    title = f"{rng.choice(VERBS)} {product}"
    moment = END - timedelta(seconds=rng.randrange(SPAN_SECONDS))
    offset = rng.choice(OFFSETS)
    if offset == "Z":
        date = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    else:
        sign = 1 if offset[0] == "+" else -1
        hours, minutes = int(offset[1:3]), int(offset[4:6])
        local = moment + sign * timedelta(hours=hours, minutes=minutes)
        date = local.strftime("%Y-%m-%dT%H:%M:%S") + offset
    tags = rng.sample(TAGS, rng.randint(1, 3))
    entry_id = f"{slugify(title)}-{number:04d}"
    summary = paragraph(rng).split(".")[0] + "." if rng.random() < 0.5 else None
    slug = slugify(product)
    lang, code = rng.choice(LANGS)
    body = [paragraph(rng), ""]
    body += [f"- {sentence(rng)}" for _ in range(rng.randint(3, 5))]
    body += ["", paragraph(rng), "", f"```{lang}"]
    body += [line.format(p=slug) for line in code]
    body += ["```", "", "| Plan | Before | After |", "|---|---:|---:|"]
    for plan in ["Free", "Team", "Business", "Enterprise"][: rng.randint(2, 4)]:
        before = rng.randint(1, 50) * 10
        body.append(f"| {plan} | {before} | {before * rng.randint(2, 5)} |")
    body += [
        "",
        f"Read more in the [{product} guide](/docs/{slug}#{rng.choice(WORDS)}) or see "
        f"<https://status.example.com> for the rollout.",
        "",
        f"![The new {product} screen](screenshot-{number % 7}.png)",
        "",
        paragraph(rng),
        "",
    ]
    return {
        "id": entry_id,
        "title": title,
        "date": date,
        "tags": tags,
        "summary": summary,
        "body": "\n".join(body),
    }


def yaml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def front_matter(e: dict, tags: list[str]) -> str:
    lines = [
        "---",
        f"title: {yaml_string(e['title'])}",
        f"date: {e['date']}",
        "tags: [" + ", ".join(yaml_string(t) for t in tags) + "]",
    ]
    if e["summary"]:
        lines.append(f"summary: {yaml_string(e['summary'])}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def org_title(slug: str) -> str:
    return " ".join(w.capitalize() for w in slug.split("-")) + " changelog"


HUGO_CONFIG = """\
baseURL = "https://changelog.example.com/"
title = "bench"
locale = "en"
buildFuture = true
buildDrafts = false
enableRobotsTXT = true
disableKinds = [{disabled}]

[pagination]
pagerSize = 20
disableAliases = true
path = "page"

[services.rss]
limit = 50

[taxonomies]
tag = "tags"

[outputFormats.rss]
baseName = "feed"

[outputFormats.jsonfeed]
mediaType = "application/json"
baseName = "feed"
isPlainText = true

[mediaTypes."application/atom+xml"]
suffixes = ["xml"]

[outputFormats.atom]
mediaType = "application/atom+xml"
baseName = "atom"
isPlainText = false

[outputs]
page = ["html"]
section = ["html", "rss", "jsonfeed", "atom"]
term = ["html", "rss", "jsonfeed", "atom"]

# Markdown features as shiplog's: CommonMark + GFM (tables, strikethrough, task lists,
# footnotes, autolinks); no smart quotes or heading ids, which shiplog does not do either.
# Fenced code is highlighted into classes, as shiplog highlights it (Hugo's default, but
# with classes rather than inline styles). Raw HTML is dropped (shiplog sanitizes it).
[markup.goldmark.extensions]
definitionList = false
typographer = false
[markup.goldmark.parser]
autoHeadingID = false
[markup.highlight]
codeFences = true
noClasses = false
"""

BASEOF = """\
<!DOCTYPE html>
<html lang="{{ site.Language.Locale }}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{{ block "title" . }}{{ .Title }}{{ end }}</title>
<meta name="description" content="{{ block "description" . }}{{ .CurrentSection.Params.description }}{{ end }}">
<link rel="canonical" href="{{ .Permalink }}">
<link rel="icon" href="data:image/svg+xml,%3Csvg%20xmlns%3D%27http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%27%2F%3E">
<meta property="og:site_name" content="{{ .CurrentSection.Title }}">
<meta property="og:locale" content="{{ site.Language.Locale }}">
<meta property="og:type" content="{{ if .IsPage }}article{{ else }}website{{ end }}">
<meta property="og:title" content="{{ .Title }}">
<meta property="og:description" content="{{ with .Params.summary }}{{ . }}{{ else }}{{ if .IsPage }}{{ .Summary | plainify | truncate 200 }}{{ else }}{{ .CurrentSection.Params.description }}{{ end }}{{ end }}">
<meta property="og:url" content="{{ .Permalink }}">
{{- if .IsPage }}
<meta property="article:published_time" content="{{ .Date.UTC.Format "2006-01-02T15:04:05Z" }}">{{ end }}
<meta name="twitter:card" content="summary">
<meta name="twitter:title" content="{{ .Title }}">
{{- with .CurrentSection.OutputFormats.Get "rss" }}
<link rel="alternate" type="application/rss+xml" title="{{ $.CurrentSection.Title }} (RSS)" href="{{ .Permalink }}">{{ end }}
{{- with .CurrentSection.OutputFormats.Get "atom" }}
<link rel="alternate" type="application/atom+xml" title="{{ $.CurrentSection.Title }} (Atom)" href="{{ .Permalink }}">{{ end }}
{{- with .CurrentSection.OutputFormats.Get "jsonfeed" }}
<link rel="alternate" type="application/feed+json" title="{{ $.CurrentSection.Title }} (JSON Feed)" href="{{ .Permalink }}">{{ end }}
<style>
{{ (resources.Get "bench/style.css").Content | safeCSS }}</style>
<script>
{{ (resources.Get "bench/embed.js").Content | safeJS }}</script>
</head>
<body>
<div class="wrap">
<header class="site">
<div class="brand">
<h1><a href="{{ .CurrentSection.RelPermalink }}">{{ .CurrentSection.Title }}</a></h1>
{{ with .CurrentSection.Params.description }}<p class="lead">{{ . }}</p>{{ end }}
</div>
<nav class="feeds" aria-label="Subscribe">
{{- with .CurrentSection.OutputFormats.Get "rss" }}<a href="{{ .RelPermalink }}" target="_blank" rel="noopener">RSS</a>{{ end }}
{{- with .CurrentSection.OutputFormats.Get "jsonfeed" }}<a href="{{ .RelPermalink }}" target="_blank" rel="noopener">JSON Feed</a>{{ end -}}
</nav>
</header>
<main>
{{ block "main" . }}{{ end }}
</main>
</div>
</body>
</html>
"""

ARTICLE = """\
<article class="entry" id="{{ .page.File.ContentBaseName }}">
{{ if eq .level 1 }}<h1>{{ .page.Title }}</h1>{{ else }}<h2><a href="{{ .page.RelPermalink }}">{{ .page.Title }}</a></h2>{{ end }}
<div class="meta"><time datetime="{{ .page.Date.UTC.Format "2006-01-02T15:04:05Z" }}">{{ .page.Date.UTC.Format "January 2, 2006" }}</time>
{{- with .page.GetTerms "tags" }}<ul class="tags" aria-label="Tags">{{ range . }}<li><a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a></li>{{ end }}</ul>{{ end }}</div>
{{ with .page.Params.summary }}<p class="summary">{{ . }}</p>
{{ end }}<div class="content">
{{ .page.Content }}</div>
</article>
"""

LIST = """\
{{ define "main" }}
{{- $pager := .Paginate .Pages 20 }}
{{- range $pager.Pages }}{{ partial "article.html" (dict "page" . "level" 2) }}{{ else }}
<p class="empty">Nothing has been published here yet.</p>
{{ end }}
{{- if gt $pager.TotalPages 1 }}
<nav class="pages" aria-label="Pages">
{{ with $pager.Prev }}<a href="{{ .URL }}" rel="prev">← Newer</a>{{ else }}<span></span>{{ end }}
<span>Page {{ $pager.PageNumber }} of {{ $pager.TotalPages }}</span>
{{ with $pager.Next }}<a href="{{ .URL }}" rel="next">Older →</a>{{ else }}<span></span>{{ end }}
</nav>
{{- end }}
{{ end }}
"""

SINGLE = """\
{{ define "title" }}{{ .Title }} · {{ .CurrentSection.Title }}{{ end }}
{{ define "description" }}{{ with .Params.summary }}{{ . }}{{ else }}{{ .CurrentSection.Params.description }}{{ end }}{{ end }}
{{ define "main" }}
<p class="back"><a href="{{ .CurrentSection.RelPermalink }}">← All updates</a></p>
{{- partial "article.html" (dict "page" . "level" 1) }}
{{ end }}
"""

RSS = """\
{{- $pages := first site.Config.Services.RSS.Limit .Pages -}}
{{- printf "<?xml version=\\"1.0\\" encoding=\\"utf-8\\"?>" | safeHTML }}
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>{{ .Title }}</title>
    <link>{{ .Permalink }}</link>
    <description>{{ .Params.description }}</description>
    <generator>Hugo</generator>
    <language>{{ site.Language.Locale }}</language>
    {{- with index $pages 0 }}
    <lastBuildDate>{{ .Date.Format "Mon, 02 Jan 2006 15:04:05 -0700" | safeHTML }}</lastBuildDate>{{ end }}
    {{- with .OutputFormats.Get "rss" }}
    <atom:link href="{{ .Permalink }}" rel="self" type="application/rss+xml"/>{{ end }}
    {{- range $pages }}
    <item>
      <title>{{ .Title }}</title>
      <link>{{ .Permalink }}</link>
      <guid isPermaLink="true">{{ .Permalink }}</guid>
      <pubDate>{{ .Date.Format "Mon, 02 Jan 2006 15:04:05 -0700" | safeHTML }}</pubDate>
      {{- range .Params.tags }}
      <category>{{ . }}</category>{{ end }}
      <description>{{ .Content | transform.XMLEscape | safeHTML }}</description>
    </item>
    {{- end }}
  </channel>
</rss>
"""

ATOM = """\
{{- $pages := first site.Config.Services.RSS.Limit .Pages -}}
{{- printf "<?xml version=\\"1.0\\" encoding=\\"utf-8\\"?>" | safeHTML }}
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="{{ site.Language.Locale }}">
  <title>{{ .Title }}</title>
  <id>{{ .Permalink }}</id>
  <updated>{{ with index $pages 0 }}{{ .Lastmod.UTC.Format "2006-01-02T15:04:05Z" }}{{ else }}1970-01-01T00:00:00Z{{ end }}</updated>
  <author><name>{{ .CurrentSection.Title }}</name></author>
  {{- with .OutputFormats.Get "atom" }}
  <link href="{{ .Permalink }}" rel="self" type="application/atom+xml"/>{{ end }}
  <link href="{{ .Permalink }}" rel="alternate" type="text/html"/>
  <subtitle>{{ .Params.description }}</subtitle>
  <generator>Hugo</generator>
  {{- range $pages }}
  <entry>
    <title>{{ .Title }}</title>
    <id>{{ .Permalink }}</id>
    <updated>{{ .Lastmod.UTC.Format "2006-01-02T15:04:05Z" }}</updated>
    <published>{{ .Date.UTC.Format "2006-01-02T15:04:05Z" }}</published>
    <link href="{{ .Permalink }}" rel="alternate" type="text/html"/>
    {{- range .Params.tags }}
    <category term="{{ . }}"/>{{ end }}
    {{- with .Params.summary }}
    <summary>{{ . }}</summary>{{ end }}
    <content type="html">{{ .Content | transform.XMLEscape | safeHTML }}</content>
  </entry>
  {{- end }}
</feed>
"""

JSONFEED = """\
{{- $items := slice -}}
{{- range first site.Config.Services.RSS.Limit .Pages -}}
  {{- $item := dict "id" .File.ContentBaseName "url" .Permalink "title" .Title "content_html" .Content "date_published" (.Date.UTC.Format "2006-01-02T15:04:05Z") "tags" .Params.tags -}}
  {{- with .Params.summary }}{{ $item = merge $item (dict "summary" .) }}{{ end -}}
  {{- $items = $items | append $item -}}
{{- end -}}
{{- $feed := dict "version" "https://jsonfeed.org/version/1.1" "title" .Title "home_page_url" .Permalink "description" .Params.description "language" site.Language.Locale "items" $items -}}
{{- with .OutputFormats.Get "jsonfeed" }}{{ $feed = merge $feed (dict "feed_url" .Permalink) }}{{ end -}}
{{- $feed | jsonify (dict "indent" "  ") }}
"""

# shiplog makes every relative link and image absolute against the entry's own URL and
# opens links in a new tab: these render hooks do the same work in Hugo.
RENDER_LINK = """\
{{- $u := (urls.Parse .Page.Permalink).ResolveReference (urls.Parse .Destination) -}}
<a href="{{ $u.String }}"{{ with .Title }} title="{{ . }}"{{ end }} target="_blank" rel="noopener">{{ .Text }}</a>
{{- /**/ -}}
"""

RENDER_IMAGE = """\
{{- $u := (urls.Parse .Page.Permalink).ResolveReference (urls.Parse .Destination) -}}
<img src="{{ $u.String }}" alt="{{ .PlainText }}"{{ with .Title }} title="{{ . }}"{{ end }}>
{{- /**/ -}}
"""


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def hugo_site(root: str, like: str | None, tag_pages: bool) -> None:
    disabled = ["home", "taxonomy", "404"]
    if not tag_pages:
        disabled.append("term")
    write(os.path.join(root, "hugo.toml"),
          HUGO_CONFIG.format(disabled=", ".join(f'"{k}"' for k in disabled)))
    layouts = os.path.join(root, "layouts")
    write(os.path.join(layouts, "baseof.html"), BASEOF)
    write(os.path.join(layouts, "_partials", "article.html"), ARTICLE)
    for kind in ("section", "term"):
        write(os.path.join(layouts, f"{kind}.html"), LIST)
        write(os.path.join(layouts, f"{kind}.rss.xml"), RSS)
        write(os.path.join(layouts, f"{kind}.jsonfeed.json"), JSONFEED)
        write(os.path.join(layouts, f"{kind}.atom.xml"), ATOM)
    write(os.path.join(layouts, "page.html"), SINGLE)
    write(os.path.join(layouts, "_markup", "render-link.html"), RENDER_LINK)
    write(os.path.join(layouts, "_markup", "render-image.html"), RENDER_IMAGE)
    # The page head of a shiplog page: its inline style sheet and script, verbatim.
    style = script = ""
    if like:
        with open(like, encoding="utf-8") as f:
            page = f.read()
        found = re.search(r"<style>\n?(.*?)</style>", page, re.S)
        style = found.group(1) if found else ""
        found = re.search(r"<script>\n?(.*?)</script>", page, re.S)
        script = found.group(1) if found else ""
    write(os.path.join(root, "assets", "bench", "style.css"), style)
    write(os.path.join(root, "assets", "bench", "embed.js"), script)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orgs", type=int, required=True)
    parser.add_argument("--entries", type=int, required=True)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--shiplog", help="folder for the shiplog site")
    parser.add_argument("--hugo", help="folder for the Hugo site (optional)")
    parser.add_argument("--like", metavar="PAGE",
                        help="a page shiplog built: Hugo's pages inline its CSS and script")
    parser.add_argument("--tag-pages", action="store_true",
                        help="give Hugo one term page (and feeds) per org and tag")
    args = parser.parse_args()
    if not args.shiplog and not args.hugo:
        parser.error("give --shiplog DIR, --hugo DIR or both")

    for folder in (args.shiplog, args.hugo):
        if folder and os.path.exists(folder):
            shutil.rmtree(folder)
    if args.shiplog:
        write(os.path.join(args.shiplog, "shiplog.yaml"),
              'org_url: "https://{org}.changelog.example.com"\n'
              'base_url: "https://api.changelog.example.com"\n'
              "feed_limit: 50\npage_size: 20\n")
    if args.hugo:
        hugo_site(args.hugo, args.like, args.tag_pages)

    rng = random.Random(args.seed)
    width = max(3, len(str(args.orgs)))
    for o in range(args.orgs):
        slug = f"org-{o:0{width}d}"
        title = org_title(slug)
        description = f"New features, improvements and fixes in {title[:-10]}."
        if args.shiplog:
            write(os.path.join(args.shiplog, "content", slug, "_org.yaml"),
                  f"title: {yaml_string(title)}\ndescription: {yaml_string(description)}\n"
                  f"website: https://www.{slug}.example\n")
        if args.hugo:
            write(os.path.join(args.hugo, "content", slug, "_index.md"),
                  f"---\ntitle: {yaml_string(title)}\ndescription: {yaml_string(description)}\n---\n")
        for n in range(args.entries):
            e = entry(rng, n)
            if args.shiplog:
                write(os.path.join(args.shiplog, "content", slug, e["id"] + ".md"),
                      front_matter(e, e["tags"]) + e["body"])
            if args.hugo:
                # Hugo's tags are site-wide; shiplog's are per org: one term per (org, tag).
                tags = [f"{slug} {t}" for t in e["tags"]]
                write(os.path.join(args.hugo, "content", slug, e["id"] + ".md"),
                      front_matter(e, tags) + e["body"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
