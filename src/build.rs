//! The one build, which `generate`, `check` and `serve` each run once per build: the
//! [`Sources`] (content folder and site settings), a time and a [`Mode`] in; every org's
//! pages and feeds rendered in memory, then either dropped ([`Mode::Check`]) or written
//! through an [`OutputTree`] ([`Mode::Write`]).
//!
//! Orgs are loaded, rendered and written one after another (several at once), so memory
//! holds a few orgs, never the whole site. An org unchanged since the build before (see
//! [`crate::output::cache`]) keeps its files as they are and is neither parsed nor rendered.
//! Every problem of every org is reported: after the first one, the remaining orgs are only
//! checked, and the output is left as it was.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use rayon::prelude::*;

use crate::config::{SiteConfig, THEMES_FOLDER};
use crate::content::{self, Index, OrgFolder, Scan};
use crate::error::{Error, Problem, Problems, Result};
use crate::output::cache::{self, Manifest, OrgKey, OrgRecord};
use crate::output::{self, Changes, Known, OutputTree};
use crate::render::{self, Themes};
use crate::themes;

/// Where a build reads from: the content folder and the site settings.
#[derive(Debug, Clone)]
pub struct Sources {
    /// The content folder: one sub-folder per organization.
    pub content: PathBuf,
    /// The site settings file; the themes are looked up in `themes/` beside it.
    pub config: PathBuf,
    /// Whether a missing `config` is an error (the user named it) rather than all defaults.
    pub config_required: bool,
}

/// The site settings file read when none is named.
pub const DEFAULT_CONFIG: &str = "shiplog.yaml";

impl Sources {
    /// `content`, and the settings file `config` when one is named (then it must exist),
    /// else [`DEFAULT_CONFIG`] if present.
    pub fn new(content: PathBuf, config: Option<PathBuf>) -> Self {
        Sources {
            content,
            config_required: config.is_some(),
            config: config.unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG)),
        }
    }

    /// Reads the site settings; when they have problems, the defaults come with the
    /// problems, so that the content can be read and its problems reported too.
    pub fn read_config(&self) -> Result<(SiteConfig, Vec<Problem>)> {
        match SiteConfig::load(&self.config, self.config_required) {
            Ok(site) => Ok((site, Vec::new())),
            Err(Error::Invalid(found)) => Ok((SiteConfig::default(), found.into_vec())),
            Err(other) => Err(other),
        }
    }

    /// Reads the site settings and the whole content index, reporting the problems of both
    /// at once: what the API server serves from.
    pub fn load(&self) -> Result<(SiteConfig, Index)> {
        let (site, config_problems) = self.read_config()?;
        let failures = Failures::new(config_problems);
        let index = match content::load(&self.content, &site) {
            Ok(index) => Some(index),
            Err(Error::Invalid(found)) => {
                failures.problems(found.into_vec());
                None
            }
            Err(other) => return Err(other),
        };
        failures.check(None, &[])?;
        Ok((site, index.expect("an index when there is no problem")))
    }
}

/// The `--content` and `--config` flags of every command that reads the content.
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    /// Content folder: one sub-folder per organization.
    #[arg(long, value_name = "DIR", default_value = "content")]
    pub content: PathBuf,
    /// Site settings [default: shiplog.yaml, if present]; themes are looked up beside it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

impl From<SourceArgs> for Sources {
    fn from(args: SourceArgs) -> Self {
        Sources::new(args.content, args.config)
    }
}

/// What a build does with what it renders.
#[derive(Debug, Clone)]
pub enum Mode {
    /// Render every page in memory and write nothing: `shiplog check`.
    Check,
    /// Make `output` hold exactly the rendered tree.
    Write {
        /// The output folder, replaced as a whole.
        output: PathBuf,
        /// Keep the files of orgs unchanged since the last build (remembered beside `output`).
        cache: bool,
    },
}

