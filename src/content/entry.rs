//! One changelog entry: its front matter checked field by field, its Markdown rendered.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, SecondsFormat, Timelike, Utc};
use serde::Serialize;
use url::Url;

use super::images::Size;
use super::{front_matter, markdown};
use crate::error::Problem;
use crate::yaml::{self, Mapping};
use crate::{slug, text};

/// The front-matter keys an entry may have.
pub const KEYS: &[&str] = &[
    "title", "date", "tags", "id", "draft", "summary", "image", "updated",
];

/// Ids an entry may not take: they name other outputs of the org's changelog folder.
pub const RESERVED_IDS: &[&str] = &[
    "page",
    "tags",
    "feed.xml",
    "feed.json",
    "atom.xml",
    "llms.txt",
    "index.html",
    "widget.js",
    "search.js",
    "search.json",
];

/// A changelog entry that is not a draft (it may still be scheduled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Unique within the org; safe as a path segment.
    pub id: String,
    /// One line, not empty.
    pub title: String,
    /// Publication time, in UTC, in whole seconds.
    pub date: DateTime<Utc>,
    /// Whether `date` was written as a day (`2026-11-01`), without a time: pages show that
    /// day wherever the org is.
    pub date_is_day: bool,
    /// Its labels, as written.
    pub tags: Vec<String>,
    /// Short plain-text teaser.
    pub summary: Option<String>,
    /// When it last changed, if it did after `date`.
    pub updated: Option<DateTime<Utc>>,
    /// Whether `updated` was written as a day, without a time.
    pub updated_is_day: bool,
    /// Its picture.
    pub image: Option<Image>,
    /// Sanitized HTML with absolute links.
    pub content_html: String,
    /// Its Markdown, with absolute links.
    pub markdown: String,
    /// `{org_url}/changelog/<id>/`.
    pub url: String,
    /// The file the entry was read from.
    pub source: PathBuf,
    /// The files of its bundle (`<id>/index.md` with files beside it), published with it.
    pub assets: Vec<super::Asset>,
}

/// An entry's picture (front matter `image`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Its absolute address.
    pub url: String,
    /// Its width and height, for a file of the org folder whose header gives them.
    pub size: Option<Size>,
}

/// The fields every JSON view of an entry shares, in their order: the JSON Feed item and
/// the API listing item add `summary` to it, each in its own way.
#[derive(Serialize)]
pub struct EntryJson<'a> {
    /// [`Entry::id`].
    pub id: &'a str,
    /// [`Entry::url`].
    pub url: &'a str,
    /// [`Entry::title`].
    pub title: &'a str,
    /// [`Entry::content_html`].
    pub content_html: &'a str,
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub date_published: String,
    /// [`Entry::tags`].
    pub tags: &'a [String],
}

impl Entry {
    /// The publication time as `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn date_published(&self) -> String {
        self.date.to_rfc3339_opts(SecondsFormat::Secs, true)
    }

    /// The last change as `YYYY-MM-DDTHH:MM:SSZ`, when it has an `updated`.
    pub fn date_modified(&self) -> Option<String> {
        self.updated
            .map(|date| date.to_rfc3339_opts(SecondsFormat::Secs, true))
    }

    /// Writes the sizes of its pictures: `sizes` of the images of its HTML (by URL), and
    /// `image_size` of its `image`.
    pub fn add_picture_sizes(&mut self, sizes: &[(String, Size)], image_size: Option<Size>) {
        if !sizes.is_empty() {
            self.content_html = super::images::add_sizes(&self.content_html, sizes);
        }
        if let Some(image) = &mut self.image {
            image.size = image_size;
        }
    }

    /// When it last changed: `updated`, or else `date`.
    pub fn last_changed(&self) -> DateTime<Utc> {
        self.updated.unwrap_or(self.date)
    }

    /// The entry's JSON fields (without `summary`).
    pub fn json(&self) -> EntryJson<'_> {
        EntryJson {
            id: &self.id,
            url: &self.url,
            title: &self.title,
            content_html: &self.content_html,
            date_published: self.date_published(),
            tags: &self.tags,
        }
    }
}

