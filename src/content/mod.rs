//! The content index: every organization with its settings and entries, loaded in parallel
//! from a content folder. Both binaries get their index from [`load`].

mod channels;
mod entry;
mod front_matter;
mod images;
mod markdown;
mod org;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rayon::prelude::*;
use url::Url;

pub use channels::{Channel, ChannelKind, EnvVar};
pub use entry::{check_id, parse_date, Entry, EntryJson, Image, RESERVED_IDS};
pub use images::Size;
pub use org::{Logo, OrgSettings};

use crate::config::SiteConfig;
use crate::error::{Error, Problem, Problems, Result};
use crate::{media, slug, text};

/// Every organization of a content folder, in slug order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    orgs: Vec<Org>,
    warnings: Vec<Problem>,
}

/// One organization: its settings and its entries that are not drafts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Org {
    /// Its folder's name, a DNS host label.
    pub slug: String,
    /// The org's public address, without a trailing `/`.
    pub url: String,
    /// Its `_org.yaml`, or the defaults.
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
    /// The org's main site: `website`, or else the org's own address.
    pub fn website(&self) -> &str {
        self.settings.website.as_deref().unwrap_or(&self.url)
    }

    /// The address of the org's logo, if it has one.
    pub fn logo_url(&self) -> Option<String> {
        self.settings.logo.as_ref().map(|logo| match logo {
            Logo::Url(url) => url.clone(),
            Logo::File(path) => format!("{}/changelog/{}", self.url, slug::url_path(path)),
        })
    }

    /// The entries published at `now` (dated at or before it), in publication order.
    pub fn published(&self, now: DateTime<Utc>) -> &[Entry] {
        let first = self.entries.partition_point(|entry| entry.date > now);
        &self.entries[first..]
    }
}

/// An entry file waiting to be read.
struct EntryFile {
    path: PathBuf,
    default_id: String,
}

impl EntryFile {
    /// The entry file at `path` (named `name`, in org folder `folder`), when it is one: a
    /// `.md` file, in any case. A bundle (`<id>/index.md`) takes its id from its folder.
    fn at(path: &Path, name: &str, folder: &Path) -> Option<EntryFile> {
        let cut = name.len().checked_sub(3)?;
        let stem = (name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(".md"))
            .then(|| &name[..cut])?;
        let default_id = if is_bundle_index(path, folder) {
            path.parent()
                .and_then(|p| p.file_name())
                .map_or_else(|| stem.to_string(), |n| n.to_string_lossy().into_owned())
        } else {
            stem.to_string()
        };
        Some(EntryFile {
            path: path.to_path_buf(),
            default_id,
        })
    }
}

/// The problem with a file of a type that is not published.
fn unpublished_type() -> String {
    format!(
        "a file of this type is not published (a browser could run it on the changelog's host); publishable types: {}",
        media::allowed_extensions()
    )
}

/// A content folder walked, its orgs' settings read, and its entries not yet parsed: what
/// [`load`] does first. A build that can reuse an org's earlier output loads the others only.
pub struct Scan {
    folders: Vec<OrgFolder>,
    problems: Vec<Problem>,
}

/// One org folder of a [`Scan`]: its settings and the files it holds.
pub struct OrgFolder {
    /// Its folder's name, a DNS host label.
    pub slug: String,
    /// The org's public address, without a trailing `/`.
    pub url: String,
    /// Its `_org.yaml`, or the defaults.
    pub settings: OrgSettings,
    /// What its `_org.yaml` holds that works but is likely a mistake.
    settings_warnings: Vec<Problem>,
    /// Where it is.
    folder: PathBuf,
    /// `_org.yaml`, when there is one.
    settings_file: Option<PathBuf>,
    entry_files: Vec<EntryFile>,
    assets: Vec<Asset>,
}

impl OrgFolder {
    /// Every file whose content the org's entries, pages and feeds are made of, in a fixed
    /// order: `_org.yaml`, the entry files, then the other files.
    pub fn sources(&self) -> impl Iterator<Item = &Path> {
        self.settings_file
            .iter()
            .map(PathBuf::as_path)
            .chain(self.entry_files.iter().map(|file| file.path.as_path()))
            .chain(self.assets.iter().map(|asset| asset.source.as_path()))
    }

