//! Live content: the content folder, `shiplog.yaml` and the keys file are watched (and
//! re-read on SIGHUP). A new index is built off to the side, on a blocking thread, and
//! swapped in whole; when it cannot be built, the last good one goes on being served and
//! the problems are logged with their file and line.

use std::sync::Arc;
use std::time::Instant;

use tokio::task::JoinHandle;

use super::catalog::{self, Catalog};
use super::{warn_about_keys, Event, Settings, Shared, Snapshot};
use crate::config::SiteConfig;
use crate::error::{Error, Result};
use crate::keys::Keys;
use crate::watch::{Target, Watch};

/// Reads `shiplog.yaml` and the content, and makes the catalog the server serves from (the
/// content index is dropped once that is made).
pub(super) fn load_content(settings: &Settings) -> Result<(SiteConfig, Catalog)> {
    let fingerprints = catalog::fingerprints(&settings.sources.content);
    let (site, index) = settings.sources.load()?;
    let catalog = Catalog::new(&index, &fingerprints);
    drop(index);
    release_freed_memory();
    Ok((site, catalog))
}

/// Reads again only the organizations whose folder changed since `old` was made (with the
/// same `site` settings), and shares the others with it; also says how many it read.
fn load_changed_orgs(
    settings: &Settings,
    site: &SiteConfig,
    old: &Catalog,
) -> Result<(Catalog, usize)> {
    let fingerprints = catalog::fingerprints(&settings.sources.content);
    let changed = old.changed(&fingerprints);
    let index = crate::content::load_orgs(&settings.sources.content, site, |slug| {
        changed.contains(slug)
    })?;
    let catalog = old.updated(&index, &fingerprints);
    let read = index.orgs().len();
    drop(index);
    release_freed_memory();
    Ok((catalog, read))
}

/// Hands the memory freed by dropping a content index back to the system. glibc keeps
/// freed blocks for reuse; without this, the index's bytes would stay resident after the
/// catalog (a third of their size) is made from them.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator to the system; it
    // touches no memory that is in use and is safe to call from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The files the server reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Watched {
    Content,
    Config,
    Keys,
}

/// Starts watching the files; the returned task reloads, on a change or SIGHUP, until
/// aborted. The keys file has a watch and a task of its own: a revocation never waits for a
/// content reload (a large content folder may take seconds), and content changes made
/// during a reload are read in one go after it, as the watch hands them over.
pub(super) fn spawn(settings: Settings, shared: Arc<Shared>, mut hangup: Hangup) -> JoinHandle<()> {
    let keys = AbortOnDrop(spawn_keys_reloads(settings.clone(), shared.clone()));
    let log = shared.log.clone();
    let mut watch = Watch::start(
        Target::sources(&settings.sources, Watched::Content, Watched::Config),
        Arc::new(move |message| log(Event::Warning { message })),
    );
    tokio::spawn(async move {
        // Aborting this task stops the keys' task too.
        let _keys = keys;
        loop {
            let changes = tokio::select! {
                changes = watch.next() => Some(changes),
                () = hangup.recv() => None,
            };
            let Some(changes) = changes else {
                reload_keys(&settings, &shared, "SIGHUP").await;
                watch.everything("SIGHUP");
                continue;
            };
            if changes.contains(&Watched::Config) {
                reload_content(&settings, &shared, changes.trigger, Scope::Everything).await;
            } else if changes.contains(&Watched::Content) {
                reload_content(&settings, &shared, changes.trigger, Scope::ChangedOrgs).await;
            }
        }
    })
}

/// The task that re-reads the keys file whenever it changes.
fn spawn_keys_reloads(settings: Settings, shared: Arc<Shared>) -> JoinHandle<()> {
    let log = shared.log.clone();
    let mut targets = vec![Target::file(Watched::Keys, &settings.keys)];
    // A keys file that is a link: the file it leads to is where edits happen.
    if settings.keys.is_symlink() {
        if let Ok(real) = settings.keys.canonicalize() {
            targets.push(Target::file(Watched::Keys, &real));
        }
    }
    let mut watch = Watch::start(
        targets,
        Arc::new(move |message| log(Event::Warning { message })),
    );
    tokio::spawn(async move {
        loop {
            let changes = watch.next().await;
            reload_keys(&settings, &shared, changes.trigger).await;
        }
    })
}

