//! Watching files for changes, shared by `shiplog-api` (which re-reads its index) and
//! `shiplog serve` (which rebuilds the site). Changes are collected until the files have
//! been quiet for a moment (editors write in steps), then handed over as one batch that
//! names the watched paths they touched.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::build::Sources;

/// How long the files must be quiet before a batch of changes is handed over.
const QUIET: Duration = Duration::from_millis(100);
/// The longest a batch waits for the files to be quiet.
const MAX_WAIT: Duration = Duration::from_secs(2);

/// Where the watcher's warnings go (the library never prints).
pub(crate) type Warn = Arc<dyn Fn(String) + Send + Sync>;

/// What a watched path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// One file (which may not exist yet).
    File,
    /// A folder and everything in it (which may not exist yet); watched anew when the
    /// folder itself appears or is replaced.
    Folder,
}

/// A path to watch, named `what` in the changes handed over.
#[derive(Debug, Clone)]
pub(crate) struct Target<T> {
    pub what: T,
    pub path: PathBuf,
    pub kind: Kind,
}

impl<T> Target<T> {
    /// The folder at `path`, named `what`.
    pub fn folder(what: T, path: &Path) -> Self {
        Target {
            what,
            path: path.to_path_buf(),
            kind: Kind::Folder,
        }
    }

    /// The file at `path`, named `what`.
    pub fn file(what: T, path: &Path) -> Self {
        Target {
            what,
            path: path.to_path_buf(),
            kind: Kind::File,
        }
    }

    /// The content folder and the settings file of `sources`, named `content` and `config`:
    /// what every server re-reads.
    pub fn sources(sources: &Sources, content: T, config: T) -> Vec<Self> {
        vec![
            Target::folder(content, &sources.content),
            Target::file(config, &sources.config),
        ]
    }
}

/// One batch of changes.
#[derive(Debug)]
pub(crate) struct Changes<T> {
    changed: Vec<T>,
    /// What noticed the first change: `watch`, or the name given to [`Watch::everything`].
    pub trigger: &'static str,
}

impl<T: PartialEq> Changes<T> {
    /// Whether the target named `what` changed.
    pub fn contains(&self, what: &T) -> bool {
        self.changed.contains(what)
    }
}

/// What the watcher noticed: targets by their position.
#[derive(Debug, Default)]
struct Noticed {
    changed: Vec<usize>,
    /// Folders to watch anew.
    rewatch: Vec<usize>,
    trigger: Option<&'static str>,
}

impl Noticed {
    fn add(&mut self, other: Noticed) {
        self.changed.extend(other.changed);
        self.changed.sort_unstable();
        self.changed.dedup();
        self.rewatch.extend(other.rewatch);
        self.rewatch.sort_unstable();
        self.rewatch.dedup();
        self.trigger = self.trigger.or(other.trigger);
    }
}

/// The absolute paths watched, as given (not resolved, so that a swapped symbolic link is
/// noticed).
#[derive(Debug)]
struct Paths(Vec<(PathBuf, Kind)>);

impl Paths {
    /// Every target, as if all had changed and every folder had been replaced.
    fn everything(&self, trigger: &'static str) -> Noticed {
        Noticed {
            changed: (0..self.0.len()).collect(),
            rewatch: self.folders().collect(),
            trigger: Some(trigger),
        }
    }

    /// The positions of the folder targets.
    fn folders(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.0.len()).filter(|&i| self.0[i].1 == Kind::Folder)
    }

    /// The folders watched without their sub-folders: where the targets are listed, so
    /// that a target that appears, disappears or is replaced is noticed.
    fn parents(&self) -> Vec<PathBuf> {
        let mut parents: Vec<PathBuf> = self
            .0
            .iter()
            .filter_map(|(path, _)| path.parent().map(Path::to_path_buf))
            .collect();
        parents.sort();
        parents.dedup();
        parents
    }

    /// What a change at `path` touched.
    fn classify(&self, path: &Path) -> Noticed {
        let mut noticed = Noticed::default();
        for (i, (target, kind)) in self.0.iter().enumerate() {
            if path == target {
                noticed.changed.push(i);
                if *kind == Kind::Folder {
                    noticed.rewatch.push(i);
                }
            } else if *kind == Kind::Folder && path.starts_with(target) {
                noticed.changed.push(i);
            }
        }
        noticed
    }
}

/// A debounced watch over some files and folders.
pub(crate) struct Watch<T> {
    whats: Vec<T>,
    paths: Arc<Paths>,
    /// `None` when the system has no watcher to give; then only [`Watch::everything`]
    /// brings changes.
    watcher: Option<RecommendedWatcher>,
    sender: mpsc::UnboundedSender<Noticed>,
    receiver: mpsc::UnboundedReceiver<Noticed>,
    /// Changes collected for the next batch, and when it is handed over at the latest.
    pending: Option<(Noticed, Instant)>,
    warn: Warn,
}

