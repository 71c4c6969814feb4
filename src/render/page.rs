//! The HTML pages, rendered with tera from a theme's templates (each theme parsed once per
//! build): the pages of each listing (the changelog, a tag) and one page per entry.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use tera::{Context, Tera};

use super::{tags, FeedInfo, Listing};
use crate::color::Color;
use crate::config::DEFAULT_THEME;
use crate::content::{Entry, Image, Org};
use crate::error::{Error, Result};
use crate::locale::Words;
use crate::{digest, slug};

/// The built-in theme, `themes/default/`, compiled into the binary.
const DEFAULT_TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../themes/default/base.html")),
    (
        "changelog.html",
        include_str!("../../themes/default/changelog.html"),
    ),
    (
        "entry.html",
        include_str!("../../themes/default/entry.html"),
    ),
    (
        "article.html",
        include_str!("../../themes/default/article.html"),
    ),
    ("card.html", include_str!("../../themes/default/card.html")),
    ("style.css", include_str!("../../themes/default/style.css")),
    ("embed.js", include_str!("../../themes/default/embed.js")),
];

/// Room in a page's buffer beyond the entry HTML it shows: the inline style sheet and
/// script, the head, and the markup around each entry.
const PAGE_ROOM: usize = 16 * 1024;

/// The accent colour of an org that sets none.
const DEFAULT_ACCENT: Color = Color::rgb(0x25, 0x63, 0xeb);
/// WCAG's AA contrast for text.
const TEXT_CONTRAST: f64 = 4.5;

/// A colour scheme of the default theme, as far as the accent's shades depend on it.
struct Scheme {
    /// The page background.
    background: Color,
    /// How much of the accent the tint behind tags holds.
    tint: f64,
    /// Where the accent moves until it is readable: black on light pages, white on dark.
    toward: Color,
}

const LIGHT: Scheme = Scheme {
    background: Color::WHITE,
    tint: 0.12,
    toward: Color::BLACK,
};
const DARK: Scheme = Scheme {
    background: Color::rgb(0x0f, 0x11, 0x17),
    tint: 0.2,
    toward: Color::WHITE,
};

/// Parsed templates, ready to render any number of pages.
pub struct Theme {
    tera: Tera,
    /// Where the templates come from, for error messages: the theme's folder.
    label: String,
    /// SHA-256 of every template's name and text.
    fingerprint: [u8; 32],
}

/// What every page knows about its org.
#[derive(Serialize)]
struct OrgView<'a> {
    slug: &'a str,
    title: &'a str,
    description: &'a str,
    language: &'a str,
    /// The language as OpenGraph writes a locale: `pt_BR`.
    locale: String,
    url: &'a str,
    website: &'a str,
    changelog_url: &'a str,
    rss_url: &'a str,
    json_url: &'a str,
    atom_url: &'a str,
    /// The logo's address, if the org has one.
    logo: Option<&'a str>,
    /// The address of the page's icon: the logo, or else the org's `favicon.ico`.
    favicon: String,
    /// Asks search engines not to index the pages.
    noindex: bool,
    accent: Accent,
    /// `rtl` for a language written right to left, else `ltr`.
    dir: &'static str,
    /// The pages' words in the org's language (see [`Words`]).
    words: &'a Words,
}

/// How a page shows when its link is shared: OpenGraph and Twitter card values.
#[derive(Serialize)]
struct Card<'a> {
    title: &'a str,
    description: String,
    /// `website`, or `article` on an entry's page.
    kind: &'static str,
    image: Option<ImageView<'a>>,
    /// Whether the image is the page's own picture (shown large), not the org's logo.
    large_image: bool,
    /// On an entry's page: `YYYY-MM-DDTHH:MM:SSZ`.
    published: Option<String>,
    modified: Option<String>,
}

/// A picture with its size where known.
#[derive(Serialize)]
struct ImageView<'a> {
    url: &'a str,
    width: Option<usize>,
    height: Option<usize>,
}

impl<'a> ImageView<'a> {
    fn of(image: &'a Image) -> Self {
        ImageView {
            url: &image.url,
            width: image.size.map(|(width, _)| width),
            height: image.size.map(|(_, height)| height),
        }
    }

    fn logo(url: &'a str) -> Self {
        ImageView {
            url,
            width: None,
            height: None,
        }
    }
}

