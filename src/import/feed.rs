//! Any RSS 2.0, Atom 1.0 or JSON Feed (read by `feed-rs`), a hosted changelog's only export:
//! each item an entry, its HTML turned into Markdown (`htmd`), its categories its tags.

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use url::Url;

use super::{id_of, Asset, Imported, Skipped};
use crate::error::{Error, Problem, Result};
use crate::text;

/// The most a feed may weigh, read from a file or the network.
pub const MAX_FEED_BYTES: u64 = 32 * 1024 * 1024;

/// The most one downloaded image may weigh (`--download-images`).
pub const MAX_IMAGE_BYTES: u64 = 10 * 1024 * 1024;

/// The picture types a build publishes, by extension, and the media type of each.
const PICTURES: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("apng", "image/apng"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("avif", "image/avif"),
    ("svg", "image/svg+xml"),
    ("bmp", "image/bmp"),
    ("ico", "image/x-icon"),
];

/// An HTTP client that gives up after a minute and follows redirects.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(60)))
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
    let agent = agent();
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

/// Downloads the images an entry shows into its folder (`--download-images`).
pub struct Images {
    agent: ureq::Agent,
}

impl Default for Images {
    fn default() -> Self {
        Images { agent: agent() }
    }
}

impl Images {
    /// `markdown` with each `http(s)` image it shows downloaded and written as a file of the
    /// entry's folder (`chart.png`), and the files; an image that cannot be had (too large,
    /// not a picture, not there) keeps its address, and why is said.
    fn localize(&self, markdown: &str) -> (String, Vec<Asset>, Vec<String>) {
        let mut urls: Vec<String> = Vec::new();
        for event in pulldown_cmark::Parser::new_ext(markdown, pulldown_cmark::Options::all()) {
            if let pulldown_cmark::Event::Start(pulldown_cmark::Tag::Image { dest_url, .. }) = event
            {
                let url = dest_url.to_string();
                if (url.starts_with("https://") || url.starts_with("http://"))
                    && !urls.contains(&url)
                {
                    urls.push(url);
                }
            }
        }
        let mut markdown = markdown.to_string();
        let mut files: Vec<Asset> = Vec::new();
        let mut notes = Vec::new();
        for url in urls {
            match self.picture(&url) {
                Ok((stem, extension, bytes)) => {
                    let mut name = format!("{stem}.{extension}");
                    let mut n = 2;
                    while files.iter().any(|(taken, _)| *taken == name) {
                        name = format!("{stem}-{n}.{extension}");
                        n += 1;
                    }
                    for (from, to) in [("](", ")"), ("](", " "), ("](<", ">")] {
                        markdown = markdown
                            .replace(&format!("{from}{url}{to}"), &format!("{from}{name}{to}"));
                    }
                    files.push((name, bytes));
                }
                Err(why) => notes.push(format!("kept the image {url} as an address: {why}")),
            }
        }
        (markdown, files, notes)
    }

