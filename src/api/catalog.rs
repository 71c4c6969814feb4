//! What the listing is served from: for each organization, its entries in listing order,
//! each kept only as its JSON item of the listing, compressed. Made from the content
//! [`Index`] once per load; the index itself is then dropped, so that the server holds
//! about a third of the bytes it would (a page not yet cached costs a few inflates).

use std::io::Read as _;

use chrono::{DateTime, Utc};
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use flate2::Compression;
use rayon::prelude::*;
use serde::Serialize;

use crate::content::{Entry, EntryJson, Index};

/// Every organization of a content load.
#[derive(Debug, Default)]
pub struct Catalog {
    /// In slug order.
    orgs: Vec<OrgCatalog>,
}

/// One organization's entries (not drafts), newest first, scheduled ones included.
#[derive(Debug)]
pub struct OrgCatalog {
    slug: String,
    /// `date` descending, as the entries are.
    dates: Vec<DateTime<Utc>>,
    /// The raw-deflated JSON item of each entry.
    items: Vec<Box<[u8]>>,
}

/// One item of the listing's `data`.
#[derive(Serialize)]
struct Item<'a> {
    #[serde(flatten)]
    entry: EntryJson<'a>,
    /// `null` when the entry has none.
    summary: Option<&'a str>,
}

impl Catalog {
    /// The catalog of `index`.
    pub fn new(index: &Index) -> Catalog {
        Catalog {
            orgs: index
                .orgs()
                .par_iter()
                .map(|org| OrgCatalog {
                    slug: org.slug.clone(),
                    dates: org.entries.iter().map(|entry| entry.date).collect(),
                    items: org.entries.par_iter().map(compressed_item).collect(),
                })
                .collect(),
        }
    }

    /// The organization `slug`, if the content has it.
    pub fn org(&self, slug: &str) -> Option<&OrgCatalog> {
        self.orgs
            .binary_search_by(|org| org.slug.as_str().cmp(slug))
            .ok()
            .map(|i| &self.orgs[i])
    }

    /// How many organizations there are.
    pub fn org_count(&self) -> usize {
        self.orgs.len()
    }

    /// How many entries there are, in all organizations (scheduled ones included).
    pub fn entry_count(&self) -> usize {
        self.orgs.iter().map(|org| org.items.len()).sum()
    }
}

impl OrgCatalog {
    /// The position of the first entry published at `now` (those before it are scheduled
    /// after `now`).
    pub fn first_published(&self, now: DateTime<Utc>) -> usize {
        self.dates.partition_point(|date| *date > now)
    }

    /// How many entries there are, scheduled ones included.
    pub fn entry_count(&self) -> usize {
        self.items.len()
    }

    /// Appends the JSON items of the entries at `positions` to `out`, separated by commas.
    pub fn write_items(&self, positions: std::ops::Range<usize>, out: &mut Vec<u8>) {
        for (n, item) in self.items[positions].iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            DeflateDecoder::new(&item[..])
                .read_to_end(out)
                .expect("an item this process compressed inflates");
        }
    }
}

/// The listing item of `entry` as JSON, deflated.
fn compressed_item(entry: &Entry) -> Box<[u8]> {
    let item = Item {
        entry: entry.json(),
        summary: entry.summary.as_deref(),
    };
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::default());
    serde_json::to_writer(&mut encoder, &item).expect("an entry of strings always serializes");
    encoder
        .finish()
        .expect("writing to memory cannot fail")
        .into_boxed_slice()
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    #[test]
    fn items_inflate_to_their_json() {
        let org = OrgCatalog {
            slug: "acme".to_string(),
            dates: Vec::new(),
            items: ["{\"id\":\"a\"}", "{\"id\":\"b\"}", "{\"id\":\"c\"}"]
                .iter()
                .map(|json| {
                    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::default());
                    encoder.write_all(json.as_bytes()).unwrap();
                    encoder.finish().unwrap().into_boxed_slice()
                })
                .collect(),
        };
        let mut out = b"[".to_vec();
        org.write_items(1..3, &mut out);
        assert_eq!(out, b"[{\"id\":\"b\"},{\"id\":\"c\"}");
        let mut none = Vec::new();
        org.write_items(3..3, &mut none);
        assert!(none.is_empty());
    }
}