/// The org's accent colour and the shades of it that stay readable in each colour scheme.
#[derive(Serialize)]
pub(super) struct Accent {
    /// As set in `_org.yaml` (or the default), `#rrggbb`; for decoration only.
    color: String,
    pub(super) light: Shade,
    pub(super) dark: Shade,
}

/// The accent colour of `org`: its own, or the default.
pub(super) fn accent_color(org: &Org) -> Color {
    org.settings.accent_color.unwrap_or(DEFAULT_ACCENT)
}

impl Accent {
    /// The accent of `org` (or the default) and its readable shades.
    pub(super) fn of(org: &Org) -> Self {
        let accent = accent_color(org);
        Accent {
            color: accent.to_string(),
            light: Shade::new(accent, &LIGHT),
            dark: Shade::new(accent, &DARK),
        }
    }
}

/// The accent on one colour scheme's background.
#[derive(Serialize)]
pub(super) struct Shade {
    /// A tint of the accent, for the background of tags.
    pub(super) soft: String,
    /// The accent, darkened or lightened until it reads at 4.5:1 on the page and on `soft`.
    pub(super) text: String,
}

impl Shade {
    fn new(accent: Color, scheme: &Scheme) -> Self {
        let soft = scheme.background.mix(accent, scheme.tint);
        Shade {
            soft: soft.to_string(),
            text: accent
                .readable_on(&[scheme.background, soft], scheme.toward, TEXT_CONTRAST)
                .to_string(),
        }
    }
}

/// The feeds a page offers: the changelog's, or on a tag's pages the tag's.
#[derive(Serialize)]
struct FeedView<'a> {
    title: &'a str,
    description: &'a str,
    rss_url: &'a str,
    json_url: &'a str,
    atom_url: &'a str,
}

impl<'a> From<&'a FeedInfo> for FeedView<'a> {
    fn from(info: &'a FeedInfo) -> Self {
        FeedView {
            title: &info.title,
            description: &info.description,
            rss_url: &info.rss_url,
            json_url: &info.json_url,
            atom_url: &info.atom_url,
        }
    }
}

/// A tag as the templates see it.
#[derive(Serialize)]
struct TagView<'a> {
    name: &'a str,
    slug: String,
    /// Link to the tag's page, relative to the page being rendered; none for a tag whose
    /// slug is empty.
    href: Option<String>,
}

impl<'a> TagView<'a> {
    /// `name` with its slug; `to_root` leads from the current page to `changelog/`.
    fn new(name: &'a str, to_root: &str) -> Self {
        let slug = slug::of_tag(name);
        let href = (!slug.is_empty())
            .then(|| format!("{to_root}{}/{}/", tags::FOLDER, slug::url_segment(&slug)));
        TagView { name, slug, href }
    }
}

/// One entry as the templates see it.
#[derive(Serialize)]
struct EntryView<'a> {
    id: &'a str,
    title: &'a str,
    /// Link to the entry's page, relative to the page being rendered.
    href: String,
    /// The entry's absolute permalink.
    url: &'a str,
    /// `YYYY-MM-DDTHH:MM:SSZ`, for `<time datetime>`.
    date: &'a str,
    /// Like `November 1, 2026`: the day in the org's time zone.
    date_display: &'a str,
    /// The last change, if any: as `date` and `date_display` are.
    updated: Option<&'a str>,
    updated_display: Option<&'a str>,
    image: Option<ImageView<'a>>,
    tags: Vec<TagView<'a>>,
    summary: Option<&'a str>,
    /// The sanitized HTML of the body, as the feeds carry it.
    content_html: &'a str,
    /// The same made for a page (see [`scroll_regions`]).
    page_html: &'a str,
}

/// Links between the pages of a listing, relative to the current page.
#[derive(Serialize)]
struct Pagination {
    number: usize,
    total: usize,
    newer: Option<String>,
    older: Option<String>,
    /// Like `Page 2 of 5`, in the org's language.
    label: String,
    /// Like `page 2`, for the title of a page after the first.
    title: String,
}

/// A page of a listing: `changelog.html`.
#[derive(Serialize)]
struct ListingPage<'a> {
    org: &'a OrgView<'a>,
    feed: FeedView<'a>,
    card: Card<'a>,
    /// The tag the listing is limited to, with `href` leading to its first page.
    tag: Option<TagView<'a>>,
    entries: Vec<EntryView<'a>>,
    pagination: Pagination,
    canonical_url: String,
    changelog_href: String,
    /// Leads from the page to the folder of its feeds.
    feeds_href: &'static str,
    /// Whether the page shows highlighted code.
    highlighted: bool,
    /// Whether the page shows GitHub's alerts (and needs their style).
    alerts: bool,
}

