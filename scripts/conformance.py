#!/usr/bin/env python3
"""Feed and discoverability conformance check for a `shiplog generate` output folder.

Usage: python3 scripts/conformance.py OUTPUT_DIR

Walks OUTPUT_DIR and checks:

* every `feed.xml`: parsed by feedparser without a `bozo` error, RSS 2.0, a channel
  title and link, and every item with title, link, guid and a parsed pubDate;
* every `feed.json`: valid against tests/schema/jsonfeed-1.1.schema.json (JSON Feed
  1.1), with `date-time` formats really checked (RFC 3339);
* every `atom.xml`: valid against the RELAX NG schema of RFC 4287 (tests/schema/atom.rng,
  with jing), the two Schematron rules of that schema (an author for every entry; a link
  or content in each), and parsed by feedparser as Atom 1.0 without a `bozo` error, every
  entry with id = alternate link, title, published and updated (not before published);
* the contract of SPEC.md section 3 for each: its own URL (atom:link rel="self",
  feed_url) ends with its path below the organization's folder, date format, order
  (date descending), lastBuildDate / Atom `updated` = newest item;
* every folder holding a feed: feed.json, feed.xml and atom.xml all exist and list the
  same items (url = link = guid = Atom id, title, date, tags; Atom `updated` = JSON
  `date_modified`, else `date_published`) in the same order, and Atom's feed `logo` and
  `icon` are JSON's `icon` and `favicon`;
* every organization (a folder with `changelog/` in it; its URL is its changelog
  feed.json's `home_page_url` less `/changelog`): `robots.txt` either turns every crawler
  away (`noindex`: and there is no sitemap) or names `<org_url>/sitemap.xml`; that sitemap
  (or sitemap index and its sitemaps) valid against sitemaps.org's XSD
  (tests/schema/sitemap.xsd, siteindex.xsd, with `xmllint --schema`), its URLs unique, each
  with a lastmod and naming an `index.html` of the tree, every `index.html` listed, an
  entry's lastmod its feed item's last change;
* every organization's `changelog/llms.txt`: the llmstxt.org structure (`# Title`, a
  `> description` block quote, paragraphs, then `## Feeds` and `## Updates` sections of
  `- [name](url)` / `- [name](url): notes` items), each link naming a file of the tree,
  `## Updates` naming every entry's `index.md` once, in feed order;
* every `index.md`: starts with a `# ` title, and every Markdown link or image destination
  and reference definition (outside code) is absolute (`http://`, `https://`, `mailto:`)
  or a fragment (`#...`).

Prints one line per check, a line with what each validator accepted, and a closing line
`conformance: N passed, M failed`. Exits 1 when a check failed or nothing to check was
found (no feed, or none of the JSON Feed fields image, date_modified, icon and favicon), 2
on a usage error.

Needs: feedparser, jsonschema, rfc3339-validator (see scripts/requirements.txt); jing and
xmllint (Debian packages jing and libxml2-utils; .ci/run installs them).
"""
from __future__ import annotations

import calendar
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import unquote, urlsplit

try:
    import feedparser
    import jsonschema
except ImportError as err:  # pragma: no cover - environment problem
    sys.exit(f"conformance: missing Python package ({err}); pip install -r scripts/requirements.txt")

REPO = Path(__file__).resolve().parent.parent
SCHEMA_DIR = REPO / "tests" / "schema"
SCHEMA_PATH = SCHEMA_DIR / "jsonfeed-1.1.schema.json"
# RFC 4287 Appendix B (atom.rnc) in RELAX NG's XML syntax; the sitemaps.org schemas.
ATOM_SCHEMA = SCHEMA_DIR / "atom.rng"
SITEMAP_SCHEMA = SCHEMA_DIR / "sitemap.xsd"
SITEINDEX_SCHEMA = SCHEMA_DIR / "siteindex.xsd"
JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1"
# SPEC section 3: date_published is `YYYY-MM-DDTHH:MM:SSZ`, UTC, whole seconds.
UTC_SECONDS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
FEEDS = ("feed.json", "feed.xml", "atom.xml")  # feed.json first: the others are compared to it
ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"

# Validators, as named in the closing tally.
V_ATOM_RNG = "atom relax-ng (jing)"
V_ATOM_PARSE = "atom feedparser (atom10, no bozo)"
V_RSS_PARSE = "rss feedparser (rss20, no bozo)"
V_JSON_SCHEMA = "json feed 1.1 schema (jsonschema)"
V_SITEMAP_XSD = "sitemap xsd (xmllint)"
V_SITEINDEX_XSD = "siteindex xsd (xmllint)"
V_LLMS = "llms.txt structure"
V_MARKDOWN = "index.md absolute links"
VALIDATORS = (V_ATOM_RNG, V_ATOM_PARSE, V_RSS_PARSE, V_JSON_SCHEMA, V_SITEMAP_XSD, V_SITEINDEX_XSD, V_LLMS, V_MARKDOWN)

