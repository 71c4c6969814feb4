//! Listing pages and entries serialized (and compressed) once and then shared: each content
//! generation (one [`super::Snapshot`]) has its own cache, filled as pages are asked for and
//! dropped with the generation when new content is swapped in.

use std::collections::hash_map::{Entry, HashMap};
use std::sync::{Arc, PoisonError, RwLock};

use hyper::header::HeaderValue;

use super::encoding::Encoded;
use super::listing::{Listing, Query};

/// The bytes of pages one generation keeps: enough for the pages in everyday use, bounded
/// whatever pages and limits clients ask for.
pub const PAGE_CACHE_BYTES: usize = 32 << 20;

/// What an answer is cached under, within its organization.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum PageKey {
    /// A page of the listing. `first` is the position of the first published entry (entries
    /// before it are scheduled): a scheduled entry that comes due changes it, so the page is
    /// made anew with the entry in it.
    Page {
        /// See above.
        first: usize,
        /// The page, its size and filters.
        query: Query,
    },
    /// The entry at this position.
    Entry(usize),
}

/// The pages of one generation.
#[derive(Debug)]
pub(super) struct PageCache {
    held: RwLock<Held>,
    budget: usize,
}

#[derive(Debug, Default)]
struct Held {
    /// By organization slug, then page.
    pages: HashMap<String, HashMap<PageKey, Arc<Listing>>>,
    /// The bodies of those pages, by their `ETag`: queries written differently that select
    /// the same entries (`q=a b`, `q=B A`) share one body, compressed once.
    bodies: HashMap<HeaderValue, Arc<Encoded>>,
    /// As counted by [`weight`].
    bytes: usize,
}

impl PageCache {
    /// An empty cache that holds up to `budget` bytes of pages.
    pub(super) fn new(budget: usize) -> Self {
        PageCache {
            held: RwLock::new(Held::default()),
            budget,
        }
    }

    /// The answer `key` of organization `org`, made by `make` when it is not cached. When
    /// the budget is spent, the cache starts over: the pages asked for again come back at
    /// once, and none outgrows the budget.
    pub(super) fn get_or_make(
        &self,
        org: &str,
        key: PageKey,
        make: impl FnOnce() -> Listing,
    ) -> Arc<Listing> {
        if let Some(page) = self
            .held
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .pages
            .get(org)
            .and_then(|pages| pages.get(&key))
        {
            return page.clone();
        }
        let mut page = make();
        let mut size = weight(org, &page);
        if size > self.budget {
            return Arc::new(page);
        }
        let mut held = self.held.write().unwrap_or_else(PoisonError::into_inner);
        if held.bytes + size > self.budget {
            *held = Held::default();
        }
        let Held {
            pages,
            bodies,
            bytes,
        } = &mut *held;
        match bodies.entry(page.body.etag().clone()) {
            Entry::Occupied(same) => {
                size -= page.body.weight();
                page.body = same.get().clone();
            }
            Entry::Vacant(slot) => {
                slot.insert(page.body.clone());
            }
        }
        match pages.entry(org.to_string()).or_default().entry(key) {
            // Made meanwhile by another request: share that one.
            Entry::Occupied(cached) => cached.get().clone(),
            Entry::Vacant(slot) => {
                *bytes += size;
                slot.insert(Arc::new(page)).clone()
            }
        }
    }

    /// The bytes held.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.held.read().unwrap().bytes
    }
}

/// What a cached page costs, roughly: its bodies and headers, its key, and the map's share.
fn weight(org: &str, page: &Listing) -> usize {
    const OVERHEAD: usize = 256;
    page.body.weight() + page.link.as_ref().map_or(0, HeaderValue::len) + org.len() + OVERHEAD
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> Listing {
        Listing::new(
            body.as_bytes().to_vec(),
            Some(HeaderValue::from_static("<x>; rel=\"first\"")),
        )
    }

    fn key(first: usize, page: u64, limit: u64) -> PageKey {
        PageKey::Page {
            first,
            query: Query {
                page,
                limit,
                filter: Default::default(),
            },
        }
    }

    #[test]
    fn a_page_is_made_once_then_shared() {
        let cache = PageCache::new(PAGE_CACHE_BYTES);
        let made = std::cell::Cell::new(0);
        let make = || {
            made.set(made.get() + 1);
            page("one")
        };
        let a = cache.get_or_make("acme", key(0, 1, 20), make);
        let b = cache.get_or_make("acme", key(0, 1, 20), || unreachable!("cached"));
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(made.get(), 1);
        // Another org, page, limit, filter or first published entry is another page, and
        // an entry is not a page.
        let mut filtered = Query {
            page: 1,
            limit: 20,
            filter: Default::default(),
        };
        filtered.filter.q = Some("export".to_string());
        for (org, key) in [
            ("globex", key(0, 1, 20)),
            ("acme", key(1, 1, 20)),
            ("acme", key(0, 2, 20)),
            ("acme", key(0, 1, 21)),
            (
                "acme",
                PageKey::Page {
                    first: 0,
                    query: filtered,
                },
            ),
            ("acme", PageKey::Entry(0)),
        ] {
            let other = cache.get_or_make(org, key, || page("two"));
            assert_eq!(other.body.identity(), "two");
        }
    }

    #[test]
    fn pages_of_the_same_body_share_it() {
        let cache = PageCache::new(PAGE_CACHE_BYTES);
        let a = cache.get_or_make("acme", key(0, 1, 20), || page("same"));
        let b = cache.get_or_make("acme", key(0, 1, 21), || page("same"));
        assert!(Arc::ptr_eq(&a.body, &b.body));
        assert_eq!(cache.bytes(), 2 * weight("acme", &a) - a.body.weight());
    }

    #[test]
    fn the_budget_bounds_the_bytes_held() {
        let one = weight("acme", &page("0123456789"));
        let cache = PageCache::new(one * 3);
        for n in 0..10u64 {
            cache.get_or_make("acme", key(0, n + 1, 20), || page("0123456789"));
            assert!(
                cache.bytes() <= one * 3,
                "{} bytes after {n}",
                cache.bytes()
            );
        }
        // Started over after the third page: the tenth is held, the first no longer.
        assert!(cache.bytes() > 0);
        let again = cache.get_or_make("acme", key(0, 1, 20), || page("made again"));
        assert_eq!(again.body.identity(), "made again");
        // A page over the whole budget is served, not kept.
        let big = "x".repeat(one * 3);
        let cache = PageCache::new(one * 3);
        cache.get_or_make("acme", key(0, 1, 20), || page(&big));
        assert_eq!(cache.bytes(), 0);
    }
}
