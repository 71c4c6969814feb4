//! The listing's filters (SPEC section 8): `tag`, `since` and `q`, and the per-organization
//! index that answers them without reading an entry: each tag's entries, and each word's.
//!
//! `q` matches as the changelog's search box does ([`crate::words`]): every word of the
//! query must start a word of an entry's title, summary, tags or text, in any letter case
//! and with or without accents.

use std::collections::HashMap;
use std::ops::Range;

use chrono::{DateTime, Utc};

use crate::content::Entry;
use crate::words;

/// The filters of one listing request, as the client wrote them (they go back into the
/// `Link` header), checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Filter {
    /// `tag`: entries with this tag (compared by its page name, so `Security` is `security`).
    pub tag: Option<String>,
    /// `since`: as written, and the time it names; entries published strictly after it.
    pub since: Option<(String, DateTime<Utc>)>,
    /// `q`: as written.
    pub q: Option<String>,
}

/// The most bytes of `q`, and the most words in it: a query is a few words, and each costs a
/// look-up.
pub const MAX_QUERY_BYTES: usize = 200;
/// See [`MAX_QUERY_BYTES`].
pub const MAX_QUERY_WORDS: usize = 8;

impl Filter {
    /// Whether no filter is given.
    pub fn is_empty(&self) -> bool {
        self.tag.is_none() && self.since.is_none() && self.q.is_none()
    }

    /// The parameters as a query string's start (`tag=…&since=…&q=…&`, each encoded), for
    /// the `Link` header.
    pub fn query_prefix(&self) -> String {
        let mut out = url::form_urlencoded::Serializer::new(String::new());
        if let Some(tag) = &self.tag {
            out.append_pair("tag", tag);
        }
        if let Some((since, _)) = &self.since {
            out.append_pair("since", since);
        }
        if let Some(q) = &self.q {
            out.append_pair("q", q);
        }
        let mut prefix = out.finish();
        if !prefix.is_empty() {
            prefix.push('&');
        }
        prefix
    }
}

/// Checks `tag`: it must name a tag page (hold a letter or digit).
pub fn check_tag(text: &str) -> Result<String, String> {
    if crate::slug::of_tag(text).is_empty() {
        return Err("`tag` must hold a letter or a digit, like `tag=security`".to_string());
    }
    Ok(text.to_string())
}

/// Checks `since`: an RFC 3339 time with its offset (`2026-03-01T09:00:00Z`), or a day
/// (`2026-03-01`, its first second in UTC).
pub fn check_since(text: &str) -> Result<(String, DateTime<Utc>), String> {
    // chrono reads a year of any digits and sign: a day must be written as RFC 3339 writes
    // one, `YYYY-MM-DD`.
    let is_day = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    let time = DateTime::parse_from_rfc3339(text)
        .map(|time| time.with_timezone(&Utc))
        .or_else(|_| {
            chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()
                .filter(|_| is_day)
                .map(|day| day.and_time(chrono::NaiveTime::MIN).and_utc())
                .ok_or(())
        })
        .map_err(|_| {
            "`since` must be an RFC 3339 time like `2026-03-01T09:00:00Z` (a `+` offset written `%2B`) or a day like `2026-03-01`"
                .to_string()
        })?;
    Ok((text.to_string(), time))
}

/// Checks `q`: a few words.
pub fn check_q(text: &str) -> Result<String, String> {
    if text.len() > MAX_QUERY_BYTES {
        return Err(format!("`q` may hold at most {MAX_QUERY_BYTES} bytes"));
    }
    let count = words::query_words(text).len();
    if count == 0 {
        return Err("`q` must hold a word (letters or digits), like `q=export csv`".to_string());
    }
    if count > MAX_QUERY_WORDS {
        return Err(format!("`q` may hold at most {MAX_QUERY_WORDS} words"));
    }
    Ok(text.to_string())
}

/// The entries each tag and each word of one organization's entries is found in. Positions
/// are the entries' in listing order, ascending in every list.
#[derive(Debug, Default)]
pub struct SearchIndex {
    /// By the tag's page name.
    tags: HashMap<Box<str>, Box<[u32]>>,
    /// Every word, folded, in byte order, one after the other; word `i` is
    /// `text[starts[i]..starts[i + 1]]`.
    text: String,
    starts: Vec<u32>,
    /// Word `i`'s entries are `positions[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<u32>,
    positions: Vec<u32>,
}

