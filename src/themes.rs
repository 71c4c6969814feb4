//! Themes read from disk: each theme an org uses, its folder's templates read once and
//! compiled over the built-in ones (see [`Theme::new`]). The one place a theme folder is read,
//! so that rendering never touches the disk.

use std::collections::HashMap;
use std::path::Path;

use crate::config::DEFAULT_THEME;
use crate::error::{Error, Result};
use crate::render::{Theme, Themes};
use crate::text;

/// Reads and compiles the themes `names` (repeats allowed), looking them up in `themes_dir`;
/// the built-in theme is in the binary.
pub fn load<'a>(names: impl IntoIterator<Item = &'a str>, themes_dir: &Path) -> Result<Themes> {
    let mut themes = HashMap::new();
    for name in names {
        if themes.contains_key(name) {
            continue;
        }
        let theme = if name == DEFAULT_THEME {
            Theme::new(None)?
        } else {
            let folder = themes_dir.join(name);
            let templates = read_templates(&folder)?;
            Theme::new(Some((&folder, templates)))?
        };
        themes.insert(name.to_string(), theme);
    }
    Ok(Themes::new(themes))
}
/// The files of a theme folder that are templates; any other file is ignored.
const TEMPLATE_EXTENSIONS: &[&str] = &["html", "css", "js"];

/// The template files of a theme folder, in any sub-folder, named by their path with `/`.
/// Names starting with `.` are skipped.
fn read_templates(folder: &Path) -> Result<Vec<(String, String)>> {
    let mut templates = Vec::new();
    let walker = walkdir::WalkDir::new(folder)
        .follow_links(true)
        .sort_by_file_name()
        .min_depth(1)
        .into_iter()
        .filter_entry(|item| !item.file_name().to_string_lossy().starts_with('.'));
    for item in walker {
        let item = item.map_err(|e| Error::Read {
            path: e.path().unwrap_or(folder).to_path_buf(),
            source: e.into(),
        })?;
        let path = item.path();
        let is_template = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| TEMPLATE_EXTENSIONS.contains(&e));
        if !item.file_type().is_file() || !is_template {
            continue;
        }
        let bytes = std::fs::read(path).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let text = text::decode_utf8(path, &bytes)?;
        let name = path
            .strip_prefix(folder)
            .expect("walked from the folder")
            .iter()
            .map(|part| part.to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        templates.push((name, text.to_string()));
    }
    Ok(templates)
}
