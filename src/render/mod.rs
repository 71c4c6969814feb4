//! The static build: every org's pages and feeds rendered in memory, then written to a
//! temporary folder beside the output and swapped in, so a failed build changes nothing.

mod headers;
mod json_feed;
mod page;
mod rss;
mod tags;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rayon::prelude::*;

pub use page::Theme;

use crate::config::SiteConfig;
use crate::content::{Asset, Entry, Index, Org};
use crate::error::{Error, Result};

/// What a build wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub orgs: usize,
    /// Published entries across all orgs.
    pub entries: usize,
    pub files: usize,
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
    /// Parses every theme the orgs of `index` use, looking them up in `themes_dir`.
    pub fn load(index: &Index, themes_dir: &Path) -> Result<Themes> {
        let mut themes = HashMap::new();
        for org in index.orgs() {
            let name = &org.settings.theme;
            if !themes.contains_key(name) {
                themes.insert(name.clone(), Theme::load(name, themes_dir)?);
            }
        }
        Ok(Themes(themes))
    }

    /// The theme of `org`.
    fn of(&self, org: &Org) -> &Theme {
        &self.0[&org.settings.theme]
    }
}

/// Renders the whole site for the time `now` into memory, orgs in parallel, in path order.
pub fn render(index: &Index, themes: &Themes, now: DateTime<Utc>) -> Result<Vec<OutputFile>> {
    let per_org: Vec<Vec<OutputFile>> = index
        .orgs()
        .par_iter()
        .map(|org| render_org(org, themes.of(org), now))
        .collect::<Result<_>>()?;
    let mut files: Vec<OutputFile> = per_org.into_iter().flatten().collect();
    files.push((PathBuf::from("_headers"), headers::render(index)));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

fn render_org(org: &Org, theme: &Theme, now: DateTime<Utc>) -> Result<Vec<OutputFile>> {
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

/// Renders and writes the site to `output`, replacing what was there. Themes are looked up
/// in `site.themes_dir`.
pub fn build(
    index: &Index,
    site: &SiteConfig,
    output: &Path,
    now: DateTime<Utc>,
) -> Result<Summary> {
    let themes = Themes::load(index, &site.themes_dir)?;
    let files = render(index, &themes, now)?;
    write_atomically(output, &files)?;
    Ok(Summary {
        orgs: index.orgs().len(),
        entries: index
            .orgs()
            .iter()
            .map(|org| org.published(now).len())
            .sum(),
        files: files.len(),
    })
}

/// Writes `files` into a fresh folder beside `output`, then swaps it in. On any error the
/// temporary folder is removed and `output` is left as it was.
pub fn write_atomically(output: &Path, files: &[OutputFile]) -> Result<()> {
    if output.exists() && !output.is_dir() {
        return Err(Error::Usage(format!(
            "output {} is a file, not a folder",
            output.display()
        )));
    }
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Write { path, source }
    };
    let name = output.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
        Error::Usage(format!(
            "output folder {} has no usable name",
            output.display()
        ))
    })?;
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(write_error(&parent))?;
    let staging = parent.join(format!(".{name}.shiplog-new-{}", std::process::id()));
    let previous = parent.join(format!(".{name}.shiplog-old-{}", std::process::id()));

    let written = write_tree(&staging, files);
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let had_output = output.exists();
    if had_output {
        if let Err(source) = std::fs::rename(output, &previous) {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(Error::Write {
                path: output.to_path_buf(),
                source,
            });
        }
    }
    if let Err(source) = std::fs::rename(&staging, output) {
        if had_output {
            let _ = std::fs::rename(&previous, output);
        }
        let _ = std::fs::remove_dir_all(&staging);
        return Err(Error::Write {
            path: output.to_path_buf(),
            source,
        });
    }
    if had_output {
        std::fs::remove_dir_all(&previous).map_err(write_error(&previous))?;
    }
    Ok(())
}

fn write_tree(root: &Path, files: &[OutputFile]) -> Result<()> {
    if root.exists() {
        std::fs::remove_dir_all(root).map_err(|source| Error::Write {
            path: root.to_path_buf(),
            source,
        })?;
    }
    std::fs::create_dir_all(root).map_err(|source| Error::Write {
        path: root.to_path_buf(),
        source,
    })?;
    files.par_iter().try_for_each(|(relative, bytes)| {
        let path = root.join(relative);
        let write_error = |source| Error::Write {
            path: path.clone(),
            source,
        };
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(write_error)?;
        }
        std::fs::write(&path, bytes).map_err(write_error)
    })
}
