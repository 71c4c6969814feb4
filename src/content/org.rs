//! Organizations: slug rules and the settings of `_org.yaml`.

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;

use chrono_tz::Tz;

use super::channels::{self, Channel, ChannelKind};
use crate::color::Color;
use crate::config::SiteConfig;
use crate::error::Problem;
use crate::locale;
use crate::text;
use crate::yaml::{self, Mapping};

/// The keys `_org.yaml` may have.
pub const KEYS: &[&str] = &[
    "title",
    "description",
    "language",
    "feed_limit",
    "page_size",
    "theme",
    "accent_color",
    "embed_origins",
    "website",
    "logo",
    "timezone",
    "noindex",
    "strings",
    "announce",
];

/// An organization's settings, with every default filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgSettings {
    /// The changelog's title.
    pub title: String,
    /// One line about the changelog, for the feeds and pages.
    pub description: String,
    /// BCP 47 language tag.
    pub language: String,
    /// Items per feed, newest first.
    pub feed_limit: usize,
    /// Entries per HTML page.
    pub page_size: usize,
    /// The theme of the org's pages (the site's unless `_org.yaml` names one).
    pub theme: String,
    /// The org's brand colour, for links, tags and focus rings (the theme's own if unset).
    pub accent_color: Option<Color>,
    /// The origins whose pages may embed the changelog in a frame (`frame-ancestors`);
    /// empty means any.
    pub embed_origins: Vec<String>,
    /// The org's main site, against which root-relative links in entries resolve (the
    /// org's own address when unset).
    pub website: Option<String>,
    /// The org's logo: header, favicon, feed icons.
    pub logo: Option<Logo>,
    /// Where the day shown on pages is taken (feeds and the API stay in UTC).
    pub timezone: Tz,
    /// Whether search engines are asked to stay away (no sitemap, `noindex` pages).
    pub noindex: bool,
    /// Words of the pages in place of the language's own, by key of [`locale::KEYS`].
    pub strings: BTreeMap<String, String>,
    /// The channels `shiplog announce` tells of new entries (`announce:`).
    pub channels: Vec<Channel>,
}

impl OrgSettings {
    /// The WebSub hubs of the org's `websub` channels, which its feeds name.
    pub fn hubs(&self) -> impl Iterator<Item = &str> {
        self.channels
            .iter()
            .filter_map(|channel| match &channel.kind {
                ChannelKind::WebSub { hub } => Some(hub.as_str()),
                _ => None,
            })
    }
}

/// An org's `logo`: a file of its folder, or an https address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Logo {
    /// A path relative to the org folder (checked to be an image when the org loads).
    File(String),
    /// An `https://` address.
    Url(String),
}

impl OrgSettings {
    /// The settings of an org without `_org.yaml`.
    pub fn defaults(slug: &str, site: &SiteConfig) -> Self {
        let name = display_name(slug);
        OrgSettings {
            title: format!("{name} changelog"),
            description: format!("The latest product updates from {name}."),
            language: "en".to_string(),
            feed_limit: site.feed_limit,
            page_size: site.page_size,
            theme: site.theme.clone(),
            accent_color: None,
            embed_origins: Vec::new(),
            website: None,
            logo: None,
            timezone: Tz::UTC,
            noindex: false,
            strings: BTreeMap::new(),
            channels: Vec::new(),
        }
    }