impl SearchIndex {
    /// The index of `entries` (in listing order).
    pub fn new(entries: &[Entry]) -> SearchIndex {
        let mut tags: HashMap<Box<str>, Vec<u32>> = HashMap::new();
        let mut postings: HashMap<Box<str>, Vec<u32>> = HashMap::new();
        for (position, entry) in entries.iter().enumerate() {
            let position = u32::try_from(position).unwrap_or(u32::MAX);
            for tag in &entry.tags {
                let list = tags.entry(crate::slug::of_tag(tag).into()).or_default();
                if list.last() != Some(&position) {
                    list.push(position);
                }
            }
            words::each_text(entry, |part| {
                let folded = words::fold(part);
                for word in words::index_words(std::iter::once(folded.as_ref())) {
                    let list = match postings.get_mut(word.as_ref()) {
                        Some(list) => list,
                        None => postings.entry(word.as_ref().into()).or_default(),
                    };
                    // A word met again in the same entry counts once.
                    if list.last() != Some(&position) {
                        list.push(position);
                    }
                }
            });
        }
        let mut postings: Vec<(Box<str>, Vec<u32>)> = postings.into_iter().collect();
        postings.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut index = SearchIndex {
            tags: tags
                .into_iter()
                .map(|(tag, list)| (tag, list.into_boxed_slice()))
                .collect(),
            ..SearchIndex::default()
        };
        index.starts.push(0);
        index.offsets.push(0);
        for (word, list) in postings {
            index.text.push_str(&word);
            index.starts.push(offset(index.text.len()));
            index.positions.extend(list);
            index.offsets.push(offset(index.positions.len()));
        }
        index.text.shrink_to_fit();
        index.positions.shrink_to_fit();
        index
    }

    /// The positions in `range` of the entries `filter` lets through (its `since` already
    /// applied by the caller, which knows the dates). `None` when `filter` has no tag and no
    /// `q`: then every position in `range` is let through.
    pub fn matching(&self, filter: &Filter, range: Range<usize>) -> Option<Vec<u32>> {
        if filter.tag.is_none() && filter.q.is_none() {
            return None;
        }
        let inside = |position: &u32| range.contains(&(*position as usize));
        let mut found: Vec<u32> = match &filter.tag {
            Some(tag) => match self.tags.get(crate::slug::of_tag(tag).as_str()) {
                Some(list) => list.iter().copied().filter(inside).collect(),
                None => return Some(Vec::new()),
            },
            None => range.clone().map(|p| p as u32).collect(),
        };
        let query = filter
            .q
            .as_deref()
            .map(words::query_words)
            .unwrap_or_default();
        for word in query {
            if found.is_empty() {
                break;
            }
            let having = self.having(&word, range.end);
            found.retain(|&position| having.contains(position));
        }
        Some(found)
    }

    /// The entries (below `end`) with a word that starts with `word`, or holds it when
    /// `word` is in a script written without spaces.
    fn having(&self, word: &str, end: usize) -> Bits {
        let mut bits = Bits::new(end);
        let add = |i: usize| {
            let list = &self.positions[self.offsets[i] as usize..self.offsets[i + 1] as usize];
            for &position in list {
                bits.insert(position);
            }
        };
        let count = self.starts.len() - 1;
        if words::is_dense(word) {
            (0..count)
                .filter(|&i| self.word(i).contains(word))
                .for_each(add);
        } else {
            let first = partition(count, |i| self.word(i) < word);
            (first..count)
                .take_while(|&i| self.word(i).starts_with(word))
                .for_each(add);
        }
        bits
    }

    fn word(&self, i: usize) -> &str {
        &self.text[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// The first of `0..count` for which `before` is false (it is true, then false).
fn partition(count: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, count);
    while low < high {
        let middle = low + (high - low) / 2;
        if before(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// An offset into an index's lists: an organization's entries and words stay far below 4
/// billion (entries are capped by the content's limits long before).
fn offset(length: usize) -> u32 {
    u32::try_from(length).expect("an organization's index is under 4 GB")
}

/// A set of positions below a bound.
struct Bits(Vec<u64>);

impl Bits {
    fn new(end: usize) -> Bits {
        Bits(vec![0; end.div_ceil(64)])
    }

    /// Adds `position`; one at or past the bound is left out.
    fn insert(&mut self, position: u32) {
        if let Some(word) = self.0.get_mut(position as usize / 64) {
            *word |= 1 << (position % 64);
        }
    }

    fn contains(&self, position: u32) -> bool {
        self.0
            .get(position as usize / 64)
            .is_some_and(|word| word & (1 << (position % 64)) != 0)
    }
}