    /// Where the org folder is.
    pub fn path(&self) -> &Path {
        &self.folder
    }

    /// Where `source`, one of [`OrgFolder::sources`], is inside the org folder: what the
    /// org's output depends on, however the content folder was spelled.
    pub fn relative<'a>(&self, source: &'a Path) -> &'a Path {
        source.strip_prefix(&self.folder).unwrap_or(source)
    }
}

/// Walks `content_dir` and reads each org's `_org.yaml`; entries are parsed by
/// [`Scan::load`]. Problems found so far wait in the scan, to be reported with the rest.
pub fn scan(content_dir: &Path, site: &SiteConfig) -> Result<Scan> {
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
    let slugs = org_folders(content_dir, &root, &mut problems)?;
    let scanned: Vec<(OrgFolder, Vec<Problem>)> = slugs
        .into_par_iter()
        .map(|slug| scan_org(content_dir, &root, slug, site))
        .collect();
    let mut folders = Vec::with_capacity(scanned.len());
    for (folder, found) in scanned {
        folders.push(folder);
        problems.extend(found);
    }
    Ok(Scan { folders, problems })
}

/// Reads the settings of org `slug` and lists its files, with the problems met doing so.
fn scan_org(
    content_dir: &Path,
    root: &Path,
    slug: String,
    site: &SiteConfig,
) -> (OrgFolder, Vec<Problem>) {
    let mut problems = Vec::new();
    let folder = content_dir.join(&slug);
    let settings_path = folder.join("_org.yaml");
    let (entry_files, assets) = org_files(&folder, root, &mut problems);
    let folder_path = folder.clone();
    // The logo is a file of the org folder that no entry takes into its own folder (a
    // bundle's, or one named like an entry beside it), which is published only with it.
    let entry_folder = |folder: &Path| {
        let bundle = folder.join("index.md");
        let mut named = folder.as_os_str().to_owned();
        named.push(".md");
        entry_files.iter().any(|file| {
            let relative = file.path.strip_prefix(&folder_path).unwrap_or(&file.path);
            relative == bundle || relative.as_os_str() == named
        })
    };
    let file = |path: &str| {
        let asset = assets
            .iter()
            .find(|asset| slash_path(&asset.relative) == path)?;
        let inside = asset
            .relative
            .ancestors()
            .skip(1)
            .find(|folder| !folder.as_os_str().is_empty() && entry_folder(folder));
        Some(match inside {
            Some(folder) => Err(format!(
                "`{path}` is in the folder of the entry `{}`, published only with it; move it out of that folder",
                slash_path(folder)
            )),
            None => Ok(asset.source.clone()),
        })
    };
    let mut settings_warnings = Vec::new();
    let (settings, settings_file) = match read_settings_file(&settings_path, root) {
        Ok(Some(bytes)) => (
            match OrgSettings::parse(&settings_path, &bytes, &slug, site, file) {
                Ok((settings, warnings)) => {
                    settings_warnings = warnings;
                    settings
                }
                Err(found) => {
                    problems.extend(found);
                    OrgSettings::defaults(&slug, site)
                }
            },
            Some(settings_path),
        ),
        Ok(None) => (OrgSettings::defaults(&slug, site), None),
        Err(problem) => {
            problems.push(problem);
            (OrgSettings::defaults(&slug, site), None)
        }
    };
    let org = OrgFolder {
        url: site.org_url(&slug),
        slug,
        settings,
        settings_warnings,
        folder,
        settings_file,
        entry_files,
        assets,
    };
    (org, problems)
}

impl Scan {
    /// The org folders, in slug order.
    pub fn orgs(&self) -> &[OrgFolder] {
        &self.folders
    }

    /// The problems walking the folder and reading the orgs' settings found.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Parses the entries of the orgs `selected` says yes to (in parallel) and indexes
    /// those orgs. All problems of the scan and of those orgs are returned together.
    pub fn load(self, selected: impl Fn(&OrgFolder) -> bool + Sync) -> Result<Index> {
        let loaded: Vec<Result<Loaded, Refused>> = self
            .folders
            .par_iter()
            .filter(|folder| selected(folder))
            .map(load_org)
            .collect();
        let mut problems = self.problems;
        let mut orgs = Vec::with_capacity(loaded.len());
        let mut warnings = Vec::new();
        for result in loaded {
            match result {
                Ok(loaded) => {
                    orgs.push(loaded.org);
                    warnings.extend(loaded.warnings);
                }
                Err(found) => {
                    problems.extend(found.problems);
                    warnings.extend(found.warnings);
                }
            }
        }
        if !problems.is_empty() {
            return Err(Error::Invalid(Problems::with_warnings(problems, warnings)));
        }
        warnings.sort();
        Ok(Index { orgs, warnings })
    }
}

