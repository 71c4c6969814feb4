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
use url::Url;

pub use entry::{check_id, parse_date, Entry, EntryJson, RESERVED_IDS};
pub use org::{check_slug, OrgSettings};

use crate::config::SiteConfig;
use crate::error::{Error, Problem, Result};

/// Every organization of a content folder, in slug order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    orgs: Vec<Org>,
    warnings: Vec<Problem>,
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

    /// Things worth fixing that do not stop a build (an entry without tags, a very long
    /// title, a relative link to a file that is not there), in file and position order.
    pub fn warnings(&self) -> &[Problem] {
        &self.warnings
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

/// What reading one entry file gave: the index of its org, and the entry or the file's
/// problems.
type ParsedFile = (usize, Result<entry::Parsed, Vec<Problem>>);

/// An entry file waiting to be read.
struct EntryFile {
    org: usize,
    path: PathBuf,
    default_id: String,
}

/// Loads every organization under `content_dir`. All problems in all files are collected
/// and returned together.
pub fn load(content_dir: &Path, site: &SiteConfig) -> Result<Index> {
    load_orgs(content_dir, site, |_| true)
}

/// [`load`], reading only the organizations whose slug `wanted` accepts (the others are
/// left out of the index). Problems of the content folder itself are still reported.
pub fn load_orgs(
    content_dir: &Path,
    site: &SiteConfig,
    wanted: impl Fn(&str) -> bool,
) -> Result<Index> {
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
    let mut slugs = org_folders(content_dir, &mut problems)?;
    slugs.retain(|slug| wanted(slug));

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
    let mut links: Vec<Vec<(Url, Problem)>> = vec![Vec::new(); orgs.len()];
    let mut warnings = Vec::new();
    for (org, result) in parsed {
        match result {
            Ok(parsed) => {
                warnings.extend(parsed.warnings);
                links[org].extend(parsed.local_links);
                if parsed.draft {
                    drafts[org].push(parsed.entry);
                } else {
                    orgs[org].entries.push(parsed.entry);
                }
            }
            Err(found) => problems.extend(found),
        }
    }

    for ((org, drafts), links) in orgs.iter_mut().zip(&drafts).zip(links) {
        report_duplicate_ids(org.entries.iter().chain(drafts), &mut problems);
        attach_bundle_assets(org, content_dir, drafts);
        report_asset_clashes(org, &mut problems);
        org.entries
            .sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.id.cmp(&b.id)));
        report_broken_links(org, drafts, links, &mut warnings);
    }
    Error::check(problems)?;
    warnings.sort();
    Ok(Index { orgs, warnings })
}

/// Whether `path` is a bundle's entry file: `index.md` inside a folder of the org.
fn is_bundle_index(path: &Path, org_folder: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.eq_ignore_ascii_case("index.md"))
        && path.parent() != Some(org_folder)
}

/// Moves the files inside a bundle folder from the org's assets to the bundle's entry, so
/// they are published with it (and never for a draft).
fn attach_bundle_assets(org: &mut Org, content_dir: &Path, drafts: &[Entry]) {
    let folder = content_dir.join(&org.slug);
    let mut bundles: HashMap<&Path, Option<usize>> = HashMap::new();
    for (i, entry) in org.entries.iter().enumerate() {
        if is_bundle_index(&entry.source, &folder) {
            bundles.insert(entry.source.parent().expect("in a folder"), Some(i));
        }
    }
    for draft in drafts
        .iter()
        .filter(|d| is_bundle_index(&d.source, &folder))
    {
        bundles.insert(draft.source.parent().expect("in a folder"), None);
    }
    let mut moves: Vec<(usize, Option<usize>, PathBuf)> = Vec::new();
    for (i, asset) in org.assets.iter().enumerate() {
        let bundle = asset
            .source
            .ancestors()
            .skip(1)
            .take_while(|dir| *dir != folder)
            .find_map(|dir| bundles.get(dir).map(|owner| (dir, *owner)));
        if let Some((dir, owner)) = bundle {
            let relative = asset.source.strip_prefix(dir).expect("inside the bundle");
            moves.push((i, owner, relative.to_path_buf()));
        }
    }
    for (i, owner, relative) in moves.into_iter().rev() {
        let mut asset = org.assets.remove(i);
        if let Some(entry) = owner {
            asset.relative = relative;
            org.entries[entry].assets.insert(0, asset);
        }
    }
}

/// Warns about each relative link of an entry that points into the org's changelog but at
/// nothing that will be published there.
fn report_broken_links(
    org: &Org,
    drafts: &[Entry],
    links: Vec<(Url, Problem)>,
    warnings: &mut Vec<Problem>,
) {
    let changelog = format!("{}/changelog/", org.url);
    let mut published: Vec<String> = org.assets.iter().map(|a| slash_path(&a.relative)).collect();
    for entry in &org.entries {
        published.push(format!("{}/", entry.id));
        published.push(format!("{}/index.html", entry.id));
        published.extend(
            entry
                .assets
                .iter()
                .map(|a| format!("{}/{}", entry.id, slash_path(&a.relative))),
        );
    }
    for (url, at) in links {
        let Some(rest) = url.as_str().strip_prefix(&changelog) else {
            continue;
        };
        let path = rest.split(['?', '#']).next().unwrap_or_default();
        let path = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
        let path = path.strip_suffix("index.html").unwrap_or(&path);
        let generated = path.is_empty()
            || path.starts_with("page/")
            || path.starts_with("tags/")
            || path == "feed.xml"
            || path == "feed.json";
        let found = generated
            || published
                .iter()
                .any(|p| p == path || p.strip_suffix('/') == Some(path));
        if found {
            continue;
        }
        let message = if drafts.iter().any(|d| path.trim_end_matches('/') == d.id) {
            format!("`{url}` links to a draft, which is not published")
        } else {
            format!("`{url}` is not published: no file or entry of the org folder is there")
        };
        warnings.push(Problem { message, ..at });
    }
}

/// A relative path with `/` separators, as in a URL.
fn slash_path(path: &Path) -> String {
    path.iter()
        .map(|p| p.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
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
            // A bundle (`<id>/index.md`) takes its id from its folder.
            let default_id = if is_bundle_index(path, folder) {
                path.parent()
                    .and_then(|p| p.file_name())
                    .map_or_else(|| stem.to_string(), |n| n.to_string_lossy().into_owned())
            } else {
                stem.to_string()
            };
            files.push(EntryFile {
                org,
                path: path.to_path_buf(),
                default_id,
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
