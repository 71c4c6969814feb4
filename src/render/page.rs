//! The HTML pages, rendered with tera from the theme's templates (parsed once per build).

use serde::Serialize;
use tera::{Context, Tera};

use crate::content::{Entry, Org};
use crate::error::{Error, Result};

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
        "entry_macros.html",
        include_str!("../../themes/default/entry_macros.html"),
    ),
];

/// Parsed templates, ready to render any number of pages.
pub struct Theme {
    tera: Tera,
}

/// What every page knows about its org.
#[derive(Serialize)]
struct OrgView<'a> {
    slug: &'a str,
    title: &'a str,
    description: &'a str,
    language: &'a str,
    url: &'a str,
    changelog_url: &'a str,
    rss_url: &'a str,
    json_url: &'a str,
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
    date: String,
    /// Like `November 1, 2026`.
    date_display: String,
    tags: &'a [String],
    summary: Option<&'a str>,
    content_html: &'a str,
}

/// Links between the pages of the changelog list, relative to the current page.
#[derive(Serialize)]
struct Pagination {
    number: usize,
    total: usize,
    newer: Option<String>,
    older: Option<String>,
}

#[derive(Serialize)]
struct ChangelogPage<'a> {
    org: &'a OrgView<'a>,
    entries: Vec<EntryView<'a>>,
    pagination: Pagination,
    canonical_url: String,
    changelog_href: &'static str,
}

#[derive(Serialize)]
struct EntryPage<'a> {
    org: &'a OrgView<'a>,
    entry: EntryView<'a>,
    canonical_url: &'a str,
    changelog_href: &'static str,
}

impl Theme {
    /// Parses the built-in theme.
    pub fn built_in() -> Result<Theme> {
        let mut tera = Tera::default();
        tera.add_raw_templates(DEFAULT_TEMPLATES.iter().copied())
            .map_err(|source| Error::Template {
                name: "themes/default".to_string(),
                source,
            })?;
        tera.set_escape_fn(escape_html);
        Ok(Theme { tera })
    }

    fn render(&self, name: &str, context: &impl Serialize) -> Result<Vec<u8>> {
        let template_error = |source| Error::Template {
            name: name.to_string(),
            source,
        };
        let context = Context::from_serialize(context).map_err(template_error)?;
        self.tera
            .render(name, &context)
            .map(String::into_bytes)
            .map_err(template_error)
    }
}

/// Renders every HTML page of one org: `(path under changelog/, bytes)`.
pub fn render_org(
    theme: &Theme,
    org: &Org,
    published: &[Entry],
    urls: &super::OrgUrls,
) -> Result<Vec<(String, Vec<u8>)>> {
    let view = OrgView {
        slug: &org.slug,
        title: &org.settings.title,
        description: &org.settings.description,
        language: &org.settings.language,
        url: &org.url,
        changelog_url: &urls.changelog,
        rss_url: &urls.rss,
        json_url: &urls.json,
    };
    let mut pages = Vec::new();
    let page_size = org.settings.page_size;
    let total = published.len().div_ceil(page_size).max(1);
    for number in 1..=total {
        let chunk = published
            .chunks(page_size)
            .nth(number - 1)
            .unwrap_or_default();
        // Page 1 is `changelog/index.html`; page n is `changelog/page/n/index.html`.
        let (path, to_root) = if number == 1 {
            ("index.html".to_string(), "./")
        } else {
            (format!("page/{number}/index.html"), "../../")
        };
        let page = ChangelogPage {
            org: &view,
            entries: chunk.iter().map(|e| entry_view(e, to_root)).collect(),
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
            },
            canonical_url: if number == 1 {
                format!("{}/", urls.changelog)
            } else {
                format!("{}/page/{number}/", urls.changelog)
            },
            changelog_href: to_root,
        };
        pages.push((path, theme.render("changelog.html", &page)?));
    }
    for entry in published {
        let page = EntryPage {
            org: &view,
            entry: entry_view(entry, "../"),
            canonical_url: &entry.url,
            changelog_href: "../",
        };
        pages.push((
            format!("{}/index.html", entry.id),
            theme.render("entry.html", &page)?,
        ));
    }
    Ok(pages)
}

/// Escapes text for HTML content and quoted attributes. Unlike tera's default it leaves `/`
/// alone, so URLs stay readable.
fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn entry_view<'a>(entry: &'a Entry, to_root: &str) -> EntryView<'a> {
    EntryView {
        id: &entry.id,
        title: &entry.title,
        href: format!("{to_root}{}/", entry.id),
        url: &entry.url,
        date: entry.date_published(),
        date_display: entry.date.format("%B %-d, %Y").to_string(),
        tags: &entry.tags,
        summary: entry.summary.as_deref(),
        content_html: &entry.content_html,
    }
}