# llms.txt (llmstxt.org): a section's list item, `- [name](url)` or `- [name](url): notes`.
LLMS_ITEM = re.compile(r"^- \[((?:[^\[\]\\]|\\.)+)\]\(([^()\s]+)\)(?:: (\S.*))?$")
# Markdown: a fence opening or closing a code block; a code span; a link or image
# destination `](dest` or `](<dest>`; a reference definition `[label]: dest`; and in raw
# HTML a src or href attribute.
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
LIST_ITEM = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:\s|$)")
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
INLINE_DESTINATION = re.compile(r"\]\(\s*(<[^>\n]*>|[^\s)]*)")
REFERENCE_DEFINITION = re.compile(r"^(?:\s*>)*\s{0,3}\[(?:[^\]\\]|\\.)+\]:\s*(<[^>\n]*>|\S*)")
HTML_URL_ATTRIBUTE = re.compile(r"""\b(?:src|href)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
ABSOLUTE = ("http://", "https://", "mailto:", "#")


class Result:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0
        # validator -> [files it accepted, files it was given]
        self.validators: dict[str, list[int]] = {}
        # JSON Feed optional fields seen: items with image / date_modified, feeds with icon / favicon
        self.json_fields: Counter[str] = Counter()
        self.markdown_links = 0
        self.markdown_definitions = 0

    def report(self, label: str, problems: list[str], note: str = "") -> None:
        if problems:
            self.failed += 1
            print(f"FAIL {label}")
            for problem in problems:
                print(f"       {problem}")
        else:
            self.passed += 1
            print(f"ok   {label}{'  ' + note if note else ''}")

    def tally(self, validator: str, accepted: bool) -> None:
        counts = self.validators.setdefault(validator, [0, 0])
        counts[0] += int(accepted)
        counts[1] += 1


def make_validator() -> jsonschema.protocols.Validator:
    """The JSON Feed validator, refusing to run if `date-time` would go unchecked."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    checker = cls.FORMAT_CHECKER
    # jsonschema silently skips a format whose checker library is missing: make sure
    # `date-time` (rfc3339-validator) is really enforced before trusting a pass.
    if "date-time" not in checker.checkers or checker.conforms("2026-13-45T25:61:00Z", "date-time"):
        sys.exit("conformance: the date-time format is not enforced; install rfc3339-validator")
    return cls(schema, format_checker=checker)


def rfc3339_to_epoch(text: str) -> int | None:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        return None
    if value.tzinfo is None:
        return None
    return int(value.astimezone(timezone.utc).timestamp())


def struct_to_epoch(value) -> int | None:
    return None if value is None else calendar.timegm(value)


def descending(dates: list[int | None]) -> bool:
    known = [d for d in dates if d is not None]
    return all(a >= b for a, b in zip(known, known[1:]))


def shorten(lines: list[str], prefix: str, most: int = 8) -> list[str]:
    """At most `most` of `lines`, each with `prefix`, and how many more there were."""
    out = [f"{prefix}{line}" for line in lines[:most]]
    if len(lines) > most:
        out.append(f"... and {len(lines) - most} more")
    return out


# --- external validators ----------------------------------------------------------------


def run_validator(tool: str, schema_args: list[str], files: list[Path], result: Result) -> dict[Path, list[str]] | None:
    """Runs `tool SCHEMA_ARGS FILE...` (jing or xmllint) over `files`, a few hundred at a
    time; returns each file's error lines (none: valid). None, after one FAIL line, when the
    tool is missing or said something that names no file."""
    if not files:
        return {}
    if shutil.which(tool) is None:
        package = {"jing": "jing", "xmllint": "libxml2-utils"}.get(tool, tool)
        result.report(f"{tool}: installed", [f"{tool} not found: apt-get install {package}"])
        return None
    errors: dict[Path, list[str]] = {}
    unplaced: list[str] = []
    for start in range(0, len(files), 200):
        chunk = files[start : start + 200]
        # Absolute names: jing reports a file by its absolute path.
        names = {str(path.resolve()): path for path in chunk}
        try:
            run = subprocess.run([tool, *schema_args, *names], capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as err:
            result.report(f"{tool}: ran", [f"{type(err).__name__}: {err}"])
            return None
        verdict: set[Path] = set()
        for line in (run.stdout + run.stderr).splitlines():
            if not line.strip():
                continue
            # xmllint ends each file with `FILE validates` or `FILE fails to validate`.
            name, _, tail = line.rpartition(" ")
            if name in names and tail == "validates":
                verdict.add(names[name])
                continue
            if line.endswith(" fails to validate") and line[: -len(" fails to validate")] in names:
                path = names[line[: -len(" fails to validate")]]
                verdict.add(path)
                if not errors.get(path):
                    errors[path] = ["fails to validate"]
                continue
            # Error lines start with `FILE:LINE:`.
            owner = next((names[n] for n in names if line.startswith(n + ":")), None)
            if owner is None:
                unplaced.append(line)
            else:
                errors.setdefault(owner, []).append(line[len(str(owner.resolve())) + 1 :].strip())
        if run.returncode != 0 and not any(path in errors for path in chunk) and not unplaced:
            unplaced.append(f"exit status {run.returncode} without an error for any file")
        if tool == "xmllint":
            for path in chunk:
                if path not in verdict and path not in errors:
                    unplaced.append(f"no verdict for {path}")
    if unplaced:
        schema = Path(schema_args[-1]).name
        result.report(f"{tool} with {schema}: ran", shorten(unplaced, ""))
        return None
    return {path: errors.get(path, []) for path in files}


# --- feeds --------------------------------------------------------------------------------


def check_xml(path: Path, label: str, self_suffix: str, result: Result) -> tuple[list[dict], dict] | None:
    """Checks one RSS file; returns its items and feed fields (for the comparison) or None."""
    problems: list[str] = []
    parsed = feedparser.parse(path.read_bytes())
    if parsed.bozo:
        problems.append(f"bozo: {type(parsed.bozo_exception).__name__}: {parsed.bozo_exception}")
    if parsed.get("version") != "rss20":
        problems.append(f"not RSS 2.0 (feedparser says {parsed.get('version')!r})")
    result.tally(V_RSS_PARSE, not problems)
    channel = parsed.feed
    if not channel.get("title"):
        problems.append("channel has no title")
    if not channel.get("link"):
        problems.append("channel has no link")
    self_links = [l.get("href", "") for l in channel.get("links", []) if l.get("rel") == "self"]
    if not self_links:
        problems.append('no atom:link rel="self"')
    elif not self_links[0].endswith(self_suffix):
        problems.append(f'atom:link rel="self" is {self_links[0]!r}, not ...{self_suffix}')

    items = []
    for n, entry in enumerate(parsed.entries, 1):
        missing = [
            name
            for name, key in (("title", "title"), ("link", "link"), ("guid", "id"), ("pubDate", "published_parsed"))
            if not entry.get(key)
        ]
        if missing:
            problems.append(f"item {n}: missing or unparsable {', '.join(missing)}")
        elif entry.id != entry.link:
            problems.append(f"item {n}: guid {entry.id!r} is not the item link {entry.link!r}")
        items.append(
            {
                "link": entry.get("link"),
                "guid": entry.get("id"),
                "title": entry.get("title"),
                "date": struct_to_epoch(entry.get("published_parsed")),
                "tags": [t.get("term") for t in entry.get("tags", [])],
            }
        )

    dates = [item["date"] for item in items]
    if not descending(dates):
        problems.append("items are not ordered newest first")
    known = [d for d in dates if d is not None]
    if known:
        built = struct_to_epoch(channel.get("updated_parsed"))
        if built is None:
            problems.append("no parsable lastBuildDate")
        elif built != max(known):
            problems.append("lastBuildDate is not the newest item's pubDate")

    result.report(label, problems, f"({len(items)} items)")
    return None if parsed.bozo and not items else (items, {})


def check_atom(
    path: Path, label: str, self_suffix: str, schema_errors: list[str] | None, result: Result
) -> tuple[list[dict], dict] | None:
    """Checks one Atom file (its RELAX NG verdict given); returns its entries and feed
    fields (for the comparison) or None if unreadable."""
    problems: list[str] = []
    if schema_errors is not None:
        problems += shorten(schema_errors, "RELAX NG (RFC 4287): ")
        result.tally(V_ATOM_RNG, not schema_errors)

    raw = path.read_bytes()
    parsed = feedparser.parse(raw)
    parse_problems = []
    if parsed.bozo:
        parse_problems.append(f"bozo: {type(parsed.bozo_exception).__name__}: {parsed.bozo_exception}")
    if parsed.get("version") != "atom10":
        parse_problems.append(f"not Atom 1.0 (feedparser says {parsed.get('version')!r})")
    result.tally(V_ATOM_PARSE, not parse_problems)
    problems += parse_problems

    feed = parsed.feed
    for name, key in (("title", "title"), ("id", "id"), ("updated", "updated_parsed")):
        if not feed.get(key):
            problems.append(f"feed has no {name}" + (" (or an unparsable one)" if key.endswith("_parsed") else ""))
    links = feed.get("links", [])
    self_links = [l.get("href", "") for l in links if l.get("rel") == "self"]
    if not self_links:
        problems.append('no link rel="self"')
    elif not self_links[0].endswith(self_suffix):
        problems.append(f'link rel="self" is {self_links[0]!r}, not ...{self_suffix}')
    if not any(l.get("rel") == "alternate" for l in links):
        problems.append('no link rel="alternate"')

    # RFC 4287's Schematron rules (4.1.1, 4.1.2), which RELAX NG validators skip; and the
    # feed's images.
    meta: dict = {}
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as err:
        problems.append(f"not well-formed XML: {err}")
        root = None
    if root is not None:
        feed_author = root.find(f"{ATOM}author") is not None
        for n, entry in enumerate(root.findall(f"{ATOM}entry"), 1):
            authors = entry.findall(f"{ATOM}author") + entry.findall(f"{ATOM}source/{ATOM}author")
            if not (feed_author or authors):
                problems.append(f"entry {n}: no atom:author, and the feed has none")
            alternate = any(link.get("rel", "alternate") == "alternate" for link in entry.findall(f"{ATOM}link"))
            if not alternate and entry.find(f"{ATOM}content") is None:
                problems.append(f'entry {n}: neither a link rel="alternate" nor a content')
        meta = {"logo": root.findtext(f"{ATOM}logo"), "icon": root.findtext(f"{ATOM}icon")}

    items = []
    for n, entry in enumerate(parsed.entries, 1):
        missing = [
            name
            for name, key in (
                ("title", "title"),
                ('link rel="alternate"', "link"),
                ("id", "id"),
                ("published", "published_parsed"),
                ("updated", "updated_parsed"),
            )
            if not entry.get(key)
        ]
        if missing:
            problems.append(f"entry {n}: missing or unparsable {', '.join(missing)}")
        elif entry.id != entry.link:
            problems.append(f"entry {n}: id {entry.id!r} is not the entry's link {entry.link!r}")
        published = struct_to_epoch(entry.get("published_parsed"))
        updated = struct_to_epoch(entry.get("updated_parsed"))
        if published is not None and updated is not None and updated < published:
            problems.append(f"entry {n}: updated is before published")
        items.append(
            {
                "link": entry.get("link"),
                "guid": entry.get("id"),
                "title": entry.get("title"),
                "date": published,
                "updated": updated,
                "tags": [t.get("term") for t in entry.get("tags", [])],
            }
        )

    if not descending([item["date"] for item in items]):
        problems.append("entries are not ordered newest first (by published)")
    changes = [item["updated"] for item in items if item["updated"] is not None]
    if changes and struct_to_epoch(feed.get("updated_parsed")) not in (None, max(changes)):
        problems.append("the feed's updated is not its newest entry's updated")

    result.report(label, problems, f"({len(items)} entries)")
    return None if parsed.bozo and not items else (items, meta)


def schema_message(error) -> str:
    """A short message: anyOf-of-required reads as 'needs one of', long values are cut."""
    options = error.validator_value if error.validator == "anyOf" else None
    if options and all(set(o) == {"required"} for o in options):
        keys = ", ".join(k for o in options for k in o["required"])
        return f"needs at least one of: {keys}"
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."


def check_json(path: Path, label: str, self_suffix: str, validator, result: Result) -> tuple[list[dict], dict] | None:
    """Checks one JSON Feed file; returns its items and feed fields (for the comparison) or
    None if unreadable."""
    problems: list[str] = []
    try:
        feed = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        result.tally(V_JSON_SCHEMA, False)
        result.report(label, [f"not JSON: {err}"])
        return None

    for error in sorted(validator.iter_errors(feed), key=lambda e: list(map(str, e.absolute_path))):
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        problems.append(f"schema: {where}: {schema_message(error)}")
    result.tally(V_JSON_SCHEMA, not problems)

    items_raw = feed.get("items") if isinstance(feed, dict) else None
    if not isinstance(items_raw, list):
        result.report(label, problems)
        return None

    for key in ("icon", "favicon"):
        result.json_fields[key] += key in feed
    feed_url = feed.get("feed_url")
    if not (isinstance(feed_url, str) and feed_url.endswith(self_suffix)):
        problems.append(f"feed_url is {feed_url!r}, not ...{self_suffix}")
    items = []
    for n, item in enumerate(items_raw, 1):
        if not isinstance(item, dict):
            continue
        for key in ("url", "title", "date_published"):
            if key not in item:
                problems.append(f"item {n}: no {key}")
        for key in ("image", "date_modified"):
            result.json_fields[key] += key in item
        published = item.get("date_published")
        if isinstance(published, str) and not UTC_SECONDS.match(published):
            problems.append(f"item {n}: date_published {published!r} is not YYYY-MM-DDTHH:MM:SSZ")
        modified = item.get("date_modified", published)
        date = rfc3339_to_epoch(published) if isinstance(published, str) else None
        updated = rfc3339_to_epoch(modified) if isinstance(modified, str) else None
        if date is not None and updated is not None and updated < date:
            problems.append(f"item {n}: date_modified is before date_published")
        items.append(
            {
                "link": item.get("url"),
                "guid": item.get("url"),
                "title": item.get("title"),
                "date": date,
                "updated": updated,
                "tags": item.get("tags") or [],
            }
        )
    ids = [item.get("id") for item in items_raw if isinstance(item, dict)]
    if len(ids) != len(set(map(str, ids))):
        problems.append("item ids are not unique")
    if not descending([item["date"] for item in items]):
        problems.append("items are not ordered newest first")

    result.report(label, problems, f"({len(items)} items)")
    return items, {"icon": feed.get("icon"), "favicon": feed.get("favicon"), "home_page_url": feed.get("home_page_url")}


def check_same_items(label: str, feeds: dict[str, tuple[list[dict], dict] | None], result: Result) -> None:
    """The feeds of one folder list the same items: each compared to feed.json, on the
    fields both carry (RSS has no updated)."""
    problems: list[str] = []
    missing = [name for name in FEEDS if name not in feeds]
    if missing:
        problems.append(f"{', '.join(missing)} missing")
    unreadable = [name for name, feed in feeds.items() if feed is None]
    if unreadable:
        problems.append(f"cannot compare: {', '.join(unreadable)} could not be read")
    reference = feeds.get("feed.json")
    if reference is not None:
        json_items, json_meta = reference
        for name in FEEDS[1:]:
            other = feeds.get(name)
            if other is None:
                continue
            items, meta = other
            if len(json_items) != len(items):
                problems.append(f"feed.json has {len(json_items)} items, {name} has {len(items)}")
            for n, (j, x) in enumerate(zip(json_items, items), 1):
                for key, what in (
                    ("link", "url/link"),
                    ("guid", "url/id" if name == "atom.xml" else "url/guid"),
                    ("title", "title"),
                    ("date", "date_published/published" if name == "atom.xml" else "date"),
                    ("updated", "date_modified (else date_published)/updated"),
                    ("tags", "tags/categories"),
                ):
                    if key in j and key in x and j[key] != x[key]:
                        problems.append(f"item {n}: {what} differs: feed.json {j[key]!r} vs {name} {x[key]!r}")
            if name == "atom.xml":
                # Atom's logo is JSON Feed's icon (the larger image), its icon the favicon.
                for atom_key, json_key in (("logo", "icon"), ("icon", "favicon")):
                    atom_value, json_value = meta.get(atom_key), json_meta.get(json_key)
                    if atom_value != json_value:
                        problems.append(f"atom.xml {atom_key} {atom_value!r}, feed.json {json_key} {json_value!r}")
    count = "" if reference is None else f"({len(reference[0])} items)"
    result.report(label, problems, count)


# --- the org's URLs and files ---------------------------------------------------------------


def org_url_of(org_dir: Path) -> tuple[str | None, str]:
    """The org's URL, from its changelog feed.json's home_page_url (`<org_url>/changelog`);
    or None and why not."""
    path = org_dir / "changelog" / "feed.json"
    try:
        home = json.loads(path.read_text(encoding="utf-8")).get("home_page_url")
    except (OSError, ValueError, AttributeError) as err:
        return None, f"cannot read the org's URL from {path}: {err}"
    if not isinstance(home, str) or not home.rstrip("/").endswith("/changelog"):
        return None, f"{path}: home_page_url {home!r} does not end with /changelog"
    return home.rstrip("/")[: -len("/changelog")], ""


def url_to_path(url: str, org_url: str, org_dir: Path) -> Path | None:
    """The file of the org's tree that `url` names (a folder's URL, ending with `/`, names
    its index.html); None for a URL outside the org's."""
    u, o = urlsplit(url), urlsplit(org_url)
    base = o.path.rstrip("/")
    if (u.scheme, u.netloc) != (o.scheme, o.netloc) or u.query or u.fragment or not u.path.startswith(base + "/"):
        return None
    relative = unquote(u.path[len(base) + 1 :])
    if any(part in (".", "..") for part in relative.split("/")):
        return None
    if relative == "" or relative.endswith("/"):
        relative += "index.html"
    return org_dir / relative


def w3c_to_epoch(text: str | None) -> int | None:
    """A sitemap lastmod (W3C Datetime: a date, or a date-time with a zone)."""
    if not text:
        return None
    text = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        text += "T00:00:00Z"
    return rfc3339_to_epoch(text)


def root_tag(path: Path) -> str | None:
    try:
        return ET.parse(path).getroot().tag
    except (ET.ParseError, OSError):
        return None


def check_robots(org_dir: Path, org_url: str, result: Result) -> bool:
    """robots.txt: names the sitemap, or (noindex) turns every crawler away and there is
    no sitemap. Returns whether the org is noindex."""
    path = org_dir / "robots.txt"
    problems: list[str] = []
    try:
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    except (OSError, UnicodeDecodeError) as err:
        result.report(str(path), [f"unreadable: {err}"])
        return False
    if "User-agent: *" not in lines:
        problems.append("no `User-agent: *` group")
    named = [line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("sitemap:")]
    sitemaps = sorted(p.name for p in org_dir.glob("sitemap*.xml"))
    noindex = "Disallow: /" in lines
    if noindex:
        if named:
            problems.append(f"disallows every crawler, yet names a sitemap: {named}")
        if sitemaps:
            problems.append(f"disallows every crawler (noindex), yet the org has {', '.join(sitemaps)}")
        result.report(str(path), problems, "(noindex: every crawler turned away, no sitemap)")
    else:
        want = f"{org_url}/sitemap.xml"
        if named != [want]:
            problems.append(f"names the sitemaps {named}, expected [{want!r}]")
        result.report(str(path), problems, f"(Sitemap: {want})")
    return noindex


def check_sitemap(
    org_dir: Path, org_url: str, json_items: list[dict], xsd_errors: dict[Path, list[str]] | None, result: Result
) -> None:
    """sitemap.xml (or the sitemap index and its sitemaps): valid, every page of the tree
    listed once with a lastmod, nothing else listed."""
    path = org_dir / "sitemap.xml"
    problems: list[str] = []
    if not path.is_file():
        result.report(str(path), ["missing (robots.txt does not turn crawlers away)"])
        return

    def xsd(file: Path) -> None:
        if xsd_errors is not None and file in xsd_errors:
            problems.extend(shorten(xsd_errors[file], f"XSD ({file.name}): "))

    xsd(path)
    url_sets: list[Path] = []
    tag = root_tag(path)
    if tag == f"{SITEMAP}sitemapindex":
        for n, loc in enumerate(ET.parse(path).getroot().iter(f"{SITEMAP}loc"), 1):
            target = url_to_path((loc.text or "").strip(), org_url, org_dir)
            if target is None or target.parent != org_dir or not target.is_file():
                problems.append(f"index entry {n}: {loc.text!r} names no sitemap file of the org")
            elif root_tag(target) != f"{SITEMAP}urlset":
                problems.append(f"index entry {n}: {target.name} is not a <urlset>")
            else:
                url_sets.append(target)
                xsd(target)
        strays = sorted(set(org_dir.glob("sitemap-*.xml")) - set(url_sets))
        if strays:
            problems.append(f"not in the index: {', '.join(p.name for p in strays)}")
    elif tag == f"{SITEMAP}urlset":
        url_sets.append(path)
    else:
        problems.append(f"root element {tag!r} is neither a urlset nor a sitemapindex of sitemaps.org 0.9")

    empty_org = not json_items
    listed: dict[Path, int | None] = {}
    count = 0
    for file in url_sets:
        for n, url in enumerate(ET.parse(file).getroot().iter(f"{SITEMAP}url"), 1):
            count += 1
            loc = (url.findtext(f"{SITEMAP}loc") or "").strip()
            lastmod = url.findtext(f"{SITEMAP}lastmod")
            where = f"{file.name} url {n} ({loc})"
            target = url_to_path(loc, org_url, org_dir)
            if target is None:
                problems.append(f"{where}: not a URL of the org ({org_url}/...)")
                continue
            if target.name != "index.html" or not target.is_file():
                problems.append(f"{where}: names no page (index.html) of the tree")
            if target in listed:
                problems.append(f"{where}: listed twice")
            epoch = w3c_to_epoch(lastmod)
            if lastmod is None and not empty_org:
                problems.append(f"{where}: no lastmod")
            elif lastmod is not None and epoch is None:
                problems.append(f"{where}: lastmod {lastmod!r} is not a W3C date-time")
            listed[target] = epoch

    pages = sorted((org_dir / "changelog").rglob("index.html"))
    unlisted = [str(page.relative_to(org_dir)) for page in pages if page not in listed]
    if unlisted:
        problems += shorten(unlisted, "page not in the sitemap: ")
    # An entry's page changed last when its item did (date_modified, else date_published).
    for item in json_items:
        target = url_to_path(item["link"] or "", org_url, org_dir)
        if target in listed and listed[target] is not None and listed[target] != item["updated"]:
            problems.append(f"{item['link']}: lastmod is not the item's date_modified (else date_published)")

    result.report(str(path), problems, f"({count} URLs in {len(url_sets)} urlset, {len(pages)} pages in the tree)")


# --- llms.txt and index.md ------------------------------------------------------------------


def check_llms(org_dir: Path, org_url: str, json_items: list[dict], result: Result) -> None:
    """changelog/llms.txt: llmstxt.org's structure; every link names a file of the tree;
    `## Updates` names every entry's index.md once, the feed's items first and in order."""
    path = org_dir / "changelog" / "llms.txt"
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as err:
        result.tally(V_LLMS, False)
        result.report(str(path), [f"unreadable: {err}"])
        return
    problems: list[str] = []
    if not re.match(r"^# \S", lines[0]):
        problems.append(f"line 1 is not an H1 `# Title`: {lines[0][:80]!r}")
    n = 1
    while n < len(lines) and not lines[n].strip():
        n += 1
    if n < len(lines) and re.match(r"^> \S", lines[n]):
        while n < len(lines) and lines[n].startswith(">"):
            n += 1
    else:
        problems.append(f"line {n + 1}: no `> description` block quote after the title")

    sections: dict[str, list[tuple[int, str, str]]] = {}
    current = None
    for number, line in enumerate(lines[n:], n + 1):
        if line.startswith("## "):
            current = line[3:].strip()
            if current in sections:
                problems.append(f"line {number}: a second `## {current}` section")
            sections[current] = []
        elif line.startswith("#"):
            problems.append(f"line {number}: a heading that is not an H2 section: {line[:80]!r}")
        elif current is not None and line.strip():
            match = LLMS_ITEM.match(line)
            if match:
                sections[current].append((number, match.group(1), match.group(2)))
            else:
                problems.append(
                    f"line {number} (## {current}): not a `- [name](url)` or `- [name](url): notes` item: {line[:80]!r}"
                )
    names = list(sections)
    if "Feeds" not in names or "Updates" not in names or names.index("Feeds") > names.index("Updates"):
        problems.append(f"sections are {names}: expected `## Feeds`, then `## Updates`")

    # Every link of the org names a file of its tree.
    for section, items in sections.items():
        for number, _, url in items:
            target = url_to_path(url, org_url, org_dir)
            if target is None:
                if section in ("Feeds", "Updates") or not url.startswith(("http://", "https://")):
                    problems.append(f"line {number}: {url} is not a URL of the org ({org_url}/...)")
            elif not target.is_file():
                problems.append(f"line {number}: {url} names no file of the tree")

    updates = sections.get("Updates", [])
    listed = [url_to_path(url, org_url, org_dir) for _, _, url in updates]
    for (number, _, url), target in zip(updates, listed):
        if target is not None and (target.name != "index.md" or target.parent.parent != org_dir / "changelog"):
            problems.append(f"line {number}: {url} is not an entry's <id>/index.md")
    times_listed = Counter(listed)
    for entry in sorted((org_dir / "changelog").glob("*/index.md")):
        times = times_listed[entry]
        if times != 1:
            problems.append(f"{entry.relative_to(org_dir)} is listed {times} times under ## Updates")
    # The newest entries are the feed's items, in its order and with its titles.
    for number, ((line, name, url), item) in enumerate(zip(updates, json_items), 1):
        want = f"{item['link']}index.md"
        title = re.sub(r"\\(.)", r"\1", name)
        if url != want or title != item["title"]:
            problems.append(
                f"line {line}: update {number} is [{title}]({url}), feed item {number} is [{item['title']}]({want})"
            )
    if len(updates) < len(json_items):
        problems.append(f"{len(updates)} updates, fewer than the feed's {len(json_items)} items")

    result.tally(V_LLMS, not problems)
    result.report(str(path), problems, f"({len(updates)} updates, {sum(map(len, sections.values()))} links)")


def prose(text: str):
    """The lines of Markdown `text` outside code blocks (fenced; indented, outside a list),
    code spans removed."""
    fence = ""
    indented = in_list = False
    blank_before = True
    for number, line in enumerate(text.split("\n"), 1):
        match = FENCE.match(line)
        if fence:
            closing = line.strip()
            if match and closing == closing[0] * len(closing) and closing[0] == fence[0] and len(closing) >= len(fence):
                fence = ""
            continue
        blank = not line.strip()
        deep = line.startswith(("    ", "\t"))
        if indented and (blank or deep):
            continue
        indented = False
        if deep and blank_before and not in_list:
            indented = True
            continue
        after_blank, blank_before = blank_before, blank
        if blank:
            continue
        if LIST_ITEM.match(line):
            in_list = True
        elif after_blank and not line[0].isspace():
            in_list = False  # a paragraph after a blank line ends the list
        if match:
            fence = match.group(1)
            continue
        yield number, CODE_SPAN.sub("", line)


def check_markdown(path: Path, result: Result) -> None:
    """An entry's index.md: a `# ` title first, every link and image destination and
    reference definition absolute or a fragment, and the entry's page beside it."""
    problems: list[str] = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        result.tally(V_MARKDOWN, False)
        result.report(str(path), [f"unreadable: {err}"])
        return
    if not re.match(r"^# \S", text):
        problems.append(f"does not start with a `# ` title: {text[:40]!r}")
    if not (path.parent / "index.html").is_file():
        problems.append("no entry page (index.html) beside it")
    links = definitions = 0
    for number, line in prose(text):
        found = []
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            definitions += 1
            found.append(("reference definition", definition.group(1)))
        for match in INLINE_DESTINATION.finditer(line):
            links += 1
            found.append(("link or image", match.group(1)))
        for match in HTML_URL_ATTRIBUTE.finditer(line):
            links += 1
            found.append(("HTML src/href", match.group(1) or match.group(2)))
        for what, destination in found:
            destination = destination.strip("<>")
            if not destination.startswith(ABSOLUTE):
                problems.append(f"line {number}: {what} destination {destination!r} is relative")
    result.markdown_links += links
    result.markdown_definitions += definitions
    result.tally(V_MARKDOWN, not problems)
    result.report(str(path), problems, f"({links} links and images, {definitions} reference definitions)")


# --- main -----------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = Path(argv[1])
    if not root.is_dir():
        print(f"conformance: {root} is not a folder", file=sys.stderr)
        return 2

    validator = make_validator()
    result = Result()
    folders: dict[Path, set[str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        names = {name for name in filenames if name in FEEDS}
        if names:
            folders[Path(dirpath)] = names
    orgs = sorted(path for path in root.iterdir() if (path / "changelog").is_dir())

    # The schema validators, each run once over all its files.
    atom_files = sorted(folder / "atom.xml" for folder, names in folders.items() if "atom.xml" in names)
    atom_errors = run_validator("jing", [str(ATOM_SCHEMA)], atom_files, result)
    sitemap_files = sorted(p for org in orgs for p in org.glob("sitemap*.xml"))
    indexes = [p for p in sitemap_files if root_tag(p) == f"{SITEMAP}sitemapindex"]
    url_sets = [p for p in sitemap_files if p not in indexes]
    xsd_errors: dict[Path, list[str]] | None = {}
    for schema, files, name in (
        (SITEMAP_SCHEMA, url_sets, V_SITEMAP_XSD),
        (SITEINDEX_SCHEMA, indexes, V_SITEINDEX_XSD),
    ):
        found = run_validator("xmllint", ["--noout", "--schema", str(schema)], files, result)
        if found is None:
            xsd_errors = None
        elif xsd_errors is not None:
            xsd_errors.update(found)
            for file in files:
                result.tally(name, not found[file])

    org_feeds: dict[Path, list[dict]] = {}
    for folder in sorted(folders):
        names = folders[folder]
        # A feed's own URL ends with its path below the organization's folder
        # (`{org_url}/changelog/feed.xml` for <org>/changelog/feed.xml).
        below_org = "".join(f"/{part}" for part in folder.relative_to(root).parts[1:])
        feeds: dict[str, tuple[list[dict], dict] | None] = {}
        if "feed.json" in names:
            path = folder / "feed.json"
            feeds["feed.json"] = check_json(path, str(path), f"{below_org}/feed.json", validator, result)
        if "feed.xml" in names:
            path = folder / "feed.xml"
            feeds["feed.xml"] = check_xml(path, str(path), f"{below_org}/feed.xml", result)
        if "atom.xml" in names:
            path = folder / "atom.xml"
            schema = None if atom_errors is None else atom_errors.get(path, [])
            feeds["atom.xml"] = check_atom(path, str(path), f"{below_org}/atom.xml", schema, result)
        check_same_items(f"{folder}: feed.json, feed.xml and atom.xml hold the same items", feeds, result)
        if folder.parent in orgs and folder.name == "changelog" and feeds.get("feed.json"):
            org_feeds[folder.parent] = feeds["feed.json"][0]

    sitemaps = markdown = 0
    for org in orgs:
        org_url, why = org_url_of(org)
        if org_url is None:
            result.report(f"{org}: the org's URL", [why])
            continue
        json_items = org_feeds.get(org, [])
        if not check_robots(org, org_url, result):
            check_sitemap(org, org_url, json_items, xsd_errors, result)
            sitemaps += 1
        check_llms(org, org_url, json_items, result)
        for path in sorted((org / "changelog").rglob("index.md")):
            check_markdown(path, result)
            markdown += 1

    # Nothing vacuous: the output has every kind of file, and the example content gives
    # the JSON Feed schema each optional field to check.
    problems = []
    if not folders:
        problems.append("no feed.xml, feed.json or atom.xml found")
    if not orgs:
        problems.append("no organization (a folder with changelog/ in it)")
    if not atom_files:
        problems.append("no atom.xml")
    if orgs and not sitemaps and not indexes and all((org / "robots.txt").is_file() for org in orgs):
        problems.append("no sitemap.xml (every org is noindex)")
    if orgs and not markdown:
        problems.append("no index.md")
    fields = result.json_fields
    for key, where in (("image", "items"), ("date_modified", "items"), ("icon", "feeds"), ("favicon", "feeds")):
        if not fields[key]:
            problems.append(f"no JSON Feed {where} with `{key}`")
    result.report(
        f"{root}: every output and JSON Feed field is exercised",
        problems,
        f"(JSON Feed: image in {fields['image']} items, date_modified in {fields['date_modified']} items, "
        f"icon in {fields['icon']} feeds, favicon in {fields['favicon']} feeds)",
    )

    # What each validator accepted, for the record of a run.
    extras = {
        V_JSON_SCHEMA: f", with image in {fields['image']} items, date_modified in {fields['date_modified']},"
        f" icon in {fields['icon']} feeds, favicon in {fields['favicon']}",
        V_MARKDOWN: f", {result.markdown_links} link and image destinations,"
        f" {result.markdown_definitions} reference definitions",
    }
    tallies = []
    for name in VALIDATORS:
        accepted, given = result.validators.get(name, [0, 0])
        tallies.append(f"{name}: {accepted} of {given} files valid{extras.get(name, '')}")
    print("validators: " + "; ".join(tallies))
    print(f"conformance: {result.passed} passed, {result.failed} failed")
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