/// A title longer than this gets a warning: it wraps badly in feed readers and chips.
const LONG_TITLE: usize = 100;

/// What reading an entry file gave.
pub struct Parsed {
    pub entry: Entry,
    pub draft: bool,
    /// Things worth fixing that do not stop a build.
    pub warnings: Vec<Problem>,
    /// The entry's relative links and images, resolved, with where they stand in the file.
    pub local_links: Vec<LocalLink>,
    /// Where its `tags` stand (an empty message), for problems that involve other entries.
    pub tags_at: Problem,
    /// Where its `image` stands (an empty message), when it names a file of the org.
    pub image_at: Option<Problem>,
}

/// An entry file that does not build: its problems, and what else there is to fix in it (its
/// warnings, its relative links for the org's broken-link check), so that an error never
/// hides the rest.
#[derive(Default)]
pub struct Failed {
    /// Why it does not build.
    pub problems: Vec<Problem>,
    /// What is worth fixing besides.
    pub warnings: Vec<Problem>,
    /// Its relative links and images, when its Markdown could be read.
    pub local_links: Vec<LocalLink>,
}

impl From<Vec<Problem>> for Failed {
    fn from(problems: Vec<Problem>) -> Failed {
        Failed {
            problems,
            ..Failed::default()
        }
    }
}

/// Reads one entry file. A draft is checked like any entry, but its Markdown is not rendered
/// since it is never published. Problems in its front matter do not stop the rest from
/// being checked.
pub fn parse(
    path: &Path,
    bytes: &[u8],
    default_id: &str,
    org_url: &str,
    website: Option<&str>,
    words: &crate::locale::Words,
) -> Result<Parsed, Failed> {
    let text = text::decode_utf8(path, bytes).map_err(|p| vec![p])?;
    if let Some(at) = front_matter::lone_carriage_return(text) {
        let (line, column) = text::position(text, at);
        return Err(vec![Problem::new(path, line, column, front_matter::LONE_CR)].into());
    }
    let split = front_matter::split(text).map_err(|message| vec![Problem::file(path, message)])?;
    let map = yaml::parse_mapping(path, split.yaml, split.yaml_line).map_err(|p| vec![p])?;
    let fields = Fields::read(&map, path, default_id);
    let mut problems = fields.as_ref().err().cloned().unwrap_or_default();
    let (id, draft) = match &fields {
        Ok(fields) => (fields.id.as_str(), fields.draft),
        Err(_) => (
            default_id,
            map.bool("draft", &mut Vec::new()).unwrap_or(false),
        ),
    };
    let url = format!("{org_url}/changelog/{id}/");
    let invalid = |url: &str, e: url::ParseError| {
        vec![Problem::file(
            path,
            format!("entry URL `{url}` is not valid: {e}"),
        )]
    };
    let bases = markdown::Bases {
        entry: Url::parse(&url).map_err(|e| invalid(&url, e))?,
        site: Url::parse(website.unwrap_or(org_url)).map_err(|e| invalid(org_url, e))?,
    };
    let mut warnings = match &fields {
        Ok(fields) => fields.warnings(&map),
        Err(_) => Vec::new(),
    };
    warnings.extend(
        yaml::swallowed_text(split.yaml, split.yaml_line, &["title", "summary"])
            .into_iter()
            .map(|(line, column, message)| Problem::new(path, line, column, message)),
    );
    let (image, image_at) = read_image(&map, &bases).unwrap_or_else(|found| {
        problems.extend(found);
        (None, None)
    });
    let body_start = text.len() - split.body.len();
    let unrendered = || markdown::Rendered {
        html: String::new(),
        local_links: Vec::new(),
        markdown: String::new(),
    };
    let rendered = if draft {
        unrendered()
    } else {
        markdown::render(split.body, &bases, id, words).unwrap_or_else(|refused| {
            problems.push(refused_problem(path, text, body_start, &refused));
            unrendered()
        })
    };
    if let Some(at) = split
        .body
        .find(crate::scaffold::PLACEHOLDER)
        .filter(|_| !draft)
    {
        let (line, column) = text::position(text, body_start + at);
        warnings.push(Problem::new(
            path,
            line,
            column,
            "the entry still holds the placeholder `shiplog new` wrote; replace it with what changed",
        ));
    }
    let local_links = locate_links(path, text, body_start, rendered.local_links);
    if website.is_none() {
        warnings.extend(
            local_links
                .iter()
                .filter(|link| link.root_relative)
                .map(|link| Problem {
                    message: format!(
                        "a root-relative link resolves to `{}`, on the changelog's own host; set `website` in _org.yaml to the org's main site (like `website: https://www.example.com`)",
                        link.url
                    ),
                    ..link.at.clone()
                }),
        );
    }
    let fields = match fields {
        Ok(fields) if problems.is_empty() => fields,
        _ => {
            return Err(Failed {
                problems,
                warnings,
                local_links,
            })
        }
    };
    let entry = Entry {
        content_html: rendered.html,
        markdown: rendered.markdown,
        id: fields.id,
        title: fields.title.trim().to_string(),
        date: fields.date,
        date_is_day: fields.date_is_day,
        tags: fields.tags,
        summary: fields.summary,
        updated: fields.updated,
        updated_is_day: fields.updated_is_day,
        image,
        url,
        source: path.to_path_buf(),
        assets: Vec::new(),
    };
    let tags_at = match map.get("tags") {
        Some(field) => map.problem(field, ""),
        None => map.problem_at_start(""),
    };
    Ok(Parsed {
        entry,
        draft: fields.draft,
        warnings,
        local_links,
        tags_at,
        image_at,
    })
}

