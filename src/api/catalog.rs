//! What the listing is served from: for each organization, its entries in listing order,
//! each kept only as its JSON item of the listing, compressed. Made from the content
//! [`Index`] once per load; the index itself is then dropped, so that the server holds
//! about a third of the bytes it would (a page not yet cached costs a few inflates).
//!
//! Each organization also keeps a fingerprint of its folder (every file's path, size and
//! modification time), so that a reload reads only the organizations whose folder changed.

use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use flate2::write::DeflateEncoder;
use flate2::{Compression, Decompress, FlushDecompress, Status};
use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};
use walkdir::WalkDir;

use super::filter::{Filter, SearchIndex};
use crate::content::{Entry, EntryJson, Index, Org};

/// What the files of an organization folder looked like, hashed.
pub type Fingerprint = [u8; 32];

/// Every organization of a content load.
#[derive(Debug, Default)]
pub struct Catalog {
    /// In slug order; shared with the catalogs of later loads while their folder is the same.
    orgs: Vec<Arc<OrgCatalog>>,
}

/// One organization's entries (not drafts), newest first, scheduled ones included.
#[derive(Debug)]
pub struct OrgCatalog {
    slug: String,
    /// Of the folder, taken before it was read.
    fingerprint: Option<Fingerprint>,
    /// `date` descending, as the entries are.
    dates: Vec<DateTime<Utc>>,
    /// The JSON item of each entry: its length (4 bytes, little-endian), then the item
    /// raw-deflated.
    items: Vec<Box<[u8]>>,
    /// Each entry's position, by id.
    positions: HashMap<Box<str>, usize>,
    /// Each tag's and word's entries, for the listing's filters.
    search: SearchIndex,
}

/// The entries a listing request selects, newest first: positions in the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Every entry in a range (no filter, or `since` alone).
    Range(std::ops::Range<usize>),
    /// The entries a tag or `q` let through.
    List(Vec<u32>),
}

impl Selection {
    /// How many entries are selected.
    pub fn len(&self) -> usize {
        match self {
            Selection::Range(range) => range.len(),
            Selection::List(list) => list.len(),
        }
    }

    /// The positions of the selected entries `start..end` (in selection order).
    pub fn positions(&self, start: usize, end: usize) -> Vec<usize> {
        match self {
            Selection::Range(range) => (range.start + start..range.start + end).collect(),
            Selection::List(list) => list[start..end].iter().map(|&p| p as usize).collect(),
        }
    }
}

/// One item of the listing's `data`.
#[derive(Serialize)]
struct Item<'a> {
    #[serde(flatten)]
    entry: EntryJson<'a>,
    /// `null` when the entry has none.
    summary: Option<&'a str>,
    /// Left out when the entry has none, as in JSON Feed.
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<&'a str>,
    /// Left out when the entry has none, as in JSON Feed.
    #[serde(skip_serializing_if = "Option::is_none")]
    date_modified: Option<String>,
}

impl Catalog {
    /// The catalog of `index`, whose org folders had `fingerprints` before it was read.
    pub fn new(index: &Index, fingerprints: &HashMap<String, Fingerprint>) -> Catalog {
        Catalog {
            orgs: catalog_orgs(index, fingerprints),
        }
    }

    /// The organizations whose folder is new or changed since this catalog was made, by
    /// `fingerprints` taken now: the ones to read again.
    pub fn changed(&self, fingerprints: &HashMap<String, Fingerprint>) -> HashSet<String> {
        fingerprints
            .iter()
            .filter(|(slug, print)| {
                self.org(slug)
                    .is_none_or(|org| org.fingerprint.as_ref() != Some(*print))
            })
            .map(|(slug, _)| slug.clone())
            .collect()
    }

    /// This catalog with the organizations of `index` (read anew) put in, and the ones
    /// whose folder is gone (not in `fingerprints`) taken out; the others are shared.
    pub fn updated(&self, index: &Index, fingerprints: &HashMap<String, Fingerprint>) -> Catalog {
        let fresh = catalog_orgs(index, fingerprints);
        let read: HashSet<&str> = fresh.iter().map(|org| org.slug.as_str()).collect();
        let mut orgs: Vec<Arc<OrgCatalog>> = self
            .orgs
            .iter()
            .filter(|org| fingerprints.contains_key(&org.slug) && !read.contains(org.slug.as_str()))
            .cloned()
            .collect();
        orgs.extend(fresh);
        orgs.sort_by(|a, b| a.slug.cmp(&b.slug));
        Catalog { orgs }
    }

    /// The organization `slug`, if the content has it.
    pub fn org(&self, slug: &str) -> Option<&OrgCatalog> {
        self.orgs
            .binary_search_by(|org| org.slug.as_str().cmp(slug))
            .ok()
            .map(|i| &*self.orgs[i])
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

    /// The position of the entry `id`, scheduled ones included.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.positions.get(id).copied()
    }

    /// The entries `filter` selects among those published (from position `first` on).
    pub fn select(&self, filter: &Filter, first: usize) -> Selection {
        // Dates descend: the entries after `since` come first.
        let end = filter
            .since
            .as_ref()
            .map_or(self.dates.len(), |(_, since)| {
                self.dates.partition_point(|date| date > since)
            });
        let range = first..end.max(first);
        match self.search.matching(filter, range.clone()) {
            Some(list) => Selection::List(list),
            None => Selection::Range(range),
        }
    }

