//! Live content: the content folder, `shiplog.yaml` and the keys file are watched (and
//! re-read on SIGHUP). A new index is built off to the side, on a blocking thread, and
//! swapped in whole; when it cannot be built, the last good one goes on being served and
//! the problems are logged with their file and line.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::{problem_lines, warn_about_keys, Event, Keys, Logger, Settings, Shared, Snapshot};
use crate::config::SiteConfig;
use crate::content::{self, Index};
use crate::error::{Error, Result};

/// How long the files must be quiet before a reload starts (editors write in steps).
const QUIET: Duration = Duration::from_millis(100);
/// The longest a reload waits for the files to be quiet.
const MAX_WAIT: Duration = Duration::from_secs(2);

/// Reads `shiplog.yaml` and the content: what the server serves.
pub(super) fn load_content(settings: &Settings) -> Result<(SiteConfig, Index)> {
    let site = SiteConfig::load(&settings.config, settings.config_required)?;
    let index = content::load(&settings.content, &site)?;
    Ok((site, index))
}

/// What needs re-reading.
#[derive(Debug, Default, Clone, Copy)]
struct Pending {
    content: bool,
    keys: bool,
    /// The content folder itself was replaced: watch it anew.
    rewatch: bool,
    trigger: Option<&'static str>,
}

impl Pending {
    fn add(&mut self, other: Pending) {
        self.content |= other.content;
        self.keys |= other.keys;
        self.rewatch |= other.rewatch;
        self.trigger = self.trigger.or(other.trigger);
    }

    fn everything(trigger: &'static str) -> Pending {
        Pending {
            content: true,
            keys: true,
            rewatch: true,
            trigger: Some(trigger),
        }
    }

    fn any(&self) -> bool {
        self.content || self.keys || self.rewatch
    }
}

/// The absolute paths that matter, as given (not resolved, so that a swapped symbolic link
/// is noticed).
#[derive(Debug, Clone)]
struct Watched {
    content: PathBuf,
    config: PathBuf,
    keys: PathBuf,
}

impl Watched {
    fn new(settings: &Settings) -> Watched {
        let absolute =
            |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        Watched {
            content: absolute(&settings.content),
            config: absolute(&settings.config),
            keys: absolute(&settings.keys),
        }
    }

    /// The folders watched without their sub-folders: where the content folder, the
    /// config file and the keys file are listed.
    fn parents(&self) -> Vec<PathBuf> {
        let mut parents: Vec<PathBuf> = [&self.content, &self.config, &self.keys]
            .iter()
            .filter_map(|path| path.parent().map(Path::to_path_buf))
            .collect();
        parents.sort();
        parents.dedup();
        parents
    }

    /// What a change at `path` calls for.
    fn classify(&self, path: &Path) -> Pending {
        let mut pending = Pending::default();
        if path == self.content {
            pending.content = true;
            pending.rewatch = true;
        } else if path.starts_with(&self.content) || path == self.config {
            pending.content = true;
        }
        if path == self.keys {
            pending.keys = true;
        }
        pending
    }
}

/// Starts watching and listening for SIGHUP; the returned task reloads until aborted.
pub(super) fn spawn(settings: Settings, shared: Arc<Shared>, hangup: Hangup) -> JoinHandle<()> {
    let watched = Watched::new(&settings);
    let (sender, receiver) = mpsc::unbounded_channel::<Pending>();
    let watcher = start_watcher(&watched, sender.clone(), &shared.log);
    tokio::spawn(run(
        settings, shared, watched, watcher, sender, receiver, hangup,
    ))
}

/// A file watcher that sends what each change calls for; `None` (and a warning) when the
/// system has none to give.
fn start_watcher(
    watched: &Watched,
    sender: mpsc::UnboundedSender<Pending>,
    log: &Logger,
) -> Option<RecommendedWatcher> {
    let paths = watched.clone();
    let handler_log = log.clone();
    let handler = move |result: notify::Result<notify::Event>| match result {
        Ok(event) => {
            if matches!(event.kind, EventKind::Access(kind) if kind != AccessKind::Close(AccessMode::Write))
            {
                return;
            }
            let mut pending = Pending {
                trigger: Some("watch"),
                ..Pending::default()
            };
            if event.need_rescan() {
                pending.add(Pending::everything("watch"));
            }
            for path in &event.paths {
                pending.add(paths.classify(path));
            }
            if pending.any() {
                let _ = sender.send(pending);
            }
        }
        Err(e) => handler_log(Event::Warning {
            message: format!("watching the files failed: {e}"),
        }),
    };
    let mut watcher = match notify::recommended_watcher(handler) {
        Ok(watcher) => watcher,
        Err(e) => {
            log(Event::Warning {
                message: format!(
                    "cannot watch the files ({e}); send SIGHUP to reload after a change"
                ),
            });
            return None;
        }
    };
    for parent in watched.parents() {
        if let Err(e) = watcher.watch(&parent, RecursiveMode::NonRecursive) {
            log(Event::Warning {
                message: format!("cannot watch {}: {e}", parent.display()),
            });
        }
    }
    watch_content(&mut watcher, watched, log);
    Some(watcher)
}

