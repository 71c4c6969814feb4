//! Rendering: one org of the content index in, the bytes of its pages and feeds out, in
//! memory. Nothing here touches the disk: [`crate::build`] writes what it renders.

mod atom;
mod favicon;
mod feed_items;
mod headers;
mod highlight;
mod json_feed;
mod machines;
mod page;
mod rss;
mod search;
mod sitemap;
mod tags;
mod widget;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

pub use json_feed::Item as JsonFeedItem;
pub use page::Theme;
pub use search::SOURCE as SEARCH_SOURCE;
pub use widget::SOURCE as WIDGET_SOURCE;

use crate::content::{Entry, Org, OrgSettings};
use crate::error::Result;
use crate::locale::Words;
use crate::slug;

/// One list of entries with its own pages and feeds: an org's whole changelog, or the
/// entries of one tag. Both are rendered by the same code.
pub struct Listing<'a> {
    /// Its folder under the org's `changelog/`: empty, or `tags/<slug>/`.
    pub folder: String,
    /// The tag it is limited to: `(name, slug)`.
    pub tag: Option<(&'a str, String)>,
    /// Published entries, in publication order.
    pub entries: Vec<&'a Entry>,
    /// The channel-level fields of its feeds.
    pub feed: FeedInfo,
}

/// The channel-level fields the feeds share.
pub struct FeedInfo {
    /// The feed's title.
    pub title: String,
    /// The feed's description.
    pub description: String,
    /// BCP 47 language tag.
    pub language: String,
    /// The address of the listing's first page, without a trailing `/`.
    pub home_page_url: String,
    /// The address of `feed.xml`.
    pub rss_url: String,
    /// The address of `feed.json`.
    pub json_url: String,
    /// The address of `atom.xml`.
    pub atom_url: String,
    /// Who publishes it: the org's title.
    pub author: String,
    /// The org's main site.
    pub website: String,
    /// The address of the org's logo, if it has one.
    pub icon: Option<String>,
    /// The WebSub hubs `shiplog announce` pings when the feed changes: the org's own feeds
    /// only, since a tag's feeds are never pinged.
    pub hubs: Vec<String>,
}

impl FeedInfo {
    /// The feeds of the listing whose first page is at `home_page_url`.
    fn new(org: &Org, title: String, description: String, home_page_url: String) -> Self {
        FeedInfo {
            title,
            description,
            language: org.settings.language.clone(),
            rss_url: format!("{home_page_url}/feed.xml"),
            json_url: format!("{home_page_url}/feed.json"),
            atom_url: format!("{home_page_url}/atom.xml"),
            author: org.settings.title.clone(),
            website: org.website().to_string(),
            icon: org.logo_url(),
            hubs: Vec::new(),
            home_page_url,
        }
    }
}

impl<'a> Listing<'a> {
    /// The org's whole changelog.
    fn changelog(org: &Org, published: &'a [Entry]) -> Self {
        let mut feed = FeedInfo::new(
            org,
            org.settings.title.clone(),
            org.settings.description.clone(),
            format!("{}/changelog", org.url),
        );
        feed.hubs = org.settings.hubs().map(str::to_string).collect();
        Listing {
            folder: String::new(),
            tag: None,
            entries: published.iter().collect(),
            feed,
        }
    }

    /// The entries of one tag, at `changelog/tags/<slug>/`.
    fn tagged(org: &Org, words: &Words, group: tags::TagGroup<'a>) -> Self {
        let home = format!(
            "{}/changelog/{}/{}",
            org.url,
            tags::FOLDER,
            slug::url_segment(&group.slug)
        );
        Listing {
            folder: format!("{}/{}/", tags::FOLDER, group.slug),
            feed: FeedInfo::new(
                org,
                format!("{} \u{2014} {}", org.settings.title, group.name),
                format!(
                    "{} {}",
                    words.get("tag_feed", &[("tag", group.name)]),
                    org.settings.description
                ),
                home,
            ),
            tag: Some((group.name, group.slug)),
            entries: group.entries,
        }
    }

    /// The entries its feeds hold: the newest `feed_limit`.
    fn in_feeds(&self, feed_limit: usize) -> &[&'a Entry] {
        &self.entries[..self.entries.len().min(feed_limit)]
    }
}

