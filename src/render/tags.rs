//! Tag pages: the slug each tag's page lives at, and which entries each page lists.

use std::collections::BTreeMap;

use url::form_urlencoded;

use crate::content::Entry;

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

/// The slug of a tag's page: letters and digits lowercased, every run of other characters
/// turned into one `-`, none at either end (`Security & Privacy` → `security-privacy`).
/// Empty for a tag without letters or digits, which then gets no page.
pub fn slug(tag: &str) -> String {
    let mut slug = String::with_capacity(tag.len());
    for c in tag.chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let trimmed = slug.trim_end_matches('-').len();
    slug.truncate(trimmed);
    slug
}

/// A slug as a URL path segment: ASCII stays as it is, anything else is percent-encoded.
pub fn url_segment(slug: &str) -> String {
    form_urlencoded::byte_serialize(slug.as_bytes()).collect()
}

/// One group per slug used by `published` (entries in publication order), in slug order.
/// Tags whose slugs are equal share a page; tags with an empty slug get none.
pub fn group(published: &[Entry]) -> Vec<TagGroup<'_>> {
    let mut groups: BTreeMap<String, TagGroup<'_>> = BTreeMap::new();
    for entry in published {
        for tag in &entry.tags {
            let slug = slug(tag);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_lowercase_and_collapse_everything_else() {
        for (tag, expected) in [
            ("security", "security"),
            ("Security & Privacy", "security-privacy"),
            ("  --API v2--  ", "api-v2"),
            ("C++", "c"),
            ("Sécurité", "sécurité"),
            ("🚀", ""),
            ("", ""),
        ] {
            assert_eq!(slug(tag), expected, "{tag}");
        }
        assert_eq!(url_segment("sécurité"), "s%C3%A9curit%C3%A9");
        assert_eq!(url_segment("api-v2"), "api-v2");
    }
}