/// An entry's own page: `entry.html`.
#[derive(Serialize)]
struct EntryPage<'a> {
    org: &'a OrgView<'a>,
    feed: FeedView<'a>,
    card: Card<'a>,
    entry: EntryView<'a>,
    canonical_url: &'a str,
    changelog_href: &'static str,
    /// Leads from the page to the folder of its feeds.
    feeds_href: &'static str,
    /// Whether the page shows highlighted code (and needs the colours of its tokens).
    highlighted: bool,
    /// Whether the page shows GitHub's alerts (and needs their style).
    alerts: bool,
    /// The entry published just after this one, if any.
    newer: Option<Neighbor<'a>>,
    /// The entry published just before this one, if any.
    older: Option<Neighbor<'a>>,
}

/// An entry next to the one a page shows: its title and a link to its page.
#[derive(Serialize)]
struct Neighbor<'a> {
    title: &'a str,
    href: String,
}

impl<'a> Neighbor<'a> {
    /// `entry`, seen from the page of another entry.
    fn of(entry: &'a Entry) -> Self {
        Neighbor {
            title: &entry.title,
            href: format!("../{}/", entry.id),
        }
    }
}

impl Theme {
    /// Parses a theme: the built-in templates, each replaced by the template of the same
    /// name in `overrides` (a theme folder's, read by [`crate::themes`], with its path for
    /// messages) where there is one. Every built-in template can also be reached as
    /// `default/<name>`, so that an override can include what it extends.
    pub fn new(overrides: Option<(&Path, Vec<(String, String)>)>) -> Result<Theme> {
        let mut templates: Vec<(String, String)> = DEFAULT_TEMPLATES
            .iter()
            .flat_map(|(file, text)| {
                [
                    (file.to_string(), text.to_string()),
                    (format!("{DEFAULT_THEME}/{file}"), text.to_string()),
                ]
            })
            .collect();
        let mut label = format!("the built-in theme `{DEFAULT_THEME}`");
        if let Some((folder, overrides)) = overrides {
            for (file, text) in overrides {
                match templates.iter_mut().find(|(known, _)| *known == file) {
                    Some(template) => template.1 = text,
                    None => templates.push((file, text)),
                }
            }
            label = folder.display().to_string();
        }
        let mut digest = digest::Parts::default();
        for (file, text) in &templates {
            digest.add(file);
            digest.add(text);
        }
        let fingerprint = digest.finish();
        let mut tera = Tera::default();
        tera.add_raw_templates(templates)
            .map_err(|source| Error::Template {
                name: label.clone(),
                source,
            })?;
        tera.set_escape_fn(crate::html::escape);
        Ok(Theme {
            tera,
            label,
            fingerprint,
        })
    }

    /// A digest of the templates: it changes whenever one of them does.
    pub fn fingerprint(&self) -> &[u8; 32] {
        &self.fingerprint
    }

    /// Renders template `name`; `content` is how many bytes of entry HTML the page shows,
    /// to size the page's buffer once.
    fn render(&self, name: &str, context: &impl Serialize, content: usize) -> Result<Vec<u8>> {
        let template_error = |source| Error::Template {
            name: format!("{name} of {}", self.label),
            source,
        };
        let context = Context::from_serialize(context).map_err(template_error)?;
        let mut page = Vec::with_capacity(content + PAGE_ROOM);
        self.tera
            .render_to(name, &context, &mut page)
            .map_err(template_error)?;
        Ok(page)
    }
}

/// The pages of one org, rendered with its theme.
pub struct OrgPages<'a> {
    theme: &'a Theme,
    org: OrgView<'a>,
    /// The changelog's feeds, offered on entry pages.
    feed: &'a FeedInfo,
    page_size: usize,
    /// What each published entry shows the same on every page, by id: an entry is on its
    /// own page, a page of the changelog and one of each of its tags.
    shown: HashMap<&'a str, Shown>,
}

/// The parts of an entry's view made once for all the pages it is on.
struct Shown {
    date: String,
    date_display: String,
    updated: Option<String>,
    updated_display: Option<String>,
    page_html: String,
    /// Whether `page_html` has highlighted code.
    highlighted: bool,
    /// Whether `page_html` has one of GitHub's alerts.
    alerts: bool,
}

