//! The content index: every organization with its settings and entries, loaded in parallel
//! from a content folder. Both binaries get their index from [`load`].

mod entry;
mod front_matter;
mod markdown;
mod org;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rayon::prelude::*;

pub use entry::{check_id, parse_date, Entry, RESERVED_IDS};
pub use org::{check_slug, OrgSettings};

use crate::config::SiteConfig;
use crate::error::{Error, Problem, Result};

/// Every organization of a content folder, in slug order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    orgs: Vec<Org>,
}

/// One organization: its settings and its entries that are not drafts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Org {
    pub slug: String,
    /// The org's public address, without a trailing `/`.
    pub url: String,
    pub settings: OrgSettings,
    /// Entries that are not drafts, `date` descending then `id` ascending; scheduled
    /// entries (dated after some `now`) come first.
    pub entries: Vec<Entry>,
    /// Other files of the org folder (images and the like), in path order.
    pub assets: Vec<Asset>,
}

/// A file of an org folder that is neither an entry nor `_org.yaml`; it is published at
/// the same relative place under the org's `changelog/` folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asset {
    /// Where the file is.
    pub source: PathBuf,
    /// Its path relative to the org folder (plain names only, no `..`).
    pub relative: PathBuf,
}

impl Index {
    /// The organizations, in slug order.
    pub fn orgs(&self) -> &[Org] {
        &self.orgs
    }

    /// The organization with this slug.
    pub fn org(&self, slug: &str) -> Option<&Org> {
        self.orgs
            .binary_search_by(|org| org.slug.as_str().cmp(slug))
            .ok()
            .map(|i| &self.orgs[i])
    }
}

impl Org {
    /// The entries published at `now` (dated at or before it), in publication order.
    pub fn published(&self, now: DateTime<Utc>) -> &[Entry] {
        let first = self.entries.partition_point(|entry| entry.date > now);
        &self.entries[first..]
    }
}

/// What reading one entry file gave: the index of its org, and the entry with whether it
/// is a draft, or the file's problems.
type ParsedFile = (usize, Result<(Entry, bool), Vec<Problem>>);

/// An entry file waiting to be read.
struct EntryFile {
    org: usize,
    path: PathBuf,
    default_id: String,
}

/// Loads every organization under `content_dir`. All problems in all files are collected
/// and returned together.
pub fn load(content_dir: &Path, site: &SiteConfig) -> Result<Index> {
    let root = content_dir.canonicalize().map_err(|e| {
        Error::Usage(format!(
            "content folder {} cannot be opened: {e}",
            content_dir.display()
        ))
    })?;
    if !root.is_dir() {
        return Err(Error::Usage(format!(
            "content folder {} is not a folder",
            content_dir.display()
        )));
    }
    let mut problems = Vec::new();
    let slugs = org_folders(content_dir, &mut problems)?;

    let mut orgs = Vec::with_capacity(slugs.len());
    let mut files = Vec::new();
    for (index, slug) in slugs.into_iter().enumerate() {
        let folder = content_dir.join(&slug);
        let settings_path = folder.join("_org.yaml");
        let settings = match std::fs::read(&settings_path) {
            Ok(bytes) => {
                OrgSettings::parse(&settings_path, &bytes, &slug, site).unwrap_or_else(|found| {
                    problems.extend(found);
                    OrgSettings::defaults(&slug, site)
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                OrgSettings::defaults(&slug, site)
            }
            Err(e) => {
                problems.push(Problem::file(&settings_path, format!("cannot read: {e}")));
                OrgSettings::defaults(&slug, site)
            }
        };
        let assets = org_files(&folder, &root, index, &mut files, &mut problems);
        orgs.push(Org {
            url: site.org_url(&slug),
            slug,
            settings,
            entries: Vec::new(),
            assets,
        });
    }

    let parsed: Vec<ParsedFile> = files
        .par_iter()
        .map(|file| {
            let result = match std::fs::read(&file.path) {
                Ok(bytes) => {
                    entry::parse(&file.path, &bytes, &file.default_id, &orgs[file.org].url)
                }
                Err(e) => Err(vec![Problem::file(&file.path, format!("cannot read: {e}"))]),
            };
            (file.org, result)
        })
        .collect();
    let mut drafts: Vec<Vec<Entry>> = vec![Vec::new(); orgs.len()];
    for (org, result) in parsed {
        match result {
            Ok((entry, false)) => orgs[org].entries.push(entry),
            Ok((entry, true)) => drafts[org].push(entry),
            Err(found) => problems.extend(found),
        }
    }

    for (org, drafts) in orgs.iter_mut().zip(&drafts) {
        report_duplicate_ids(org.entries.iter().chain(drafts), &mut problems);
        report_asset_clashes(org, &mut problems);
        org.entries
            .sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.id.cmp(&b.id)));
    }
    Error::check(problems)?;
    Ok(Index { orgs })
}

