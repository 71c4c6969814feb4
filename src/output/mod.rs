//! The only writer of the output folder: the staged tree below, and the build cache beside
//! it ([`cache`]).
//!
//! Writing a build into the output folder so that a failed build changes nothing there, and
//! a file whose bytes did not change is not touched (web servers and CDNs keep its ETag).
//!
//! New and changed files are first written to a staging folder beside the output. Only when
//! every file is staged does [`OutputTree::commit`] move them in, in one step that a reader,
//! and a build killed at any moment, see as the whole tree exactly as it was or exactly as it
//! is now, never a mix: one rename when there was no output yet; one
//! `renameat2(RENAME_EXCHANGE)` of the org's folder when the build changed one org (the
//! common edit); else one exchange of the whole output folder. The new folder is completed
//! in the staging folder first, its unchanged files hard-linked from the old one, so they
//! keep their inode, times and ETag; an org whose files are all unchanged is not touched.
//! Where the output folder cannot be exchanged whole (it is a symbolic link or a mount
//! point), each org changed is switched whole, one after the other.

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
    // Not followed: a file of the org folder that became a link since the walk could lead
    // anywhere.
    let mut bytes = Vec::new();
    crate::text::open_regular(&asset.source, false)
        .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut bytes))
        .map_err(read_error(&asset.source))?;
    Ok(bytes)
}

/// Holds the lock of the builds that write `output` while the returned handle lives: one
/// build at a time reads the cache, writes the output and writes the cache, so a build that
/// read older content can never commit after one that read newer (and leave the cache saying
/// the older output is current). A second build waits for the first. An output that is a
/// link is locked where it leads, as every other name of the same folder is.
pub fn lock(output: &Path) -> Result<std::fs::File> {
    let parent = locked_folder(output)?;
    std::fs::create_dir_all(&parent).map_err(write_error(&parent))?;
    crate::atomic::lock_folder(&parent).map_err(write_error(&parent))
}

/// The folder whose lock guards `output`: the one it is in, or, for a link, the one the
/// folder it leads to is in.
fn locked_folder(output: &Path) -> Result<PathBuf> {
    Ok(parent_of(&resolve_link(output)?))
}

/// The folder an output that is a symbolic link leads to: the build writes there, beside
/// it, and the link stays as it is. A link that leads nowhere is a usage error.
fn resolve_link(output: &Path) -> Result<PathBuf> {
    if !output.is_symlink() {
        return Ok(output.to_path_buf());
    }
    output.canonicalize().map_err(|e| {
        Error::Usage(format!(
            "output {} is a link to a folder that cannot be reached: {e}",
            output.display()
        ))
    })
}

/// Whether `folder` is a mount point: on another device than `parent`, the folder it is in.
fn is_mount_point(folder: &Path, parent: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(inner), Ok(outer)) = (std::fs::metadata(folder), std::fs::metadata(parent)) {
            return inner.dev() != outer.dev();
        }
    }
    false
}

/// The folder `path` is in (`.` for a bare name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Removes what earlier builds of the output folder `name` left in `folder`: the staging and
/// put-aside folders of a build that was killed, or whose clean-up failed, and the cache's
/// temporary file. Called under [`lock`], so no other build is using them, whatever the
/// process id in their names. (An output a killed build left half-committed is made whole by
/// this build, which rewrites every file whose bytes differ.)
fn remove_leftovers(folder: &Path, name: &str) {
    let Ok(items) = std::fs::read_dir(folder) else {
        return;
    };
    let prefixes = [
        format!(".{name}.shiplog-new-"),
        format!(".{name}.shiplog-old-"),
        crate::atomic::temporary_prefix(&cache::Manifest::path_for(Path::new(name))),
    ];
    for item in items.flatten() {
        let file_name = item.file_name();
        let ours = file_name
            .to_str()
            .is_some_and(|file_name| prefixes.iter().any(|p| file_name.starts_with(p.as_str())));
        if ours {
            remove_tree(&item.path());
        }
    }
}