    /// Appends the JSON items of the entries at `positions` to `out`, separated by commas.
    /// One inflater serves them all, writing straight into `out`: a fresh one per item, and
    /// reading through a buffer, cost more than the inflating itself.
    pub fn write_items(&self, positions: impl IntoIterator<Item = usize>, out: &mut Vec<u8>) {
        let mut inflater = Decompress::new(false);
        for (n, position) in positions.into_iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            let (length, deflated) = self.items[position].split_at(4);
            let length = u32::from_le_bytes(length.try_into().expect("4 bytes")) as usize;
            out.reserve(length);
            inflater.reset(false);
            let status = inflater
                .decompress_vec(deflated, out, FlushDecompress::Finish)
                .expect("an item this process compressed inflates");
            assert_eq!(status, Status::StreamEnd, "an item inflates whole");
        }
    }
}

/// The catalogs of the organizations of `index`.
fn catalog_orgs(
    index: &Index,
    fingerprints: &HashMap<String, Fingerprint>,
) -> Vec<Arc<OrgCatalog>> {
    index
        .orgs()
        .par_iter()
        .map(|org: &Org| {
            Arc::new(OrgCatalog {
                slug: org.slug.clone(),
                fingerprint: fingerprints.get(&org.slug).copied(),
                dates: org.entries.iter().map(|entry| entry.date).collect(),
                items: org.entries.par_iter().map(compressed_item).collect(),
                positions: org
                    .entries
                    .iter()
                    .enumerate()
                    .map(|(position, entry)| (entry.id.as_str().into(), position))
                    .collect(),
                search: SearchIndex::new(&org.entries),
            })
        })
        .collect()
}

/// The fingerprint of each organization folder of `content` (the folders not named with a
/// leading `.` or `_`), by name. A folder that cannot be read has none.
pub fn fingerprints(content: &Path) -> HashMap<String, Fingerprint> {
    let (Ok(folders), Ok(root)) = (std::fs::read_dir(content), content.canonicalize()) else {
        return HashMap::new();
    };
    folders
        .filter_map(|item| {
            let item = item.ok()?;
            let name = item.file_name().into_string().ok()?;
            let folder = item.path();
            // A folder that is a link out of the content folder is never walked (loading
            // reports it): it could lead to `/`.
            let inside = folder
                .canonicalize()
                .is_ok_and(|real| real.starts_with(&root));
            (inside && folder.is_dir() && !name.starts_with('.') && !name.starts_with('_'))
                .then(|| (name, fingerprint(&folder)))
        })
        .collect()
}

/// Every file's and folder's path, size and modification time under `folder`, hashed.
fn fingerprint(folder: &Path) -> Fingerprint {
    let mut hasher = Sha256::new();
    for item in WalkDir::new(folder).sort_by_file_name() {
        let Ok(item) = item else {
            hasher.update(b"\0unreadable\0");
            continue;
        };
        hasher.update(item.path().as_os_str().as_encoded_bytes());
        hasher.update([0]);
        if let Ok(metadata) = item.metadata() {
            hasher.update(metadata.len().to_le_bytes());
            let modified = metadata
                .modified()
                .ok()
                .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            hasher.update(modified.as_nanos().to_le_bytes());
        }
    }
    hasher.finalize().into()
}

/// The listing item of `entry` as JSON: its length, then the JSON deflated.
fn compressed_item(entry: &Entry) -> Box<[u8]> {
    let item = Item {
        entry: entry.json(),
        summary: entry.summary.as_deref(),
        image: entry.image.as_ref().map(|image| image.url.as_str()),
        date_modified: entry.date_modified(),
    };
    let json = serde_json::to_vec(&item).expect("an entry of strings always serializes");
    deflated_with_length(&json)
}

/// `json`'s length (4 bytes, little-endian), then `json` raw-deflated.
fn deflated_with_length(json: &[u8]) -> Box<[u8]> {
    let length = u32::try_from(json.len()).expect("an item is far below 4 GB");
    let mut encoder = DeflateEncoder::new(length.to_le_bytes().to_vec(), Compression::default());
    encoder
        .write_all(json)
        .expect("writing to memory cannot fail");
    encoder
        .finish()
        .expect("writing to memory cannot fail")
        .into_boxed_slice()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_inflate_to_their_json() {
        let org = OrgCatalog {
            slug: "acme".to_string(),
            fingerprint: None,
            dates: Vec::new(),
            items: ["{\"id\":\"a\"}", "{\"id\":\"b\"}", "{\"id\":\"c\"}"]
                .iter()
                .map(|json| deflated_with_length(json.as_bytes()))
                .collect(),
            positions: HashMap::new(),
            search: SearchIndex::default(),
        };
        let mut out = b"[".to_vec();
        org.write_items(1..3, &mut out);
        assert_eq!(out, b"[{\"id\":\"b\"},{\"id\":\"c\"}");
        let mut none = Vec::new();
        org.write_items(3..3, &mut none);
        assert!(none.is_empty());
    }
}