impl<'a> OrgPages<'a> {
    /// Pages of `org` with the words `words`, whose changelog has the feeds `feed` and the
    /// entries `published`.
    pub fn new(
        theme: &'a Theme,
        org: &'a Org,
        words: &'a Words,
        feed: &'a FeedInfo,
        published: &'a [Entry],
    ) -> Self {
        let timezone = org.settings.timezone;
        let shown = published
            .iter()
            .map(|entry| {
                let page_html = scroll_regions(&super::highlight::code_blocks(&entry.content_html));
                let shown = Shown {
                    date: entry.date_published(),
                    date_display: display_date(words, entry.date, entry.date_is_day, timezone),
                    updated: entry.date_modified(),
                    updated_display: entry
                        .updated
                        .map(|date| display_date(words, date, entry.updated_is_day, timezone)),
                    highlighted: page_html.contains("<span class=\"hl-"),
                    alerts: page_html.contains("<blockquote class=\"markdown-alert "),
                    page_html,
                };
                (entry.id.as_str(), shown)
            })
            .collect();
        OrgPages {
            theme,
            org: OrgView {
                slug: &org.slug,
                title: &org.settings.title,
                description: &org.settings.description,
                language: &org.settings.language,
                locale: og_locale(&org.settings.language),
                url: &org.url,
                website: &feed.website,
                changelog_url: &feed.home_page_url,
                rss_url: &feed.rss_url,
                json_url: &feed.json_url,
                atom_url: &feed.atom_url,
                logo: feed.icon.as_deref(),
                favicon: feed
                    .icon
                    .clone()
                    .unwrap_or_else(|| format!("{}/{}", org.url, super::favicon::FILE)),
                noindex: org.settings.noindex,
                accent: Accent::of(org),
                dir: crate::locale::direction(&org.settings.language),
                words,
            },
            feed,
            page_size: org.settings.page_size,
            shown,
        }
    }

    /// The day `entry`, one of the published entries, shows.
    pub fn day(&self, entry: &Entry) -> &str {
        &self.shown[entry.id.as_str()].date_display
    }

    /// Every page of `listing`: `(path under the listing's folder, bytes)`. Page 1 is
    /// `index.html`, page n is `page/n/index.html`; a listing without entries still has
    /// page 1.
    pub fn listing(&self, listing: &Listing<'_>) -> Result<Vec<(String, Vec<u8>)>> {
        let depth = listing.folder.matches('/').count();
        let page_size = self.page_size;
        let total = listing.entries.len().div_ceil(page_size).max(1);
        let home = &listing.feed.home_page_url;
        let mut pages = Vec::with_capacity(total);
        for number in 1..=total {
            let chunk = listing
                .entries
                .chunks(page_size)
                .nth(number - 1)
                .unwrap_or_default();
            let (path, here_depth, to_first) = if number == 1 {
                ("index.html".to_string(), depth, "./")
            } else {
                (format!("page/{number}/index.html"), depth + 2, "../../")
            };
            let to_root = relative_root(here_depth);
            let page = ListingPage {
                org: &self.org,
                feed: (&listing.feed).into(),
                card: Card {
                    title: listing
                        .tag
                        .as_ref()
                        .map_or(self.org.title, |(name, _)| name),
                    description: listing.feed.description.clone(),
                    kind: "website",
                    image: self.org.logo.map(ImageView::logo),
                    large_image: false,
                    published: None,
                    modified: None,
                },
                tag: listing.tag.as_ref().map(|(name, slug)| TagView {
                    name,
                    slug: slug.clone(),
                    href: Some(to_first.to_string()),
                }),
                entries: chunk
                    .iter()
                    .map(|entry| self.entry_view(entry, &to_root))
                    .collect(),
                pagination: Pagination {
                    number,
                    total,
                    newer: match number {
                        1 => None,
                        2 => Some("../../".to_string()),
                        _ => Some(format!("../{}/", number - 1)),
                    },
                    older: (number < total).then(|| {
                        if number == 1 {
                            "page/2/".to_string()
                        } else {
                            format!("../{}/", number + 1)
                        }
                    }),
                    label: self.org.words.get(
                        "page_of",
                        &[("n", &number.to_string()), ("total", &total.to_string())],
                    ),
                    title: self.org.words.get("page", &[("n", &number.to_string())]),
                },
                canonical_url: if number == 1 {
                    format!("{home}/")
                } else {
                    format!("{home}/page/{number}/")
                },
                changelog_href: if to_root.is_empty() {
                    "./".to_string()
                } else {
                    to_root
                },
                feeds_href: if number == 1 { "" } else { "../../" },
                highlighted: chunk
                    .iter()
                    .any(|entry| self.shown[entry.id.as_str()].highlighted),
                alerts: chunk
                    .iter()
                    .any(|entry| self.shown[entry.id.as_str()].alerts),
            };
            let content = chunk.iter().map(|entry| entry.content_html.len()).sum();
            pages.push((path, self.theme.render("changelog.html", &page, content)?));
        }
        Ok(pages)
    }

