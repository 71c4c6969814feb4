//! `feed.json`: JSON Feed 1.1, written with serde.

use serde::Serialize;

use super::FeedInfo;
use crate::content::{Entry, EntryJson};

const VERSION: &str = "https://jsonfeed.org/version/1.1";

#[derive(Serialize)]
struct Feed<'a> {
    version: &'static str,
    title: &'a str,
    home_page_url: &'a str,
    feed_url: &'a str,
    description: &'a str,
    language: &'a str,
    /// The org's logo, where it has one (for both).
    #[serde(skip_serializing_if = "Option::is_none")]
    icon: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    favicon: Option<&'a str>,
    items: Vec<Item<'a>>,
}

#[derive(Serialize)]
struct Item<'a> {
    #[serde(flatten)]
    entry: EntryJson<'a>,
    /// Only where the entry has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date_modified: Option<String>,
}

/// The JSON Feed document for `entries` (already limited and in feed order), with the
/// channel fields of `info`: an org's whole changelog or one of its tags.
pub fn render(info: &FeedInfo, entries: &[&Entry]) -> Vec<u8> {
    let feed = Feed {
        version: VERSION,
        title: &info.title,
        home_page_url: &info.home_page_url,
        feed_url: &info.json_url,
        description: &info.description,
        language: &info.language,
        icon: info.icon.as_deref(),
        favicon: info.icon.as_deref(),
        items: entries
            .iter()
            .map(|entry| Item {
                entry: entry.json(),
                summary: entry.summary.as_deref(),
                image: entry.image.as_ref().map(|image| image.url.as_str()),
                date_modified: entry.date_modified(),
            })
            .collect(),
    };
    // Room for every item's HTML, escaped, and the fields around it.
    let room: usize = entries
        .iter()
        .map(|entry| entry.content_html.len() * 9 / 8 + 1024)
        .sum();
    let mut bytes = Vec::with_capacity(room + 2048);
    serde_json::to_writer_pretty(&mut bytes, &feed).expect("a feed of strings always serializes");
    bytes.push(b'\n');
    bytes
}
