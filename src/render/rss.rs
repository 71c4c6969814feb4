//! `feed.xml`: RSS 2.0, written with the `rss` crate.

use rss::extension::atom::{AtomExtension, Link};
use rss::{CategoryBuilder, ChannelBuilder, GuidBuilder, ImageBuilder, ItemBuilder};

use super::FeedInfo;
use crate::content::Entry;

/// The RSS document for `entries` (already limited and in feed order), with the
/// channel fields of `info`: an org's whole changelog or one of its tags.
pub fn render(info: &FeedInfo, entries: &[&Entry]) -> Vec<u8> {
    let items = entries
        .iter()
        .map(|entry| {
            ItemBuilder::default()
                .title(Some(entry.title.clone()))
                .link(Some(entry.url.clone()))
                .guid(Some(
                    GuidBuilder::default()
                        .value(entry.url.clone())
                        .permalink(true)
                        .build(),
                ))
                .pub_date(Some(entry.date.to_rfc2822()))
                .categories(
                    entry
                        .tags
                        .iter()
                        .map(|tag| CategoryBuilder::default().name(tag.clone()).build())
                        .collect::<Vec<_>>(),
                )
                .description(Some(entry.content_html.clone()))
                .build()
        })
        .collect::<Vec<_>>();
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
            links: vec![self_link],
        }))
        .items(items)
        .build();
    // Room for every item's HTML, escaped, and the fields around it: growing the buffer
    // step by step cost more than writing it.
    let room: usize = entries
        .iter()
        .map(|entry| entry.content_html.len() * 5 / 4 + 1024)
        .sum();
    let mut bytes = channel
        .pretty_write_to(Vec::with_capacity(room + 2048), b' ', 2)
        .expect("writing XML to memory cannot fail");
    bytes.push(b'\n');
    bytes
}