    /// One page per entry: `(<id>/index.html, bytes)`; `published` newest first.
    pub fn entries(&self, published: &[Entry]) -> Result<Vec<(String, Vec<u8>)>> {
        published
            .iter()
            .enumerate()
            .map(|(at, entry)| {
                let page = EntryPage {
                    org: &self.org,
                    feed: self.feed.into(),
                    card: Card {
                        title: &entry.title,
                        description: entry.summary.clone().unwrap_or_else(|| {
                            crate::html::text_start(&entry.content_html, DESCRIPTION_LENGTH)
                        }),
                        kind: "article",
                        image: entry
                            .image
                            .as_ref()
                            .map(ImageView::of)
                            .or(self.org.logo.map(ImageView::logo)),
                        large_image: entry.image.is_some(),
                        published: Some(entry.date_published()),
                        modified: entry.date_modified(),
                    },
                    entry: self.entry_view(entry, "../"),
                    canonical_url: &entry.url,
                    changelog_href: "../",
                    feeds_href: "../",
                    highlighted: self.shown[entry.id.as_str()].highlighted,
                    alerts: self.shown[entry.id.as_str()].alerts,
                    newer: at
                        .checked_sub(1)
                        .and_then(|newer| published.get(newer))
                        .map(Neighbor::of),
                    older: published.get(at + 1).map(Neighbor::of),
                };
                let bytes = self
                    .theme
                    .render("entry.html", &page, entry.content_html.len())?;
                Ok((format!("{}/index.html", entry.id), bytes))
            })
            .collect()
    }
}

/// The prefix that leads from a page `depth` folders below `changelog/` back to it: empty
/// on page 1 of the changelog, where links into the changelog are plain relative paths.
fn relative_root(depth: usize) -> String {
    "../".repeat(depth)
}