    /// Reads `_org.yaml` over the defaults, with the warnings it gives; `file` finds a file
    /// of the org folder by its path there, or says why it may not be the `logo`.
    pub fn parse(
        path: &Path,
        bytes: &[u8],
        slug: &str,
        site: &SiteConfig,
        file: impl Fn(&str) -> Option<Result<PathBuf, String>>,
    ) -> Result<(Self, Vec<Problem>), Vec<Problem>> {
        let text = text::decode_utf8(path, bytes).map_err(|p| vec![p])?;
        let map = yaml::parse_mapping(path, text, 1).map_err(|p| vec![p])?;
        let mut problems = Vec::new();
        map.reject_unknown_keys(KEYS, &mut problems);
        let defaults = OrgSettings::defaults(slug, site);
        let settings = OrgSettings {
            title: map.string("title", &mut problems).unwrap_or(defaults.title),
            description: map
                .string("description", &mut problems)
                .unwrap_or(defaults.description),
            language: map
                .string("language", &mut problems)
                .unwrap_or(defaults.language),
            feed_limit: map
                .positive_integer("feed_limit", &mut problems)
                .unwrap_or(defaults.feed_limit),
            page_size: map
                .positive_integer("page_size", &mut problems)
                .unwrap_or(defaults.page_size),
            theme: map.string("theme", &mut problems).unwrap_or(defaults.theme),
            accent_color: read_accent_color(&map, &mut problems),
            embed_origins: map
                .string_list("embed_origins", &mut problems)
                .unwrap_or_default(),
            website: read_website(&map, &mut problems),
            logo: read_logo(&map, &mut problems),
            timezone: read_timezone(&map, &mut problems),
            noindex: map.bool("noindex", &mut problems).unwrap_or(false),
            strings: BTreeMap::new(),
            channels: Vec::new(),
        };
        let mut settings = settings;
        let mut warnings = Vec::new();
        settings.strings = read_strings(&map, text, &mut problems, &mut warnings);
        settings.channels = channels::read(&map, text, &mut problems);
        // The defaults, in the org's language.
        let words = locale::Words::new(&settings.language, &settings.strings);
        let name = display_name(slug);
        let org = [("org", name.as_str())];
        if map.get("title").is_none() {
            settings.title = words.get("title", &org);
        }
        if map.get("description").is_none() {
            settings.description = words.get("description", &org);
        }
        if let Some(field) = map.get("language") {
            if is_language_tag(&settings.language) && !locale::has_words(&settings.language) {
                warnings.push(map.problem(
                    field,
                    format!(
                        "shiplog has no words of its own in `{}`: pages show English words unless `strings:` gives them",
                        settings.language
                    ),
                ));
            }
        }
        settings.check(&map, site, &mut problems);
        if let (Some(Logo::File(logo)), Some(field)) = (&settings.logo, map.get("logo")) {
            let found = match file(logo) {
                Some(Ok(source)) => super::images::size(&source).err(),
                Some(Err(message)) => Some(message),
                None => Some(format!("`{logo}` is not a file of the org folder")),
            };
            if let Some(message) = found {
                problems.push(map.problem(field, format!("`logo`: {message}")));
            }
        }
        if problems.is_empty() {
            Ok((settings, warnings))
        } else {
            Err(problems)
        }
    }

    /// Checks the values read from `map` that have rules of their own.
    fn check(&self, map: &Mapping<'_>, site: &SiteConfig, problems: &mut Vec<Problem>) {
        if let Some(field) = map.get("embed_origins") {
            for origin in self.embed_origins.iter().filter(|o| !is_embed_origin(o)) {
                problems.push(map.problem(
                    field,
                    format!("`{origin}` is not an origin: use `*`, `'self'` or an address like `https://www.example.com`"),
                ));
            }
        }
        if let Some(field) = map.get("title") {
            if field.value.as_str().is_some_and(|t| t.trim().is_empty()) {
                problems.push(map.problem(field, "`title` must not be empty"));
            }
        }
        for key in ["title", "description"] {
            if let Some(field) = map.get(key) {
                let value = field.value.as_str().unwrap_or_default();
                // A title is one line wherever it shows: a tab's name, a feed reader's list.
                let one_line = key == "title";
                if let Some(wrong) = forbidden_char(value, one_line) {
                    problems.push(map.problem(field, format!("`{key}` {wrong}")));
                }
            }
        }
        if let Some(field) = map.get("language") {
            if !is_language_tag(&self.language) {
                problems.push(map.problem(
                    field,
                    "`language` must be a BCP 47 tag like `en`, `de` or `pt-BR`, of 35 characters at most",
                ));
            }
        }
        if let Some(field) = map.get("theme") {
            if let Err(message) = site.check_theme(&self.theme) {
                problems.push(map.problem(field, message));
            }
        }
        if let Some(field) = map.get("accent_color") {
            if field.value.is_string() && self.accent_color.is_none() {
                problems.push(map.problem(
                    field,
                    "`accent_color` must be a colour like \"#6e56cf\" or \"#f60\"",
                ));
            }
        }
    }
}