/// One build of the site.
pub struct Build<'a> {
    /// Where it reads from.
    pub sources: &'a Sources,
    /// The time it is as of: what is scheduled until then is published.
    pub now: DateTime<Utc>,
    /// What it does with what it renders.
    pub mode: Mode,
    /// Every org's address template in place of the settings' `org_url` (the preview
    /// server points it at itself).
    pub org_url: Option<String>,
}

/// What a build did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Every org, in slug order.
    pub orgs: Vec<OrgReport>,
    /// Files of the built tree.
    pub files: usize,
    /// Orgs whose files were kept from the build before, unchanged.
    pub reused: usize,
    /// What the output folder had to change (nothing in [`Mode::Check`]).
    pub changes: Changes,
    /// Things worth fixing that did not stop the build, in file and position order (of the
    /// orgs loaded: a reused org is not read).
    pub warnings: Vec<Problem>,
}

/// What a build made of one org.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgReport {
    /// Its slug.
    pub slug: String,
    /// Its title.
    pub title: String,
    /// Its entries that are not drafts, published or scheduled.
    pub entries: usize,
    /// Its entries published at the build's time.
    pub published: usize,
}

impl Report {
    /// Published entries across all orgs.
    pub fn published(&self) -> usize {
        self.orgs.iter().map(|org| org.published).sum()
    }

    /// Entries that are not drafts across all orgs.
    pub fn entries(&self) -> usize {
        self.orgs.iter().map(|org| org.entries).sum()
    }
}

/// What a build knows before rendering: which orgs it keeps as they are, and the cache
/// keys of the others.
#[derive(Default)]
struct Reuse<'s> {
    /// The cache key of each org whose files could be read.
    keys: HashMap<&'s str, OrgKey>,
    /// What the output folder is known to hold, per org, without listing it.
    known: HashMap<&'s str, Known<'s>>,
    /// The orgs kept from the last build, with their records for the next cache.
    kept: HashMap<&'s str, OrgRecord>,
}

