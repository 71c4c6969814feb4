//! The only writer of the output folder: the staged tree below, and the build cache beside
//! it ([`cache`]).
//!
//! Writing a build into the output folder so that a failed build changes nothing there, and
//! a file whose bytes did not change is not touched (web servers and CDNs keep its ETag).
//!
//! New and changed files are first written to a staging folder beside the output. Only when
//! every file is staged does [`OutputTree::commit`] move them in: in one rename when there
//! was no output yet, else file by file, putting each replaced or stale file aside first so
//! that a failure half-way is rolled back.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use rayon::prelude::*;

use crate::content::{Asset, Org};
use crate::error::{read_error, write_error, Error, Result};
use crate::render::OutputFile;

pub mod cache;

/// The files of `org` that are published as they are, read from the content folder: the
/// org's own and those of its entries published at `now` (under the entry's folder).
pub fn read_assets(org: &Org, now: DateTime<Utc>) -> Result<Vec<OutputFile>> {
    let folder = Path::new(&org.slug).join("changelog");
    let entries = org.published(now).iter().flat_map(|entry| {
        let at = folder.join(&entry.id);
        entry.assets.iter().map(move |asset| (at.clone(), asset))
    });
    org.assets
        .iter()
        .map(|asset| (folder.clone(), asset))
        .chain(entries)
        .map(|(at, asset)| Ok((at.join(&asset.relative), read_asset(asset)?)))
        .collect()
}

fn read_asset(asset: &Asset) -> Result<Vec<u8>> {
    std::fs::read(&asset.source).map_err(read_error(&asset.source))
}

/// Removes what builds into the output folder `name` in `parent` that were killed left
/// beside it: their staging and put-aside folders, named after their process ids. A build
/// that is still running keeps its own. (The output they may have left half-committed is
/// made whole by this build, which rewrites every file whose bytes differ.)
fn remove_leftovers(parent: &Path, name: &str) {
    let Ok(items) = std::fs::read_dir(parent) else {
        return;
    };
    let prefixes = [
        format!(".{name}.shiplog-new-"),
        format!(".{name}.shiplog-old-"),
    ];
    for item in items.flatten() {
        let file_name = item.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        let pid = prefixes
            .iter()
            .find_map(|prefix| file_name.strip_prefix(prefix.as_str()))
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| pid != std::process::id() && !is_running(pid)) {
            let _ = std::fs::remove_dir_all(item.path());
        }
    }
}

/// Whether process `pid` is running; where that cannot be told, it is taken to be.
fn is_running(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

/// Removes the file at `path`, if there is one.
pub fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(write_error(path)(e)),
        _ => Ok(()),
    }
}

/// An output folder being written by one build.
pub struct OutputTree {
    output: PathBuf,
    /// Where new files wait (and, when `existing` is `None`, the whole new tree).
    staging: PathBuf,
    /// Where replaced and stale files are put aside while committing.
    aside: PathBuf,
    /// The files (and empty folders) of the output folder before the build and their sizes,
    /// by relative path, but for the folders [`Known::Kept`]; `None` when there was no
    /// output folder, or an empty one.
    existing: Option<HashMap<PathBuf, u64>>,
    /// Every file of the new tree, and the ones among them to move in from `staging`.
    written: Mutex<Written>,
    committed: bool,
}

#[derive(Default)]
struct Written {
    all: HashSet<PathBuf>,
    staged: Vec<PathBuf>,
}

/// What the caller of [`OutputTree::open`] knows a top-level folder of the output holds.
#[derive(Debug, Clone, Copy)]
pub enum Known<'a> {
    /// Exactly these files, with their sizes (relative to the output folder).
    Files(&'a [(PathBuf, u64)]),
    /// Files this build keeps as they are: the folder is neither listed nor changed.
    Kept,
}

/// What a commit changed in the output folder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Changes {
    /// Files added or rewritten.
    pub written: usize,
    /// Files removed because the build no longer yields them.
    pub removed: usize,
}