/// `strings`: words in place of the language's own. A key shiplog does not know, or a word
/// that leaves out the number it is for, is a warning: the page still reads.
fn read_strings(
    map: &Mapping<'_>,
    text: &str,
    problems: &mut Vec<Problem>,
    warnings: &mut Vec<Problem>,
) -> BTreeMap<String, String> {
    let mut strings = BTreeMap::new();
    for word in map
        .string_map(text, "strings", problems)
        .unwrap_or_default()
    {
        let at = |message: String| map.problem_at(word.line, word.column, message);
        if !locale::KEYS.contains(&word.key.as_str()) {
            warnings.push(at(format!(
                "`strings` has no word `{}`; the words are: {}",
                word.key,
                locale::KEYS.join(", ")
            )));
            continue;
        }
        if let Some(wrong) = forbidden_char(&word.value, true) {
            problems.push(at(format!("`strings.{}` {wrong}", word.key)));
            continue;
        }
        if let Some(wrong) = locale::check_word(&word.key, &word.value) {
            warnings.push(at(format!("`strings.{}` {wrong}", word.key)));
        }
        strings.insert(word.key, word.value);
    }
    strings
}

/// Why `value` may not be shown: a control character (a line break too when it must be
/// `one_line`), or a bidirectional embedding, override or isolate, which would turn the text
/// after it on the page around. The marks (U+200E, U+200F, U+061C) are allowed.
fn forbidden_char(value: &str, one_line: bool) -> Option<String> {
    let wrong = value.chars().find(|&c| {
        (text::is_unwritable(c) && (one_line || c != '\n'))
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    })?;
    Some(match wrong {
        '\n' => "must be one line".to_string(),
        c if c.is_control() => format!("must not hold control characters ({})", text::describe_char(c)),
        c => format!(
            "must not hold {}, a bidirectional control: it would turn the page's text after it around",
            text::describe_char(c)
        ),
    })
}

/// `accent_color`, when it is a colour; an empty one is a problem (an unquoted `#` starts a
/// YAML comment), one that is not a colour is found by [`OrgSettings::check`].
fn read_accent_color(map: &Mapping<'_>, problems: &mut Vec<Problem>) -> Option<Color> {
    match map.get("accent_color") {
        Some(field) if field.value.is_null() => {
            problems.push(map.problem(
                field,
                "`accent_color` is empty: put the colour in quotes, like `accent_color: \"#6e56cf\"` (an unquoted # starts a YAML comment)",
            ));
            None
        }
        _ => map
            .string("accent_color", problems)
            .and_then(|text| Color::parse_hex(text.trim())),
    }
}

/// `website`: an http(s) address, kept without a trailing `/`.
fn read_website(map: &Mapping<'_>, problems: &mut Vec<Problem>) -> Option<String> {
    let website = map.string("website", problems)?;
    let field = map.get("website")?;
    match url::Url::parse(website.trim()) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {
            Some(url.as_str().trim_end_matches('/').to_string())
        }
        _ => {
            problems.push(map.problem(
                field,
                format!("`website` must be an http(s) address like `https://www.example.com`, not `{website}`"),
            ));
            None
        }
    }
}

/// `logo`: an https address, or a path inside the org folder (whether that file is there
/// and is an image is checked when the org's files are known).
fn read_logo(map: &Mapping<'_>, problems: &mut Vec<Problem>) -> Option<Logo> {
    let logo = map.string("logo", problems)?;
    let field = map.get("logo")?;
    let logo = logo.trim();
    let problem = if logo.contains("://") || logo.starts_with("//") {
        match url::Url::parse(logo) {
            Ok(url) if url.scheme() == "https" && url.host().is_some() => {
                return Some(Logo::Url(url.to_string()))
            }
            _ => format!(
                "`logo` must be a file of the org folder or an https:// address, not `{logo}`"
            ),
        }
    } else if logo.is_empty()
        || logo.starts_with('/')
        || logo.contains('\\')
        || logo
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
    {
        format!("`logo` must be a path inside the org folder like `logo.png` (no `/` at the start, no `..`), or an https:// address; not `{logo}`")
    } else {
        return Some(Logo::File(logo.to_string()));
    };
    problems.push(map.problem(field, problem));
    None
}