/// A relative link or image of an entry, resolved.
pub struct LocalLink {
    /// Where it points.
    pub url: Url,
    /// Where it points, as the author wrote it.
    pub written: String,
    /// An image rather than a link.
    pub image: bool,
    /// Written from the root of a host (`/docs`).
    pub root_relative: bool,
    /// Where it stands in the file (an empty message).
    pub at: Problem,
}

/// The links of an entry's Markdown (whose body starts at `body_start` of the file's
/// `text`), each with where it stands in the file at `path`.
fn locate_links(
    path: &Path,
    text: &str,
    body_start: usize,
    links: Vec<markdown::LocalLink>,
) -> Vec<LocalLink> {
    let mut positions = text::Positions::new(text);
    links
        .into_iter()
        .map(|link| {
            let (line, column) = positions.of(body_start + link.offset);
            LocalLink {
                url: link.url,
                written: link.written,
                image: link.image,
                root_relative: link.root_relative,
                at: Problem::new(path, line, column, ""),
            }
        })
        .collect()
}

/// The problem with Markdown that is not rendered, located in the file at `path` (whose
/// `text` has the Markdown from `body_start` on).
fn refused_problem(
    path: &Path,
    text: &str,
    body_start: usize,
    refused: &markdown::Refused,
) -> Problem {
    let (offset, message) = match refused {
        markdown::Refused::TooDeep { offset } => (
            *offset,
            format!(
                "the Markdown nests more than {} levels deep here (block quotes, lists, emphasis, links, HTML elements); flatten it",
                markdown::MAX_NESTING
            ),
        ),
        markdown::Refused::TooLarge => (
            0,
            format!(
                "the text makes more than {} MiB of HTML (or of Markdown once its links are absolute), more than its pages and feeds can carry; shorten it or split it into several entries",
                markdown::MAX_HTML_BYTES / (1024 * 1024)
            ),
        ),
    };
    let (line, column) = text::position(text, body_start + offset);
    Problem::new(path, line, column, message)
}

