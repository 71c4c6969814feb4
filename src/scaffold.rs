//! `shiplog new`: a new entry file with its front matter filled in, and the org folder with
//! its `_org.yaml` when the org is new.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use crate::config::SiteConfig;
use crate::content::{check_id, parse_date, OrgSettings};
use crate::error::{Error, Result};
use crate::slug;
use crate::yaml;

/// What `shiplog new` is asked to make.
pub struct NewEntry<'a> {
    /// The content folder.
    pub content: &'a Path,
    /// The org's slug; its folder is made when it is new.
    pub org: &'a str,
    /// The entry's title; the file is named after it.
    pub title: &'a str,
    /// The entry's tags.
    pub tags: Vec<String>,
    /// The entry's `date` as the user wrote it; the current time when absent.
    pub date: Option<&'a str>,
    /// Make `<id>/index.md`, a folder that can hold the entry's images, instead of `<id>.md`.
    pub bundle: bool,
    /// Mark the entry as a draft.
    pub draft: bool,
}

/// What `shiplog new` made.
pub struct Created {
    /// The new entry file.
    pub path: PathBuf,
    /// The `_org.yaml` of a new org, when one was made.
    pub org_settings: Option<PathBuf>,
}

#[derive(Serialize)]
struct FrontMatter<'a> {
    title: &'a str,
    date: String,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    tags: &'a [String],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    draft: bool,
}

#[derive(Serialize)]
struct OrgFile<'a> {
    title: &'a str,
    description: &'a str,
    language: &'a str,
}

/// Creates the entry (and the org folder when new). Never overwrites a file.
pub fn new_entry(request: &NewEntry<'_>, now: DateTime<Utc>) -> Result<Created> {
    slug::check_org(request.org).map_err(Error::Usage)?;
    let title = request.title.trim();
    if title.is_empty() || title.chars().any(char::is_control) {
        return Err(Error::Usage("the title must be one non-empty line".into()));
    }
    let id = slug::of_title(title);
    if id.is_empty() {
        return Err(Error::Usage(format!(
            "the title `{title}` has no letters or digits to name the file after"
        )));
    }
    check_id(&id).map_err(|e| Error::Usage(format!("{e}; choose another title")))?;
    let date = match request.date {
        Some(text) => {
            parse_date(text).map_err(Error::Usage)?;
            text.trim().to_string()
        }
        None => now.to_rfc3339_opts(SecondsFormat::Secs, true),
    };
    if let Some(tag) = request
        .tags
        .iter()
        .find(|t| t.chars().any(char::is_control))
    {
        return Err(Error::Usage(format!("tag {tag:?} must be one line")));
    }

    let folder = request.content.join(request.org);
    let (flat, bundled) = (
        folder.join(format!("{id}.md")),
        folder.join(&id).join("index.md"),
    );
    if let Some(existing) = [&flat, &bundled].into_iter().find(|p| p.exists()) {
        return Err(Error::Usage(format!(
            "refusing to overwrite {}: choose another title",
            existing.display()
        )));
    }
    let path = if request.bundle { bundled } else { flat };

    let org_settings = new_org(request.content, request.org)?;

    let front_matter = yaml::to_string(&FrontMatter {
        title,
        date,
        tags: &request.tags,
        draft: request.draft,
    });
    let text = format!("---\n{front_matter}---\n{PLACEHOLDER}\n");
    write_new(&path, &text)?;
    Ok(Created { path, org_settings })
}

/// Makes the folder of org `org` with an `_org.yaml` of the defaults, unless the folder
/// exists; gives the new `_org.yaml`.
pub fn new_org(content: &Path, org: &str) -> Result<Option<PathBuf>> {
    let folder = content.join(org);
    if folder.exists() {
        return Ok(None);
    }
    let settings_path = folder.join("_org.yaml");
    let defaults = OrgSettings::defaults(org, &SiteConfig::default());
    let settings = yaml::to_string(&OrgFile {
        title: &defaults.title,
        description: &defaults.description,
        language: &defaults.language,
    });
    write_new(&settings_path, &settings)?;
    Ok(Some(settings_path))
}

/// The line a new entry's text starts as: `check` warns while an entry still holds it, so
/// that it is never published.
pub const PLACEHOLDER: &str = "Describe the change: what is new, who it is for, and how to use it.";

/// Creates `path` (and its folders) with `bytes`; fails if it exists.
pub fn write_new(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    let write_error = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(write_error)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|source| {
            if source.kind() == std::io::ErrorKind::AlreadyExists {
                Error::Usage(format!("refusing to overwrite {}", path.display()))
            } else {
                write_error(source)
            }
        })?;
    file.write_all(bytes.as_ref()).map_err(write_error)
}