/// The largest entry file read: far more than a long release note with its tables, and a
/// bound on the memory one entry can take (parsed, it is copied into a page and two feeds per
/// tag, each held in memory with its org's other files).
pub const MAX_ENTRY_BYTES: u64 = 4 << 20;

/// The most distinct tags an org may have: each is a page and two feeds of its own.
pub const MAX_ORG_TAGS: usize = 500;

/// One org, parsed and checked.
pub struct Loaded {
    /// The org, with its entries.
    pub org: Org,
    /// Things worth fixing that do not stop a build, in no particular order.
    pub warnings: Vec<Problem>,
}

/// What an org folder that does not load holds: every problem, and the warnings found
/// beside them.
#[derive(Debug)]
pub struct Refused {
    /// What stops the build.
    pub problems: Vec<Problem>,
    /// What does not, found all the same.
    pub warnings: Vec<Problem>,
}

/// Parses the entries of one org folder of a [`Scan`] (in parallel) and checks the org as a
/// whole; all its problems are returned together.
pub fn load_org(folder: &OrgFolder) -> Result<Loaded, Refused> {
    let words = crate::locale::Words::new(&folder.settings.language, &folder.settings.strings);
    let parsed: Vec<Result<entry::Parsed, entry::Failed>> = folder
        .entry_files
        .par_iter()
        .filter_map(
            |file| match text::read_limited(&file.path, MAX_ENTRY_BYTES) {
                Ok(bytes) => Some(entry::parse(
                    &file.path,
                    &bytes,
                    &file.default_id,
                    &folder.url,
                    folder.settings.website.as_deref(),
                    &words,
                )),
                // Deleted since the folder was walked: as if the walk had come later.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => Some(Err(entry::Failed::from(vec![Problem::file(
                    &file.path,
                    format!("cannot read: {e}"),
                )]))),
            },
        )
        .collect();
    let mut org = Org {
        slug: folder.slug.clone(),
        url: folder.url.clone(),
        settings: folder.settings.clone(),
        entries: Vec::new(),
        assets: folder.assets.clone(),
    };
    let mut problems = Vec::new();
    let mut drafts = Vec::new();
    let mut links = Vec::new();
    let mut warnings = folder.settings_warnings.clone();
    let mut tag_pages = TagPages::default();
    let mut pictures = HashMap::new();
    for result in parsed {
        match result {
            Ok(parsed) => {
                warnings.extend(parsed.warnings);
                if parsed.draft {
                    drafts.push(parsed.entry);
                } else {
                    if let Some(found) = Pictures::of(&parsed.local_links, &parsed.image_at) {
                        pictures.insert(parsed.entry.id.clone(), found);
                    }
                    tag_pages.add(&parsed.entry.tags, parsed.tags_at, &mut problems);
                    org.entries.push(parsed.entry);
                }
                links.extend(
                    parsed
                        .local_links
                        .into_iter()
                        .map(|link| (link.url, link.written, link.at)),
                );
            }
            Err(failed) => {
                problems.extend(failed.problems);
                warnings.extend(failed.warnings);
                links.extend(
                    failed
                        .local_links
                        .into_iter()
                        .map(|link| (link.url, link.written, link.at)),
                );
            }
        }
    }
    report_duplicate_ids(org.entries.iter().chain(&drafts), &mut problems);
    attach_entry_folders(&mut org, &folder.folder, &drafts);
    report_asset_clashes(&org, &mut problems);
    org.entries
        .sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.id.cmp(&b.id)));
    let files = published_files(&org);
    report_broken_links(&org, &files, &drafts, links, &mut warnings);
    let sized = size_pictures(&org, &files, &pictures, &mut problems);
    for (i, sizes, image_size) in sized {
        org.entries[i].add_picture_sizes(&sizes, image_size);
    }
    if problems.is_empty() {
        Ok(Loaded { org, warnings })
    } else {
        Err(Refused { problems, warnings })
    }
}

