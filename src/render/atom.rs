//! `atom.xml`: Atom 1.0 (RFC 4287), written with quick-xml, the XML writer the `rss` crate
//! uses. Not with `atom_syndication`: it writes an entry's HTML as escaped text, `&lt;` by
//! `&lt;`, which made the Atom feeds a third larger than the RSS ones and their writing a
//! tenth of a build; here the HTML goes into CDATA sections, as in RSS.

use std::io::Write;

use chrono::{DateTime, SecondsFormat, Utc};
use quick_xml::events::{BytesCData, BytesDecl, BytesStart, BytesText, Event};
use quick_xml::Writer;

use super::feed_items::FeedItems;
use super::FeedInfo;
use crate::content::Entry;

/// The Atom document for `entries` (already limited and in feed order), with the feed
/// fields of `info`: an org's whole changelog or one of its tags. The same items as the
/// RSS and JSON feeds; `updated` is the latest change of an item (the Unix epoch for a feed
/// without items: never the wall clock, so that the same content gives the same bytes).
pub fn render(info: &FeedInfo, entries: &[&Entry], items: &FeedItems) -> Vec<u8> {
    let updated = entries
        .iter()
        .map(|entry| entry.last_changed())
        .max()
        .unwrap_or(DateTime::UNIX_EPOCH);
    let room: usize = entries
        .iter()
        .map(|entry| items.get(entry).atom.len())
        .sum();
    let mut xml = Writer::new_with_indent(Vec::with_capacity(room + 2048), b' ', INDENT);
    write_feed(&mut xml, info, updated, |xml| {
        for entry in entries {
            // Each entry was written once, at the depth it has here (see `item`).
            xml.get_mut().extend_from_slice(&items.get(entry).atom);
        }
        Ok(())
    })
    .expect("writing XML to memory cannot fail");
    let mut bytes = xml.into_inner();
    bytes.push(b'\n');
    bytes
}

/// One entry's `<entry>` element as it stands inside a feed: on its own line, indented one
/// level.
pub fn item(entry: &Entry) -> Vec<u8> {
    // quick-xml indents by the depth of the elements it has written: the entry is written
    // inside an opened element, whose start tag is then cut off (the entry's HTML has lines
    // of its own, so indenting it afterwards is not an option).
    const OPENED: &[u8] = b"<feed>";
    let mut xml = Writer::new_with_indent(
        Vec::with_capacity(entry.content_html.len() + 1024),
        b' ',
        INDENT,
    );
    xml.write_event(Event::Start(BytesStart::new("feed")))
        .and_then(|()| write_entry(&mut xml, entry))
        .expect("writing XML to memory cannot fail");
    let mut bytes = xml.into_inner();
    bytes.drain(..OPENED.len());
    bytes
}

/// Spaces per level of indentation.
const INDENT: usize = 2;

type XmlResult = std::io::Result<()>;

/// The feed element around the entries that `entries` writes.
fn write_feed<W: Write>(
    xml: &mut Writer<W>,
    info: &FeedInfo,
    updated: DateTime<Utc>,
    entries: impl FnOnce(&mut Writer<W>) -> XmlResult,
) -> XmlResult {
    xml.write_event(Event::Decl(BytesDecl::new("1.0", Some("utf-8"), None)))?;
    xml.create_element("feed")
        .with_attributes([
            ("xmlns", "http://www.w3.org/2005/Atom"),
            ("xml:lang", info.language.as_str()),
        ])
        .write_inner_content(|xml| {
            text(xml, "title", &info.title)?;
            text(xml, "id", &format!("{}/", info.home_page_url))?;
            text(xml, "updated", &date(updated))?;
            xml.create_element("author").write_inner_content(|xml| {
                text(xml, "name", &info.author)?;
                text(xml, "uri", &info.website)
            })?;
            text(xml, "generator", "shiplog")?;
            if let Some(icon) = &info.icon {
                text(xml, "icon", icon)?;
            }
            link(xml, &info.atom_url, "self", "application/atom+xml")?;
            for hub in &info.hubs {
                xml.create_element("link")
                    .with_attributes([("rel", "hub"), ("href", hub.as_str())])
                    .write_empty()?;
            }
            let home = format!("{}/", info.home_page_url);
            link(xml, &home, "alternate", "text/html")?;
            if let Some(icon) = &info.icon {
                text(xml, "logo", icon)?;
            }
            text(xml, "subtitle", &info.description)?;
            entries(xml)
        })?;
    Ok(())
}

/// One entry, its HTML as CDATA.
fn write_entry<W: Write>(xml: &mut Writer<W>, entry: &Entry) -> XmlResult {
    xml.create_element("entry").write_inner_content(|xml| {
        text(xml, "title", &entry.title)?;
        text(xml, "id", &entry.url)?;
        text(xml, "updated", &date(entry.last_changed()))?;
        for tag in &entry.tags {
            xml.create_element("category")
                .with_attribute(("term", tag.as_str()))
                .write_empty()?;
        }
        link(xml, &entry.url, "alternate", "text/html")?;
        text(xml, "published", &date(entry.date))?;
        if let Some(summary) = &entry.summary {
            text(xml, "summary", summary)?;
        }
        xml.create_element("content")
            .with_attribute(("type", "html"))
            .write_inner_content(|xml| {
                // `escaped` splits the text where it holds `]]>`, which no CDATA section may.
                BytesCData::escaped(&entry.content_html)
                    .try_for_each(|section| xml.write_event(Event::CData(section)))
            })?;
        Ok(())
    })?;
    Ok(())
}

/// `<name>value</name>`, the value escaped.
fn text<W: Write>(xml: &mut Writer<W>, name: &str, value: &str) -> XmlResult {
    xml.create_element(name)
        .write_text_content(BytesText::new(value))?;
    Ok(())
}

fn link<W: Write>(xml: &mut Writer<W>, href: &str, rel: &str, media_type: &str) -> XmlResult {
    xml.create_element("link")
        .with_attributes([("href", href), ("rel", rel), ("type", media_type)])
        .write_empty()?;
    Ok(())
}

/// A date as Atom writes it: RFC 3339 with the offset spelled out.
fn date(date: DateTime<Utc>) -> String {
    date.to_rfc3339_opts(SecondsFormat::Secs, false)
}