/// Aborts its task when dropped.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What a reload reads again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// `shiplog.yaml` and every organization (the settings changed, or SIGHUP).
    Everything,
    /// The organizations whose folder changed (only the content changed).
    ChangedOrgs,
}

/// Builds a new catalog off to the side and swaps it in, or logs why it could not.
async fn reload_content(
    settings: &Settings,
    shared: &Arc<Shared>,
    trigger: &'static str,
    scope: Scope,
) {
    let started = Instant::now();
    let job = settings.clone();
    let last = shared.clone();
    let loaded = tokio::task::spawn_blocking(move || match scope {
        Scope::Everything => load_content(&job).map(|(site, catalog)| {
            let read = catalog.org_count();
            (site, catalog, read)
        }),
        Scope::ChangedOrgs => {
            let old = last.content.load();
            load_changed_orgs(&job, &old.site, &old.catalog)
                .map(|(catalog, read)| (old.site.clone(), catalog, read))
        }
    })
    .await
    .unwrap_or_else(|e| Err(Error::Internal(format!("loading the content failed: {e}"))));
    match loaded {
        Ok((site, catalog, orgs_read)) => {
            let orgs = catalog.org_count();
            let entries = catalog.entry_count();
            warn_about_keys(&shared.keys.load(), &catalog, &shared.log);
            shared.content.store(Arc::new(Snapshot::new(site, catalog)));
            (shared.log)(Event::ContentReloaded {
                trigger,
                orgs,
                entries,
                orgs_read,
                duration_ms: (started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
            });
        }
        Err(error) => (shared.log)(Event::ReloadFailed {
            trigger,
            what: "content",
            problems: error.problem_lines(),
        }),
    }
}

/// Re-reads the keys file and swaps it in, or logs why it could not.
async fn reload_keys(settings: &Settings, shared: &Shared, trigger: &'static str) {
    let path = settings.keys.clone();
    // Whether the file had to be there was decided at start; now a missing one revokes.
    let loaded = tokio::task::spawn_blocking(move || Keys::load(&path, false))
        .await
        .unwrap_or_else(|e| Err(Error::Usage(format!("reading the keys failed: {e}"))));
    match loaded {
        Ok(Some(keys)) => {
            warn_about_keys(&keys, &shared.content.load().catalog, &shared.log);
            let count = keys.as_slice().len();
            shared.keys.store(Arc::new(keys));
            (shared.log)(Event::KeysReloaded {
                trigger,
                keys: count,
            });
        }
        Ok(None) if shared.keys.load().as_slice().is_empty() => {}
        Ok(None) => {
            // A keys file moved away is a revocation: failing open would keep every key
            // answering. (A broken file, below, keeps the last good keys: an edit in
            // progress must not lock every client out.)
            shared.keys.store(Arc::new(Keys::default()));
            (shared.log)(Event::Warning {
                message: format!(
                    "keys file {} does not exist any more: every key is refused until it is back",
                    settings.keys.display()
                ),
            });
            (shared.log)(Event::KeysReloaded { trigger, keys: 0 });
        }
        Err(error) => (shared.log)(Event::ReloadFailed {
            trigger,
            what: "keys",
            problems: error.problem_lines(),
        }),
    }
}

/// SIGHUP (on Unix; elsewhere it never comes).
pub(super) struct Hangup {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
}

impl Hangup {
    /// Starts listening for SIGHUP.
    pub(super) fn new() -> Result<Hangup> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let signal = signal(SignalKind::hangup())
                .map_err(|e| Error::Usage(format!("cannot handle SIGHUP: {e}")))?;
            Ok(Hangup { signal })
        }
        #[cfg(not(unix))]
        Ok(Hangup {})
    }

    async fn recv(&mut self) {
        #[cfg(unix)]
        {
            if self.signal.recv().await.is_none() {
                std::future::pending::<()>().await;
            }
        }
        #[cfg(not(unix))]
        std::future::pending::<()>().await
    }
}
