//! Site settings from `shiplog.yaml`; every key has a default.

use std::path::{Path, PathBuf};

use url::Url;

use crate::error::{Error, Result};
use crate::{text, yaml};

/// Default template of an organization's public address.
pub const DEFAULT_ORG_URL: &str = "http://{org}.localhost:8080";
/// Default address of the API host.
pub const DEFAULT_BASE_URL: &str = "http://localhost:8081";
/// Default number of items per feed.
pub const DEFAULT_FEED_LIMIT: usize = 50;
/// Default number of entries per HTML page.
pub const DEFAULT_PAGE_SIZE: usize = 20;
/// The built-in theme: compiled into the binary, and the one every other theme falls back to.
pub const DEFAULT_THEME: &str = "default";
/// The folder, beside the config file, that holds the themes a site or org may choose.
pub const THEMES_FOLDER: &str = "themes";

const KEYS: &[&str] = &["org_url", "base_url", "feed_limit", "page_size", "theme"];

/// The site settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteConfig {
    /// Template of an organization's address; `{org}` stands for the slug. No trailing `/`.
    pub org_url: String,
    /// Address of the API host.
    pub base_url: String,
    /// Items per feed, newest first (an org may override it).
    pub feed_limit: usize,
    /// Entries per HTML page (an org may override it).
    pub page_size: usize,
    /// Theme of the pages (an org may override it): [`DEFAULT_THEME`] or a folder of
    /// `themes_dir`.
    pub theme: String,
    /// Where themes are looked up: `themes/` beside the config file (which need not exist).
    pub themes_dir: PathBuf,
}

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            org_url: DEFAULT_ORG_URL.to_string(),
            base_url: DEFAULT_BASE_URL.to_string(),
            feed_limit: DEFAULT_FEED_LIMIT,
            page_size: DEFAULT_PAGE_SIZE,
            theme: DEFAULT_THEME.to_string(),
            themes_dir: PathBuf::from(THEMES_FOLDER),
        }
    }
}

/// The largest `shiplog.yaml` read: settings take a few hundred bytes, and a file that never
/// ends (`--config /dev/zero`) must not hang the command.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