/// Checks an entry's text as a build would, before it is written (`shiplog import`): its
/// problems, located in `path`, which need not exist yet.
pub fn check_entry(path: &Path, text: &str, default_id: &str) -> Result<(), Vec<Problem>> {
    let words = crate::locale::Words::new("en", &Default::default());
    entry::parse(
        path,
        text.as_bytes(),
        default_id,
        "https://org.invalid",
        None,
        &words,
    )
    .map(|_| ())
    .map_err(|failed| failed.problems)
}

/// `markdown` with each relative link and image made absolute against `url` (root-relative
/// ones against its origin), as `index.md` publishes an entry: for Markdown brought in from
/// elsewhere (`shiplog import`), whose links led from another page.
pub fn absolute_markdown(markdown: &str, url: &url::Url) -> Result<String, String> {
    let site = url.join("/").unwrap_or_else(|_| url.clone());
    let bases = markdown::Bases {
        entry: url.clone(),
        site,
    };
    let words = crate::locale::Words::new("en", &Default::default());
    markdown::render(markdown, &bases, "imported", &words)
        .map(|rendered| rendered.markdown)
        .map_err(|refused| match refused {
            markdown::Refused::TooDeep { .. } => "its HTML nests too deep".to_string(),
            markdown::Refused::TooLarge => "its HTML is too large".to_string(),
        })
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
    wanted: impl Fn(&str) -> bool + Sync,
) -> Result<Index> {
    scan(content_dir, site)?.load(|folder| wanted(&folder.slug))
}

/// The bytes of an org's `_org.yaml`, or `None` when there is none. Only a regular file
/// inside the content folder is read: a named pipe would block the build. A link that leads
/// out of the folder, or nowhere, gives `None`: the walk over the org's files reports it.
fn read_settings_file(path: &Path, root: &Path) -> Result<Option<Vec<u8>>, Problem> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        // A dangling link is reported by the walk too.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Problem::file(path, format!("cannot read: {e}"))),
    };
    if !path.canonicalize().is_ok_and(|real| real.starts_with(root)) {
        return Ok(None);
    }
    if !metadata.is_file() {
        return Err(Problem::file(path, NOT_A_REGULAR_FILE));
    }
    let mut bytes = Vec::new();
    text::open_regular(path, true)
        .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut bytes))
        .map(|_| Some(bytes))
        .map_err(|e| Problem::file(path, format!("cannot read: {e}")))
}

/// The problem with a link out of the content folder: its files are not published.
const LINK_OUTSIDE: &str = "symbolic link leads outside the content folder";

/// The problem with a link that is neither an entry nor `_org.yaml`.
const ASSET_LINK: &str = "symbolic link to a file that is not an entry: only entries (`.md`) and `_org.yaml` may be links (one to an image could publish another organization's or an unpublished entry's file); copy the file here";

/// The problem with a link to a folder inside an org (an org folder may be one).
const FOLDER_LINK: &str = "symbolic link to a folder: it is not followed (its files would be published as this organization's); link each entry, or copy the folder";

/// The problem with an org folder that is a link to a folder inside an org.
const ORG_LINK: &str = "an organization folder may be a link to another organization folder only, not to a folder inside one (it could hold an unpublished entry's files)";

/// What is wrong with the symbolic link at `path`, if anything, given the content folder's
/// real path `root`. A link is followed only to a regular file inside the content folder,
/// outside every part of it that is never published (names starting with `.` or `_`, but
/// `_org.yaml` itself). A folder link is never followed: every file under it would be
/// published as the linking org's, drafts' and other orgs' included.
fn link_problem(path: &Path, root: &Path) -> Option<Problem> {
    let Ok(real) = path.canonicalize() else {
        return Some(Problem::file(
            path,
            "symbolic link leads to nothing: its target is missing or loops",
        ));
    };
    let Ok(inside) = real.strip_prefix(root) else {
        return Some(Problem::file(path, LINK_OUTSIDE));
    };
    let names: Vec<_> = inside.iter().map(|part| part.to_string_lossy()).collect();
    let (last, folders) = names.split_last()?;
    let hidden = |name: &str| name.starts_with('.') || name.starts_with('_');
    if folders.iter().any(|name| hidden(name)) || (hidden(last) && last != "_org.yaml") {
        return Some(Problem::file(
            path,
            "symbolic link leads into a part of the content folder that is never published (a name starting with `.` or `_`)",
        ));
    }
    let metadata = std::fs::metadata(&real).ok()?;
    if metadata.is_dir() {
        return Some(Problem::file(path, FOLDER_LINK));
    }
    (!metadata.is_file()).then(|| Problem::file(path, NOT_A_REGULAR_FILE))
}

