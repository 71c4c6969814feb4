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
mod text;
mod yaml;

pub use config::SiteConfig;
pub use error::{Error, Problem, Problems, Result};

use std::path::Path;

use chrono::{DateTime, Utc};

/// Loads `content` and builds the static site into `output` as of `now`: what
/// `shiplog generate` does. Refuses an output folder that holds the content or the
/// working directory, since the build replaces the output folder as a whole.
pub fn generate(
    content: &Path,
    output: &Path,
    site: &SiteConfig,
    now: DateTime<Utc>,
) -> Result<render::Summary> {
    let index = content::load(content, site)?;
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
    render::build(&index, site, output, now)
}