impl<T: Copy> Watch<T> {
    /// Starts watching `targets`. Problems (no watcher, a folder that cannot be watched)
    /// are warnings: the caller goes on without noticing those changes.
    pub fn start(targets: Vec<Target<T>>, warn: Warn) -> Watch<T> {
        let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.into());
        let paths = Arc::new(Paths(
            targets
                .iter()
                .map(|target| (absolute(&target.path), target.kind))
                .collect(),
        ));
        let (sender, receiver) = mpsc::unbounded_channel();
        let mut watch = Watch {
            whats: targets.iter().map(|target| target.what).collect(),
            watcher: start_watcher(paths.clone(), sender.clone(), &warn),
            paths,
            sender,
            receiver,
            pending: None,
            warn,
        };
        if let Some(watcher) = watch.watcher.as_mut() {
            for parent in watch.paths.parents() {
                if let Err(e) = watcher.watch(&parent, RecursiveMode::NonRecursive) {
                    (watch.warn)(format!("cannot watch {}: {e}", parent.display()));
                }
            }
        }
        for folder in watch.paths.folders().collect::<Vec<_>>() {
            watch.watch_folder(folder);
        }
        watch
    }

    /// Counts every target as changed (and watches every folder anew), as noticed by
    /// `trigger`: for a signal that asks to re-read everything.
    pub fn everything(&self, trigger: &'static str) {
        let _ = self.sender.send(self.paths.everything(trigger));
    }

    /// Waits for the next batch of changes: once something changed, until the files have
    /// been quiet for a moment (or at most a couple of seconds). Cancel-safe: changes
    /// collected by a cancelled call go into the next batch.
    pub async fn next(&mut self) -> Changes<T> {
        loop {
            let waiting = self.pending.is_some();
            tokio::select! {
                Some(noticed) = self.receiver.recv() => match self.pending.as_mut() {
                    Some((pending, _)) => pending.add(noticed),
                    None => self.pending = Some((noticed, Instant::now() + MAX_WAIT)),
                },
                () = tokio::time::sleep(QUIET), if waiting => break,
            }
            if self
                .pending
                .as_ref()
                .is_some_and(|(_, give_up)| Instant::now() >= *give_up)
            {
                break;
            }
        }
        let noticed = self
            .pending
            .take()
            .map(|(noticed, _)| noticed)
            .unwrap_or_default();
        for &folder in &noticed.rewatch {
            self.watch_folder(folder);
        }
        Changes {
            changed: noticed.changed.iter().map(|&i| self.whats[i]).collect(),
            trigger: noticed.trigger.unwrap_or("watch"),
        }
    }

    /// (Re-)watches folder target `i` and everything in it. A folder that does not exist
    /// is watched once it appears (its parent is watched).
    fn watch_folder(&mut self, i: usize) {
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        let folder = &self.paths.0[i].0;
        let _ = watcher.unwatch(folder);
        if let Err(e) = watcher.watch(folder, RecursiveMode::Recursive) {
            if folder.exists() {
                (self.warn)(format!("cannot watch {}: {e}", folder.display()));
            }
        }
    }
}

/// A file watcher that sends what each change touched; `None` (and a warning) when the
/// system has none to give.
fn start_watcher(
    paths: Arc<Paths>,
    sender: mpsc::UnboundedSender<Noticed>,
    warn: &Warn,
) -> Option<RecommendedWatcher> {
    let handler_warn = warn.clone();
    let handler = move |result: notify::Result<notify::Event>| match result {
        Ok(event) => {
            if matches!(event.kind, EventKind::Access(kind) if kind != AccessKind::Close(AccessMode::Write))
            {
                return;
            }
            let mut noticed = Noticed {
                trigger: Some("watch"),
                ..Noticed::default()
            };
            if event.need_rescan() {
                noticed.add(paths.everything("watch"));
            }
            for path in &event.paths {
                noticed.add(paths.classify(path));
            }
            if !noticed.changed.is_empty() {
                let _ = sender.send(noticed);
            }
        }
        Err(e) => handler_warn(format!("watching the files failed: {e}")),
    };
    match notify::recommended_watcher(handler) {
        Ok(watcher) => Some(watcher),
        Err(e) => {
            warn(format!(
                "cannot watch the files ({e}): changes are not noticed"
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_classified_by_target() {
        let paths = Paths(vec![
            (PathBuf::from("/site/content"), Kind::Folder),
            (PathBuf::from("/site/shiplog.yaml"), Kind::File),
        ]);
        let inside = paths.classify(Path::new("/site/content/acme/a.md"));
        assert_eq!((inside.changed, inside.rewatch), (vec![0], vec![]));
        let replaced = paths.classify(Path::new("/site/content"));
        assert_eq!((replaced.changed, replaced.rewatch), (vec![0], vec![0]));
        let config = paths.classify(Path::new("/site/shiplog.yaml"));
        assert_eq!(config.changed, vec![1]);
        assert!(paths
            .classify(Path::new("/site/content-old/a.md"))
            .changed
            .is_empty());
        assert!(paths
            .classify(Path::new("/site/shiplog.yaml.swp"))
            .changed
            .is_empty());
        assert_eq!(paths.parents(), vec![PathBuf::from("/site")]);
    }
}
