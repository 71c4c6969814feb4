//! `feed.json`: JSON Feed 1.1, written with serde.

use serde::Serialize;

use super::feed_items::FeedItems;
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
    /// The WebSub hubs, where the org has any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hubs: Vec<Hub<'a>>,
    /// Always written empty: the items made once each are put in afterwards.
    items: &'a [Item<'a>],
}

/// A JSON Feed `hubs` member.
#[derive(Serialize)]
struct Hub<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    url: &'a str,
}

/// An entry as a JSON Feed item.
#[derive(Serialize)]
pub struct Item<'a> {
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

impl<'a> Item<'a> {
    /// The item of `entry`, as feeds and webhooks carry it.
    pub fn of(entry: &'a Entry) -> Self {
        Item {
            entry: entry.json(),
            summary: entry.summary.as_deref(),
            image: entry.image.as_ref().map(|image| image.url.as_str()),
            date_modified: entry.date_modified(),
        }
    }
}

/// How the feed's pretty-printed JSON ends where its items are empty, and where they are not.
const NO_ITEMS_END: &[u8] = b"[]\n}";
const ITEMS_END: &[u8] = b"\n  ]\n}";

/// The JSON Feed document for `entries` (already limited and in feed order), with the
/// channel fields of `info`: an org's whole changelog or one of its tags.
pub fn render(info: &FeedInfo, entries: &[&Entry], items: &FeedItems) -> Vec<u8> {
    let feed = Feed {
        version: VERSION,
        title: &info.title,
        home_page_url: &info.home_page_url,
        feed_url: &info.json_url,
        description: &info.description,
        language: &info.language,
        icon: info.icon.as_deref(),
        favicon: info.icon.as_deref(),
        hubs: info
            .hubs
            .iter()
            .map(|url| Hub {
                kind: "WebSub",
                url,
            })
            .collect(),
        items: &[],
    };
    let room: usize = entries
        .iter()
        .map(|entry| items.get(entry).json.len() + 1)
        .sum();
    let mut bytes = Vec::with_capacity(room + 2048);
    serde_json::to_writer_pretty(&mut bytes, &feed).expect("a feed of strings always serializes");
    if !entries.is_empty() {
        debug_assert!(bytes.ends_with(NO_ITEMS_END));
        bytes.truncate(bytes.len() - NO_ITEMS_END.len());
        bytes.push(b'[');
        for (n, entry) in entries.iter().enumerate() {
            if n > 0 {
                bytes.push(b',');
            }
            bytes.extend_from_slice(&items.get(entry).json);
        }
        bytes.extend_from_slice(ITEMS_END);
    }
    bytes.push(b'\n');
    bytes
}

/// One entry's item as it stands in a feed's `items`: on its own line, indented.
pub fn item(entry: &Entry) -> Vec<u8> {
    // The item is written where it stands in a feed, inside `{"items": [`, which is then cut
    // off with the closing brackets: the pretty printer indents by depth.
    #[derive(Serialize)]
    struct Wrapper<'a> {
        items: &'a [Item<'a>],
    }
    const START: &[u8] = b"{\n  \"items\": [";
    let item = Item::of(entry);
    let mut bytes = Vec::with_capacity(entry.content_html.len() * 9 / 8 + 1024);
    serde_json::to_writer_pretty(&mut bytes, &Wrapper { items: &[item] })
        .expect("an item of strings always serializes");
    debug_assert!(bytes.starts_with(START) && bytes.ends_with(ITEMS_END));
    bytes.truncate(bytes.len() - ITEMS_END.len());
    bytes.drain(..START.len());
    bytes
}
