//! `atom.xml`: Atom 1.0 (RFC 4287), written with the `atom_syndication` crate.

use atom_syndication::{Category, Content, Entry as AtomEntry, Feed, Link, Person, Text};
use chrono::{DateTime, FixedOffset, Utc};

use super::FeedInfo;
use crate::content::Entry;

/// The Atom document for `entries` (already limited and in feed order), with the feed
/// fields of `info`: an org's whole changelog or one of its tags. The same items as the
/// RSS and JSON feeds; `updated` is the latest change of an item (the Unix epoch for a feed
/// without items: never the wall clock, so that the same content gives the same bytes).
pub fn render(info: &FeedInfo, entries: &[&Entry]) -> Vec<u8> {
    let updated = entries
        .iter()
        .map(|entry| entry.last_changed())
        .max()
        .unwrap_or(DateTime::UNIX_EPOCH);
    let feed = Feed {
        title: Text::plain(info.title.clone()),
        id: format!("{}/", info.home_page_url),
        updated: fixed(updated),
        authors: vec![Person {
            name: info.author.clone(),
            uri: Some(info.website.clone()),
            ..Person::default()
        }],
        links: vec![
            link(&info.atom_url, "self", "application/atom+xml"),
            link(
                &format!("{}/", info.home_page_url),
                "alternate",
                "text/html",
            ),
        ],
        subtitle: Some(Text::plain(info.description.clone())),
        icon: info.icon.clone(),
        logo: info.icon.clone(),
        lang: Some(info.language.clone()),
        generator: Some(atom_syndication::Generator {
            value: "shiplog".to_string(),
            ..Default::default()
        }),
        entries: entries.iter().map(|entry| item(entry)).collect(),
        ..Feed::default()
    };
    let room: usize = entries
        .iter()
        .map(|entry| entry.content_html.len() * 5 / 4 + 1024)
        .sum();
    let mut bytes = feed
        .write_with_config(
            Vec::with_capacity(room + 2048),
            atom_syndication::WriteConfig {
                write_document_declaration: true,
                indent_size: Some(2),
            },
        )
        .expect("writing XML to memory cannot fail");
    bytes.push(b'\n');
    bytes
}

/// One entry as an Atom entry.
fn item(entry: &Entry) -> AtomEntry {
    AtomEntry {
        title: Text::plain(entry.title.clone()),
        id: entry.url.clone(),
        updated: fixed(entry.last_changed()),
        published: Some(fixed(entry.date)),
        links: vec![link(&entry.url, "alternate", "text/html")],
        categories: entry
            .tags
            .iter()
            .map(|tag| Category {
                term: tag.clone(),
                ..Category::default()
            })
            .collect(),
        summary: entry.summary.clone().map(Text::plain),
        content: Some(Content {
            value: Some(entry.content_html.clone()),
            content_type: Some("html".to_string()),
            ..Content::default()
        }),
        ..AtomEntry::default()
    }
}

fn link(href: &str, rel: &str, media_type: &str) -> Link {
    Link {
        href: href.to_string(),
        rel: rel.to_string(),
        mime_type: Some(media_type.to_string()),
        ..Link::default()
    }
}

fn fixed(date: DateTime<Utc>) -> DateTime<FixedOffset> {
    date.fixed_offset()
}