impl Build<'_> {
    /// Runs the build. `progress` hears `(orgs done, orgs in all)` after each org.
    pub fn run(&self, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<Report> {
        let output = match &self.mode {
            Mode::Check => None,
            Mode::Write { output, cache } => {
                refuse_output_overlapping(self.sources, output)?;
                Some((output.as_path(), *cache))
            }
        };
        // Held to the end: from reading the cache to writing it, one build at a time.
        let _lock = output.map(|(output, _)| output::lock(output)).transpose()?;
        let (mut site, config_problems) = self.sources.read_config()?;
        if let Some(org_url) = &self.org_url {
            site.org_url = org_url.clone();
        }
        let readers = Readers::start();
        let cache_path = output.map(|(output, _)| Manifest::path_for(output));
        // The cache is read while the content folder is walked.
        let (scan, previous) = readers.run(|| {
            rayon::join(
                || content::scan(&self.sources.content, &site),
                || match (&cache_path, output) {
                    (Some(path), Some((_, true))) => Manifest::read(path),
                    _ => Manifest::default(),
                },
            )
        });
        let scan = scan?;
        let themes = themes::load(
            scan.orgs().iter().map(|org| org.settings.theme.as_str()),
            &site.themes_dir,
        );
        let failures = Failures::new(config_problems);
        failures.problems(scan.problems().to_vec());
        let (reuse, tree) = match (output, &themes) {
            // A build with problems fails: no need to know what it could reuse.
            (Some((output, _)), Ok(themes)) if !failures.any() => {
                let reuse = readers.run(|| self.plan(&scan, &site, themes, &previous, output));
                let tree = readers.run(|| OutputTree::open(output, &reuse.known))?;
                (reuse, Some(tree))
            }
            (Some((output, _)), _) => (
                Reuse::default(),
                Some(OutputTree::open(output, &HashMap::new())?),
            ),
            (None, _) => (Reuse::default(), None),
        };
        // The reading threads' memory goes back to the allocator before the orgs are rendered.
        drop(readers);
        let built = self.render_orgs(&scan, &themes, &reuse, tree.as_ref(), &failures, progress);
        failures.check(themes.err(), &built.warnings)?;
        let mut report = self.report(&scan, &reuse, built.orgs, built.warnings);
        let Some(tree) = tree else {
            return Ok(report);
        };
        let (path, bytes) = render::headers_file(
            scan.orgs()
                .iter()
                .map(|org| (org.slug.as_str(), &org.settings)),
        );
        tree.put(&path, &bytes)?;
        // The cache describes the output as it is; the commit changes that.
        let cache_path = cache_path.expect("a written build has a cache path");
        output::remove_if_present(&cache_path)?;
        report.changes = tree.commit()?;
        if let Some((output, true)) = output {
            let records = reuse
                .kept
                .into_iter()
                .map(|(slug, record)| (slug.to_string(), record))
                .chain(built.records);
            // A cache that cannot be written only makes the next build a full one.
            let _ = Manifest::new(records).write(&cache_path, output);
        }
        Ok(report)
    }

    /// Keys every org for the cache and decides which ones are kept as the last build left
    /// them in `output`.
    fn plan<'s>(
        &self,
        scan: &'s Scan,
        site: &SiteConfig,
        themes: &Themes,
        previous: &'s Manifest,
        output: &Path,
    ) -> Reuse<'s> {
        let started = SystemTime::now();
        let found: Vec<_> = scan
            .orgs()
            .par_iter()
            .map(|org| {
                let theme = themes.get(&org.settings.theme);
                let key = cache::org_key(org, site, theme, previous, started);
                let files = previous.unchanged_output(&org.slug, output);
                (org.slug.as_str(), key, files)
            })
            .collect();
        let mut reuse = Reuse::default();
        for (slug, key, files) in found {
            let Some(key) = key else { continue };
            // An org's output folder as the last build left it need not be listed; the org
            // is kept as it is when its content is the same too. Any other org is built,
            // and only the files whose bytes changed are written.
            if let Some(files) = files {
                match previous.reusable(slug, &key, self.now) {
                    Some(record) => {
                        reuse.kept.insert(slug, record.kept(&key));
                        reuse.known.insert(slug, Known::Kept);
                    }
                    None => {
                        reuse.known.insert(slug, Known::Files(files));
                    }
                }
            }
            reuse.keys.insert(slug, key);
        }
        reuse
    }

    /// Loads, renders and (into `tree`) writes every org that is not kept, in parallel.
    /// After the first failure the remaining orgs are only loaded, for their problems.
    fn render_orgs(
        &self,
        scan: &Scan,
        themes: &Result<Themes>,
        reuse: &Reuse<'_>,
        tree: Option<&OutputTree>,
        failures: &Failures,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Built {
        let total = scan.orgs().len();
        let done = AtomicUsize::new(0);
        let step = || progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        for _ in 0..reuse.kept.len() {
            step();
        }
        let built = Mutex::new(Built::default());
        scan.orgs()
            .par_iter()
            .filter(|folder| !reuse.kept.contains_key(folder.slug.as_str()))
            .for_each(|folder| {
                let loaded = match content::load_org(folder) {
                    Ok(loaded) => loaded,
                    Err(found) => {
                        failures.warnings(found.warnings);
                        return failures.problems(found.problems);
                    }
                };
                let (Ok(themes), false) = (themes, failures.any()) else {
                    // Only checked: the build has failed already.
                    return failures.warnings(loaded.warnings);
                };
                let org = &loaded.org;
                let files = render::render_org(org, themes.get(&org.settings.theme), self.now)
                    .and_then(|mut files| {
                        files.extend(output::read_assets(org, self.now)?);
                        if let Some(tree) = tree {
                            for (path, bytes) in &files {
                                tree.put(path, bytes)?;
                            }
                        }
                        Ok(files)
                    });
                let files = match files {
                    Ok(files) => files,
                    Err(error) => return failures.error(error),
                };
                let report = OrgReport {
                    slug: org.slug.clone(),
                    title: org.settings.title.clone(),
                    entries: org.entries.len(),
                    published: org.published(self.now).len(),
                };
                let record = reuse
                    .keys
                    .get(org.slug.as_str())
                    .map(|key| OrgRecord::new(key.clone(), org, self.now, &files));
                lock(&built).add(report, files.len(), record, loaded.warnings);
                step();
            });
        built.into_inner().expect("no builder panicked")
    }

    /// The report of a build that rendered `built` and kept the orgs of `reuse`.
    fn report(
        &self,
        scan: &Scan,
        reuse: &Reuse<'_>,
        built: Vec<(OrgReport, usize)>,
        mut warnings: Vec<Problem>,
    ) -> Report {
        let kept = scan.orgs().iter().filter_map(|folder| {
            let record = reuse.kept.get(folder.slug.as_str())?;
            Some((kept_org(folder, record), record.files.len()))
        });
        let mut orgs: Vec<(OrgReport, usize)> = built.into_iter().chain(kept).collect();
        orgs.sort_by(|a, b| a.0.slug.cmp(&b.0.slug));
        warnings.sort();
        Report {
            // `_headers` in a written build, and the files of each org.
            files: usize::from(self.writes()) + orgs.iter().map(|(_, files)| files).sum::<usize>(),
            orgs: orgs.into_iter().map(|(org, _)| org).collect(),
            reused: reuse.kept.len(),
            changes: Changes::default(),
            warnings,
        }
    }

    fn writes(&self) -> bool {
        matches!(self.mode, Mode::Write { .. })
    }
}

