//! `shiplog generate`: the content folder in, the static tree out. An org unchanged since
//! the build before (see [`cache`]) keeps its files as they are; the others are parsed,
//! rendered in parallel and written through an [`OutputTree`], one org at a time in memory.

mod cache;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use rayon::prelude::*;

use crate::content;
use crate::error::{Error, Result};
use crate::render::{self, OutputTree, Summary, Themes};
use cache::{Manifest, OrgRecord};

/// What to build, from where, into where.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The content folder: one sub-folder per organization.
    pub content: PathBuf,
    /// The site settings file.
    pub config: PathBuf,
    /// Whether a missing `config` is an error (rather than all defaults).
    pub config_required: bool,
    /// The output folder, which the build replaces.
    pub output: PathBuf,
    /// The time the build is as of: what is scheduled until then is published.
    pub now: DateTime<Utc>,
    /// Keep the files of orgs unchanged since the last build (remembered beside `output`).
    pub incremental: bool,
}

/// Builds the static site. `progress` hears `(orgs done, orgs in all)` after each org.
/// Refuses an output folder that holds the content or the working directory, since the
/// build replaces the output folder as a whole.
pub fn run(settings: &Settings, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<Summary> {
    refuse_output_holding(&settings.content, &settings.output)?;
    let now = settings.now;
    let (site, config_problems) = crate::read_config(&settings.config, settings.config_required)?;
    let scan = content::scan(&settings.content, &site)?;
    let themes = Themes::load(
        scan.orgs().iter().map(|org| org.settings.theme.as_str()),
        &site.themes_dir,
    );

    let cache_path = Manifest::path_for(&settings.output);
    let previous = match settings.incremental {
        true => Manifest::read(&cache_path),
        false => Manifest::default(),
    };
    let tree = OutputTree::open(&settings.output)?;
    let mut keys = HashMap::new();
    let mut reused = HashMap::new();
    if let (Ok(themes), true) = (&themes, config_problems.is_empty() && scan.is_clean()) {
        let found: Vec<(String, Option<String>)> = scan
            .orgs()
            .par_iter()
            .map(|org| {
                let theme = themes.get(&org.settings.theme);
                (org.slug.clone(), cache::org_key(org, &site, theme))
            })
            .collect();
        for (slug, key) in found {
            let Some(key) = key else { continue };
            if let Some(record) = previous.reusable(&slug, &key, now, &tree) {
                reused.insert(slug.clone(), record.clone());
            }
            keys.insert(slug, key);
        }
    }
    let headers = render::headers_file(
        scan.orgs()
            .iter()
            .map(|org| (org.slug.as_str(), &org.settings)),
    );
    let total = scan.orgs().len();
    let index = crate::with_config_problems(
        config_problems,
        scan.load(|org| !reused.contains_key(&org.slug)),
    )?;
    let themes = themes?;

    // The cache describes the output as it is; from here on that changes.
    remove_if_present(&cache_path)?;
    let done = AtomicUsize::new(0);
    // `_headers`, and the files of each org.
    let mut files = 1;
    for record in reused.values() {
        for (path, _) in &record.files {
            tree.keep(path);
        }
        files += record.files.len();
        progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
    }
    let built = Mutex::new(Vec::new());
    render::render_each(&index, &themes, now, |org, org_files| {
        for (path, bytes) in &org_files {
            tree.put(path, bytes)?;
        }
        if let Some(key) = keys.get(&org.slug) {
            let record = OrgRecord::new(key.clone(), org, now, &org_files);
            built
                .lock()
                .expect("no builder panics holding the lock")
                .push((org.slug.clone(), record));
        }
        progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        Ok(())
    })?;
    tree.put(&headers.0, &headers.1)?;
    let changes = tree.commit()?;

    let built = built.into_inner().expect("no builder panicked");
    files += built
        .iter()
        .map(|(_, record)| record.files.len())
        .sum::<usize>();
    let summary = Summary {
        orgs: total,
        entries: reused
            .values()
            .chain(built.iter().map(|(_, r)| r))
            .map(|r| r.entries)
            .sum(),
        files,
        reused: reused.len(),
        changes,
    };
    if settings.incremental {
        // A cache that cannot be written only makes the next build a full one.
        let _ = Manifest::new(reused.into_iter().chain(built)).write(&cache_path);
    }
    Ok(summary)
}

/// The build replaces `output` as a whole: it may not hold the content or the working
/// directory.
fn refuse_output_holding(content: &Path, output: &Path) -> Result<()> {
    let Ok(output_real) = output.canonicalize() else {
        return Ok(());
    };
    let content_real = content.canonicalize().unwrap_or_default();
    let cwd = std::env::current_dir().unwrap_or_default();
    if content_real.starts_with(&output_real) || cwd.starts_with(&output_real) {
        return Err(Error::Usage(format!(
            "refusing to replace output folder {}: it holds the content folder or the working directory",
            output.display()
        )));
    }
    Ok(())
}

fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Write {
            path: path.to_path_buf(),
            source: e,
        }),
        _ => Ok(()),
    }
}