/// Removes the file or folder at `path` as far as it can, making folders writable first where
/// that stops it (a folder of the old output made read-only by hand). What cannot be removed
/// is left for the next build's [`remove_leftovers`]: the build itself has succeeded.
fn remove_tree(path: &Path) {
    let Ok(metadata) = std::fs::symlink_metadata(path) else {
        return;
    };
    if !metadata.is_dir() {
        let _ = std::fs::remove_file(path);
        return;
    }
    if std::fs::remove_dir_all(path).is_ok() {
        return;
    }
    #[cfg(unix)]
    for item in walkdir::WalkDir::new(path).into_iter().flatten() {
        use std::os::unix::fs::PermissionsExt;
        if item.file_type().is_dir() {
            let _ = std::fs::set_permissions(item.path(), std::fs::Permissions::from_mode(0o700));
        }
    }
    let _ = std::fs::remove_dir_all(path);
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
    /// The top-level folders of the output this build keeps as they are ([`Known::Kept`]).
    kept: Vec<PathBuf>,
    /// Whether the output folder is a mount point (see [`OutputTree::open`]).
    mounted: bool,
    /// Every file of the new tree, and the ones among them to move in from `staging`.
    written: Mutex<Written>,
    /// The folders made in `staging` so far: most files share theirs with others, and a
    /// `mkdir` that finds the folder there costs the kernel a path walk each time.
    folders: Mutex<HashSet<PathBuf>>,
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
        let output = &resolve_link(output)?;
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
        let parent = parent_of(output);
        // A mount point cannot be renamed, nor files renamed into it from another file
        // system: its builds stage inside it, and switch org by org.
        let mounted = is_mount_point(output, &parent);
        let beside = if mounted { output.clone() } else { parent };
        let id = std::process::id();
        let staging = beside.join(format!(".{name}.shiplog-new-{id}"));
        let aside = beside.join(format!(".{name}.shiplog-old-{id}"));
        remove_leftovers(&beside, name);
        let existing = match output.is_dir() {
            // A mount point is filled in, never replaced, even when empty.
            true => list_files(output, known, name)?.or_else(|| mounted.then(HashMap::new)),
            false => None,
        };
        std::fs::create_dir_all(&staging).map_err(write_error(&staging))?;
        let kept = known
            .iter()
            .filter(|(name, known)| matches!(known, Known::Kept) && output.join(name).is_dir())
            .map(|(name, _)| PathBuf::from(name))
            .collect();
        Ok(OutputTree {
            output: output.to_path_buf(),
            staging,
            aside,
            existing,
            kept,
            mounted,
            written: Mutex::default(),
            folders: Mutex::default(),
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
                self.make_folder(folder)?;
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

    /// Makes `folder` in `staging` unless it was made already. Not under the lock, which
    /// would have the other writers wait on the kernel.
    fn make_folder(&self, folder: &Path) -> Result<()> {
        let folders = || {
            self.folders
                .lock()
                .expect("no writer panics holding the lock")
        };
        if !folders().contains(folder) {
            std::fs::create_dir_all(folder).map_err(write_error(folder))?;
            folders().insert(folder.to_path_buf());
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
                self.move_in(&staged, &stale, &written.all)?
            }
        };
        // Switched: the build has succeeded whatever the clean-up meets.
        self.committed = true;
        remove_tree(&self.staging);
        remove_tree(&self.aside);
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

    /// Switches the output to the new tree: the whole folder at once when the build touched
    /// more than one top-level name, else (or where the whole folder cannot be exchanged)
    /// each top-level folder (an org) that `staged` or `stale` touch, whole, and each
    /// top-level file (`_headers`) by a rename; undoes every switch when one fails. `all` is
    /// every file of the new tree.
    fn move_in(
        &self,
        staged: &[PathBuf],
        stale: &[PathBuf],
        all: &HashSet<PathBuf>,
    ) -> Result<Changes> {
        let changes = Changes {
            written: staged.len(),
            removed: stale.len(),
        };
        let mut touched: Vec<&std::ffi::OsStr> = staged
            .iter()
            .chain(stale)
            .filter_map(|path| path.iter().next())
            .collect();
        touched.sort();
        touched.dedup();
        let staged_set: HashSet<&PathBuf> = staged.iter().collect();
        if touched.len() > 1 && self.switch_whole(all, &staged_set)? {
            return Ok(changes);
        }
        // The files of the new tree under each top-level name touched, found in one pass.
        let mut by_top: HashMap<&std::ffi::OsStr, Vec<&PathBuf>> =
            touched.iter().map(|top| (*top, Vec::new())).collect();
        for path in all {
            if let Some(files) = path.iter().next().and_then(|top| by_top.get_mut(top)) {
                files.push(path);
            }
        }
        let mut done: Vec<Switch> = Vec::new();
        let result = touched
            .iter()
            .try_for_each(|top| self.switch(Path::new(top), &by_top[top], &staged_set, &mut done));
        if let Err(error) = result {
            for switch in done.iter().rev() {
                switch.undo();
            }
            return Err(error);
        }
        Ok(changes)
    }

    /// Completes the staging folder into the whole new tree (the unchanged files of `all`
    /// and of the kept folders hard-linked) and exchanges it with the output folder in one
    /// step. `false`, with nothing a reader sees changed, where the output folder cannot be
    /// exchanged: a symbolic link (which would be replaced, not its target), a mount point.
    fn switch_whole(&self, all: &HashSet<PathBuf>, staged: &HashSet<&PathBuf>) -> Result<bool> {
        if self.mounted || !cfg!(target_os = "linux") {
            return Ok(false);
        }
        self.link_unchanged(all.iter().filter(|path| !staged.contains(path)))?;
        for top in &self.kept {
            let mut files = Vec::new();
            list_into(&self.output, &self.output.join(top), &mut files)?;
            self.link_unchanged(files.iter().map(|(path, _)| path))?;
        }
        if let Ok(metadata) = std::fs::metadata(&self.output) {
            // The folder a web server was given keeps its mode.
            let _ = std::fs::set_permissions(&self.staging, metadata.permissions());
        }
        Ok(exchange(&self.staging, &self.output).is_ok())
    }

    /// Puts each of `files` (relative paths of the output folder) into the staging folder
    /// as a hard link to the output's file (a copy where links cannot be made); an empty
    /// folder is made anew. One already there was linked before and is left alone: copying
    /// over it would write into the output's own file.
    fn link_unchanged<'p>(&self, files: impl Iterator<Item = &'p PathBuf>) -> Result<()> {
        let mut folders: HashSet<PathBuf> = HashSet::new();
        for relative in files {
            let target = self.staging.join(relative);
            let source = self.output.join(relative);
            if std::fs::symlink_metadata(&target).is_ok() {
                continue;
            }
            let is_folder = std::fs::symlink_metadata(&source).is_ok_and(|m| m.is_dir());
            let folder = match is_folder {
                true => Some(target.as_path()),
                false => target.parent(),
            };
            if let Some(folder) = folder.filter(|folder| !folders.contains(*folder)) {
                std::fs::create_dir_all(folder).map_err(write_error(folder))?;
                folders.insert(folder.to_path_buf());
            }
            if !is_folder {
                std::fs::hard_link(&source, &target)
                    .or_else(|_| std::fs::copy(&source, &target).map(|_| ()))
                    .map_err(write_error(&target))?;
            }
        }
        Ok(())
    }

    /// Switches the top-level `top` of the output to what the build made of it: `kept`, the
    /// new tree's files under it, of which those in `staged` are in the staging folder.
    fn switch(
        &self,
        top: &Path,
        kept: &[&PathBuf],
        staged: &HashSet<&PathBuf>,
        done: &mut Vec<Switch>,
    ) -> Result<()> {
        let old = self.output.join(top);
        let new = self.staging.join(top);
        if kept.is_empty() {
            // Gone from the new tree: put aside whole.
            return Switch::rename(&old, &self.aside.join(top), done);
        }
        if !(old.is_dir() && (new.is_dir() || !new.exists())) {
            // A file (`_headers`), a new folder, or a file become a folder or the reverse:
            // one rename, after putting aside what has another kind.
            if old.exists() && old.is_dir() != new.is_dir() {
                Switch::rename(&old, &self.aside.join(top), done)?;
            }
            return Switch::rename(&new, &old, done);
        }
        // Complete the new folder with the unchanged files of the old one, then switch.
        self.link_unchanged(kept.iter().copied().filter(|path| !staged.contains(*path)))?;
        Switch::exchange(&new, &old, done)
    }
}

/// One change of a commit, which can be undone.
enum Switch {
    /// `from` was renamed to `to`.
    Renamed { from: PathBuf, to: PathBuf },
    /// The two were exchanged.
    Exchanged(PathBuf, PathBuf),
}

impl Switch {
    /// Renames `from` to `to` (making `to`'s folder) and notes it in `done`.
    fn rename(from: &Path, to: &Path, done: &mut Vec<Switch>) -> Result<()> {
        if let Some(folder) = to.parent() {
            std::fs::create_dir_all(folder).map_err(write_error(folder))?;
        }
        std::fs::rename(from, to).map_err(write_error(to))?;
        done.push(Switch::Renamed {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
        });
        Ok(())
    }

    /// Exchanges the folders `a` and `b` at once, and notes it in `done`.
    fn exchange(a: &Path, b: &Path, done: &mut Vec<Switch>) -> Result<()> {
        exchange(a, b).map_err(write_error(b))?;
        done.push(Switch::Exchanged(a.to_path_buf(), b.to_path_buf()));
        Ok(())
    }

    fn undo(&self) {
        match self {
            Switch::Renamed { from, to } => {
                if let Some(folder) = from.parent() {
                    let _ = std::fs::create_dir_all(folder);
                }
                let _ = std::fs::rename(to, from);
            }
            Switch::Exchanged(a, b) => {
                let _ = exchange(a, b);
            }
        }
    }
}

/// Exchanges two paths in one step, so that each always names one of the two.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(Into::into)
}