impl OutputTree {
    /// Starts writing to `output` (created on commit if missing). Refuses an `output`
    /// that is a file. The top-level folders in `known` are not listed: the caller knows
    /// what they hold (see [`Known`]).
    pub fn open(output: &Path, known: &HashMap<&str, Known<'_>>) -> Result<OutputTree> {
        if output.exists() && !output.is_dir() {
            return Err(Error::Usage(format!(
                "output {} is a file, not a folder",
                output.display()
            )));
        }
        let name = output.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
            Error::Usage(format!(
                "output folder {} has no usable name",
                output.display()
            ))
        })?;
        let parent = match output.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let id = std::process::id();
        let staging = parent.join(format!(".{name}.shiplog-new-{id}"));
        let aside = parent.join(format!(".{name}.shiplog-old-{id}"));
        remove_leftovers(&parent, name);
        let existing = match output.is_dir() {
            true => list_files(output, known)?,
            false => None,
        };
        for folder in [&staging, &aside] {
            if folder.exists() {
                std::fs::remove_dir_all(folder).map_err(write_error(folder))?;
            }
        }
        std::fs::create_dir_all(&staging).map_err(write_error(&staging))?;
        Ok(OutputTree {
            output: output.to_path_buf(),
            staging,
            aside,
            existing,
            written: Mutex::default(),
            committed: false,
        })
    }

    /// Whether the output folder holds `relative` with `size` bytes.
    fn holds(&self, relative: &Path, size: u64) -> bool {
        self.existing
            .as_ref()
            .is_some_and(|files| files.get(relative) == Some(&size))
    }

    /// Adds a file to the new tree. It is staged unless the output folder holds these very
    /// bytes already.
    pub fn put(&self, relative: &Path, bytes: &[u8]) -> Result<()> {
        let unchanged = self.holds(relative, bytes.len() as u64)
            && std::fs::read(self.output.join(relative)).is_ok_and(|old| old == bytes);
        if !unchanged {
            let path = self.staging.join(relative);
            if let Some(folder) = path.parent() {
                std::fs::create_dir_all(folder).map_err(write_error(folder))?;
            }
            std::fs::write(&path, bytes).map_err(write_error(&path))?;
        }
        let mut written = self
            .written
            .lock()
            .expect("no writer panics holding the lock");
        written.all.insert(relative.to_path_buf());
        if !unchanged {
            written.staged.push(relative.to_path_buf());
        }
        Ok(())
    }

    /// Makes the output folder hold exactly the files put, and the folders kept as they are
    /// ([`Known::Kept`]): moves the staged files in and removes the others. On failure the
    /// output folder is left as it was.
    pub fn commit(mut self) -> Result<Changes> {
        let written = std::mem::take(self.written.get_mut().expect("no writer panicked"));
        let changes = match self.existing.take() {
            None => self.swap_in(written.staged.len())?,
            Some(existing) => {
                let mut stale: Vec<PathBuf> = existing
                    .into_keys()
                    .filter(|path| !written.all.contains(path))
                    .collect();
                stale.sort();
                let mut staged = written.staged;
                staged.sort();
                self.move_in(&staged, &stale)?
            }
        };
        self.committed = true;
        for folder in [&self.staging, &self.aside] {
            if folder.exists() {
                std::fs::remove_dir_all(folder).map_err(write_error(folder))?;
            }
        }
        Ok(changes)
    }

    /// Renames the staging folder to the output folder (an empty output folder is replaced).
    fn swap_in(&self, files: usize) -> Result<Changes> {
        if let Some(parent) = self.output.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(write_error(parent))?;
        }
        std::fs::rename(&self.staging, &self.output).map_err(write_error(&self.output))?;
        Ok(Changes {
            written: files,
            removed: 0,
        })
    }

    /// Puts `stale` and the files `staged` replaces aside, then moves `staged` in; undoes
    /// every move when one fails.
    fn move_in(&self, staged: &[PathBuf], stale: &[PathBuf]) -> Result<Changes> {
        let mut done: Vec<(PathBuf, PathBuf)> = Vec::new();
        let result = (|| {
            for relative in stale {
                move_file(
                    &self.output.join(relative),
                    &self.aside.join(relative),
                    &mut done,
                )?;
            }
            remove_empty_folders(&self.output, stale);
            for relative in staged {
                let target = self.output.join(relative);
                if target.exists() {
                    move_file(&target, &self.aside.join(relative), &mut done)?;
                }
                move_file(&self.staging.join(relative), &target, &mut done)?;
            }
            Ok(())
        })();
        if let Err(error) = result {
            for (from, to) in done.iter().rev() {
                if let Some(folder) = from.parent() {
                    let _ = std::fs::create_dir_all(folder);
                }
                let _ = std::fs::rename(to, from);
            }
            return Err(error);
        }
        Ok(Changes {
            written: staged.len(),
            removed: stale.len(),
        })
    }
}