impl SiteConfig {
    /// Reads the settings from `path`. A missing file gives the defaults unless
    /// `must_exist` (the user named the file), when it is a usage error.
    pub fn load(path: &Path, must_exist: bool) -> Result<SiteConfig> {
        match text::read_limited(path, MAX_CONFIG_BYTES) {
            Ok(bytes) => SiteConfig::parse(path, text::decode_utf8(path, &bytes)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => {
                Ok(SiteConfig::default())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::Usage(format!(
                "config file {} does not exist",
                path.display()
            ))),
            Err(source) => Err(Error::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses the text of a `shiplog.yaml`; its themes are looked up beside `path`.
    pub fn parse(path: &Path, text: &str) -> Result<SiteConfig> {
        let map = yaml::parse_mapping(path, text, 1)?;
        let mut problems = Vec::new();
        map.reject_unknown_keys(KEYS, &mut problems);
        let defaults = SiteConfig::default();
        let mut config = SiteConfig {
            org_url: map
                .string("org_url", &mut problems)
                .unwrap_or(defaults.org_url),
            base_url: map
                .string("base_url", &mut problems)
                .unwrap_or(defaults.base_url),
            feed_limit: map
                .positive_integer("feed_limit", &mut problems)
                .unwrap_or(defaults.feed_limit),
            page_size: map
                .positive_integer("page_size", &mut problems)
                .unwrap_or(defaults.page_size),
            theme: map.string("theme", &mut problems).unwrap_or(defaults.theme),
            themes_dir: path
                .parent()
                .unwrap_or_else(|| Path::new(""))
                .join(THEMES_FOLDER),
        };
        config.org_url = config.org_url.trim_end_matches('/').to_string();
        config.base_url = config.base_url.trim_end_matches('/').to_string();
        if let Some(field) = map.get("org_url") {
            if let Err(message) = check_org_url(&config.org_url) {
                problems.push(map.problem(field, message));
            }
        }
        if let Some(field) = map.get("base_url") {
            if !is_http_url(&config.base_url) {
                problems.push(map.problem(field, "`base_url` must be an absolute http(s) address"));
            }
        }
        if let Some(field) = map.get("theme") {
            if let Err(message) = config.check_theme(&config.theme) {
                problems.push(map.problem(field, message));
            }
        }
        Error::check(problems)?;
        Ok(config)
    }

    /// Checks that `name` is a theme the site can use: the built-in one, or a folder of
    /// `themes_dir`.
    pub fn check_theme(&self, name: &str) -> std::result::Result<(), String> {
        if name == DEFAULT_THEME {
            return Ok(());
        }
        let folder_name = !name.is_empty()
            && !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !folder_name {
            return Err(format!(
                "`{name}` is not a theme name: use the name of a folder of {} (letters, digits, `-`, `_`, `.`), or `{DEFAULT_THEME}`",
                self.themes_dir.display()
            ));
        }
        let folder = self.themes_dir.join(name);
        if folder.is_dir() {
            Ok(())
        } else {
            Err(format!(
                "unknown theme `{name}`: there is no folder {} (the built-in theme is `{DEFAULT_THEME}`)",
                folder.display()
            ))
        }
    }

    /// The public address of organization `slug`, without a trailing `/`.
    pub fn org_url(&self, slug: &str) -> String {
        self.org_url.replace("{org}", slug)
    }
}

fn check_org_url(template: &str) -> std::result::Result<(), String> {
    if !template.contains("{org}") {
        return Err(
            "`org_url` must contain `{org}`, which stands for the organization's slug".into(),
        );
    }
    if !is_http_url(&template.replace("{org}", "example")) {
        return Err(
            "`org_url` must be an absolute http(s) address, like `https://{org}.example.com`"
                .into(),
        );
    }
    // Every address of the site is made by appending to it, and written into feeds, pages
    // and robots.txt as it is: a blank would be written raw, a line break would start a new
    // line of robots.txt, and a query or fragment would end up in the middle of each address.
    if let Some(c) = template
        .chars()
        .find(|c| c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "`org_url` must not hold blanks or control characters (found {})",
            crate::text::describe_char(c)
        ));
    }
    if template.contains(['?', '#']) {
        return Err("`org_url` must not have a query (`?`) or a fragment (`#`): the pages and feeds go below it".into());
    }
    Ok(())
}

fn is_http_url(text: &str) -> bool {
    Url::parse(text).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let path = Path::new("shiplog.yaml");
        assert_eq!(SiteConfig::parse(path, "").unwrap(), SiteConfig::default());
        let config =
            SiteConfig::parse(path, "org_url: https://{org}.example.com/\nfeed_limit: 5\n")
                .unwrap();
        assert_eq!(config.org_url("acme"), "https://acme.example.com");
        assert_eq!(config.feed_limit, 5);
        assert_eq!(config.theme, DEFAULT_THEME);
        let nested = SiteConfig::parse(Path::new("site/shiplog.yaml"), "").unwrap();
        assert_eq!(nested.themes_dir, Path::new("site/themes"));
    }

    #[test]
    fn an_unknown_theme_is_located() {
        let path = Path::new("shiplog.yaml");
        for (yaml, message) in [
            ("theme: nope\n", "shiplog.yaml:1:8: unknown theme `nope`"),
            (
                "theme: ../x\n",
                "shiplog.yaml:1:8: `../x` is not a theme name",
            ),
        ] {
            let text = SiteConfig::parse(path, yaml).unwrap_err().to_string();
            assert!(text.starts_with(message), "{text}");
        }
    }

    #[test]
    fn bad_values_are_located() {
        let path = Path::new("shiplog.yaml");
        for (bad, message) in [
            (
                "\"https://example.com/x\\nDisallow: /\\n#/{org}\"",
                "control characters (found U+000A)",
            ),
            (
                "\"https://example.com/a b/{org}\"",
                "blanks or control characters (found U+0020)",
            ),
            (
                "https://example.com/{org}?v=1",
                "a query (`?`) or a fragment (`#`)",
            ),
            (
                "https://example.com/{org}#top",
                "a query (`?`) or a fragment (`#`)",
            ),
        ] {
            let err = SiteConfig::parse(path, &format!("org_url: {bad}\n")).unwrap_err();
            assert!(err.to_string().contains(message), "{bad}: {err}");
        }
        let err = SiteConfig::parse(path, "page_size: 0\norg_url: https://x.com\n").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("shiplog.yaml:1:12: `page_size`"), "{text}");
        assert!(
            text.contains("shiplog.yaml:2:10: `org_url` must contain"),
            "{text}"
        );
    }
}
