//! What a build remembers for the next one, in a file beside the output folder: per org, a
//! digest of everything its output is made of (its files' bytes, the site settings, its
//! theme's templates, the shiplog version) and the files that output is. An org whose
//! digest is unchanged, whose published entries are the same at the new build time, and
//! whose output folder is as that build left it, is neither parsed nor rendered again.
//!
//! Reading every file to know its digest is most of the work of a build that changes little,
//! so the cache also keeps, per org, a stamp of its files as the file system describes them
//! (path, size, inode, modification and change times), as git and Bazel do: when the stamp
//! is unchanged, the digest of the last build is taken without reading. The stamp is only
//! kept for files last changed a few seconds before that build started, so that a change
//! made in the same tick of the file system clock as the build read the file is never
//! missed; and any write gives a file a new change time, which no tool can set back.
//!
//! The same goes for the output: per org, a stamp of its output folder, of every folder in
//! it and of every file it holds. When it is unchanged, the folder holds exactly the files
//! the last build left there (a file or folder added, removed, renamed or written gives its
//! folder or itself a new change time), and it need not be listed. An org whose output
//! folder has no stamp, or another one, is built again, which repairs whatever was done to
//! it: only the files whose bytes differ are written.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::config::SiteConfig;
use crate::content::{Org, OrgFolder, MAX_ENTRY_BYTES};
use crate::digest;
use crate::error::{write_error, Result};
use crate::render::{OutputFile, Theme};

/// The build cache of one output folder.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Manifest {
    /// The shiplog version that wrote it; another version's cache is not used.
    version: String,
    orgs: BTreeMap<String, OrgRecord>,
}

/// One org's output as the last build left it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OrgRecord {
    /// The digest of everything the output is made of ([`org_key`]).
    key: String,
    /// The stamp of the org's files the key goes with, when they were old enough to trust
    /// it (see the module's documentation).
    stamp: Option<String>,
    /// The newest published entry's date: a build before it publishes less.
    published_since: Option<DateTime<Utc>>,
    /// The oldest scheduled entry's date: a build from then on publishes more.
    next_publication: Option<DateTime<Utc>>,
    /// Published entries.
    pub entries: usize,
    /// Scheduled entries (not drafts, not yet published).
    pub scheduled: usize,
    /// Its files, relative to the output folder, with their sizes.
    pub files: Vec<(PathBuf, u64)>,
    /// The stamp of its output folder as this build left it ([`output_stamp`]), when every
    /// part of it had changed before the stamp was taken (see [`Manifest::stamp_outputs`]).
    output_stamp: Option<String>,
}

impl OrgRecord {
    /// The record of `org` as built at `now` into `files`.
    pub fn new(key: OrgKey, org: &Org, now: DateTime<Utc>, files: &[OutputFile]) -> Self {
        let published = org.published(now);
        let scheduled = &org.entries[..org.entries.len() - published.len()];
        // An `updated` date changes the output once it has come (see `render::render_org`).
        let updates = || published.iter().filter_map(|entry| entry.updated);
        let came = updates().filter(|updated| *updated <= now).max();
        let coming = updates().filter(|updated| *updated > now).min();
        let next_scheduled = scheduled.last().map(|entry| entry.date);
        OrgRecord {
            key: key.digest,
            stamp: key.stamp,
            published_since: published.first().map(|entry| entry.date).max(came),
            next_publication: match (next_scheduled, coming) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            entries: published.len(),
            scheduled: scheduled.len(),
            files: files
                .iter()
                .map(|(path, bytes)| (path.clone(), bytes.len() as u64))
                .collect(),
            output_stamp: None,
        }
    }

    /// This record, to keep in the next cache for an output folder kept as it is, with `key`.
    pub fn kept(&self, key: &OrgKey) -> OrgRecord {
        OrgRecord {
            // The files may have settled since: their stamp can be kept now.
            stamp: key.stamp.clone(),
            ..self.clone()
        }
    }

    /// Whether a build at `now` would publish the same entries as this one did.
    fn publishes_same_at(&self, now: DateTime<Utc>) -> bool {
        self.published_since.is_none_or(|since| since <= now)
            && self.next_publication.is_none_or(|next| now < next)
    }
}