/// Exchanges two paths through a third name (elsewhere there is no atomic exchange).
#[cfg(not(target_os = "linux"))]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    let between = a.with_extension("shiplog-exchange");
    std::fs::rename(b, &between)?;
    std::fs::rename(a, b)?;
    std::fs::rename(&between, a)
}

impl Drop for OutputTree {
    /// A build that did not commit leaves nothing behind but the output folder as it was.
    fn drop(&mut self) {
        if !self.committed {
            remove_tree(&self.staging);
        }
    }
}

/// Every file under `root` (symbolic links included, not followed) with its size, and every
/// empty folder (size 0), by path relative to `root`: the top-level folders in `known` as
/// known, the others walked in parallel. `None` when `root` is empty.
fn list_files(
    root: &Path,
    known: &HashMap<&str, Known<'_>>,
    name: &str,
) -> Result<Option<HashMap<PathBuf, u64>>> {
    // A mount point holds the build's own staging folders: they are not part of the output.
    let own = format!(".{name}.shiplog-");
    let top: Vec<std::fs::DirEntry> = std::fs::read_dir(root)
        .map_err(read_error(root))?
        .filter(|item| {
            item.as_ref().map_or(true, |item| {
                !item.file_name().to_string_lossy().starts_with(&own)
            })
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_reached_through_a_link_is_locked_where_it_leads() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("out");
        std::fs::create_dir_all(&real).unwrap();
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        let link = dir.path().join("sub/link");
        #[cfg(unix)]
        std::os::unix::fs::symlink("../out", &link).unwrap();
        let canonical = |path: PathBuf| path.canonicalize().unwrap();
        assert_eq!(
            canonical(locked_folder(&link).unwrap()),
            canonical(locked_folder(&real).unwrap())
        );
    }
}
