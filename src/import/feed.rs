//! Any RSS 2.0, Atom 1.0 or JSON Feed (read by `feed-rs`), a hosted changelog's only export:
//! each item an entry, its HTML turned into Markdown (`htmd`), its categories its tags.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use url::Url;

use super::images::Images;
use super::{id_of, Asset, Imported, Skipped};
use crate::error::{Error, Problem, Result};
use crate::text;

/// The most a feed may weigh, read from a file or the network.
pub const MAX_FEED_BYTES: u64 = 32 * 1024 * 1024;

/// An HTTP client that gives up after `timeout` and follows redirects.
pub(super) fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .user_agent(concat!("shiplog/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// The bytes of the feed at `location`: an `http(s)://` URL, or a file.
pub fn fetch(location: &str) -> Result<Vec<u8>> {
    if !(location.starts_with("https://") || location.starts_with("http://")) {
        return text::read_limited(Path::new(location), MAX_FEED_BYTES).map_err(|source| {
            Error::Read {
                path: location.into(),
                source,
            }
        });
    }
    let agent = agent(Duration::from_secs(60));
    let fail = |why: String| Error::Usage(format!("cannot fetch {location}: {why}"));
    let mut response = agent
        .get(location)
        .call()
        .map_err(|e| fail(e.to_string()))?;
    response
        .body_mut()
        .with_config()
        .limit(MAX_FEED_BYTES)
        .read_to_vec()
        .map_err(|e| fail(e.to_string()))
}

/// Reads the feed `bytes` (from `path`, a file or URL as given) as entries, downloading the
/// images they show with `images`. Items with an id already taken by an earlier item are
/// skipped. All problems are returned together.
pub fn read(
    path: &Path,
    bytes: &[u8],
    images: Option<&Images>,
) -> std::result::Result<(Vec<Imported>, Skipped), Vec<Problem>> {
    let source = String::from_utf8_lossy(bytes);
    let feed = feed_rs::parser::parse(bytes).map_err(|e| {
        vec![Problem::file(
            path,
            format!("not an RSS, Atom or JSON feed: {e}"),
        )]
    })?;
    let converter = Converter::new();
    let mut problems = Vec::new();
    let mut entries: Vec<Imported> = Vec::new();
    let mut skipped = Vec::new();
    let mut cursor = 0;
    for (index, item) in feed.entries.iter().enumerate() {
        let link = item.links.first().map(|l| l.href.as_str());
        // feed-rs makes an id up (a UUID, or a digest of the link) for an item without one:
        // it is not in the file, and a UUID would differ on every run.
        let written_id =
            (!item.id.is_empty() && source.contains(&item.id)).then_some(item.id.as_str());
        let title_text = item.title.as_ref().map(|t| t.content.trim());
        let needle = written_id.or(link).or(title_text).unwrap_or_default();
        let offset = locate(&source, cursor, needle);
        cursor = (offset + 1).min(source.len());
        while !source.is_char_boundary(cursor) {
            cursor += 1;
        }
        let here = |message: String| Problem::at_offset(path, &source, offset, message);
        let name = format!("item {} (`{}`)", index + 1, needle);
        let Some(id) = written_id.or(link).map(item_id) else {
            problems.push(here(format!(
                "item {} has neither an id (`guid`, `id`) nor a link: its entry could not keep one id from run to run",
                index + 1
            )));
            continue;
        };
        if let Some(first) = entries.iter().find(|e| e.id == id) {
            skipped.push(here(format!(
                "skipped {name}: its id `{id}` is the one of the item at line {}",
                first.at.line
            )));
            continue;
        }
        let Some(date) = item.published.or(item.updated) else {
            problems.push(here(format!(
                "{name} has no date (neither published nor updated)"
            )));
            continue;
        };
        let title = item
            .title
            .as_ref()
            .map(|t| converter.text(t))
            .unwrap_or_default();
        if title.is_empty() {
            problems.push(here(format!("{name} has no title")));
            continue;
        }
        let base = link.and_then(|l| Url::parse(l).ok());
        let body = match converter.body(item, base.as_ref(), images) {
            Ok(body) => body,
            Err(message) => {
                problems.push(here(format!("{name}: {message}")));
                continue;
            }
        };
        skipped.extend(
            body.notes
                .into_iter()
                .map(|note| here(format!("{name}: {note}"))),
        );
        let updated = item
            .updated
            .filter(|u| item.published.is_some() && *u != date);
        let mut tags: Vec<String> = Vec::new();
        for category in &item.categories {
            let tag = category.label.as_deref().unwrap_or(&category.term).trim();
            if !tag.is_empty() && !tags.iter().any(|t| t == tag) {
                tags.push(tag.to_string());
            }
        }
        entries.push(Imported {
            id,
            title,
            date: rfc3339(date),
            updated: updated.map(rfc3339),
            tags,
            draft: false,
            summary: body.summary,
            body: body.markdown,
            at: here(String::new()),
            assets: body.files,
        });
    }
    if entries.is_empty() && problems.is_empty() {
        problems.push(Problem::file(path, "the feed holds no item"));
    }
    if problems.is_empty() {
        Ok((entries, skipped))
    } else {
        Err(problems)
    }
}

/// Where `needle` (an item's id, link or title) stands in `source` from `cursor` on: as an
/// element's text or a JSON string first, so that `.` is not found inside `<?xml version`.
fn locate(source: &str, cursor: usize, needle: &str) -> usize {
    if needle.is_empty() {
        return cursor;
    }
    [
        format!(">{needle}<"),
        format!("\"{needle}\""),
        needle.to_string(),
    ]
    .iter()
    .find_map(|pattern| {
        source[cursor..]
            .find(pattern.as_str())
            .map(|o| cursor + o + usize::from(!pattern.starts_with(needle)))
    })
    .unwrap_or(cursor)
}

/// An item's body as an entry holds it.
struct Body {
    markdown: String,
    summary: Option<String>,
    files: Vec<Asset>,
    notes: Vec<String>,
}

/// The address a downloaded image has until the Markdown's links are made absolute: then
/// it becomes the file's name, relative to the entry.
const DOWNLOADED: &str = "https://shiplog-import.invalid/";

/// The `src` of each image the cleaner saw, and the address to give each instead.
type SeenImages = Arc<Mutex<(Vec<String>, HashMap<String, String>)>>;

/// Turns an item's HTML into Markdown: sanitized first (ammonia), then converted (htmd);
/// each `<img src>` is seen on the way, and rewritten when its picture was downloaded.
struct Converter {
    markdown: htmd::HtmlToMarkdown,
    cleaner: ammonia::Builder<'static>,
    images: SeenImages,
}

impl Converter {
    fn new() -> Converter {
        let markdown = htmd::HtmlToMarkdown::builder()
            .options(htmd::options::Options {
                heading_style: htmd::options::HeadingStyle::Atx,
                code_block_style: htmd::options::CodeBlockStyle::Fenced,
                bullet_list_marker: htmd::options::BulletListMarker::Dash,
                translation_mode: htmd::options::TranslationMode::Faithful,
                ..Default::default()
            })
            .skip_tags(vec!["script", "style"])
            .build();
        let images = SeenImages::default();
        let seen = Arc::clone(&images);
        // Without what Markdown cannot hold and a page need not keep (a link's `target` and
        // `rel`, classes but a code block's language), so that the converter keeps as HTML
        // only what it must (`<details>`, a task's checkbox).
        let mut cleaner = ammonia::Builder::default();
        cleaner
            .link_rel(None)
            .add_tag_attributes("code", ["class"])
            .add_tags(["input"])
            .add_tag_attributes("input", ["type", "checked", "disabled"])
            // Unwrapped, their content kept: Atom's XHTML `<div>` would stay HTML otherwise.
            .rm_tags(["div", "span"])
            .attribute_filter(move |element, attribute, value| {
                if element == "img" && attribute == "src" {
                    let mut images = seen.lock().unwrap_or_else(|e| e.into_inner());
                    images.0.push(value.to_string());
                    if let Some(name) = images.1.get(value) {
                        return Some(Cow::Owned(format!("{DOWNLOADED}{name}")));
                    }
                }
                Some(Cow::Owned(value.to_string()))
            });
        Converter {
            markdown,
            cleaner,
            images,
        }
    }

    /// A title or summary as text: an HTML one's tags dropped, blanks collapsed.
    fn text(&self, text: &feed_rs::model::Text) -> String {
        if text.content_type.as_str() == "text/plain" {
            text.content
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            crate::html::text_start(&self.cleaner.clean(&text.content).to_string(), usize::MAX)
        }
    }

    /// The item's content (or its summary when it has none) as Markdown, its links made
    /// absolute against `base`, its images downloaded with `images`; and its summary, when
    /// it is text beside the content.
    fn body(
        &self,
        item: &feed_rs::model::Entry,
        base: Option<&Url>,
        images: Option<&Images>,
    ) -> std::result::Result<Body, String> {
        let plain = |content_type: &str| content_type == "text/plain";
        let content = item
            .content
            .as_ref()
            .and_then(|c| Some((c.body.as_deref()?, plain(c.content_type.as_str()))));
        let (written, is_text, summary) = match (content, item.summary.as_ref()) {
            (Some((body, is_text)), Some(summary)) if plain(summary.content_type.as_str()) => {
                (body, is_text, Some(self.text(summary)))
            }
            (Some((body, is_text)), _) => (body, is_text, None),
            (None, Some(summary)) => (
                summary.content.as_str(),
                plain(summary.content_type.as_str()),
                None,
            ),
            (None, None) => ("", false, None),
        };
        let mut body = Body {
            markdown: String::new(),
            summary: summary.filter(|s| !s.is_empty()),
            files: Vec::new(),
            notes: Vec::new(),
        };
        if is_text {
            body.markdown = plain_text_markdown(written);
            return Ok(body);
        }
        let lock = || self.images.lock().unwrap_or_else(|e| e.into_inner());
        *lock() = Default::default();
        let mut html = self.cleaner.clean(written).to_string();
        if let Some(images) = images {
            let sources = std::mem::take(&mut lock().0);
            let fetched = images.fetch(&sources, base);
            if !fetched.names.is_empty() {
                lock().1 = fetched.names;
                html = self.cleaner.clean(written).to_string();
            }
            body.files = fetched.files;
            body.notes = fetched.notes;
        }
        let markdown = self
            .markdown
            .convert(&html)
            .map_err(|e| format!("its HTML cannot be read: {e}"))?;
        let markdown = match base {
            Some(base) => crate::content::absolute_markdown(&markdown, base)?,
            None => markdown,
        };
        body.markdown = markdown.replace(DOWNLOADED, "");
        Ok(body)
    }
}

/// Plain text (Atom `type="text"`, JSON Feed `content_text`) as Markdown that shows it as
/// written: every ASCII punctuation character escaped (so `#`, `---`, `|`, `&amp;` stay
/// text), leading blanks kept as character references, paragraphs at blank lines, each line
/// break a hard break.
fn plain_text_markdown(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let paragraphs: Vec<String> = text
        .split("\n\n")
        .filter(|paragraph| !paragraph.trim().is_empty())
        .map(|paragraph| {
            let lines: Vec<String> = paragraph
                .trim_matches('\n')
                .lines()
                .map(|line| {
                    let line = line.trim_end();
                    let rest = line.trim_start_matches([' ', '\t']);
                    let mut out: String = line[..line.len() - rest.len()]
                        .chars()
                        .map(|c| if c == '\t' { "&#9;" } else { "&#32;" })
                        .collect();
                    for c in rest.chars() {
                        if c.is_ascii_punctuation() {
                            out.push('\\');
                        }
                        out.push(c);
                    }
                    out
                })
                .collect();
            lines.join("\\\n")
        })
        .collect();
    paragraphs.join("\n\n")
}

fn rfc3339(date: DateTime<Utc>) -> String {
    date.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// An item's entry id from its id, or its link when it has none: the last part
/// (`https://…/changelog/faster-exports/` → `faster-exports`, `tag:acme.example,2026:42` →
/// `42`).
fn item_id(name: &str) -> String {
    let last = match Url::parse(name) {
        Ok(url) if url.has_host() => {
            last_segment(&url).unwrap_or_else(|| url.host_str().unwrap_or_default().to_string())
        }
        _ => name
            .rsplit([':', '/'])
            .find(|part| !part.is_empty())
            .unwrap_or(name)
            .to_string(),
    };
    id_of(&last)
}

/// The last non-empty segment of `url`'s path, percent-decoded.
pub(super) fn last_segment(url: &Url) -> Option<String> {
    let segment = url.path_segments()?.rfind(|s| !s.is_empty())?;
    Some(
        percent_encoding::percent_decode_str(segment)
            .decode_utf8_lossy()
            .into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_ids_are_the_last_part_of_their_guid() {
        assert_eq!(
            item_id("https://acme.example/changelog/faster-exports/"),
            "faster-exports"
        );
        assert_eq!(item_id("tag:acme.example,2026:Release-42"), "release-42");
        assert_eq!(
            item_id("urn:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427"),
            "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
        );
        assert_eq!(item_id("https://x.example/p/caf%C3%A9"), "cafe");
        assert_eq!(item_id("https://x.example/"), "x.example");
    }

    #[test]
    fn plain_text_shows_as_written() {
        let text = "a <b> &amp; *c*\r\n# not heading\n---\n| a | b |\n|---|---|\n\n    indented\n1. x\n- y";
        let markdown = plain_text_markdown(text);
        let mut html = String::new();
        pulldown_cmark::html::push_html(
            &mut html,
            pulldown_cmark::Parser::new_ext(&markdown, pulldown_cmark::Options::all()),
        );
        assert_eq!(
            html,
            "<p>a &lt;b&gt; &amp;amp; *c*<br />\n# not heading<br />\n---<br />\n| a | b |<br />\n|---|---|</p>\n<p>\u{20}\u{20}\u{20}\u{20}indented<br />\n1. x<br />\n- y</p>\n"
        );
    }
}
