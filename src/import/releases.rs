//! GitHub Releases as `gh api repos/OWNER/REPO/releases --paginate` prints them (one JSON
//! array per page, one after the other) or `gh release list --json …` (camelCase names):
//! each release an entry, its id from the tag.

use std::path::Path;

use serde::Deserialize;

use super::{id_of, Imported, Skipped};
use crate::content::parse_date;
use crate::error::Problem;

/// The fields of a release shiplog reads, under either tool's names.
#[derive(Deserialize)]
struct Release {
    #[serde(alias = "tagName")]
    tag_name: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default, alias = "publishedAt")]
    published_at: Option<String>,
    #[serde(default, alias = "createdAt")]
    created_at: Option<String>,
    #[serde(default, alias = "isDraft")]
    draft: bool,
    #[serde(default, alias = "isPrerelease")]
    prerelease: bool,
}

/// Reads the releases in `text` (the file at `path`, or standard input) as entries. All
/// problems are returned together.
pub fn read(path: &Path, text: &str) -> Result<(Vec<Imported>, Skipped), Vec<Problem>> {
    let mut values = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>();
    loop {
        let start = stream.byte_offset();
        match stream.next() {
            None => break,
            Some(Ok(serde_json::Value::Array(items))) => {
                values.extend(items.into_iter().map(|item| (start, item)));
            }
            Some(Ok(item @ serde_json::Value::Object(_))) => values.push((start, item)),
            Some(Ok(_)) => {
                return Err(vec![Problem::at_offset(path, text, start, "expected the JSON array of releases that `gh api repos/OWNER/REPO/releases` prints")]);
            }
            Some(Err(e)) => {
                return Err(vec![Problem::new(
                    path,
                    e.line().max(1),
                    e.column().max(1),
                    format!("not JSON: {e}"),
                )]);
            }
        }
    }
    if values.is_empty() {
        return Err(vec![Problem::file(path, "holds no release")]);
    }
    let mut problems = Vec::new();
    let mut entries = Vec::new();
    let mut cursor = 0;
    for (index, (start, value)) in values.into_iter().enumerate() {
        let release: Release = match serde_json::from_value(value) {
            Ok(release) => release,
            Err(e) => {
                problems.push(Problem::at_offset(
                    path,
                    text,
                    start,
                    format!("release {}: {e}", index + 1),
                ));
                continue;
            }
        };
        // Where the release's tag is written, for problems and for `check`'s sake.
        let from = start.max(cursor);
        let offset = text[from..]
            .find(&format!("\"{}\"", release.tag_name))
            .map_or(from, |o| from + o + 1);
        cursor = offset;
        let here = |message: String| Problem::at_offset(path, text, offset, message);
        let date = [&release.published_at, &release.created_at]
            .into_iter()
            .flatten()
            // `gh release list` gives a draft the zero time as its publication.
            .find(|d| !d.starts_with("0001-"))
            .cloned();
        let Some(date) = date else {
            problems.push(here(format!(
                "release `{}` has neither `published_at` nor `created_at`",
                release.tag_name
            )));
            continue;
        };
        if let Err(message) = parse_date(&date) {
            problems.push(here(format!("release `{}`: {message}", release.tag_name)));
            continue;
        }
        let title = release
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .unwrap_or(&release.tag_name);
        entries.push(Imported {
            id: id_of(&release.tag_name),
            title: title.to_string(),
            date,
            updated: None,
            tags: if release.prerelease {
                vec!["prerelease".to_string()]
            } else {
                Vec::new()
            },
            draft: release.draft,
            summary: None,
            body: release
                .body
                .unwrap_or_default()
                .replace("\r\n", "\n")
                .replace('\r', "\n"),
            at: here(String::new()),
            assets: Vec::new(),
        });
    }
    if problems.is_empty() {
        Ok((entries, Vec::new()))
    } else {
        Err(problems)
    }
}
