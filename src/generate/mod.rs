//! `shiplog generate`: the content folder in, the static tree out. An org unchanged since
//! the build before (see [`cache`]) keeps its files as they are; the others are parsed,
//! rendered in parallel and written through an [`OutputTree`], one org at a time in memory.

mod cache;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use rayon::prelude::*;

use crate::content;
use crate::error::{Error, Problem, Result};
use crate::render::{self, Known, OutputTree, Summary, Themes};
use cache::{Manifest, OrgRecord};

/// What to build, from where, into where.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The content folder: one sub-folder per organization.
    pub content: PathBuf,
    /// The site settings file.
    pub config: PathBuf,
    /// Whether a missing `config` is an error (rather than all defaults).
    pub config_required: bool,
    /// The output folder, which the build replaces.
    pub output: PathBuf,
    /// The time the build is as of: what is scheduled until then is published.
    pub now: DateTime<Utc>,
    /// Keep the files of orgs unchanged since the last build (remembered beside `output`).
    pub incremental: bool,
}

/// Builds the static site. `progress` hears `(orgs done, orgs in all)` after each org.
/// Refuses an output folder that holds the content or the working directory, since the
/// build replaces the output folder as a whole.
///
/// Orgs are loaded, rendered and written one after another (several at once), so memory
/// holds a few orgs, never the whole site. Every problem of every org is still reported:
/// after the first one, the remaining orgs are only checked, and the output is left as it
/// was.
pub fn run(settings: &Settings, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<Summary> {
    refuse_output_holding(&settings.content, &settings.output)?;
    let now = settings.now;
    let (site, config_problems) = crate::read_config(&settings.config, settings.config_required)?;
    let readers = Readers::start();
    let cache_path = Manifest::path_for(&settings.output);
    // The cache is read while the content folder is walked.
    let (scan, previous) = readers.run(|| {
        rayon::join(
            || content::scan(&settings.content, &site),
            || match settings.incremental {
                true => Manifest::read(&cache_path),
                false => Manifest::default(),
            },
        )
    });
    let scan = scan?;
    let themes = Themes::load(
        scan.orgs().iter().map(|org| org.settings.theme.as_str()),
        &site.themes_dir,
    );

    let mut keys = HashMap::new();
    let mut known = HashMap::new();
    let mut reused = HashMap::new();
    // A build with problems fails: no need to know what it could reuse.
    let clean = config_problems.is_empty() && scan.problems().is_empty();
    if let (Ok(themes), true) = (&themes, clean) {
        let started = SystemTime::now();
        let found: Vec<_> = readers.run(|| {
            scan.orgs()
                .par_iter()
                .map(|org| {
                    let theme = themes.get(&org.settings.theme);
                    let key = cache::org_key(org, &site, theme, &previous, started);
                    let files = previous.unchanged_output(&org.slug, &settings.output);
                    (org.slug.as_str(), key, files)
                })
                .collect()
        });
        for (slug, key, files) in found {
            let Some(key) = key else { continue };
            // An org's output folder as the last build left it need not be listed; the org
            // is kept as it is when its content is the same too. Any other org is built,
            // and only the files whose bytes changed are written.
            if let Some(files) = files {
                match previous.reusable(slug, &key, now) {
                    Some(record) => {
                        reused.insert(slug, record.kept(&key));
                        known.insert(slug, Known::Kept);
                    }
                    None => {
                        known.insert(slug, Known::Files(files));
                    }
                }
            }
            keys.insert(slug, key);
        }
    }
    let tree = readers.run(|| OutputTree::open(&settings.output, &known))?;
    // Its threads' memory goes back to the allocator before the orgs are rendered.
    drop(readers);
    let total = scan.orgs().len();
    let done = AtomicUsize::new(0);
    let step = || progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
    for _ in 0..reused.len() {
        step();
    }
    let mut problems = config_problems;
    problems.extend_from_slice(scan.problems());
    let failed = Failures {
        problems: Mutex::new(problems),
        error: Mutex::new(None),
    };
    let built = Mutex::new(Vec::new());
    scan.orgs()
        .par_iter()
        .filter(|folder| !reused.contains_key(folder.slug.as_str()))
        .for_each(|folder| {
            let org = match content::load_org(folder) {
                Ok(loaded) => loaded.org,
                Err(found) => return failed.problems(found),
            };
            let (Ok(themes), false) = (&themes, failed.any()) else {
                // Only checked: the build has failed already.
                return;
            };
            let written =
                render::render_org(&org, themes.get(&org.settings.theme), now).and_then(|files| {
                    for (path, bytes) in &files {
                        tree.put(path, bytes)?;
                    }
                    Ok(files)
                });
            match written {
                Ok(files) => {
                    if let Some(key) = keys.get(org.slug.as_str()) {
                        let record = OrgRecord::new(key.clone(), &org, now, &files);
                        lock(&built).push((org.slug.clone(), record));
                    }
                    step();
                }
                Err(error) => failed.error(error),
            }
        });
    failed.check(themes.err())?;

    let headers = render::headers_file(
        scan.orgs()
            .iter()
            .map(|org| (org.slug.as_str(), &org.settings)),
    );
    tree.put(&headers.0, &headers.1)?;
    // The cache describes the output as it is; the commit changes that.
    remove_if_present(&cache_path)?;
    let changes = tree.commit()?;

    let built = built.into_inner().expect("no builder panicked");
    let records = || {
        reused
            .values()
            .chain(built.iter().map(|(_, record)| record))
    };
    let summary = Summary {
        orgs: total,
        entries: records().map(|record| record.entries).sum(),
        // `_headers`, and the files of each org.
        files: 1 + records().map(|record| record.files.len()).sum::<usize>(),
        reused: reused.len(),
        changes,
    };
    if settings.incremental {
        let records = reused
            .into_iter()
            .map(|(slug, record)| (slug.to_string(), record))
            .chain(built);
        // A cache that cannot be written only makes the next build a full one.
        let _ = Manifest::new(records).write(&cache_path, &settings.output);
    }
    Ok(summary)
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

/// What went wrong in a build, collected from every org.
struct Failures {
    /// Problems in the settings and the content: all of them are reported.
    problems: Mutex<Vec<Problem>>,
    /// The first other error (a theme's, a file that cannot be written), reported when
    /// the content has no problem.
    error: Mutex<Option<Error>>,
}

impl Failures {
    fn problems(&self, found: Vec<Problem>) {
        lock(&self.problems).extend(found);
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

    /// The build's error, if any: the content's problems first, else `theme_error`, else
    /// the first error met while building.
    fn check(self, theme_error: Option<Error>) -> Result<()> {
        let problems = self.problems.into_inner().expect("no builder panicked");
        Error::check(problems)?;
        match theme_error.or(self.error.into_inner().expect("no builder panicked")) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().expect("no builder panics holding a lock")
}

/// The build replaces `output` as a whole: it may not hold the content or the working
/// directory.
fn refuse_output_holding(content: &Path, output: &Path) -> Result<()> {
    let Ok(output_real) = output.canonicalize() else {
        return Ok(());
    };
    let content_real = content.canonicalize().unwrap_or_default();
    let cwd = std::env::current_dir().unwrap_or_default();
    if content_real.starts_with(&output_real) || cwd.starts_with(&output_real) {
        return Err(Error::Usage(format!(
            "refusing to replace output folder {}: it holds the content folder or the working directory",
            output.display()
        )));
    }
    Ok(())
}

fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Write {
            path: path.to_path_buf(),
            source: e,
        }),
        _ => Ok(()),
    }
}
