//! shiplog: a folder of Markdown changelog entries in, embeddable HTML pages, RSS and JSON
//! feeds (and an authenticated REST listing) out.
//!
//! Data flows one way: files → [`content::Index`] → outputs ([`render`], [`api`]).

pub mod api;
pub mod color;
pub mod config;
pub mod content;
pub mod error;
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
    let (mut site, mut problems) = match SiteConfig::load(config, config_required) {
        Ok(site) => (site, Vec::new()),
        // Go on with the defaults, so the content's problems are reported too.
        Err(Error::Invalid(found)) => (SiteConfig::default(), found.into_vec()),
        Err(other) => return Err(other),
    };
    adjust(&mut site);
    match content::load(content, &site) {
        Ok(index) => Error::check(problems).map(|()| (site, index)),
        Err(Error::Invalid(found)) => {
            problems.extend(found.into_vec());
            Err(Error::Invalid(Problems::new(problems)))
        }
        Err(other) => Err(other),
    }
}

/// Everything `generate` checks, without writing: loads the settings and content, and
/// renders every page and feed in memory (so theme errors show too).
pub fn check(
    content: &Path,
    config: &Path,
    config_required: bool,
    now: DateTime<Utc>,
) -> Result<content::Index> {
    let (site, index) = load(content, config, config_required)?;
    let themes = render::Themes::load(&index, &site.themes_dir)?;
    render::render(&index, &themes, now)?;
    Ok(index)
}

/// Builds the static site from `index` into `output` as of `now`: what `shiplog generate`
/// does after [`load`]. Refuses an output folder that holds the content or the working
/// directory, since the build replaces the output folder as a whole.
pub fn generate(
    site: &SiteConfig,
    index: &content::Index,
    content: &Path,
    output: &Path,
    now: DateTime<Utc>,
) -> Result<render::Summary> {
    if let Ok(output_real) = output.canonicalize() {
        let content_real = content.canonicalize().unwrap_or_default();
        let cwd = std::env::current_dir().unwrap_or_default();
        if content_real.starts_with(&output_real) || cwd.starts_with(&output_real) {
            return Err(Error::Usage(format!(
                "refusing to replace output folder {}: it holds the content folder or the working directory",
                output.display()
            )));
        }
    }
    render::build(index, site, output, now)
}