/// The `image`: an https address, or a file of the org named relative to the entry, like
/// Markdown's images (whether the file is there is checked with the org's other files).
fn read_image(
    map: &Mapping<'_>,
    bases: &markdown::Bases,
) -> Result<(Option<Image>, Option<Problem>), Vec<Problem>> {
    let mut problems = Vec::new();
    let (Some(written), Some(field)) = (map.string("image", &mut problems), map.get("image"))
    else {
        return if problems.is_empty() {
            Ok((None, None))
        } else {
            Err(problems)
        };
    };
    let written = written.trim();
    let image = |url: &Url| Image {
        url: url.to_string(),
        size: None,
    };
    match Url::parse(written) {
        Ok(url) if url.scheme() == "https" && url.host().is_some() => Ok((Some(image(&url)), None)),
        Err(url::ParseError::RelativeUrlWithoutBase)
            if !written.is_empty() && !written.starts_with('/') =>
        {
            match bases.entry.join(written) {
                Ok(url) => Ok((Some(image(&url)), Some(map.problem(field, "")))),
                Err(e) => Err(vec![map.problem(field, format!("`image` is not a valid path: {e}"))]),
            }
        }
        _ => Err(vec![map.problem(
            field,
            format!("`image` must be a file of the org folder, written relative to the entry (like `shot.png`), or an https:// address; not `{written}`"),
        )]),
    }
}

/// The front matter of an entry, checked.
struct Fields {
    title: String,
    date: DateTime<Utc>,
    tags: Vec<String>,
    id: String,
    draft: bool,
    summary: Option<String>,
    updated: Option<DateTime<Utc>>,
    date_is_day: bool,
    updated_is_day: bool,
}

impl Fields {
    /// Reads and checks every key of `map`; all problems are returned together.
    fn read(map: &Mapping<'_>, path: &Path, default_id: &str) -> Result<Fields, Vec<Problem>> {
        let mut problems = Vec::new();
        map.reject_unknown_keys(KEYS, &mut problems);
        let title = read_title(map, &mut problems);
        let date = read_date(map, &mut problems);
        let tags = read_tags(map, &mut problems);
        let id = read_id(map, path, default_id, &mut problems);
        let draft = map.bool("draft", &mut problems).unwrap_or(false);
        let summary = read_summary(map, &mut problems);
        let updated = read_updated(map, date, &mut problems);
        if !problems.is_empty() {
            return Err(problems);
        }
        let (Some(title), Some(date)) = (title, date) else {
            return Err(vec![map.problem_at_start("entry is incomplete")]);
        };
        Ok(Fields {
            title,
            date,
            tags,
            id,
            draft,
            summary,
            updated,
            date_is_day: is_day(map, "date"),
            updated_is_day: is_day(map, "updated"),
        })
    }

    /// What is worth fixing but does not stop a build: no tags, a very long title.
    fn warnings(&self, map: &Mapping<'_>) -> Vec<Problem> {
        let mut warnings = Vec::new();
        if self.tags.is_empty() && !self.draft {
            warnings.push(map.problem_at_start(
                "the entry has no tags; tags let readers follow only what matters to them",
            ));
        }
        if let Some(field) = map
            .get("title")
            .filter(|_| self.title.chars().count() > LONG_TITLE)
        {
            warnings.push(map.problem(
                field,
                format!(
                    "the title is longer than {LONG_TITLE} characters; put the details in the text"
                ),
            ));
        }
        warnings
    }
}

fn read_title(map: &Mapping<'_>, problems: &mut Vec<Problem>) -> Option<String> {
    let title = map.string("title", problems);
    match &title {
        None if map.get("title").is_none() => {
            problems.push(map.problem_at_start("missing required key `title`"))
        }
        Some(title) => {
            if let Err(message) = check_line_text("title", title) {
                problems.push(map.problem(map.get("title").expect("title was read"), message));
            }
        }
        None => {}
    }
    title
}