/// The problem with a named pipe, socket or device among the content.
const NOT_A_REGULAR_FILE: &str =
    "not a regular file or folder (a named pipe, socket or device); shiplog reads only files";

/// Whether `path` is a bundle's entry file: `index.md` inside a folder of the org.
fn is_bundle_index(path: &Path, org_folder: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.eq_ignore_ascii_case("index.md"))
        && path.parent() != Some(org_folder)
}

/// Moves the files that belong to an entry from the org's assets to the entry, so that
/// they are published with it (never for a draft, for a scheduled entry once it is): those
/// inside a bundle's folder (`launch/index.md` with `launch/shot.png`), and those in a folder
/// named like an entry beside it, at any depth of the org folder `folder` (`secret/plan.pdf`
/// beside `secret.md`, by its id or its file name), which would be published in that
/// entry's own folder.
fn attach_entry_folders(org: &mut Org, folder: &Path, drafts: &[Entry]) {
    let mut owners: HashMap<PathBuf, Option<usize>> = HashMap::new();
    let mut bundles: Vec<(PathBuf, Option<usize>)> = Vec::new();
    let published = org.entries.iter().enumerate().map(|(i, e)| (e, Some(i)));
    for (entry, owner) in drafts.iter().map(|d| (d, None)).chain(published) {
        let Ok(relative) = entry.source.strip_prefix(folder) else {
            continue;
        };
        let beside = relative.parent().unwrap_or(Path::new(""));
        if is_bundle_index(&entry.source, folder) {
            bundles.push((beside.to_path_buf(), owner));
            continue;
        }
        let stem = relative.file_stem().map(|stem| beside.join(stem));
        for prefix in [Some(beside.join(&entry.id)), stem].into_iter().flatten() {
            owners.insert(prefix, owner);
        }
    }
    // A bundle's folder is its entry's, whatever another entry's name says.
    owners.extend(bundles);
    let mut moves: Vec<(usize, Option<usize>, PathBuf)> = Vec::new();
    for (i, asset) in org.assets.iter().enumerate() {
        let found = asset
            .relative
            .ancestors()
            .skip(1)
            .find_map(|prefix| owners.get(prefix).map(|owner| (prefix, *owner)));
        if let Some((prefix, owner)) = found {
            let rest = asset.relative.strip_prefix(prefix).expect("an ancestor");
            moves.push((i, owner, rest.to_path_buf()));
        }
    }
    for (i, owner, rest) in moves.into_iter().rev() {
        let mut asset = org.assets.remove(i);
        if let Some(entry) = owner {
            asset.relative = rest;
            org.entries[entry].assets.insert(0, asset);
        }
    }
}

/// Where each file of the org is published, as a path under its `changelog/` folder (with
/// `/`), with the file it is copied from (none for the pages made of an entry).
fn published_files(org: &Org) -> HashMap<String, Option<&Path>> {
    let mut files = HashMap::new();
    for asset in &org.assets {
        files.insert(slash_path(&asset.relative), Some(asset.source.as_path()));
    }
    for entry in &org.entries {
        for page in ["", "index.html", "index.md"] {
            files.insert(format!("{}/{page}", entry.id), None);
        }
        for asset in &entry.assets {
            let path = format!("{}/{}", entry.id, slash_path(&asset.relative));
            files.insert(path, Some(asset.source.as_path()));
        }
    }
    files
}

/// The path under the org's `changelog/` folder that `url` points to (`changelog` is that
/// folder's address), without query or fragment, decoded; `None` for a URL elsewhere.
fn changelog_path<'u>(url: &'u str, changelog: &str) -> Option<Cow<'u, str>> {
    let rest = url.strip_prefix(changelog)?;
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    Some(percent_encoding::percent_decode_str(path).decode_utf8_lossy())
}