/// (Re-)watches the content folder and everything in it.
fn watch_content(watcher: &mut RecommendedWatcher, watched: &Watched, log: &Logger) {
    let _ = watcher.unwatch(&watched.content);
    if let Err(e) = watcher.watch(&watched.content, RecursiveMode::Recursive) {
        log(Event::Warning {
            message: format!(
                "cannot watch the content folder {}: {e}; send SIGHUP to reload after a change",
                watched.content.display()
            ),
        });
    }
}

/// Waits for changes, lets them settle, and reloads; runs until aborted.
async fn run(
    settings: Settings,
    shared: Arc<Shared>,
    watched: Watched,
    mut watcher: Option<RecommendedWatcher>,
    // Kept so that the channel stays open even without a watcher.
    _sender: mpsc::UnboundedSender<Pending>,
    mut receiver: mpsc::UnboundedReceiver<Pending>,
    mut hangup: Hangup,
) {
    loop {
        let mut pending = tokio::select! {
            Some(change) = receiver.recv() => change,
            () = hangup.recv() => Pending::everything("SIGHUP"),
        };
        let give_up = Instant::now() + MAX_WAIT;
        loop {
            tokio::select! {
                Some(change) = receiver.recv() => pending.add(change),
                () = hangup.recv() => pending.add(Pending::everything("SIGHUP")),
                () = tokio::time::sleep(QUIET) => break,
            }
            if Instant::now() >= give_up {
                break;
            }
        }
        let trigger = pending.trigger.unwrap_or("watch");
        if pending.rewatch {
            if let Some(watcher) = watcher.as_mut() {
                watch_content(watcher, &watched, &shared.log);
            }
        }
        if pending.content {
            reload_content(&settings, &shared, trigger).await;
        }
        if pending.keys {
            reload_keys(&settings, &shared, trigger).await;
        }
    }
}

/// Builds a new index off to the side and swaps it in, or logs why it could not.
async fn reload_content(settings: &Settings, shared: &Shared, trigger: &'static str) {
    let started = Instant::now();
    let job = settings.clone();
    let loaded = tokio::task::spawn_blocking(move || load_content(&job))
        .await
        .unwrap_or_else(|e| Err(Error::Usage(format!("loading the content failed: {e}"))));
    match loaded {
        Ok((site, index)) => {
            let orgs = index.orgs().len();
            let entries = index.orgs().iter().map(|org| org.entries.len()).sum();
            warn_about_keys(&shared.keys.load(), &index, &shared.log);
            shared.content.store(Arc::new(Snapshot { site, index }));
            (shared.log)(Event::ContentReloaded {
                trigger,
                orgs,
                entries,
                duration_ms: (started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
            });
        }
        Err(error) => (shared.log)(Event::ReloadFailed {
            trigger,
            what: "content",
            problems: problem_lines(&error),
        }),
    }
}

/// Re-reads the keys file and swaps it in, or logs why it could not.
async fn reload_keys(settings: &Settings, shared: &Shared, trigger: &'static str) {
    let path = settings.keys.clone();
    let required = settings.keys_required;
    let loaded = tokio::task::spawn_blocking(move || Keys::load(&path, required))
        .await
        .unwrap_or_else(|e| Err(Error::Usage(format!("reading the keys failed: {e}"))));
    match loaded {
        Ok(Some(keys)) => {
            warn_about_keys(&keys, &shared.content.load().index, &shared.log);
            let count = keys.as_slice().len();
            shared.keys.store(Arc::new(keys));
            (shared.log)(Event::KeysReloaded {
                trigger,
                keys: count,
            });
        }
        Ok(None) if shared.keys.load().as_slice().is_empty() => {}
        Ok(None) => (shared.log)(Event::ReloadFailed {
            trigger,
            what: "keys",
            problems: vec![format!(
                "keys file {} does not exist; the keys read before stay in use",
                settings.keys.display()
            )],
        }),
        Err(error) => (shared.log)(Event::ReloadFailed {
            trigger,
            what: "keys",
            problems: problem_lines(&error),
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