    /// The picture at `url`: a name for it, its extension, and its bytes.
    fn picture(&self, url: &str) -> std::result::Result<(String, &'static str, Vec<u8>), String> {
        let mut response = self.agent.get(url).call().map_err(|e| e.to_string())?;
        let media_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let last = Url::parse(url)
            .ok()
            .and_then(|u| {
                u.path_segments()?
                    .rfind(|s| !s.is_empty())
                    .map(percent_decode)
            })
            .unwrap_or_default();
        let (stem, written) = last.rsplit_once('.').unwrap_or((&last, ""));
        let written = written.to_ascii_lowercase();
        let extension = PICTURES
            .iter()
            .find(|(extension, _)| *extension == written)
            .or_else(|| PICTURES.iter().find(|(_, media)| *media == media_type))
            .map(|(extension, _)| *extension)
            .ok_or_else(|| format!("it is not a picture (`{media_type}`)"))?;
        let bytes = response
            .body_mut()
            .with_config()
            .limit(MAX_IMAGE_BYTES)
            .read_to_vec()
            .map_err(|e| format!("{e} (at most {MAX_IMAGE_BYTES} bytes)"))?;
        let stem = id_of(stem);
        Ok((
            if stem.is_empty() {
                "image".to_string()
            } else {
                stem
            },
            extension,
            bytes,
        ))
    }
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
    let converter = htmd::HtmlToMarkdown::builder()
        .options(htmd::options::Options {
            heading_style: htmd::options::HeadingStyle::Atx,
            code_block_style: htmd::options::CodeBlockStyle::Fenced,
            bullet_list_marker: htmd::options::BulletListMarker::Dash,
            translation_mode: htmd::options::TranslationMode::Faithful,
            ..Default::default()
        })
        .skip_tags(vec!["script", "style"])
        .build();
    // Sanitized first, without what Markdown cannot hold and a page need not keep (a link's
    // `target` and `rel`, classes but a code block's language), so that the converter keeps
    // as HTML only what it must (`<details>`, a task's checkbox).
    let mut cleaner = ammonia::Builder::default();
    cleaner
        .link_rel(None)
        .add_tag_attributes("code", ["class"])
        .add_tags(["input"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        // Unwrapped, their content kept: Atom's XHTML `<div>` would stay HTML otherwise.
        .rm_tags(["div", "span"]);
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
        // Where the item stands in the file: its id (as an element's text or a JSON string
        // first, not inside another word), searched from the previous item on.
        let title_text = item.title.as_ref().map(|t| t.content.trim());
        let needle = written_id.or(link).or(title_text).unwrap_or_default();
        let offset = [
            format!(">{needle}<"),
            format!("\"{needle}\""),
            needle.to_string(),
        ]
        .iter()
        .filter(|_| !needle.is_empty())
        .find_map(|pattern| {
            source[cursor..]
                .find(pattern.as_str())
                .map(|o| cursor + o + usize::from(!pattern.starts_with(needle)))
        })
        .unwrap_or(cursor);
        cursor = (offset + 1).min(source.len());
        while !source.is_char_boundary(cursor) {
            cursor += 1;
        }
        let here = |message: String| {
            let (line, column) = text::position(&source, offset);
            Problem::new(path, line, column, message)
        };
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
            .map(|t| {
                if t.content_type.as_str() == "text/plain" {
                    t.content.split_whitespace().collect::<Vec<_>>().join(" ")
                } else {
                    crate::html::text_start(&cleaner.clean(&t.content).to_string(), usize::MAX)
                }
            })
            .unwrap_or_default();
        if title.is_empty() {
            problems.push(here(format!("{name} has no title")));
            continue;
        }
        let content = item.content.as_ref().and_then(|c| {
            let body = c.body.as_deref()?;
            Some(if c.content_type.as_str() == "text/plain" {
                plain_text_html(body)
            } else {
                body.to_string()
            })
        });
        let summary = item.summary.as_ref();
        let (html, summary) = match (content, summary) {
            (Some(html), Some(summary)) if summary.content_type.as_str() == "text/plain" => (
                html,
                Some(
                    summary
                        .content
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
            ),
            (Some(html), _) => (html, None),
            (None, Some(summary)) if summary.content_type.as_str() == "text/plain" => {
                (plain_text_html(&summary.content), None)
            }
            (None, Some(summary)) => (summary.content.clone(), None),
            (None, None) => (String::new(), None),
        };
        let body = match converter.convert(&cleaner.clean(&html).to_string()) {
            Ok(markdown) => markdown,
            Err(e) => {
                problems.push(here(format!("{name}: its HTML cannot be read: {e}")));
                continue;
            }
        };
        let body = match link.and_then(|l| Url::parse(l).ok()) {
            Some(base) => crate::content::absolute_markdown(&body, &base)
                .map_err(|message| here(format!("{name}: {message}"))),
            None => Ok(body),
        };
        let body = match body {
            Ok(body) => body,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        let (body, assets) = match images {
            Some(images) => {
                let (body, files, notes) = images.localize(&body);
                skipped.extend(
                    notes
                        .into_iter()
                        .map(|note| here(format!("{name}: {note}"))),
                );
                (body, files)
            }
            None => (body, Vec::new()),
        };
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
            summary: summary.filter(|s| !s.is_empty()),
            body,
            at: here(String::new()),
            assets,
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

/// Plain text (Atom `type="text"`, JSON Feed `content_text`) as HTML: every character
/// escaped, paragraphs at blank lines, line breaks kept.
fn plain_text_html(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    text.split("\n\n")
        .map(str::trim)
        .filter(|paragraph| !paragraph.is_empty())
        .map(|paragraph| {
            let lines: Vec<String> = paragraph.lines().map(crate::html::escape).collect();
            format!("<p>{}</p>", lines.join("<br>"))
        })
        .collect()
}

fn rfc3339(date: DateTime<Utc>) -> String {
    date.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// An item's entry id from its id, or its link when it has none: the last part
/// (`https://…/changelog/faster-exports/` → `faster-exports`, `tag:acme.example,2026:42` →
/// `42`).
fn item_id(name: &str) -> String {
    let last = match Url::parse(name) {
        Ok(url) if url.has_host() => url
            .path_segments()
            .and_then(|mut segments| segments.rfind(|s| !s.is_empty()))
            .map(percent_decode)
            .unwrap_or_else(|| url.host_str().unwrap_or_default().to_string()),
        _ => name
            .rsplit([':', '/'])
            .find(|part| !part.is_empty())
            .unwrap_or(name)
            .to_string(),
    };
    id_of(&last)
}

fn percent_decode(segment: &str) -> String {
    url::form_urlencoded::parse(format!("x={segment}").as_bytes())
        .next()
        .map(|(_, value)| value.into_owned())
        .unwrap_or_else(|| segment.to_string())
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
        assert_eq!(
            plain_text_html("a <b>\r\nc\n\nd"),
            "<p>a &lt;b&gt;<br>c</p><p>d</p>"
        );
    }
}