/// `timezone`: an IANA name like `Europe/Berlin`.
fn read_timezone(map: &Mapping<'_>, problems: &mut Vec<Problem>) -> Tz {
    let Some(name) = map.string("timezone", problems) else {
        return Tz::UTC;
    };
    match name.trim().parse::<Tz>() {
        Ok(zone) => zone,
        Err(_) => {
            if let Some(field) = map.get("timezone") {
                problems.push(map.problem(
                    field,
                    format!("`{name}` is not a time zone: use an IANA name like `Europe/Berlin`, `America/New_York` or `UTC`"),
                ));
            }
            Tz::UTC
        }
    }
}

/// The slug's words capitalized: `my-org` → `My Org`.
fn display_name(slug: &str) -> String {
    slug.split('-')
        .filter(|w| !w.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `*`, `'self'`, or an http(s) origin: scheme, host and optional port, nothing more.
fn is_embed_origin(origin: &str) -> bool {
    if origin == "*" || origin == "'self'" {
        return true;
    }
    url::Url::parse(origin).is_ok_and(|url| {
        matches!(url.scheme(), "http" | "https")
            && url.host().is_some()
            && url.origin().ascii_serialization() == origin
    })
}

/// A BCP 47 tag's shape (RFC 5646): a language of 2 to 8 letters, or `x` (private use) or
/// `i` (grandfathered) with subtags, then subtags of 1 to 8 letters and digits; 35
/// characters at most, the length RFC 5646 asks every implementation to take.
fn is_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let primary = parts.next().unwrap_or_default();
    let singleton = matches!(primary, "x" | "X" | "i" | "I") && tag.len() > 2;
    tag.len() <= 35
        && ((2..=8).contains(&primary.len()) || singleton)
        && primary.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theme_and_accent_color_are_checked() {
        let path = Path::new("content/acme/_org.yaml");
        let site = SiteConfig::default();
        let (settings, _) = OrgSettings::parse(
            path,
            b"accent_color: \"#6E56CF\"\ntheme: default\n",
            "acme",
            &site,
            |_| None,
        )
        .unwrap();
        assert_eq!(settings.accent_color, Color::parse_hex("#6e56cf"));
        assert_eq!(settings.theme, "default");
        let problems = OrgSettings::parse(
            path,
            b"accent_color: \"red; } body { display: none\"\ntheme: missing\n",
            "acme",
            &site,
            |_| None,
        )
        .unwrap_err();
        let mut text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        text.sort();
        assert!(
            text[0].starts_with("content/acme/_org.yaml:1:15: `accent_color` must be a colour"),
            "{text:?}"
        );
        assert!(
            text[1].starts_with("content/acme/_org.yaml:2:8: unknown theme `missing`"),
            "{text:?}"
        );
    }

    #[test]
    fn language_tags_take_rfc_5646_shapes_up_to_35_characters() {
        for good in [
            "en",
            "pt-BR",
            "zh-Hans-CN",
            "x-klingon",
            "i-navajo",
            "de-CH-1901",
        ] {
            assert!(is_language_tag(good), "{good}");
        }
        let long = format!("en-{}", ["abcdefgh"; 4].join("-"));
        for bad in [
            "",
            "e",
            "x",
            "x-",
            "english!",
            "en--US",
            "en-abcdefghi",
            long.as_str(),
        ] {
            assert!(!is_language_tag(bad), "{bad}");
        }
    }

    #[test]
    fn titles_and_words_refuse_what_would_turn_the_page_around() {
        assert_eq!(forbidden_char("Acme \u{200F}news", true), None);
        assert_eq!(forbidden_char("two\nlines", false), None);
        assert_eq!(
            forbidden_char("two\nlines", true).unwrap(),
            "must be one line"
        );
        let wrong = forbidden_char("evil\u{202E}txt", true).unwrap();
        assert!(wrong.contains("U+202E"), "{wrong}");
        let wrong = forbidden_char("bell\u{7}", false).unwrap();
        assert!(wrong.contains("U+0007"), "{wrong}");
    }

    #[test]
    fn default_title_is_in_the_org_language() {
        let site = SiteConfig::default();
        let path = Path::new("content/acme/_org.yaml");
        let (settings, _) =
            OrgSettings::parse(path, b"language: de\n", "my-org", &site, |_| None).unwrap();
        assert_eq!(settings.title, "Neuigkeiten von My Org");
    }

    #[test]
    fn default_title_capitalizes_words() {
        let settings = OrgSettings::defaults("my-org", &SiteConfig::default());
        assert_eq!(settings.title, "My Org changelog");
    }
}
