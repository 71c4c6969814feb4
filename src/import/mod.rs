//! `shiplog import`: an org's history brought in from a Keep a Changelog file
//! ([`changelog`]), GitHub Releases JSON ([`releases`]) or another product's feed ([`feed`]).
//! Each importer turns its source into [`Imported`] entries with ids stable across runs;
//! [`write`] checks every one as a build would, then writes those that are new, so that a
//! second run adds only what is new and never overwrites a file edited by hand unless told.

pub mod changelog;
pub mod feed;
pub mod images;
pub mod releases;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::SiteConfig;
use crate::content::{check_id, MAX_ENTRY_BYTES};
use crate::error::{Error, Problem, Problems, Result};
use crate::{atomic, scaffold, slug, yaml};

/// One entry as an importer found it.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The entry's id: its file is `<id>.md`.
    pub id: String,
    /// The title.
    pub title: String,
    /// The date as the front matter gives it (`2026-03-01` or RFC 3339).
    pub date: String,
    /// When it was last changed, if the source says so and it differs from `date`.
    pub updated: Option<String>,
    /// Its tags.
    pub tags: Vec<String>,
    /// Whether it is a draft (an unreleased version, a draft release).
    pub draft: bool,
    /// Its summary, when the source has one apart from the body.
    pub summary: Option<String>,
    /// The body, in Markdown.
    pub body: String,
    /// Where the source holds it (an empty message), for problems.
    pub at: Problem,
    /// Files that go with it into the folder `<id>/` beside it (downloaded images).
    pub assets: Vec<Asset>,
}

/// A file that goes with an entry: its name and bytes.
pub type Asset = (String, Vec<u8>);

/// What the source held besides entries: items left out, each with where and why.
pub type Skipped = Vec<Problem>;

/// Where and how to write.
pub struct Options<'a> {
    /// The content folder.
    pub content: &'a Path,
    /// The org whose entries these are; its folder is made when it is new.
    pub org: &'a str,
    /// Overwrite an entry whose file differs from what the source makes now.
    pub update: bool,
    /// Write nothing; report what would be done.
    pub dry_run: bool,
}

/// What happened to one imported entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Its file is new.
    Added,
    /// Its file held exactly this already.
    Unchanged,
    /// Its file differs from what the source makes now and was kept as it is.
    Kept,
    /// Its file differed and was overwritten (`--update`).
    Updated,
}

/// What [`write`] did, entry by entry.
#[derive(Debug, Default)]
pub struct Report {
    /// Each entry's file (and each of its assets) and what happened to it, in the source's
    /// order.
    pub files: Vec<(PathBuf, Outcome)>,
    /// The `_org.yaml` made for a new org.
    pub new_org: Option<PathBuf>,
    /// Items of the source left out.
    pub skipped: Skipped,
}

impl Report {
    /// How many entries had `outcome`.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.files.iter().filter(|(_, o)| *o == outcome).count()
    }
}

#[derive(Serialize)]
struct FrontMatter<'a> {
    title: &'a str,
    date: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    tags: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    draft: bool,
}

impl Imported {
    /// The entry's file as the importer writes it.
    pub fn text(&self) -> String {
        let front_matter = yaml::to_string(&FrontMatter {
            title: &self.title,
            date: &self.date,
            updated: self.updated.as_deref(),
            tags: &self.tags,
            summary: self.summary.as_deref(),
            draft: self.draft,
        });
        let body = self.body.trim();
        if body.is_empty() {
            format!("---\n{front_matter}---\n")
        } else {
            format!("---\n{front_matter}---\n{body}\n")
        }
    }
}

/// An id made from a version, a release tag or a feed item's name: lower case, and any run
/// of characters an id may not hold (`/`, `+`, spaces) made one `-`. Empty when nothing
/// is left.
pub fn id_of(name: &str) -> String {
    let ascii = deunicode::deunicode(name.trim()).to_ascii_lowercase();
    let mut id = String::with_capacity(ascii.len());
    for c in ascii.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
            id.push(c);
        } else if !id.ends_with('-') {
            id.push('-');
        }
    }
    let id = id.trim_matches(['-', '.']);
    let mut end = id.len().min(slug::MAX_SEGMENT_BYTES);
    while !id.is_char_boundary(end) {
        end -= 1;
    }
    id[..end].trim_end_matches(['-', '.']).to_string()
}

/// Checks every entry as a build would, alone and then in its org with the org's other
/// entries, and writes those whose files are new (or, with `update`, differ). On any
/// problem nothing is written and all problems are returned.
pub fn write(entries: &[Imported], skipped: Skipped, options: &Options<'_>) -> Result<Report> {
    slug::check_org(options.org).map_err(Error::Usage)?;
    let folder = options.content.join(options.org);
    refuse_link(options.content, &folder)?;
    let planned = plan(entries, options.content, &folder, options.update)?;
    check_in_org(&planned, options)?;
    let mut report = Report {
        skipped,
        ..Report::default()
    };
    if !options.dry_run {
        report.new_org = scaffold::new_org(options.content, options.org)?;
        for (path, outcome, bytes) in &planned {
            match outcome {
                Outcome::Added => scaffold::write_new(path, bytes)?,
                Outcome::Updated => atomic::replace_durably(path, bytes)?,
                Outcome::Unchanged | Outcome::Kept => {}
            }
        }
    }
    report.files = planned
        .into_iter()
        .map(|(path, outcome, _)| (path, outcome))
        .collect();
    Ok(report)
}

/// What would happen to a file, and its bytes.
type Planned = (PathBuf, Outcome, Vec<u8>);

