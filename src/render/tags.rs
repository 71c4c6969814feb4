//! Tag pages: the slug each tag's page lives at, and which entries each page lists.

use std::collections::BTreeMap;

use crate::content::Entry;
use crate::slug;

/// The folder of an org's changelog that holds its tag pages (an id entries may not take).
pub const FOLDER: &str = "tags";

/// The tags that share one slug, with the published entries that carry any of them.
pub struct TagGroup<'a> {
    /// The spelling shown on the page and in the feed titles: that of the newest entry.
    pub name: &'a str,
    pub slug: String,
    /// In publication order, each entry once.
    pub entries: Vec<&'a Entry>,
}

/// One group per slug used by `published` (entries in publication order), in slug order.
/// Tags whose slugs are equal share a page; tags with an empty slug get none.
pub fn group(published: &[Entry]) -> Vec<TagGroup<'_>> {
    let mut groups: BTreeMap<String, TagGroup<'_>> = BTreeMap::new();
    for entry in published {
        for tag in &entry.tags {
            let slug = slug::of_tag(tag);
            if slug.is_empty() {
                continue;
            }
            let group = groups.entry(slug.clone()).or_insert_with(|| TagGroup {
                name: tag,
                slug,
                entries: Vec::new(),
            });
            if !group
                .entries
                .last()
                .is_some_and(|last| std::ptr::eq(*last, entry))
            {
                group.entries.push(entry);
            }
        }
    }
    groups.into_values().collect()
}