fn read_date(map: &Mapping<'_>, problems: &mut Vec<Problem>) -> Option<DateTime<Utc>> {
    let Some(field) = map.get("date") else {
        problems.push(map.problem_at_start(
            "missing required key `date` (like `date: 2026-11-01` or `date: 2026-11-01T09:00:00Z`)",
        ));
        return None;
    };
    let message = match field.value.as_str().map(parse_date) {
        Some(Ok(date)) => return Some(date),
        Some(Err(message)) => message,
        None => "`date` must be an RFC 3339 date-time or a YYYY-MM-DD date".to_string(),
    };
    problems.push(map.problem(field, message));
    None
}

/// `updated`: a date like `date`, not before it; the same as `date` counts as none.
fn read_updated(
    map: &Mapping<'_>,
    date: Option<DateTime<Utc>>,
    problems: &mut Vec<Problem>,
) -> Option<DateTime<Utc>> {
    let field = map.get("updated")?;
    let updated = match field.value.as_str().map(parse_date) {
        Some(Ok(updated)) => updated,
        Some(Err(message)) => {
            problems.push(map.problem(field, format!("`updated`: {message}")));
            return None;
        }
        None => {
            problems.push(map.problem(
                field,
                "`updated` must be an RFC 3339 date-time or a YYYY-MM-DD date",
            ));
            return None;
        }
    };
    match date {
        Some(date) if updated < date => {
            problems.push(map.problem(
                field,
                format!(
                    "`updated` ({}) is before `date` ({}): an entry changes after it is published",
                    updated.to_rfc3339_opts(SecondsFormat::Secs, true),
                    date.to_rfc3339_opts(SecondsFormat::Secs, true)
                ),
            ));
            None
        }
        Some(date) if updated == date => None,
        _ => Some(updated),
    }
}

/// The most tags an entry may have: each one is a page and two feeds that hold the entry
/// with all its tags, so an entry's share of the output grows with the square of their number.
pub const MAX_TAGS: usize = 16;

fn read_tags(map: &Mapping<'_>, problems: &mut Vec<Problem>) -> Vec<String> {
    let tags = map.string_list("tags", problems).unwrap_or_default();
    if let Some(field) = map.get("tags").filter(|_| tags.len() > MAX_TAGS) {
        problems.push(map.problem(
            field,
            format!("{} tags; an entry may have at most {MAX_TAGS}", tags.len()),
        ));
        return Vec::new();
    }
    if let Some(field) = map.get("tags") {
        for tag in &tags {
            if let Err(message) = check_line_text("a tag", tag) {
                problems.push(map.problem(field, message));
            }
            let slug = slug::of_tag(tag);
            if slug.len() > slug::MAX_SEGMENT_BYTES {
                problems.push(map.problem(
                    field,
                    format!(
                        "a tag is {} bytes long as a page name; at most {} fit in a file name",
                        slug.len(),
                        slug::MAX_SEGMENT_BYTES
                    ),
                ));
            }
        }
    }
    tags
}

/// The `id`, or `default_id` (from the file name) when there is none.
fn read_id(
    map: &Mapping<'_>,
    path: &Path,
    default_id: &str,
    problems: &mut Vec<Problem>,
) -> String {
    if let Some(id) = map.string("id", problems) {
        if let Err(message) = check_id(&id) {
            problems.push(map.problem(map.get("id").expect("id was read"), message));
        }
        return id;
    }
    if let Err(message) = check_id(default_id) {
        problems.push(Problem::file(
            path,
            format!("{message} (the id comes from the file name; rename the file or set `id:`)"),
        ));
    }
    default_id.to_string()
}

/// The `summary`, left out when blank.
fn read_summary(map: &Mapping<'_>, problems: &mut Vec<Problem>) -> Option<String> {
    let summary = map
        .string("summary", problems)
        .filter(|summary| !summary.trim().is_empty());
    if let (Some(summary), Some(field)) = (&summary, map.get("summary")) {
        if summary
            .chars()
            .any(|c| text::is_unwritable(c) && c != '\n' && c != '\t')
        {
            problems.push(map.problem(field, "`summary` must not hold control characters"));
        }
    }
    summary
}