/// The report of an org kept from the last build, as its record remembers it.
fn kept_org(folder: &OrgFolder, record: &OrgRecord) -> OrgReport {
    OrgReport {
        slug: folder.slug.clone(),
        title: folder.settings.title.clone(),
        entries: record.entries + record.scheduled,
        published: record.entries,
    }
}

/// What the orgs rendered by one build yielded.
#[derive(Default)]
struct Built {
    /// Each org's report and its number of files.
    orgs: Vec<(OrgReport, usize)>,
    /// The cache records of the orgs that have a cache key.
    records: Vec<(String, OrgRecord)>,
    warnings: Vec<Problem>,
}

impl Built {
    fn add(
        &mut self,
        report: OrgReport,
        files: usize,
        record: Option<OrgRecord>,
        warnings: Vec<Problem>,
    ) {
        if let Some(record) = record {
            self.records.push((report.slug.clone(), record));
        }
        self.orgs.push((report, files));
        self.warnings.extend(warnings);
    }
}

/// Reading threads per core, for the steps that mostly wait on the disk: walking the content
/// folder, listing the output folder and reading every file to key the cache. A file system
/// that has not cached them (a fresh clone, or a machine that reclaims idle page cache) then
/// has many reads in flight rather than one per core: keying 10,000 uncached entries took
/// 225 ms with 8 threads and 140 ms with 32, and listing their uncached output 0.85-0.90 s
/// with 2 threads and 0.32 s with 32, on 2 cores. The steps that parse and render run one
/// thread per core, on rayon's global pool.
const READERS_PER_CORE: usize = 16;

/// The most reading threads, whatever the number of cores: enough reads in flight for any disk.
const MAX_READERS: usize = 64;

/// The thread pool of the reading steps (see [`READERS_PER_CORE`] and [`MAX_READERS`]);
/// when its threads cannot be started, those steps run on rayon's global pool.
struct Readers(Option<rayon::ThreadPool>);

impl Readers {
    fn start() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads((cores * READERS_PER_CORE).min(MAX_READERS))
            .thread_name(|i| format!("shiplog-reader-{i}"))
            .build();
        Readers(pool.ok())
    }

    /// Runs `read`, and the parallel iterators in it, on the reading threads.
    fn run<R: Send>(&self, read: impl FnOnce() -> R + Send) -> R {
        match &self.0 {
            Some(pool) => pool.install(read),
            None => read(),
        }
    }
}

