//! Each entry's item in each feed format, serialized once per org. An entry is in its org's
//! feeds and in those of each of its tags (three formats each): serializing the same item
//! again for every feed it is in was most of what writing the feeds cost.

use std::collections::HashMap;

use super::{atom, json_feed, rss, Listing};
use crate::content::Entry;

/// The serialized items of every entry some feed of an org holds.
pub struct FeedItems<'a>(HashMap<&'a str, Items>);

/// One entry's item in each format, as its feed document holds it.
pub struct Items {
    /// `<item>` of `feed.xml`.
    pub rss: Vec<u8>,
    /// The item object of `feed.json`.
    pub json: Vec<u8>,
    /// `<entry>` of `atom.xml`.
    pub atom: Vec<u8>,
}

impl<'a> FeedItems<'a> {
    /// The items of the entries in the feeds of `listings`, each made once.
    pub fn new(listings: &[Listing<'a>], feed_limit: usize) -> Self {
        let mut items = HashMap::new();
        for listing in listings {
            for &entry in listing.in_feeds(feed_limit) {
                items.entry(entry.id.as_str()).or_insert_with(|| Items {
                    rss: rss::item(entry),
                    json: json_feed::item(entry),
                    atom: atom::item(entry),
                });
            }
        }
        FeedItems(items)
    }

    /// The items of `entry`, one of the entries in the feeds it was made for.
    pub fn get(&self, entry: &Entry) -> &Items {
        &self.0[entry.id.as_str()]
    }
}