/// Warns about each relative link of an entry that points into the org's changelog but at
/// nothing that will be published there (`files`: see [`published_files`]).
fn report_broken_links(
    org: &Org,
    files: &HashMap<String, Option<&Path>>,
    drafts: &[Entry],
    links: Vec<(Url, String, Problem)>,
    warnings: &mut Vec<Problem>,
) {
    let changelog = format!("{}/changelog/", org.url);
    let tags: std::collections::HashSet<String> = org
        .entries
        .iter()
        .flat_map(|entry| &entry.tags)
        .map(|tag| crate::slug::of_tag(tag))
        .collect();
    for (url, written, at) in links {
        let Some(path) = changelog_path(url.as_str(), &changelog) else {
            continue;
        };
        let path = path.strip_suffix("index.html").unwrap_or(&path);
        if is_generated(org, &tags, path)
            || files.contains_key(path)
            || files.contains_key(&format!("{path}/"))
        {
            continue;
        }
        // What the author wrote first: that is what they will look for in the file.
        let written = crate::text::printable(&written);
        let message = if drafts.iter().any(|d| path.trim_end_matches('/') == d.id) {
            format!("`{written}` links to a draft (`{url}`), which is not published")
        } else {
            format!("`{written}` leads to `{url}`, which is not published: no file or entry of the org folder is there")
        };
        warnings.push(Problem { message, ..at });
    }
}

/// Whether the build writes `path` (under the org's `changelog/`) itself: the first page,
/// the feeds and scripts, a later page that the entries fill (counting scheduled ones, which
/// may be out by build time), a tag's page or feeds (`tags`: the slugs of the org's tags).
fn is_generated(org: &Org, tags: &std::collections::HashSet<String>, path: &str) -> bool {
    if path.is_empty() || (RESERVED_IDS.contains(&path) && !matches!(path, "page" | "tags")) {
        return true;
    }
    let (folder, rest) = path.split_once('/').unwrap_or((path, ""));
    let name = rest.split('/').next().unwrap_or_default();
    match folder {
        "page" => {
            let pages = org.entries.len().div_ceil(org.settings.page_size.max(1));
            name.parse::<usize>()
                .is_ok_and(|n| (2..=pages).contains(&n))
        }
        "tags" => tags.contains(name),
        _ => false,
    }
}

/// An entry's pictures, to be sized: the images of its Markdown (each with where it
/// stands), and where its `image` is written when that names a file.
struct Pictures {
    images: Vec<(Url, Problem)>,
    image_at: Option<Problem>,
}

impl Pictures {
    /// The pictures of a parsed entry (its links and where its `image` is), if it has any.
    fn of(links: &[entry::LocalLink], image_at: &Option<Problem>) -> Option<Pictures> {
        let images: Vec<(Url, Problem)> = links
            .iter()
            .filter(|link| link.image)
            .map(|link| (link.url.clone(), link.at.clone()))
            .collect();
        (!images.is_empty() || image_at.is_some()).then(|| Pictures {
            images,
            image_at: image_at.clone(),
        })
    }
}

/// The sizes of an entry's pictures: for each `<img>` of its HTML, its URL and size.
type Sizes = Vec<(String, Size)>;

