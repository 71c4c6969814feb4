//! The static build: every org's pages and feeds rendered in memory, then written to a
//! temporary folder beside the output and swapped in, so a failed build changes nothing.

mod json_feed;
mod page;
mod rss;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rayon::prelude::*;

pub use page::Theme;

use crate::content::{Index, Org};
use crate::error::{Error, Result};

/// What a build wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub orgs: usize,
    /// Published entries across all orgs.
    pub entries: usize,
    pub files: usize,
}

/// The absolute addresses of an org's changelog and feeds.
pub struct OrgUrls {
    pub changelog: String,
    pub rss: String,
    pub json: String,
}

impl OrgUrls {
    fn new(org: &Org) -> Self {
        let changelog = format!("{}/changelog", org.url);
        OrgUrls {
            rss: format!("{changelog}/feed.xml"),
            json: format!("{changelog}/feed.json"),
            changelog,
        }
    }
}

/// The channel-level fields both feeds share.
pub struct FeedInfo<'a> {
    pub title: &'a str,
    pub description: &'a str,
    pub language: &'a str,
    pub home_page_url: &'a str,
    pub rss_url: &'a str,
    pub json_url: &'a str,
}

/// One output file: its path relative to the output folder, and its bytes.
pub type OutputFile = (PathBuf, Vec<u8>);

/// Renders the whole site for the time `now` into memory, orgs in parallel, in path order.
pub fn render(index: &Index, theme: &Theme, now: DateTime<Utc>) -> Result<Vec<OutputFile>> {
    let per_org: Vec<Vec<OutputFile>> = index
        .orgs()
        .par_iter()
        .map(|org| render_org(org, theme, now))
        .collect::<Result<_>>()?;
    let mut files: Vec<OutputFile> = per_org.into_iter().flatten().collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

fn render_org(org: &Org, theme: &Theme, now: DateTime<Utc>) -> Result<Vec<OutputFile>> {
    let published = org.published(now);
    let in_feeds = &published[..published.len().min(org.settings.feed_limit)];
    let urls = OrgUrls::new(org);
    let info = FeedInfo {
        title: &org.settings.title,
        description: &org.settings.description,
        language: &org.settings.language,
        home_page_url: &urls.changelog,
        rss_url: &urls.rss,
        json_url: &urls.json,
    };
    let folder = Path::new(&org.slug).join("changelog");
    let mut files = vec![
        (folder.join("feed.xml"), rss::render(&info, in_feeds)),
        (folder.join("feed.json"), json_feed::render(&info, in_feeds)),
    ];
    for (path, bytes) in page::render_org(theme, org, published, &urls)? {
        files.push((folder.join(path), bytes));
    }
    for asset in &org.assets {
        let bytes = std::fs::read(&asset.source).map_err(|source| Error::Read {
            path: asset.source.clone(),
            source,
        })?;
        files.push((folder.join(&asset.relative), bytes));
    }
    Ok(files)
}

/// Renders and writes the site to `output`, replacing what was there.
pub fn build(index: &Index, output: &Path, now: DateTime<Utc>) -> Result<Summary> {
    let theme = Theme::built_in()?;
    let files = render(index, &theme, now)?;
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