impl Drop for OutputTree {
    /// A build that did not commit leaves nothing behind but the output folder as it was.
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// Renames `from` to `to` (creating `to`'s folder) and notes it in `done`.
fn move_file(from: &Path, to: &Path, done: &mut Vec<(PathBuf, PathBuf)>) -> Result<()> {
    if let Some(folder) = to.parent() {
        std::fs::create_dir_all(folder).map_err(write_error(folder))?;
    }
    std::fs::rename(from, to).map_err(write_error(to))?;
    done.push((from.to_path_buf(), to.to_path_buf()));
    Ok(())
}

/// Removes the folders of `root` that removing `removed` left empty.
fn remove_empty_folders(root: &Path, removed: &[PathBuf]) {
    let mut folders: Vec<&Path> = removed
        .iter()
        .flat_map(|path| path.ancestors().skip(1))
        .filter(|folder| !folder.as_os_str().is_empty())
        .collect();
    // Deepest first, so that a parent is tried once its children are gone.
    folders.sort_by(|a, b| {
        let depth = |folder: &Path| folder.components().count();
        depth(b).cmp(&depth(a)).then_with(|| a.cmp(b))
    });
    folders.dedup();
    for folder in folders {
        // Fails, as it should, for a folder that still holds something.
        let _ = std::fs::remove_dir(root.join(folder));
    }
}

/// Every file under `root` (symbolic links included, not followed) with its size, and every
/// empty folder (size 0), by path relative to `root`: the top-level folders in `known` as
/// known, the others walked in parallel. `None` when `root` is empty.
fn list_files(
    root: &Path,
    known: &HashMap<&str, Known<'_>>,
) -> Result<Option<HashMap<PathBuf, u64>>> {
    let top: Vec<std::fs::DirEntry> = std::fs::read_dir(root)
        .map_err(read_error(root))?
        .collect::<std::io::Result<_>>()
        .map_err(read_error(root))?;
    if top.is_empty() {
        return Ok(None);
    }
    let lists: Vec<Vec<(PathBuf, u64)>> = top
        .par_iter()
        .map(|item| {
            let path = item.path();
            let is_dir = item.file_type().map_err(read_error(&path))?.is_dir();
            let name = item.file_name();
            let mut files = Vec::new();
            match name
                .to_str()
                .and_then(|name| known.get(name))
                .filter(|_| is_dir)
            {
                Some(Known::Kept) => {}
                Some(Known::Files(known)) => files.extend_from_slice(known),
                None => list_into(root, &path, &mut files)?,
            }
            Ok(files)
        })
        .collect::<Result<_>>()?;
    Ok(Some(lists.into_iter().flatten().collect()))
}

/// Adds the files and empty folders under `path` (a file, or a folder walked depth first)
/// to `files`, relative to `root`. Sizes come from each folder's entries (looked up relative
/// to the open folder, not by their whole path), and links are not followed.
fn list_into(root: &Path, path: &Path, files: &mut Vec<(PathBuf, u64)>) -> Result<()> {
    let metadata = std::fs::symlink_metadata(path).map_err(read_error(path))?;
    if !metadata.is_dir() {
        let relative = path.strip_prefix(root).expect("under the root");
        files.push((relative.to_path_buf(), metadata.len()));
        return Ok(());
    }
    let mut folders = vec![path.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let mut empty = true;
        for item in std::fs::read_dir(&folder).map_err(read_error(&folder))? {
            let item = item.map_err(read_error(&folder))?;
            empty = false;
            let path = item.path();
            if item.file_type().map_err(read_error(&path))?.is_dir() {
                folders.push(path);
                continue;
            }
            let size = item.metadata().map_or(0, |m| m.len());
            let relative = path.strip_prefix(root).expect("under the root");
            files.push((relative.to_path_buf(), size));
        }
        // A build writes no empty folder: one is removed like a file it no longer writes.
        if empty {
            let relative = folder.strip_prefix(root).expect("under the root");
            files.push((relative.to_path_buf(), 0));
        }
    }
    Ok(())
}
