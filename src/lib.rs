//! shiplog: a folder of Markdown changelog entries in, embeddable HTML pages, RSS and JSON
//! feeds (and an authenticated REST listing) out.
//!
//! Data flows one way: files → [`content::Index`] → outputs ([`render`], [`api`]).

pub mod api;
pub mod color;
pub mod config;
pub mod content;
mod digest;
pub mod error;
pub mod generate;
pub mod keys;
pub mod render;
pub mod scaffold;
pub mod serve;
mod server;
mod text;
mod watch;
mod yaml;

pub use config::SiteConfig;
pub use error::{Error, Problem, Problems, Result};

use std::path::Path;

use chrono::{DateTime, Utc};

/// Reads the site settings at `config` and the content folder together, reporting the
/// problems of both at once. A missing `config` gives the defaults unless `config_required`.
/// Every command that needs an index starts here.
pub fn load(
    content: &Path,
    config: &Path,
    config_required: bool,
) -> Result<(SiteConfig, content::Index)> {
    load_with(content, config, config_required, |_| {})
}

/// [`load`], with the settings adjusted by `adjust` before the content is read (the
/// preview server points `org_url` at itself this way).
pub fn load_with(
    content: &Path,
    config: &Path,
    config_required: bool,
    adjust: impl FnOnce(&mut SiteConfig),
) -> Result<(SiteConfig, content::Index)> {
    let (mut site, problems) = read_config(config, config_required)?;
    adjust(&mut site);
    let index = with_config_problems(problems, content::load(content, &site))?;
    Ok((site, index))
}

/// Reads the site settings; when they have problems, the defaults come with the problems,
/// so that the content can be read and its problems reported too.
fn read_config(config: &Path, config_required: bool) -> Result<(SiteConfig, Vec<Problem>)> {
    match SiteConfig::load(config, config_required) {
        Ok(site) => Ok((site, Vec::new())),
        Err(Error::Invalid(found)) => Ok((SiteConfig::default(), found.into_vec())),
        Err(other) => Err(other),
    }
}

/// `result` of reading the content, with the settings' `problems` reported first.
fn with_config_problems<T>(mut problems: Vec<Problem>, result: Result<T>) -> Result<T> {
    match result {
        Ok(value) => Error::check(problems).map(|()| value),
        Err(Error::Invalid(found)) => {
            problems.extend(found.into_vec());
            Err(Error::Invalid(Problems::new(problems)))
        }
        Err(other) => Err(other),
    }
}

/// Everything `generate` checks, without writing: loads the settings and content, and
/// renders every page and feed in memory, one org at a time (so theme errors show too).
pub fn check(
    content: &Path,
    config: &Path,
    config_required: bool,
    now: DateTime<Utc>,
) -> Result<content::Index> {
    let (site, index) = load(content, config, config_required)?;
    let themes = render::Themes::load(
        index.orgs().iter().map(|org| org.settings.theme.as_str()),
        &site.themes_dir,
    )?;
    render::render_each(&index, &themes, now, |_, _| Ok(()))?;
    Ok(index)
}