impl Manifest {
    /// Where the cache of `output` lives: a hidden file beside it, so it is never published.
    pub fn path_for(output: &Path) -> PathBuf {
        let name = output
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy());
        output.with_file_name(format!(".{name}.shiplog-cache.json"))
    }

    /// Reads the cache at `path`. A missing, unreadable or foreign file is an empty cache:
    /// the build is then a full one.
    pub fn read(path: &Path) -> Manifest {
        std::fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Manifest>(&bytes).ok())
            .filter(|manifest| manifest.version == env!("CARGO_PKG_VERSION"))
            .unwrap_or_default()
    }

    /// The cache of the orgs in `records`.
    pub fn new(records: impl IntoIterator<Item = (String, OrgRecord)>) -> Self {
        Manifest {
            version: env!("CARGO_PKG_VERSION").to_string(),
            orgs: records.into_iter().collect(),
        }
    }

    /// Writes the cache of `output` to `path` (through a temporary file, so a reader never
    /// sees half), first stamping the output folder of each org that has no stamp yet.
    pub fn write(mut self, path: &Path, output: &Path) -> Result<()> {
        self.stamp_outputs(output);
        let bytes =
            serde_json::to_vec(&self).map_err(|e| write_error(path)(std::io::Error::from(e)))?;
        atomic::replace(path, &bytes)
    }

    /// Stamps the output folder in `output` of each org that has no stamp yet.
    ///
    /// A stamp is only kept when every part of the folder last changed before a file created
    /// in `output`, in the file system's own clock: a change after the stamp is then sure to
    /// give a part a later change time, even within one tick of that clock. A folder changed
    /// in the clock's last tick is stamped once the clock has moved on, waiting at most
    /// [`STAMP_WAIT`]; else the next build builds its org again.
    fn stamp_outputs(&mut self, output: &Path) {
        if cfg!(not(unix)) {
            // No change times: nothing can be stamped.
            return;
        }
        let started = std::time::Instant::now();
        let mut first_look = None;
        for round in 0.. {
            let mut unstamped: Vec<&mut OrgRecord> = self
                .orgs
                .values_mut()
                .filter(|record| record.output_stamp.is_none())
                .collect();
            // A clock that cannot be read only makes the next build build these orgs again.
            let Some(now) = unstamped.first().and_then(|_| file_system_now(output).ok()) else {
                return;
            };
            unstamped.par_iter_mut().for_each(|record| {
                record.output_stamp = output_stamp(output, &record.files, Some(now));
            });
            let left = unstamped.iter().any(|record| record.output_stamp.is_none());
            // Once the clock has moved past the first look, what is left changed since.
            let moved_on = *first_look.get_or_insert(now) < now;
            // Always a second look, however long the first took.
            if !left || moved_on || (round > 0 && started.elapsed() >= STAMP_WAIT) {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The files org `slug`'s output folder in `output` holds, with their sizes, when its
    /// stamp shows it unchanged since the last build: it need not be listed.
    pub fn unchanged_output(&self, slug: &str, output: &Path) -> Option<&[(PathBuf, u64)]> {
        let record = self.orgs.get(slug)?;
        let stamp = record.output_stamp.as_ref()?;
        (output_stamp(output, &record.files, None).as_ref() == Some(stamp))
            .then_some(record.files.as_slice())
    }

    /// The record of org `slug` when its content is the same as in the last build: same
    /// `key`, and the same published entries at `now`.
    pub fn reusable(&self, slug: &str, key: &OrgKey, now: DateTime<Utc>) -> Option<&OrgRecord> {
        self.orgs
            .get(slug)
            .filter(|record| record.key == key.digest && record.publishes_same_at(now))
    }
}

/// What the cache knows an org's output by.
#[derive(Debug, Clone)]
pub struct OrgKey {
    /// The digest of everything the output is made of.
    digest: String,
    /// The stamp of the org's files, when they are old enough to trust it.
    stamp: Option<String>,
}

/// How long a build waits at most, at its end, for the file system clock to move past the
/// last change it made to the output, so that every org's output folder can be stamped:
/// more than a tick of Linux's clock (at most 10 ms), less than a tick of FAT's (2 s).
const STAMP_WAIT: Duration = Duration::from_millis(20);

/// How long before a build its files must have last changed for their stamp to be kept:
/// more than the coarsest file system clock tick (FAT's 2 s).
const SETTLED: Duration = Duration::from_secs(3);

/// The key of org `folder`'s output in a build that started at `started`: the key of the
/// last build when its files' stamp is unchanged, else the digest of their bytes. `None`
/// when one of its files cannot be read (loading it reports why).
pub fn org_key(
    folder: &OrgFolder,
    site: &SiteConfig,
    theme: &Theme,
    last: &Manifest,
    started: SystemTime,
) -> Option<OrgKey> {
    let mut context = digest::Parts::default();
    context.add(env!("CARGO_PKG_VERSION"));
    // The widget's and the search's scripts are built in, not a theme's: a changed script
    // is a new output.
    context.add(crate::render::WIDGET_SOURCE);
    context.add(crate::render::SEARCH_SOURCE);
    // Where themes are looked up is spelled after the config file's path; what counts is
    // the theme's templates, in its fingerprint.
    let settings = SiteConfig {
        themes_dir: PathBuf::new(),
        ..site.clone()
    };
    context.add(format!("{settings:?}"));
    context.add(theme.fingerprint());
    context.add(&folder.slug);
    context.add(format!("{:?}", folder.settings));
    let stamp = stamp(folder, context.clone(), started);
    if let (Some(stamp), Some(record)) = (&stamp, last.orgs.get(&folder.slug)) {
        if record.stamp.as_ref() == Some(stamp) {
            return Some(OrgKey {
                digest: record.key.clone(),
                stamp: record.stamp.clone(),
            });
        }
    }
    let mut digest = context;
    let mut bytes = Vec::new();
    for source in folder.sources() {
        bytes.clear();
        // A file too large to be content, or no regular file (any more), is not read:
        // loading the org reports it.
        let mut file = crate::text::open_regular(source, true).ok()?;
        if file.metadata().ok()?.len() > MAX_ENTRY_BYTES {
            return None;
        }
        file.read_to_end(&mut bytes).ok()?;
        digest.add(folder.relative(source).as_os_str().as_encoded_bytes());
        digest.add(&bytes);
    }
    Some(OrgKey {
        digest: digest::hex(&digest.finish()),
        stamp,
    })
}

/// The stamp of org `folder`'s files, on top of `context`; `None` when a file cannot be
/// looked at, or changed less than [`SETTLED`] before `started`.
fn stamp(folder: &OrgFolder, mut context: digest::Parts, started: SystemTime) -> Option<String> {
    let settled = started
        .checked_sub(SETTLED)?
        .duration_since(UNIX_EPOCH)
        .ok()?;
    let opened = std::fs::File::open(folder.path()).ok()?;
    for source in folder.sources() {
        let relative = folder.relative(source);
        let described = described(&opened, relative, true)?;
        if !described.changed_before(settled) {
            return None;
        }
        described.add_to(&mut context, relative);
    }
    Some(digest::hex(&context.finish()))
}

/// The stamp of an org's output folder in `output` holding `files`: of the files, and of
/// every folder from the org's folder down to them (links are described, not followed).
///
/// Given `settled`, this is a new stamp: `None` when a part changed at or after `settled`,
/// or when a folder holds anything but those files and folders (which a later change
/// inside it would not show in the stamp). Else it is to compare with the last one. `None`
/// too when a part cannot be looked at.
fn output_stamp(
    output: &Path,
    files: &[(PathBuf, u64)],
    settled: Option<SystemTime>,
) -> Option<String> {
    let settled = settled
        .map(|time| time.duration_since(UNIX_EPOCH))
        .transpose()
        .ok()?;
    let files: Vec<&str> = files
        .iter()
        .map(|(path, _)| path.to_str())
        .collect::<Option<_>>()?;
    let folders: BTreeSet<&str> = files
        .iter()
        .flat_map(|path| path.match_indices('/').map(|(at, _)| &path[..at]))
        .collect();
    let mut contents: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    if settled.is_some() {
        for part in folders.iter().chain(&files) {
            if let Some((folder, name)) = part.rsplit_once('/') {
                contents.entry(folder).or_default().insert(name);
            }
        }
    }
    // The parts below the deepest folder holding every file are looked up from it, which
    // spares the kernel a step for each folder above it.
    let base = common_folder(&files);
    let output_folder = std::fs::File::open(output).ok()?;
    let base_folder = match base {
        "" => None,
        base => Some(std::fs::File::open(output.join(base)).ok()?),
    };
    let mut context = digest::Parts::default();
    for part in folders.iter().chain(&files) {
        let below_base = part.strip_prefix(base).and_then(|r| r.strip_prefix('/'));
        let (folder, relative) = match (&base_folder, below_base) {
            (Some(base_folder), Some(below)) => (base_folder, below),
            _ => (&output_folder, *part),
        };
        let described = described(folder, Path::new(relative), false)?;
        if let Some(settled) = settled {
            let holds = |names| holds_exactly(&output.join(part), names);
            if !described.changed_before(settled)
                || contents.get(part).is_some_and(|names| !holds(names))
            {
                return None;
            }
        }
        described.add_to(&mut context, Path::new(part));
    }
    Some(digest::hex(&context.finish()))
}

/// Whether `folder` holds exactly the files and folders `names`.
fn holds_exactly(folder: &Path, names: &BTreeSet<&str>) -> bool {
    let Ok(items) = std::fs::read_dir(folder) else {
        return false;
    };
    let mut count = 0;
    for item in items {
        let Ok(item) = item else { return false };
        if !item
            .file_name()
            .to_str()
            .is_some_and(|name| names.contains(name))
        {
            return false;
        }
        count += 1;
    }
    count == names.len()
}

/// The time of the file system holding `folder` now, as it would stamp a change: the
/// creation time of a file created there (and removed at once).
fn file_system_now(folder: &Path) -> std::io::Result<SystemTime> {
    tempfile::tempfile_in(folder)?.metadata()?.modified()
}

/// The deepest folder (`/`-separated) holding every one of `files`; empty when none does.
fn common_folder<'a>(files: &[&'a str]) -> &'a str {
    let parent = |path: &'a str| path.rfind('/').map_or("", |at| &path[..at]);
    let Some((first, others)) = files.split_first() else {
        return "";
    };
    let mut common = parent(first);
    for file in others {
        let holds = |folder: &str| {
            folder.is_empty()
                || file
                    .strip_prefix(folder)
                    .is_some_and(|r| r.starts_with('/'))
        };
        while !holds(common) {
            common = parent(common);
        }
    }
    common
}