/// Parses an RFC 3339 date-time (any offset) or a `YYYY-MM-DD` date (00:00 UTC).
pub fn parse_date(text: &str) -> Result<DateTime<Utc>, String> {
    let text = text.trim();
    let parsed = if is_plain_date(text) {
        NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|d| d.and_utc())
    } else {
        DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|d| d.with_timezone(&Utc))
    };
    let date = parsed.ok_or_else(|| {
        format!("`{text}` is not a valid date: use an RFC 3339 date-time like `2026-11-01T09:00:00+02:00`, or `2026-11-01`")
    })?;
    // chrono represents a leap second as a nanosecond count past one second.
    if date.timestamp_subsec_nanos() >= 1_000_000_000 {
        return Err(format!(
            "`{text}` is not a valid date: the seconds must be below 60"
        ));
    }
    let year = chrono::Datelike::year(&date);
    if !(1970..=9999).contains(&year) {
        return Err(format!(
            "`{text}` is out of range: dates must fall in the years 1970 to 9999"
        ));
    }
    // Whole seconds, as every output shows them, so that entries shown with the same time
    // are ordered by id.
    let date = date
        .with_nanosecond(0)
        .expect("zero nanoseconds is always valid");
    Ok(date)
}

/// Whether the date at `key` is written as a day, without a time.
fn is_day(map: &Mapping<'_>, key: &str) -> bool {
    map.get(key)
        .and_then(|field| field.value.as_str())
        .is_some_and(|text| is_plain_date(text.trim()))
}

fn is_plain_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// Checks an entry id: `a-z`, `0-9`, `-`, `_`, `.`; not starting with `.`; not reserved.
pub fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("the id is empty".into());
    }
    if let Some(bad) = id
        .chars()
        .find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-' | '_' | '.'))
    {
        return Err(format!(
            "id `{id}` may only hold a-z, 0-9, `-`, `_` and `.`, not {}",
            text::describe_char(bad)
        ));
    }
    if id.starts_with('.') {
        return Err(format!("id `{id}` must not start with `.`"));
    }
    if id.len() > slug::MAX_SEGMENT_BYTES {
        return Err(format!(
            "the id is {} bytes long; at most {} fit in a file name",
            id.len(),
            slug::MAX_SEGMENT_BYTES
        ));
    }
    if RESERVED_IDS.contains(&id) {
        return Err(format!(
            "id `{id}` is reserved for the changelog's own outputs ({})",
            RESERVED_IDS.join(", ")
        ));
    }
    Ok(())
}

/// A one-line text (title, tag): not blank, no control characters.
fn check_line_text(what: &str, value: &str) -> Result<(), String> {
    if value.trim().is_empty() {
        Err(format!("{what} must not be empty"))
    } else if value.chars().any(text::is_unwritable) {
        Err(format!(
            "{what} must be one line without control characters"
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_convert_to_utc() {
        let d = parse_date("2026-11-01T09:30:00+02:00").unwrap();
        assert_eq!(
            d.to_rfc3339_opts(SecondsFormat::Secs, true),
            "2026-11-01T07:30:00Z"
        );
        let d = parse_date("2026-11-01").unwrap();
        assert_eq!(
            d.to_rfc3339_opts(SecondsFormat::Secs, true),
            "2026-11-01T00:00:00Z"
        );
        let d = parse_date("2026-11-01T09:00:00.750Z").unwrap();
        assert_eq!(d.timestamp_subsec_nanos(), 0, "stored in whole seconds");
        for bad in [
            "2025-03-04T23:59:60Z",
            "2026-13-01",
            "yesterday",
            "2026-11-01 Europe/Paris",
            "1969-12-31",
            "2026-1-1",
        ] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ids_are_checked() {
        for good in ["v1.2.0", "new_ui", "2026-11-fix"] {
            assert!(check_id(good).is_ok(), "{good}");
        }
        for bad in [
            "", "..", ".hidden", "a/b", "Big", "page", "feed.xml", "café",
        ] {
            assert!(check_id(bad).is_err(), "{bad}");
        }
    }
}