/// Each entry's file (and its assets'), what would happen to it, and its bytes; or every
/// problem found in the entries alone (a bad id, an id twice, an entry a build would refuse).
fn plan(entries: &[Imported], content: &Path, folder: &Path, update: bool) -> Result<Vec<Planned>> {
    let mut problems = Vec::new();
    let mut planned = Vec::new();
    let mut seen: std::collections::HashMap<&str, &Problem> = std::collections::HashMap::new();
    for entry in entries {
        let at = |message: String| Problem {
            message,
            ..entry.at.clone()
        };
        if let Err(message) = check_id(&entry.id) {
            problems.push(at(format!("cannot make an entry id of it: {message}")));
            continue;
        }
        if let Some(first) = seen.get(entry.id.as_str()) {
            problems.push(at(format!(
                "makes the entry `{}` a second time (first at line {})",
                entry.id, first.line
            )));
            continue;
        }
        seen.insert(&entry.id, &entry.at);
        let text = entry.text();
        if text.len() as u64 > MAX_ENTRY_BYTES {
            problems.push(at(format!(
                "the entry `{}` it makes would be {} bytes; an entry file holds at most {MAX_ENTRY_BYTES}",
                entry.id,
                text.len()
            )));
            continue;
        }
        let (flat, bundled) = (
            folder.join(format!("{}.md", entry.id)),
            folder.join(&entry.id).join("index.md"),
        );
        if let Err(found) = crate::content::check_entry(&flat, &text, &entry.id) {
            for problem in found {
                problems.push(at(format!(
                    "the entry `{}` it makes would be refused: {}",
                    entry.id, problem.message
                )));
            }
            continue;
        }
        let path = if bundled.exists() { bundled } else { flat };
        let assets = entry
            .assets
            .iter()
            .map(|(name, bytes)| (folder.join(&entry.id).join(name), bytes.clone()));
        for (path, bytes) in std::iter::once((path, text.into_bytes())).chain(assets) {
            if let Err(Error::Invalid(found)) = refuse_link(content, &path) {
                problems.extend(found.as_slice().iter().cloned());
                continue;
            }
            let outcome = match std::fs::read(&path) {
                Ok(existing) if existing == bytes => Outcome::Unchanged,
                Ok(_) if update => Outcome::Updated,
                Ok(_) => Outcome::Kept,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Outcome::Added,
                Err(source) => return Err(Error::Read { path, source }),
            };
            planned.push((path, outcome, bytes));
        }
    }
    Error::check(problems)?;
    Ok(planned)
}

/// Refuses to read or write through a symbolic link, at `path` or any folder between it and
/// the content folder: it may lead out of the content folder.
fn refuse_link(content: &Path, path: &Path) -> Result<()> {
    let linked = path
        .ancestors()
        .take_while(|folder| *folder != content && folder.starts_with(content))
        .find(|folder| std::fs::symlink_metadata(folder).is_ok_and(|m| m.file_type().is_symlink()));
    match linked {
        Some(link) => Err(Error::Invalid(Problems::new(vec![Problem::file(
            link,
            "is a symbolic link; import reads and writes only inside the content folder itself",
        )]))),
        None => Ok(()),
    }
}

/// Builds the org as it would be after the import, in a temporary copy, so that what only
/// shows among all of its entries (an id another file already has, tags that would share a
/// page, too many tags) is refused before anything is written. Problems name the real files.
fn check_in_org(planned: &[Planned], options: &Options<'_>) -> Result<()> {
    let temporary = tempfile::tempdir().map_err(|source| Error::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let staged = temporary.path().join("content");
    let folder = options.content.join(options.org);
    let copy_error = |path: &Path, source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    for file in walkdir::WalkDir::new(&folder).into_iter().flatten() {
        let relative = file
            .path()
            .strip_prefix(options.content)
            .unwrap_or(file.path());
        let target = staged.join(relative);
        if file.file_type().is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| copy_error(&target, e))?;
        } else if file.file_type().is_file() {
            std::fs::copy(file.path(), &target).map_err(|e| copy_error(&target, e))?;
        }
    }
    scaffold::new_org(&staged, options.org)?;
    for (path, outcome, text) in planned {
        if matches!(outcome, Outcome::Added | Outcome::Updated) {
            let relative = path.strip_prefix(options.content).unwrap_or(path);
            let target = staged.join(relative);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| copy_error(parent, e))?;
            }
            std::fs::write(&target, text).map_err(|e| copy_error(&target, e))?;
        }
    }
    let org = options.org;
    match crate::content::load_orgs(&staged, &SiteConfig::default(), |slug| slug == org) {
        Ok(_) => Ok(()),
        Err(Error::Invalid(found)) => Err(Error::Invalid(Problems::new(
            found
                .as_slice()
                .iter()
                .map(|problem| Problem {
                    path: options
                        .content
                        .join(problem.path.strip_prefix(&staged).unwrap_or(&problem.path)),
                    message: format!(
                        "after the import: {}",
                        problem.message.replace(
                            &staged.to_string_lossy().into_owned(),
                            &options.content.to_string_lossy()
                        )
                    ),
                    ..problem.clone()
                })
                .collect(),
        ))),
        Err(other) => Err(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_keep_versions_readable() {
        assert_eq!(id_of("v1.2.0"), "v1.2.0");
        assert_eq!(id_of("1.2.0-beta.1+build.5"), "1.2.0-beta.1-build.5");
        assert_eq!(id_of("Release/2026 03"), "release-2026-03");
        assert_eq!(id_of("../../etc"), "etc");
        assert_eq!(id_of("Café déjà"), "cafe-deja");
        assert_eq!(id_of("///"), "");
        assert!(id_of(&"a".repeat(500)).len() <= slug::MAX_SEGMENT_BYTES);
    }
}
