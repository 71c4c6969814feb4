//! `feed.xml`: RSS 2.0, written with the `rss` crate.

use rss::extension::atom::{AtomExtension, Link};
use rss::{Category, Channel, ChannelBuilder, Guid, ImageBuilder, ItemBuilder};

use super::feed_items::FeedItems;
use super::FeedInfo;
use crate::content::Entry;

/// Where the items go in a channel written with `pretty_write_to(.., b' ', INDENT)`: before
/// its closing tag, the last thing in it.
const CHANNEL_END: &[u8] = b"\n  </channel>";
const INDENT: usize = 2;

/// The RSS document for `entries` (already limited and in feed order), with the
/// channel fields of `info`: an org's whole changelog or one of its tags.
pub fn render(info: &FeedInfo, entries: &[&Entry], items: &FeedItems) -> Vec<u8> {
    let self_link = Link {
        href: info.rss_url.clone(),
        rel: "self".to_string(),
        mime_type: Some("application/rss+xml".to_string()),
        ..Link::default()
    };
    let channel = ChannelBuilder::default()
        .title(info.title.clone())
        .link(info.home_page_url.clone())
        .description(info.description.clone())
        .language(Some(info.language.clone()))
        .last_build_date(entries.first().map(|newest| newest.date.to_rfc2822()))
        .generator(Some("shiplog".to_string()))
        .image(info.icon.as_ref().map(|logo| {
            ImageBuilder::default()
                .url(logo.clone())
                .title(info.title.clone())
                .link(info.home_page_url.clone())
                .build()
        }))
        .atom_ext(Some(AtomExtension {
            links: std::iter::once(self_link)
                .chain(info.hubs.iter().map(|hub| Link {
                    href: hub.clone(),
                    rel: "hub".to_string(),
                    ..Link::default()
                }))
                .collect(),
        }))
        .build();
    let room: usize = entries.iter().map(|entry| items.get(entry).rss.len()).sum();
    let mut bytes = channel
        .pretty_write_to(Vec::with_capacity(room + 2048), b' ', INDENT)
        .expect("writing XML to memory cannot fail");
    // The items, each written once (see `item`), go where the crate writes them: last in
    // the channel.
    let end =
        memchr::memmem::rfind(&bytes, CHANNEL_END).expect("a written channel has its closing tag");
    let closing = bytes.split_off(end);
    for entry in entries {
        bytes.extend_from_slice(&items.get(entry).rss);
    }
    bytes.extend_from_slice(&closing);
    bytes.push(b'\n');
    bytes
}

/// One entry's `<item>` as it stands in a feed: on its own line, indented.
pub fn item(entry: &Entry) -> Vec<u8> {
    let item = ItemBuilder::default()
        .title(Some(entry.title.clone()))
        .link(Some(entry.url.clone()))
        .guid(Some(Guid {
            value: entry.url.clone(),
            permalink: true,
        }))
        .pub_date(Some(entry.date.to_rfc2822()))
        .categories(
            entry
                .tags
                .iter()
                .map(|tag| Category {
                    name: tag.clone(),
                    domain: None,
                })
                .collect::<Vec<_>>(),
        )
        .description(Some(entry.content_html.clone()))
        .build();
    // The crate writes an item only inside a channel: the item is cut out of an otherwise
    // empty one, written the way `render` writes, so that its indentation is the same.
    let written = Channel {
        items: vec![item],
        ..Channel::default()
    }
    .pretty_write_to(
        Vec::with_capacity(entry.content_html.len() + 1024),
        b' ',
        INDENT,
    )
    .expect("writing XML to memory cannot fail");
    let end = memchr::memmem::rfind(&written, CHANNEL_END)
        .expect("a written channel has its closing tag");
    // The channel's own fields are empty, so the first `<item>` is the item's start tag.
    let start = memchr::memmem::find(&written, b"\n    <item>").expect("the item was written");
    written[start..end].to_vec()
}