/// One output file: its path relative to the output folder, and its bytes.
pub type OutputFile = (PathBuf, Vec<u8>);

/// The parsed themes of a build, by name: each theme an org uses, parsed once.
pub struct Themes(HashMap<String, Theme>);

impl Themes {
    /// The themes given by name.
    pub fn new(themes: HashMap<String, Theme>) -> Themes {
        Themes(themes)
    }

    /// The theme called `name`, one of those loaded.
    pub fn get(&self, name: &str) -> &Theme {
        &self.0[name]
    }
}

/// Renders every page and feed of one org as of `now`, in memory (its files published as
/// they are, see [`crate::output::read_assets`], are not rendered).
pub fn render_org(org: &Org, theme: &Theme, now: DateTime<Utc>) -> Result<Vec<OutputFile>> {
    let published = updates_come(org.published(now), now);
    let published = published.as_ref();
    let words = Words::new(&org.settings.language, &org.settings.strings);
    let mut listings = vec![Listing::changelog(org, published)];
    listings.extend(
        tags::group(published)
            .into_iter()
            .map(|group| Listing::tagged(org, &words, group)),
    );
    let pages = page::OrgPages::new(theme, org, &words, &listings[0].feed, published);
    let folder = Path::new(&org.slug).join("changelog");
    let feed_limit = org.settings.feed_limit;
    let items = feed_items::FeedItems::new(&listings, feed_limit);
    let mut files = Vec::new();
    for listing in &listings {
        let at = folder.join(&listing.folder);
        let in_feeds = listing.in_feeds(feed_limit);
        let feed = &listing.feed;
        files.push((at.join("feed.xml"), rss::render(feed, in_feeds, &items)));
        files.push((
            at.join("feed.json"),
            json_feed::render(feed, in_feeds, &items),
        ));
        files.push((at.join("atom.xml"), atom::render(feed, in_feeds, &items)));
        for (path, bytes) in pages.listing(listing)? {
            files.push((at.join(path), bytes));
        }
    }
    for (path, bytes) in pages.entries(published)? {
        files.push((folder.join(path), bytes));
    }
    for (path, bytes) in machines::render(org, &listings[0].feed, published) {
        files.push((folder.join(path), bytes));
    }
    for (path, bytes) in sitemap::render(org, &listings) {
        files.push((Path::new(&org.slug).join(path), bytes));
    }
    files.push((
        Path::new(&org.slug).join(favicon::FILE),
        favicon::render(page::accent_color(org)),
    ));
    files.push((
        folder.join(widget::FILE),
        widget::render(org, &words, &listings[0].feed),
    ));
    let days: Vec<&str> = published.iter().map(|entry| pages.day(entry)).collect();
    files.push((folder.join(search::INDEX), search::index(published, &days)));
    files.push((
        folder.join(search::SCRIPT),
        search::script(&org.settings.language, &words),
    ));
    Ok(files)
}

/// A built-in script with its settings: `placeholder` in `source` replaced by `settings`
/// (a JSON object literal). The comments on lines of their own are for the source's
/// readers, not the browser's.
fn script_with(source: &str, placeholder: &str, settings: &str) -> Vec<u8> {
    let mut script = String::with_capacity(source.len() + settings.len());
    for line in source.lines() {
        if !line.trim_start().starts_with("//") {
            script.push_str(line);
            script.push('\n');
        }
    }
    script.replace(placeholder, settings).into_bytes()
}

/// `published` as of `now`: an `updated` date still to come does not show yet, as a
/// `date` still to come keeps its entry out (the cache knows when it comes). Entries are
/// copied only when one has such a date.
fn updates_come(published: &[Entry], now: DateTime<Utc>) -> Cow<'_, [Entry]> {
    if !published
        .iter()
        .any(|entry| entry.updated.is_some_and(|updated| updated > now))
    {
        return Cow::Borrowed(published);
    }
    let mut copied = published.to_vec();
    for entry in &mut copied {
        entry.updated = entry.updated.filter(|updated| *updated <= now);
    }
    Cow::Owned(copied)
}

/// The `_headers` file at the root of the output, for the orgs given as slug and settings.
pub fn headers_file<'a>(orgs: impl IntoIterator<Item = (&'a str, &'a OrgSettings)>) -> OutputFile {
    (PathBuf::from(headers::FILE), headers::render(orgs))
}