/// Lets the wide blocks of an entry's (sanitized) HTML scroll sideways on their own and be
/// scrolled from the keyboard: each `<table>` goes into a focusable `<div class="scroll">`,
/// each `<pre>` becomes focusable. Only whole tags match: an entry's HTML has every `<` of
/// text written as `&lt;`, and quoted attribute values are skipped over. The HTML between the tags that
/// change is copied in whole runs.
fn scroll_regions(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 128);
    let mut copied = 0;
    let mut next = 0;
    while let Some(found) = memchr::memchr(b'<', &html.as_bytes()[next..]) {
        let start = next + found;
        // `<` and the `>` ending a tag are ASCII: both ends are character boundaries.
        next = start + tag_length(&html.as_bytes()[start..]);
        let tag = &html[start..next];
        // By name: the sanitizer keeps some attributes on both (`align`, `title`, `lang`).
        let name = tag[1..]
            .split(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
            .next()
            .unwrap_or_default();
        let replacement = match name.to_ascii_lowercase().as_str() {
            "table" => format!(r#"<div class="scroll" tabindex="0">{tag}"#),
            "" if tag.eq_ignore_ascii_case("</table>") => "</table></div>".to_string(),
            "pre" if !tag.contains("tabindex") => format!(r#"<pre tabindex="0"{}"#, &tag[4..]),
            _ => continue,
        };
        out.push_str(&html[copied..start]);
        out.push_str(&replacement);
        copied = next;
    }
    out.push_str(&html[copied..]);
    out
}

/// The length of the tag `html` starts with: up to the first `>` outside a quoted
/// attribute value, or all of `html` if there is none.
fn tag_length(html: &[u8]) -> usize {
    let mut quote = None;
    for (i, &byte) in html.iter().enumerate() {
        match (quote, byte) {
            (None, b'>') => return i + 1,
            (None, b'"' | b'\'') => quote = Some(byte),
            (Some(open), byte) if byte == open => quote = None,
            _ => {}
        }
    }
    html.len()
}

/// A BCP 47 language tag as OpenGraph writes a locale, `language_TERRITORY`: the language
/// and the region, if the tag names one (`zh-Hant-TW` → `zh_TW`, `pt-br` → `pt_BR`, `de` →
/// `de`); scripts, variants and extensions are left out.
fn og_locale(language: &str) -> String {
    let mut parts = language.split('-');
    let mut locale = parts.next().unwrap_or_default().to_ascii_lowercase();
    let region = parts.take_while(|part| part.len() != 1).find(|part| {
        (part.len() == 2 && part.chars().all(|c| c.is_ascii_alphabetic()))
            || (part.len() == 3 && part.chars().all(|c| c.is_ascii_digit()))
    });
    if let Some(region) = region {
        locale.push('_');
        locale.push_str(&region.to_ascii_uppercase());
    }
    locale
}

/// How long the description of an entry's page is, at most, when it is the start of the
/// entry's text: about what a search result or a link card shows.
const DESCRIPTION_LENGTH: usize = 200;

/// A day as pages show it, in `timezone`: `November 1, 2026`. A date written as a day
/// (`is_day`: `2026-11-01`, midnight UTC) is that day wherever the org is: shown in New York
/// it would otherwise read as the day before.
fn display_date(words: &Words, date: DateTime<Utc>, is_day: bool, timezone: Tz) -> String {
    if is_day {
        return words.day(&date);
    }
    words.day(&date.with_timezone(&timezone))
}

impl<'a> OrgPages<'a> {
    /// The view of `entry`, one of the published entries, on a page `to_root` away from
    /// `changelog/`.
    fn entry_view(&self, entry: &'a Entry, to_root: &str) -> EntryView<'_> {
        let shown = &self.shown[entry.id.as_str()];
        EntryView {
            id: &entry.id,
            title: &entry.title,
            href: format!("{to_root}{}/", entry.id),
            url: &entry.url,
            date: &shown.date,
            date_display: &shown.date_display,
            updated: shown.updated.as_deref(),
            updated_display: shown.updated_display.as_deref(),
            image: entry.image.as_ref().map(ImageView::of),
            tags: entry
                .tags
                .iter()
                .map(|tag| TagView::new(tag, to_root))
                .collect(),
            summary: entry.summary.as_deref(),
            content_html: &entry.content_html,
            page_html: &shown.page_html,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locales_are_language_and_territory() {
        for (tag, locale) in [
            ("en", "en"),
            ("pt-BR", "pt_BR"),
            ("zh-Hant-TW", "zh_TW"),
            ("en-US-u-ca-buddhist", "en_US"),
            ("es-419", "es_419"),
            ("de-x-ab", "de"),
        ] {
            assert_eq!(og_locale(tag), locale, "{tag}");
        }
    }

    #[test]
    fn wide_blocks_scroll_on_their_own() {
        let html = "<p>a &lt;table&gt;</p><table><tr><td>1</td></tr></table>\
                    <pre><code>x</code></pre><img alt=\"<table>\" src=\"t.png\">";
        assert_eq!(
            scroll_regions(html),
            "<p>a &lt;table&gt;</p><div class=\"scroll\" tabindex=\"0\"><table><tr><td>1</td></tr></table></div>\
             <pre tabindex=\"0\"><code>x</code></pre><img alt=\"<table>\" src=\"t.png\">"
        );
        // Attributes the sanitizer keeps: the wrapper opens as it closes, the tabindex comes.
        assert_eq!(
            scroll_regions("<table align=\"center\"><tr><td>x</td></tr></table><pre title=\"t\">c</pre>"),
            "<div class=\"scroll\" tabindex=\"0\"><table align=\"center\"><tr><td>x</td></tr></table></div>\
             <pre tabindex=\"0\" title=\"t\">c</pre>"
        );
    }

    #[test]
    fn the_accent_stays_readable_in_both_schemes() {
        for hex in ["#ffd60a", "#6e56cf", "#000000", "#ffffff", "#2563eb"] {
            let accent = Color::parse_hex(hex).unwrap();
            for scheme in [LIGHT, DARK] {
                let shade = Shade::new(accent, &scheme);
                let text = Color::parse_hex(&shade.text).unwrap();
                let soft = Color::parse_hex(&shade.soft).unwrap();
                assert!(text.contrast(scheme.background) >= TEXT_CONTRAST, "{hex}");
                assert!(text.contrast(soft) >= TEXT_CONTRAST, "{hex}");
            }
        }
    }
}