/// Reads the size of each picture of `pictures` (by entry id) that is a file of the org
/// (`files`: see [`published_files`]), each file once. Returns, per entry with any, its
/// index, the sizes of its images and that of its `image`. A broken picture, or an `image`
/// that is not a picture of the org, is a problem; a Markdown image of a file that is no
/// picture at all (`![notes](notes.pdf)`) is left to the browser.
fn size_pictures(
    org: &Org,
    files: &HashMap<String, Option<&Path>>,
    pictures: &HashMap<String, Pictures>,
    problems: &mut Vec<Problem>,
) -> Vec<(usize, Sizes, Option<Size>)> {
    let changelog = format!("{}/changelog/", org.url);
    let source = |url: &str| {
        changelog_path(url, &changelog).and_then(|path| files.get(path.as_ref()).copied().flatten())
    };
    let mut sources: Vec<&Path> = pictures
        .values()
        .flat_map(|p| p.images.iter().map(|(url, _)| url.as_str()))
        .chain(
            org.entries
                .iter()
                .filter_map(|e| e.image.as_ref().map(|i| i.url.as_str())),
        )
        .filter_map(source)
        .collect();
    sources.sort_unstable();
    sources.dedup();
    let read: HashMap<&Path, Result<Option<Size>, String>> = sources
        .into_par_iter()
        .map(|path| (path, images::size(path)))
        .collect();
    let mut sized = Vec::new();
    for (i, entry) in org.entries.iter().enumerate() {
        let Some(Pictures { images, image_at }) = pictures.get(&entry.id) else {
            continue;
        };
        let mut sizes = Vec::new();
        for (url, at) in images {
            match source(url.as_str()).map(|path| &read[path]) {
                Some(Ok(Some(size))) => sizes.push((url.to_string(), *size)),
                Some(Err(message)) if !message.contains(images::NOT_A_PICTURE) => {
                    problems.push(Problem {
                        message: message.clone(),
                        ..at.clone()
                    })
                }
                _ => {}
            }
        }
        let mut image_size = None;
        if let (Some(image), Some(at)) = (&entry.image, image_at) {
            let found = source(&image.url);
            let own = |path: &Path| {
                let mut files = org.assets.iter().chain(&entry.assets);
                files.any(|asset| asset.source == path)
            };
            let message = match found.map(|path| (path, &read[path])) {
                Some((path, _)) if !own(path) => Some(
                    "`image` is a file of another entry's folder, published only with that entry: put it in this entry's folder or beside the entries"
                        .to_string(),
                ),
                Some((_, Ok(size))) => {
                    image_size = *size;
                    None
                }
                Some((_, Err(message))) => Some(format!("`image`: {message}")),
                None => Some(format!(
                    "`image` is not a file of the org folder: nothing is published at `{}`",
                    image.url
                )),
            };
            if let Some(message) = message {
                problems.push(Problem {
                    message,
                    ..at.clone()
                });
            }
        }
        sized.push((i, sizes, image_size));
    }
    sized
}

/// A relative path with `/` separators, as in a URL.
fn slash_path(path: &Path) -> String {
    path.iter()
        .map(|p| p.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The org folders under the content folder (`root` is its real path), in slug order.
/// Folders starting with `.` or `_` are ignored; any other name that is not a valid slug, or
/// a link to a folder outside the content folder, is a problem.
fn org_folders(
    content_dir: &Path,
    root: &Path,
    problems: &mut Vec<Problem>,
) -> Result<Vec<String>> {
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
            if item.file_type().is_ok_and(|kind| kind.is_symlink()) {
                // An org folder may be a link to another org folder, nothing deeper (a
                // folder inside an org may hold an unpublished entry's files).
                let problem = link_problem(&path, root)
                    .filter(|p| p.message != FOLDER_LINK)
                    .or_else(|| {
                        let real = path.canonicalize().ok()?;
                        let depth = real.strip_prefix(root).ok()?.components().count();
                        (depth != 1).then(|| Problem::file(&path, ORG_LINK))
                    });
                if let Some(problem) = problem {
                    problems.push(problem);
                    continue;
                }
            }
            match slug::check_org(&name) {
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

/// Collects the files of one org folder, in any sub-folder and in path order: the entry
/// files (`.md`, any case) and the assets (the rest, but names starting with `_`, like
/// `_org.yaml`). Names starting with `.`, and folders starting with `_`, are skipped; links
/// may not lead out of the content folder.
fn org_files(
    folder: &Path,
    root: &Path,
    problems: &mut Vec<Problem>,
) -> (Vec<EntryFile>, Vec<Asset>) {
    let mut files = Vec::new();
    let mut assets = Vec::new();
    // Links are not followed by the walk: each is judged by [`link_problem`] first, so that a
    // link out of the folder (or into a part of it that is never published) is never read.
    let walker = walkdir::WalkDir::new(folder)
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
                problems.push(walk_problem(&e, folder));
                continue;
            }
        };
        let path = item.path();
        let linked = item.path_is_symlink();
        if linked {
            if let Some(problem) = link_problem(path, root) {
                problems.push(problem);
                continue;
            }
        } else if item.file_type().is_dir() {
            continue;
        } else if !item.file_type().is_file() {
            problems.push(Problem::file(path, NOT_A_REGULAR_FILE));
            continue;
        }
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            problems.push(Problem::file(path, "the name is not valid UTF-8"));
            continue;
        };
        if let Some(file) = EntryFile::at(path, name, folder) {
            files.push(file);
        } else if name.starts_with('_') {
            continue;
        } else if linked {
            problems.push(Problem::file(path, ASSET_LINK));
        } else if media::asset_type(name).is_none() {
            problems.push(Problem::file(path, unpublished_type()));
        } else if let Ok(relative) = path.strip_prefix(folder) {
            assets.push(Asset {
                source: path.to_path_buf(),
                relative: relative.to_path_buf(),
            });
        }
    }
    (files, assets)
}

