#!/usr/bin/env python3
"""Feed conformance check for a `shiplog generate` output folder.

Usage: python3 scripts/conformance.py OUTPUT_DIR

Walks OUTPUT_DIR and checks:

* every `feed.xml`: parsed by feedparser without a `bozo` error, RSS 2.0, a channel
  title and link, and every item with title, link, guid and a parsed pubDate;
* every `feed.json`: valid against tests/schema/jsonfeed-1.1.schema.json (JSON Feed
  1.1), with `date-time` formats really checked (RFC 3339);
* the contract of SPEC.md section 3 for each: its own URL (atom:link rel="self",
  feed_url) ends with its path below the organization's folder, date format, order
  (date descending), lastBuildDate = newest item;
* every folder holding a feed: feed.json and feed.xml both exist and list the same
  items (url = link = guid, title, date, tags) in the same order.

Prints one line per check and a closing line `conformance: N passed, M failed`. Exits 1
when a check failed or no feed was found, 2 on a usage error.

Needs: feedparser, jsonschema, rfc3339-validator (see scripts/requirements.txt).
"""

from __future__ import annotations

import calendar
import json
import os
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

try:
    import feedparser
    import jsonschema
except ImportError as err:  # pragma: no cover - environment problem
    sys.exit(f"conformance: missing Python package ({err}); pip install -r scripts/requirements.txt")

REPO = Path(__file__).resolve().parent.parent
SCHEMA_PATH = REPO / "tests" / "schema" / "jsonfeed-1.1.schema.json"
JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1"
# SPEC section 3: date_published is `YYYY-MM-DDTHH:MM:SSZ`, UTC, whole seconds.
UTC_SECONDS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


class Result:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def report(self, label: str, problems: list[str], note: str = "") -> None:
        if problems:
            self.failed += 1
            print(f"FAIL {label}")
            for problem in problems:
                print(f"       {problem}")
        else:
            self.passed += 1
            print(f"ok   {label}{'  ' + note if note else ''}")


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


def check_xml(path: Path, label: str, self_suffix: str, result: Result) -> list[dict] | None:
    """Checks one RSS file; returns its items (for the pair check) or None if unreadable."""
    problems: list[str] = []
    parsed = feedparser.parse(path.read_bytes())
    if parsed.bozo:
        problems.append(f"bozo: {type(parsed.bozo_exception).__name__}: {parsed.bozo_exception}")
    if parsed.get("version") != "rss20":
        problems.append(f"not RSS 2.0 (feedparser says {parsed.get('version')!r})")
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
    return None if parsed.bozo and not items else items


def schema_message(error) -> str:
    """A short message: anyOf-of-required reads as 'needs one of', long values are cut."""
    options = error.validator_value if error.validator == "anyOf" else None
    if options and all(set(o) == {"required"} for o in options):
        keys = ", ".join(k for o in options for k in o["required"])
        return f"needs at least one of: {keys}"
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."


def check_json(path: Path, label: str, self_suffix: str, validator, result: Result) -> list[dict] | None:
    """Checks one JSON Feed file; returns its items (for the pair check) or None if unreadable."""
    problems: list[str] = []
    try:
        feed = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        result.report(label, [f"not JSON: {err}"])
        return None

    for error in sorted(validator.iter_errors(feed), key=lambda e: list(map(str, e.absolute_path))):
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        problems.append(f"schema: {where}: {schema_message(error)}")

    items_raw = feed.get("items") if isinstance(feed, dict) else None
    if not isinstance(items_raw, list):
        result.report(label, problems)
        return None

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
        published = item.get("date_published")
        if isinstance(published, str) and not UTC_SECONDS.match(published):
            problems.append(f"item {n}: date_published {published!r} is not YYYY-MM-DDTHH:MM:SSZ")
        items.append(
            {
                "link": item.get("url"),
                "guid": item.get("url"),
                "title": item.get("title"),
                "date": rfc3339_to_epoch(published) if isinstance(published, str) else None,
                "tags": item.get("tags") or [],
            }
        )
    ids = [item.get("id") for item in items_raw if isinstance(item, dict)]
    if len(ids) != len(set(map(str, ids))):
        problems.append("item ids are not unique")
    if not descending([item["date"] for item in items]):
        problems.append("items are not ordered newest first")

    result.report(label, problems, f"({len(items)} items)")
    return items


def check_pair(label: str, json_items: list[dict] | None, xml_items: list[dict] | None, result: Result) -> None:
    problems: list[str] = []
    if json_items is None or xml_items is None:
        problems.append("cannot compare: a feed could not be read")
    else:
        if len(json_items) != len(xml_items):
            problems.append(f"feed.json has {len(json_items)} items, feed.xml has {len(xml_items)}")
        for n, (j, x) in enumerate(zip(json_items, xml_items), 1):
            for key, what in (
                ("link", "url/link"),
                ("guid", "url/guid"),
                ("title", "title"),
                ("date", "date"),
                ("tags", "tags/categories"),
            ):
                if j[key] != x[key]:
                    problems.append(f"item {n}: {what} differs: json {j[key]!r} vs xml {x[key]!r}")
    count = "" if json_items is None else f"({len(json_items)} items)"
    result.report(label, problems, count)


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
        names = {name for name in filenames if name in ("feed.xml", "feed.json")}
        if names:
            folders[Path(dirpath)] = names

    for folder in sorted(folders):
        names = folders[folder]
        # A feed's own URL ends with its path below the organization's folder
        # (`{org_url}/changelog/feed.xml` for <org>/changelog/feed.xml).
        below_org = "".join(f"/{part}" for part in folder.relative_to(root).parts[1:])
        json_items = xml_items = None
        if "feed.xml" in names:
            path = folder / "feed.xml"
            xml_items = check_xml(path, str(path), f"{below_org}/feed.xml", result)
        if "feed.json" in names:
            path = folder / "feed.json"
            json_items = check_json(path, str(path), f"{below_org}/feed.json", validator, result)
        pair_label = f"{folder}: feed.json and feed.xml hold the same items"
        if names == {"feed.xml", "feed.json"}:
            check_pair(pair_label, json_items, xml_items, result)
        else:
            missing = ({"feed.xml", "feed.json"} - names).pop()
            result.report(pair_label, [f"{missing} is missing"])

    if not folders:
        print(f"FAIL {root}: no feed.xml or feed.json found")
        result.failed += 1
    print(f"conformance: {result.passed} passed, {result.failed} failed")
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
