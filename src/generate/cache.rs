//! What a build remembers for the next one, in a file beside the output folder: per org, a
//! digest of everything its output is made of (its files' bytes, the site settings, its
//! theme's templates, the shiplog version) and the files that output is. An org whose
//! digest is unchanged, whose published entries are the same at the new build time, and
//! whose files are all still in place, is neither parsed nor rendered again.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

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
    pub fn new(key: String, org: &Org, now: DateTime<Utc>, files: &[OutputFile]) -> Self {
        let published = org.published(now);
        let scheduled = &org.entries[..org.entries.len() - published.len()];
        OrgRecord {
            key,
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

    /// The record of org `slug` when its output can be kept as it is: same `key`, same
    /// published entries at `now`, and every file still in `tree`.
    pub fn reusable(
        &self,
        slug: &str,
        key: &str,
        now: DateTime<Utc>,
        tree: &OutputTree,
    ) -> Option<&OrgRecord> {
        self.orgs.get(slug).filter(|record| {
            record.key == key
                && record.publishes_same_at(now)
                && record
                    .files
                    .iter()
                    .all(|(path, size)| tree.holds(path, *size))
        })
    }
}

/// The digest of everything org `folder`'s output is made of; `None` when one of its files
/// cannot be read (loading it reports why).
pub fn org_key(folder: &OrgFolder, site: &SiteConfig, theme: &Theme) -> Option<String> {
    let mut digest = digest::Parts::default();
    digest.add(env!("CARGO_PKG_VERSION"));
    digest.add(format!("{site:?}"));
    digest.add(theme.fingerprint());
    digest.add(&folder.slug);
    digest.add(format!("{:?}", folder.settings));
    let mut bytes = Vec::new();
    for source in folder.sources() {
        bytes.clear();
        std::fs::File::open(source)
            .and_then(|mut file| file.read_to_end(&mut bytes))
            .ok()?;
        digest.add(source.as_os_str().as_encoded_bytes());
        digest.add(&bytes);
    }
    Some(digest::hex(&digest.finish()))
}
