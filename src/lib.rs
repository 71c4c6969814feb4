//! shiplog: a folder of Markdown changelog entries in, embeddable HTML pages, RSS and JSON
//! feeds (and an authenticated REST listing) out.
//!
//! Data flows one way: files → [`content::Index`] → one [`build::Build`] → outputs
//! ([`render`] into [`output`]; [`api`] and [`serve`] over HTTP). This file only lists the
//! modules.

pub mod announce;
pub mod api;
mod atomic;
pub mod build;
pub mod color;
pub mod config;
pub mod content;
mod digest;
pub mod error;
mod html;
pub mod import;
pub mod keys;
pub mod locale;
pub mod media;
pub mod output;
pub mod render;
pub mod scaffold;
pub mod serve;
mod server;
pub mod slug;
pub mod text;
pub mod themes;
mod watch;
pub mod words;
mod yaml;

pub use build::{Build, Mode, Report, Sources};
pub use config::SiteConfig;
pub use error::{Error, Problem, Problems, Result};
