//! What a build remembers for the next one, in a file beside the output folder: per org, a
//! digest of everything its output is made of (its files' bytes, the site settings, its
//! theme's templates, the shiplog version) and the files that output is. An org whose
//! digest is unchanged, whose published entries are the same at the new build time, and
//! whose files are all still in place, is neither parsed nor rendered again.
//!
//! Reading every file to know its digest is most of the work of a build that changes little,
//! so the cache also keeps, per org, a stamp of its files as the file system describes them
//! (path, size, inode, modification and change times), as git and Bazel do: when the stamp
//! is unchanged, the digest of the last build is taken without reading. The stamp is only
//! kept for files last changed a few seconds before that build started, so that a change
//! made in the same tick of the file system clock as the build read the file is never
//! missed; and any write gives a file a new change time, which no tool can set back.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::config::SiteConfig;
use crate::content::{Org, OrgFolder};
use crate::digest;
use crate::error::{Error, Result};
use crate::render::{OutputFile, OutputTree, Theme};

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
    /// Its files, relative to the output folder, with their sizes.
    pub files: Vec<(PathBuf, u64)>,
}

impl OrgRecord {
    /// The record of `org` as built at `now` into `files`.
    pub fn new(key: OrgKey, org: &Org, now: DateTime<Utc>, files: &[OutputFile]) -> Self {
        let published = org.published(now);
        let scheduled = &org.entries[..org.entries.len() - published.len()];
        OrgRecord {
            key: key.digest,
            stamp: key.stamp,
            published_since: published.first().map(|entry| entry.date),
            next_publication: scheduled.last().map(|entry| entry.date),
            entries: published.len(),
            files: files
                .iter()
                .map(|(path, bytes)| (path.clone(), bytes.len() as u64))
                .collect(),
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

    /// Writes the cache to `path` (through a temporary file, so a reader never sees half).
    pub fn write(&self, path: &Path) -> Result<()> {
        let write_error = |source| Error::Write {
            path: path.to_path_buf(),
            source,
        };
        let bytes = serde_json::to_vec(self).map_err(|e| write_error(e.into()))?;
        let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
        std::fs::write(&temporary, bytes).map_err(write_error)?;
        std::fs::rename(&temporary, path).map_err(write_error)
    }

    /// The record of org `slug`, to keep in the next cache, when its output can be kept as
    /// it is: same `key`, same published entries at `now`, and every file still in `tree`.
    pub fn reusable(
        &self,
        slug: &str,
        key: &OrgKey,
        now: DateTime<Utc>,
        tree: &OutputTree,
    ) -> Option<OrgRecord> {
        let record = self.orgs.get(slug)?;
        let kept = record.key == key.digest
            && record.publishes_same_at(now)
            && record
                .files
                .iter()
                .all(|(path, size)| tree.holds(path, *size));
        kept.then(|| OrgRecord {
            // The files may have settled since: their stamp can be kept now.
            stamp: key.stamp.clone(),
            ..record.clone()
        })
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
        std::fs::File::open(source)
            .and_then(|mut file| file.read_to_end(&mut bytes))
            .ok()?;
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
    for source in folder.sources() {
        let Described { numbers, changed } = described(&std::fs::metadata(source).ok()?)?;
        let recent = changed.iter().any(|&(seconds, nanos)| {
            (seconds, nanos) >= (settled.as_secs() as i64, i64::from(settled.subsec_nanos()))
        });
        if recent {
            return None;
        }
        context.add(folder.relative(source).as_os_str().as_encoded_bytes());
        for number in numbers {
            context.add(number.to_le_bytes());
        }
        for (seconds, nanos) in changed {
            context.add(seconds.to_le_bytes());
            context.add(nanos.to_le_bytes());
        }
    }
    Some(digest::hex(&context.finish()))
}

/// A file as the file system describes it, in what changes whenever its bytes do.
struct Described {
    /// Size, inode and device.
    numbers: [u64; 3],
    /// The modification and change times, as (seconds, nanoseconds).
    changed: [(i64, i64); 2],
}

/// How the file system describes a file. Only on Unix: elsewhere there is no change time,
/// so no stamp, and every file is read.
#[cfg(unix)]
fn described(metadata: &std::fs::Metadata) -> Option<Described> {
    use std::os::unix::fs::MetadataExt;
    Some(Described {
        numbers: [metadata.len(), metadata.ino(), metadata.dev()],
        changed: [
            (metadata.mtime(), metadata.mtime_nsec()),
            (metadata.ctime(), metadata.ctime_nsec()),
        ],
    })
}

#[cfg(not(unix))]
fn described(_: &std::fs::Metadata) -> Option<Described> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DEFAULT_THEME;
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
            let theme = Theme::load(DEFAULT_THEME, dir.path()).unwrap();
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
            files: Vec::new(),
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

    #[test]
    fn files_changed_just_before_the_build_have_no_stamp() {
        let acme = Acme::new();
        let key = acme.key(&Manifest::default(), SystemTime::now());
        assert_eq!(key.stamp, None);
        assert_eq!(key.digest, acme.key(&Manifest::default(), later()).digest);
    }
}
