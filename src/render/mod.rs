//! The static build: each org's pages and feeds rendered in memory, orgs in parallel, and
//! written through an [`OutputTree`], so a failed build changes nothing.

mod headers;
mod json_feed;
mod output;
mod page;
mod rss;
mod tags;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, Utc};
use rayon::prelude::*;

pub use output::{Changes, Known, OutputTree};
pub use page::Theme;

use crate::config::SiteConfig;
use crate::content::{Asset, Entry, Index, Org, OrgSettings};
use crate::error::{Error, Result};

/// What a build wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub orgs: usize,
    /// Published entries across all orgs.
    pub entries: usize,
    /// Files of the built tree.
    pub files: usize,
    /// Orgs whose files were kept from the build before, unchanged.
    pub reused: usize,
    /// What the output folder had to change.
    pub changes: Changes,
}

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

/// The channel-level fields both feeds share.
pub struct FeedInfo {
    pub title: String,
    pub description: String,
    pub language: String,
    /// The address of the listing's first page, without a trailing `/`.
    pub home_page_url: String,
    pub rss_url: String,
    pub json_url: String,
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
            home_page_url,
        }
    }
}

impl<'a> Listing<'a> {
    /// The org's whole changelog.
    fn changelog(org: &Org, published: &'a [Entry]) -> Self {
        Listing {
            folder: String::new(),
            tag: None,
            entries: published.iter().collect(),
            feed: FeedInfo::new(
                org,
                org.settings.title.clone(),
                org.settings.description.clone(),
                format!("{}/changelog", org.url),
            ),
        }
    }

    /// The entries of one tag, at `changelog/tags/<slug>/`.
    fn tagged(org: &Org, group: tags::TagGroup<'a>) -> Self {
        let home = format!(
            "{}/changelog/{}/{}",
            org.url,
            tags::FOLDER,
            tags::url_segment(&group.slug)
        );
        Listing {
            folder: format!("{}/{}/", tags::FOLDER, group.slug),
            feed: FeedInfo::new(
                org,
                format!("{} \u{2014} {}", org.settings.title, group.name),
                format!(
                    "Updates tagged \u{201c}{}\u{201d}. {}",
                    group.name, org.settings.description
                ),
                home,
            ),
            tag: Some((group.name, group.slug)),
            entries: group.entries,
        }
    }

    /// The entries its feeds hold: the newest `feed_limit`.
    fn in_feeds(&self, org: &Org) -> &[&'a Entry] {
        &self.entries[..self.entries.len().min(org.settings.feed_limit)]
    }
}

/// One output file: its path relative to the output folder, and its bytes.
pub type OutputFile = (PathBuf, Vec<u8>);

/// The parsed themes of a build, by name: each theme an org uses, parsed once.
pub struct Themes(HashMap<String, Theme>);

impl Themes {
    /// Parses the themes `names` (repeats allowed), looking them up in `themes_dir`.
    pub fn load<'a>(names: impl IntoIterator<Item = &'a str>, themes_dir: &Path) -> Result<Themes> {
        let mut themes = HashMap::new();
        for name in names {
            if !themes.contains_key(name) {
                themes.insert(name.to_string(), Theme::load(name, themes_dir)?);
            }
        }
        Ok(Themes(themes))
    }

    /// The theme called `name`, one of those loaded.
    pub fn get(&self, name: &str) -> &Theme {
        &self.0[name]
    }
}

/// Renders every page, feed and file of one org as of `now`, in memory.
pub fn render_org(org: &Org, theme: &Theme, now: DateTime<Utc>) -> Result<Vec<OutputFile>> {
    let published = org.published(now);
    let mut listings = vec![Listing::changelog(org, published)];
    listings.extend(
        tags::group(published)
            .into_iter()
            .map(|group| Listing::tagged(org, group)),
    );
    let pages = page::OrgPages::new(theme, org, &listings[0].feed);
    let folder = Path::new(&org.slug).join("changelog");
    let mut files = Vec::new();
    for listing in &listings {
        let at = folder.join(&listing.folder);
        let in_feeds = listing.in_feeds(org);
        files.push((at.join("feed.xml"), rss::render(&listing.feed, in_feeds)));
        files.push((
            at.join("feed.json"),
            json_feed::render(&listing.feed, in_feeds),
        ));
        for (path, bytes) in pages.listing(listing)? {
            files.push((at.join(path), bytes));
        }
    }
    for (path, bytes) in pages.entries(published)? {
        files.push((folder.join(path), bytes));
    }
    for asset in &org.assets {
        files.push((folder.join(&asset.relative), read_asset(asset)?));
    }
    for entry in published {
        for asset in &entry.assets {
            files.push((
                folder.join(&entry.id).join(&asset.relative),
                read_asset(asset)?,
            ));
        }
    }
    Ok(files)
}

fn read_asset(asset: &Asset) -> Result<Vec<u8>> {
    std::fs::read(&asset.source).map_err(|source| Error::Read {
        path: asset.source.clone(),
        source,
    })
}

/// The `_headers` file at the root of the output, for the orgs given as slug and settings.
pub fn headers_file<'a>(orgs: impl IntoIterator<Item = (&'a str, &'a OrgSettings)>) -> OutputFile {
    (PathBuf::from(headers::FILE), headers::render(orgs))
}

/// Renders every org of `index` in parallel and hands each org's files to `sink`, then
/// drops them: the whole site is never in memory at once.
pub fn render_each(
    index: &Index,
    themes: &Themes,
    now: DateTime<Utc>,
    sink: impl Fn(&Org, Vec<OutputFile>) -> Result<()> + Sync,
) -> Result<()> {
    index.orgs().par_iter().try_for_each(|org| {
        let files = render_org(org, themes.get(&org.settings.theme), now)?;
        sink(org, files)
    })
}

/// Renders and writes the whole site to `output` (see [`OutputTree`] for how the folder
/// is replaced). Themes are looked up in `site.themes_dir`.
pub fn build(
    index: &Index,
    site: &SiteConfig,
    output: &Path,
    now: DateTime<Utc>,
) -> Result<Summary> {
    let themes = Themes::load(
        index.orgs().iter().map(|org| org.settings.theme.as_str()),
        &site.themes_dir,
    )?;
    let tree = OutputTree::open(output, &HashMap::new())?;
    let files = AtomicUsize::new(1);
    render_each(index, &themes, now, |_, org_files| {
        files.fetch_add(org_files.len(), Ordering::Relaxed);
        org_files
            .iter()
            .try_for_each(|(path, bytes)| tree.put(path, bytes))
    })?;
    let (path, bytes) = headers_file(
        index
            .orgs()
            .iter()
            .map(|org| (org.slug.as_str(), &org.settings)),
    );
    tree.put(&path, &bytes)?;
    let changes = tree.commit()?;
    Ok(Summary {
        orgs: index.orgs().len(),
        entries: index
            .orgs()
            .iter()
            .map(|org| org.published(now).len())
            .sum(),
        files: files.into_inner(),
        reused: 0,
        changes,
    })
}