/// The org folders under the content folder, in slug order. Folders starting with `.` or
/// `_` are ignored; any other name that is not a valid slug is a problem.
fn org_folders(content_dir: &Path, problems: &mut Vec<Problem>) -> Result<Vec<String>> {
    let read_error = |source| Error::Read {
        path: content_dir.to_path_buf(),
        source,
    };
    let mut slugs = Vec::new();
    for item in std::fs::read_dir(content_dir).map_err(read_error)? {
        let item = item.map_err(read_error)?;
        let path = item.path();
        let Some(name) = item.file_name().to_str().map(str::to_string) else {
            problems.push(Problem::file(&path, "the name is not valid UTF-8"));
            continue;
        };
        if name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        if path.is_dir() {
            match check_slug(&name) {
                Ok(()) => slugs.push(name),
                Err(message) => problems.push(Problem::file(&path, message)),
            }
        } else if name.ends_with(".md") {
            problems.push(Problem::file(
                &path,
                "entries belong in an organization folder, like content/<org>/",
            ));
        }
    }
    slugs.sort();
    Ok(slugs)
}

/// Collects the files of one org folder, in any sub-folder: `.md` files (any case) go to
/// `files`, the rest (but names starting with `_`, like `_org.yaml`) are returned as
/// assets. Names starting with `.`, and folders starting with `_`, are skipped; links may not
/// lead out of the content folder.
fn org_files(
    folder: &Path,
    root: &Path,
    org: usize,
    files: &mut Vec<EntryFile>,
    problems: &mut Vec<Problem>,
) -> Vec<Asset> {
    let mut assets = Vec::new();
    let walker = walkdir::WalkDir::new(folder)
        .follow_links(true)
        .sort_by_file_name()
        .min_depth(1)
        .into_iter()
        .filter_entry(|item| {
            let name = item.file_name().to_string_lossy();
            !(name.starts_with('.') || (name.starts_with('_') && item.file_type().is_dir()))
        });
    for item in walker {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                let path = e.path().unwrap_or(folder).to_path_buf();
                let message = match e.loop_ancestor() {
                    Some(ancestor) => format!("symbolic link loop back to {}", ancestor.display()),
                    None => format!(
                        "cannot read: {}",
                        e.io_error()
                            .map_or_else(|| e.to_string(), ToString::to_string)
                    ),
                };
                problems.push(Problem::file(&path, message));
                continue;
            }
        };
        let path = item.path();
        if item.path_is_symlink() && !path.canonicalize().is_ok_and(|real| real.starts_with(root)) {
            problems.push(Problem::file(
                path,
                "symbolic link leads outside the content folder",
            ));
            continue;
        }
        if !item.file_type().is_file() {
            continue;
        }
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            problems.push(Problem::file(path, "the name is not valid UTF-8"));
            continue;
        };
        let stem = name
            .len()
            .checked_sub(3)
            .filter(|&cut| name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(".md"))
            .map(|cut| &name[..cut]);
        if let Some(stem) = stem {
            files.push(EntryFile {
                org,
                path: path.to_path_buf(),
                default_id: stem.to_string(),
            });
        } else if name.starts_with('_') {
            continue;
        } else if let Ok(relative) = path.strip_prefix(folder) {
            assets.push(Asset {
                source: path.to_path_buf(),
                relative: relative.to_path_buf(),
            });
        }
    }
    assets
}

/// An asset may not take the place of a generated file (an entry's page, a feed, a page).
fn report_asset_clashes(org: &Org, problems: &mut Vec<Problem>) {
    for asset in &org.assets {
        let mut parts = asset.relative.iter().filter_map(|p| p.to_str());
        let first = parts.next().unwrap_or_default();
        let second = parts.next();
        let clashes = RESERVED_IDS.contains(&first)
            || (second == Some("index.html") && org.entries.iter().any(|e| e.id == first));
        if clashes {
            problems.push(Problem::file(
                &asset.source,
                "this file would replace a page or feed that shiplog generates; rename or move it",
            ));
        }
    }
}

/// Each id may appear once in an org (drafts included); a second use names the first file.
fn report_duplicate_ids<'a>(entries: impl Iterator<Item = &'a Entry>, problems: &mut Vec<Problem>) {
    let mut first_use: HashMap<&str, &Path> = HashMap::new();
    let mut sorted: Vec<&Entry> = entries.collect();
    sorted.sort_by(|a, b| a.source.cmp(&b.source));
    for entry in sorted {
        if let Some(first) = first_use.insert(&entry.id, &entry.source) {
            problems.push(Problem::file(
                &entry.source,
                format!(
                    "duplicate id `{}`: {} has it too",
                    entry.id,
                    first.display()
                ),
            ));
            first_use.insert(&entry.id, first);
        }
    }
}