/// A file as the file system describes it, in what changes whenever its bytes do.
struct Described {
    /// Size, inode and device.
    numbers: [u64; 3],
    /// The modification and change times, as (seconds, nanoseconds).
    changed: [(i64, i64); 2],
}

impl Described {
    /// Whether both times are before `time` (since the Unix epoch).
    fn changed_before(&self, time: Duration) -> bool {
        let limit = (time.as_secs() as i64, i64::from(time.subsec_nanos()));
        self.changed.iter().all(|&changed| changed < limit)
    }

    /// Adds the file at `relative` as described to `stamp`.
    fn add_to(&self, stamp: &mut digest::Parts, relative: &Path) {
        stamp.add(relative.as_os_str().as_encoded_bytes());
        for number in self.numbers {
            stamp.add(number.to_le_bytes());
        }
        for (seconds, nanos) in self.changed {
            stamp.add(seconds.to_le_bytes());
            stamp.add(nanos.to_le_bytes());
        }
    }
}

/// How the file system describes the file at `relative` in the open `folder`, following a
/// final link or not. Looking it up from the folder rather than by its whole path spares
/// the kernel a walk down every folder above it, for each file. Only on Unix: elsewhere
/// there is no change time, so no stamp: every file is read and every org built.
#[cfg(unix)]
// The types of these fields differ between platforms.
#[allow(clippy::unnecessary_cast)]
fn described(folder: &std::fs::File, relative: &Path, follow_links: bool) -> Option<Described> {
    use rustix::fs::AtFlags;
    let flags = match follow_links {
        true => AtFlags::empty(),
        false => AtFlags::SYMLINK_NOFOLLOW,
    };
    let stat = rustix::fs::statat(folder, relative, flags).ok()?;
    Some(Described {
        numbers: [stat.st_size as u64, stat.st_ino as u64, stat.st_dev as u64],
        changed: [
            (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            (stat.st_ctime as i64, stat.st_ctime_nsec as i64),
        ],
    })
}

#[cfg(not(unix))]
fn described(_: &std::fs::File, _: &Path, _: bool) -> Option<Described> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content;

    /// A content folder with org `acme` and one entry, scanned.
    struct Acme {
        dir: tempfile::TempDir,
        scan: content::Scan,
        theme: Theme,
        site: SiteConfig,
    }

    impl Acme {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let org = dir.path().join("acme");
            std::fs::create_dir(&org).unwrap();
            std::fs::write(org.join("_org.yaml"), "title: Acme\n").unwrap();
            std::fs::write(
                org.join("first.md"),
                "---\ntitle: First\ndate: 2026-01-02T00:00:00Z\ntags: [fix]\n---\nBody one.\n",
            )
            .unwrap();
            let site = SiteConfig::default();
            let scan = content::scan(dir.path(), &site).unwrap();
            let theme = Theme::new(None).unwrap();
            Acme {
                dir,
                scan,
                theme,
                site,
            }
        }

        /// The key of `acme` in a build started at `started`, after the build `last`.
        fn key(&self, last: &Manifest, started: SystemTime) -> OrgKey {
            org_key(&self.scan.orgs()[0], &self.site, &self.theme, last, started).unwrap()
        }
    }

    /// A build long enough after the files were written for their stamp to be kept.
    fn later() -> SystemTime {
        SystemTime::now() + Duration::from_secs(60)
    }

    fn last_build(key: &OrgKey) -> Manifest {
        let record = OrgRecord {
            key: key.digest.clone(),
            stamp: key.stamp.clone(),
            published_since: None,
            next_publication: None,
            entries: 0,
            scheduled: 0,
            files: Vec::new(),
            output_stamp: None,
        };
        Manifest::new([("acme".to_string(), record)])
    }

    #[test]
    fn an_unchanged_stamp_takes_the_last_key_without_reading() {
        let acme = Acme::new();
        let first = acme.key(&Manifest::default(), later());
        assert!(first.stamp.is_some());
        // A key the files could not give shows that it was taken, not computed.
        let mut remembered = first.clone();
        remembered.digest = "from the last build".to_string();
        let again = acme.key(&last_build(&remembered), later());
        assert_eq!(again.digest, "from the last build");
    }

    #[test]
    fn an_edit_that_keeps_size_and_modification_time_is_read() {
        let acme = Acme::new();
        let first = acme.key(&Manifest::default(), later());
        let entry = acme.dir.path().join("acme/first.md");
        let modified = std::fs::metadata(&entry).unwrap().modified().unwrap();
        let text = std::fs::read_to_string(&entry).unwrap();
        std::fs::write(&entry, text.replace("Body one.", "Body two.")).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&entry)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        let again = acme.key(&last_build(&first), later());
        assert_ne!(again.digest, first.digest);
        assert_ne!(again.stamp, first.stamp);
    }

    #[test]
    fn the_key_does_not_depend_on_how_the_folders_are_spelled() {
        let acme = Acme::new();
        let link = acme.dir.path().with_extension("link");
        std::os::unix::fs::symlink(acme.dir.path(), &link).unwrap();
        // As after `--content <link> --config <link>/shiplog.yaml`.
        let site = SiteConfig {
            themes_dir: link.join("themes"),
            ..acme.site.clone()
        };
        let scan = content::scan(&link, &site).unwrap();
        let through_link = org_key(
            &scan.orgs()[0],
            &site,
            &acme.theme,
            &Manifest::default(),
            later(),
        )
        .unwrap();
        std::fs::remove_file(&link).unwrap();
        let direct = acme.key(&Manifest::default(), later());
        assert_eq!(through_link.digest, direct.digest);
        assert_eq!(through_link.stamp, direct.stamp);
    }

    /// An org's output folder in a temporary folder, and its files with their sizes.
    fn acme_output() -> (tempfile::TempDir, PathBuf, Vec<(PathBuf, u64)>) {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("public");
        let mut files = Vec::new();
        for (relative, text) in [
            ("acme/changelog/first/index.html", "first"),
            ("acme/changelog/index.html", "listing"),
            ("acme/changelog/feed.xml", "<rss/>"),
        ] {
            let path = output.join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            files.push((PathBuf::from(relative), text.len() as u64));
        }
        (dir, output, files)
    }

    /// The stamp of `files` in `output` as [`Manifest::write`] takes it, once the file system
    /// clock has moved past their last change (which may take one tick of it).
    fn settled_output_stamp(output: &Path, files: &[(PathBuf, u64)]) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let settled = file_system_now(output).unwrap();
            if let Some(stamp) = output_stamp(output, files, Some(settled)) {
                return stamp;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the clock stands still"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn with_output_stamp(files: &[(PathBuf, u64)], stamp: String) -> Manifest {
        let record = OrgRecord {
            key: String::new(),
            stamp: None,
            published_since: None,
            next_publication: None,
            entries: 0,
            scheduled: 0,
            files: files.to_vec(),
            output_stamp: Some(stamp),
        };
        Manifest::new([("acme".to_string(), record)])
    }

    #[test]
    fn an_output_folder_whose_stamp_is_unchanged_is_known() {
        let (_dir, output, files) = acme_output();
        let last = with_output_stamp(&files, settled_output_stamp(&output, &files));
        assert_eq!(last.unchanged_output("acme", &output), Some(&files[..]));
        assert_eq!(last.unchanged_output("other", &output), None);
    }

    #[test]
    fn any_change_to_an_output_folder_changes_its_stamp() {
        let (_dir, output, files) = acme_output();
        let entry = output.join("acme/changelog/first/index.html");
        let stray = output.join("acme/changelog/first/stray.html");
        let empty = output.join("acme/changelog/empty");
        // Each change, and how to undo it so that the folder can be stamped again.
        type Step<'a> = &'a dyn Fn();
        let changes: [(&str, Step, Step); 5] = [
            (
                "a file added next to one",
                &|| std::fs::write(&stray, "x").unwrap(),
                &|| std::fs::remove_file(&stray).unwrap(),
            ),
            (
                "an empty folder added",
                &|| std::fs::create_dir(&empty).unwrap(),
                &|| std::fs::remove_dir(&empty).unwrap(),
            ),
            (
                "a file rewritten in place, same size",
                &|| std::fs::write(&entry, "FIRST").unwrap(),
                &|| {},
            ),
            (
                "a file replaced by a copy",
                &|| {
                    let copy = output.join("copy");
                    std::fs::copy(&entry, &copy).unwrap();
                    std::fs::rename(&copy, &entry).unwrap();
                },
                &|| {},
            ),
            (
                "a file removed",
                &|| std::fs::remove_file(output.join("acme/changelog/feed.xml")).unwrap(),
                &|| {},
            ),
        ];
        for (change, make, undo) in changes {
            // Taken just before the change, in the same tick of the clock if it may.
            let last = with_output_stamp(&files, settled_output_stamp(&output, &files));
            make();
            assert_eq!(last.unchanged_output("acme", &output), None, "{change}");
            undo();
        }
    }

    #[test]
    fn an_output_folder_holding_anything_else_has_no_new_stamp() {
        let (_dir, output, files) = acme_output();
        // Left alone by the build, it would hide what is put in it later.
        let extra = output.join("acme/changelog/first/extra");
        std::fs::create_dir(&extra).unwrap();
        assert_eq!(output_stamp(&output, &files, Some(later())), None);
        std::fs::remove_dir(&extra).unwrap();
        assert!(output_stamp(&output, &files, Some(later())).is_some());
    }

    #[test]
    fn an_output_folder_changed_at_or_after_the_stamp_has_none() {
        let (_dir, output, files) = acme_output();
        assert_eq!(output_stamp(&output, &files, Some(UNIX_EPOCH)), None);
        assert!(output_stamp(&output, &files, Some(later())).is_some());
    }

    #[test]
    fn the_common_folder_is_the_deepest_holding_every_file() {
        assert_eq!(common_folder(&["a/b/c/x", "a/b/d/y", "a/b/z"]), "a/b");
        assert_eq!(common_folder(&["a/b/x", "a/bc/y"]), "a");
        assert_eq!(common_folder(&["a/x", "b/y"]), "");
        assert_eq!(common_folder(&["x"]), "");
        assert_eq!(common_folder(&[]), "");
    }

    #[test]
    fn files_changed_just_before_the_build_have_no_stamp() {
        let acme = Acme::new();
        let key = acme.key(&Manifest::default(), SystemTime::now());
        assert_eq!(key.stamp, None);
        assert_eq!(key.digest, acme.key(&Manifest::default(), later()).digest);
    }
}