/// What went wrong in a build, collected from every org: the one place where the problems
/// of the settings, the content and the themes are put together.
struct Failures {
    /// Problems in the settings and the content: all of them are reported.
    problems: Mutex<Vec<Problem>>,
    /// Warnings of the orgs that were not rendered, reported with the problems.
    warnings: Mutex<Vec<Problem>>,
    /// The first other error (a theme's, a file that cannot be written), reported when
    /// the content has no problem.
    error: Mutex<Option<Error>>,
}

impl Failures {
    /// Starts with the problems of the site settings.
    fn new(config_problems: Vec<Problem>) -> Self {
        Failures {
            problems: Mutex::new(config_problems),
            warnings: Mutex::new(Vec::new()),
            error: Mutex::new(None),
        }
    }

    fn problems(&self, found: Vec<Problem>) {
        lock(&self.problems).extend(found);
    }

    fn warnings(&self, found: Vec<Problem>) {
        lock(&self.warnings).extend(found);
    }

    fn error(&self, error: Error) {
        match error {
            Error::Invalid(found) => self.problems(found.into_vec()),
            other => {
                lock(&self.error).get_or_insert(other);
            }
        }
    }

    /// Whether anything went wrong yet.
    fn any(&self) -> bool {
        !lock(&self.problems).is_empty() || lock(&self.error).is_some()
    }

    /// The build's error, if any: the content's problems first (with every warning found,
    /// `rendered`'s among them), else `theme_error`, else the first error met while
    /// building.
    fn check(self, theme_error: Option<Error>, rendered: &[Problem]) -> Result<()> {
        let problems = self.problems.into_inner().expect("no builder panicked");
        if !problems.is_empty() {
            let mut warnings = self.warnings.into_inner().expect("no builder panicked");
            warnings.extend_from_slice(rendered);
            return Err(Error::Invalid(Problems::with_warnings(problems, warnings)));
        }
        match theme_error.or(self.error.into_inner().expect("no builder panicked")) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().expect("no builder panics holding a lock")
}

/// The build replaces `output` as a whole and reads the content, settings and themes: the
/// output folder may not be or hold any of them (they would be deleted), nor lie inside the
/// content or themes folder (last build's files would be read as entries and templates), nor
/// hold the working directory.
fn refuse_output_overlapping(sources: &Sources, output: &Path) -> Result<()> {
    let Some(out) = resolved(output) else {
        return Err(Error::Usage(format!(
            "output folder {}: a `..` after a folder that does not exist cannot be followed",
            output.display()
        )));
    };
    let themes = sources
        .config
        .parent()
        .unwrap_or_else(|| Path::new(""))
        .join(THEMES_FOLDER);
    let cwd = std::env::current_dir().unwrap_or_default();
    let folders = [
        (
            "the content folder",
            sources.content.canonicalize().ok(),
            true,
        ),
        ("the themes folder", themes.canonicalize().ok(), true),
        (
            "the settings file",
            sources.config.canonicalize().ok(),
            false,
        ),
        ("the working directory", Some(cwd), false),
    ];
    for (what, path, no_output_inside) in folders {
        let Some(path) = path else { continue };
        if path.starts_with(&out) || (no_output_inside && out.starts_with(&path)) {
            let relation = if path.starts_with(&out) {
                "is or holds"
            } else {
                "lies inside"
            };
            return Err(Error::Usage(format!(
                "refusing to use output folder {}: it {relation} {what} ({}); the build replaces the output folder as a whole",
                output.display(),
                path.display()
            )));
        }
    }
    Ok(())
}

/// `path` made absolute with every link resolved, for the part of it that exists; the rest
/// (an output folder not made yet) is appended as it is. `None` when that rest holds a `..`
/// (or `path` is empty).
fn resolved(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let mut missing = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return Some(
                missing
                    .iter()
                    .rev()
                    .fold(real, |path, part| path.join(part)),
            );
        }
        missing.push(existing.file_name()?.to_owned());
        existing = existing.parent()?;
    }
}