/// What went wrong walking an org folder (in `folder`), located at the file it happened at.
fn walk_problem(e: &walkdir::Error, folder: &Path) -> Problem {
    let path = e.path().unwrap_or(folder).to_path_buf();
    let message = match e.loop_ancestor() {
        Some(ancestor) => format!("symbolic link loop back to {}", ancestor.display()),
        None if path.is_symlink() && !path.exists() => {
            "symbolic link leads to nothing: its target is missing or loops".to_string()
        }
        None => format!(
            "cannot read: {}",
            e.io_error()
                .map_or_else(|| e.to_string(), ToString::to_string)
        ),
    };
    Problem::file(&path, message)
}

/// An asset may not take the place of a generated file (an entry's page, a feed, a page).
fn report_asset_clashes(org: &Org, problems: &mut Vec<Problem>) {
    for asset in &org.assets {
        let mut parts = asset.relative.iter().filter_map(|p| p.to_str());
        let first = parts.next().unwrap_or_default();
        let second = parts.next();
        // An entry's folder is `<id>/`: a file named like an id would take its place.
        let clashes = RESERVED_IDS.contains(&first)
            || (matches!(second, None | Some("index.html"))
                && org.entries.iter().any(|e| e.id == first));
        if clashes {
            problems.push(Problem::file(
                &asset.source,
                "this file would replace a page or feed that shiplog generates; rename or move it",
            ));
        }
    }
}

/// The tags of an org's entries by the slug of their page: tags that share a page must be
/// one tag written in other letter case or with other spaces (`Security`, `security`);
/// `C++`, `C#` and `c` would all be `tags/c/`, one page under one of their names.
#[derive(Default)]
struct TagPages(HashMap<String, (String, String, Problem)>);

impl TagPages {
    /// Adds the `tags` of one entry (written at `at`), reporting a tag whose page another
    /// tag already has.
    fn add(&mut self, tags: &[String], at: Problem, problems: &mut Vec<Problem>) {
        for tag in tags {
            let slug = slug::of_tag(tag);
            if slug.is_empty() {
                continue;
            }
            let same = tag_identity(tag);
            match self.0.get(&slug) {
                None if self.0.len() == MAX_ORG_TAGS => {
                    let mut problem = at.clone();
                    problem.message = format!(
                        "tag `{tag}` would be tag number {} of the organization; it may have at most {MAX_ORG_TAGS} (each is a page and two feeds)",
                        MAX_ORG_TAGS + 1
                    );
                    problems.push(problem);
                    return;
                }
                None => {
                    self.0.insert(slug, (same, tag.clone(), at.clone()));
                }
                Some((first, written, first_at)) if *first != same => {
                    let mut problem = at.clone();
                    problem.message = format!(
                        "tag `{tag}` would share the page `tags/{slug}/` with tag `{written}` ({}:{}); tags that differ in more than letter case and spaces need names that differ in letters or digits",
                        first_at.path.display(),
                        first_at.line
                    );
                    problems.push(problem);
                }
                Some(_) => {}
            }
        }
    }
}

/// What makes two spellings one tag: letter case and runs of spaces, `-` and `_` do not
/// count; every other character does.
fn tag_identity(tag: &str) -> String {
    let mut identity = String::with_capacity(tag.len());
    for part in tag
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|part| !part.is_empty())
    {
        if !identity.is_empty() {
            identity.push(' ');
        }
        identity.extend(part.chars().flat_map(char::to_lowercase));
    }
    identity
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
