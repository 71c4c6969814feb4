//! Replacing a file whole: a reader (a file watch, another build) sees the old bytes or the
//! new ones, never half of them; and a lock for writers that must take turns.

use std::io::Write;
use std::path::Path;

use crate::error::{write_error, Result};

/// Replaces `path` with `bytes`, flushed to disk first: for a file that holds what a person
/// wrote (the keys file), which a crash must not leave empty.
pub fn replace_durably(path: &Path, bytes: &[u8]) -> Result<()> {
    write_then_rename(path, bytes, true)
}

/// Replaces `path` with `bytes` without waiting for the disk: for a file that can be made
/// again (the build cache), where a flush would cost every build a journal commit.
pub fn replace(path: &Path, bytes: &[u8]) -> Result<()> {
    write_then_rename(path, bytes, false)
}

/// The start of the name of a temporary file that replaces `path` (`.<name>.new-`): what a
/// writer killed before its rename leaves, and the next writer removes.
pub fn temporary_prefix(path: &Path) -> String {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    format!(".{}.new-", name.trim_start_matches('.'))
}

/// An exclusive lock on `folder`, held while the returned handle lives: writers of the same
/// files take turns (two `shiplog keys new`, two builds of one output folder). Blocks until
/// the lock is free.
pub fn lock_folder(folder: &Path) -> std::io::Result<std::fs::File> {
    let handle = std::fs::File::open(folder)?;
    #[cfg(unix)]
    rustix::fs::flock(&handle, rustix::fs::FlockOperation::LockExclusive)?;
    Ok(handle)
}

/// Writes `bytes` to a temporary file beside `path` (with the permissions of the file it
/// replaces), then renames it over `path`. On failure `path` is left as it was and the
/// temporary file is removed.
fn write_then_rename(path: &Path, bytes: &[u8], durable: bool) -> Result<()> {
    // A link is written through: the file it leads to is the one replaced.
    let resolved;
    let path = match path.is_symlink().then(|| path.canonicalize()) {
        Some(Ok(target)) => {
            resolved = target;
            resolved.as_path()
        }
        _ => path,
    };
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(&temporary_prefix(path))
        .tempfile_in(folder)
        .map_err(write_error(path))?;
    file.write_all(bytes).map_err(write_error(path))?;
    if durable {
        file.as_file().sync_all().map_err(write_error(path))?;
    }
    if let Ok(metadata) = std::fs::metadata(path) {
        file.as_file()
            .set_permissions(metadata.permissions())
            .map_err(write_error(path))?;
        // The owner too (a keys file the server's user owns, rewritten by root): where it
        // cannot be given, the file is ours, as any new file would be.
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let _ = std::os::unix::fs::fchown(
                file.as_file(),
                Some(metadata.uid()),
                Some(metadata.gid()),
            );
        }
    }
    file.persist(path).map_err(|e| write_error(path)(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.yaml");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        replace_durably(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // Nothing else is left in the folder.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // A link is written through, and stays a link.
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        replace_durably(&link, b"through").unwrap();
        assert!(link.is_symlink());
        assert_eq!(std::fs::read(&path).unwrap(), b"through");
        std::fs::remove_file(&link).unwrap();
        // A file that does not exist yet is made.
        replace(&dir.path().join("new.yaml"), b"x").unwrap();
        assert_eq!(std::fs::read(dir.path().join("new.yaml")).unwrap(), b"x");
    }
}
