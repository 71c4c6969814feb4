//! Markdown to safe HTML: CommonMark with GitHub's extensions, sanitized, with every relative
//! link and image made absolute against the entry's own URL.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, TextMergeStream};
use url::Url;

/// An entry's HTML, with the relative links and images of its Markdown.
pub struct Rendered {
    /// Sanitized HTML with absolute links.
    pub html: String,
    /// Each relative link or image (`[a](shot.png)`, `[b](/docs)`), resolved against the
    /// entry's URL, with the byte offset in the Markdown where it starts.
    pub local_links: Vec<(Url, usize)>,
}

/// How deep Markdown may nest: block quotes, lists and their items, emphasis, links and the
/// like, and raw HTML elements, counted together. No changelog means more, and the HTML
/// sanitizer's time grows with the square of the depth, so deeper is refused rather than
/// rendered slowly.
pub const MAX_NESTING: usize = 100;

/// Markdown nested deeper than [`MAX_NESTING`]: the byte offset where it goes too deep.
#[derive(Debug, PartialEq, Eq)]
pub struct TooDeep {
    pub offset: usize,
}

/// Renders `markdown` to sanitized HTML, listing its relative links. Relative URLs resolve
/// against `entry_url`; footnote anchors are named after `entry_id` so several entries can
/// share a page.
pub fn render(markdown: &str, entry_url: &Url, entry_id: &str) -> Result<Rendered, TooDeep> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM;
    let mut local_links = Vec::new();
    let mut depth: usize = 0;
    let mut raw_elements = OpenElements::default();
    let mut too_deep = None;
    let events = Parser::new_ext(markdown, options)
        .into_offset_iter()
        .map(|(event, range)| {
            let raw_peak = match &event {
                Event::Start(_) => {
                    depth += 1;
                    raw_elements.depth()
                }
                Event::End(_) => {
                    depth = depth.saturating_sub(1);
                    raw_elements.depth()
                }
                Event::Html(html) | Event::InlineHtml(html) => raw_elements.read(html),
                _ => raw_elements.depth(),
            };
            if depth + raw_peak > MAX_NESTING && too_deep.is_none() {
                too_deep = Some(range.start);
            }
            if let Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) = &event {
                let relative = !dest_url.starts_with('#') && Url::parse(dest_url).is_err();
                if let Some(url) = relative.then(|| entry_url.join(dest_url).ok()).flatten() {
                    local_links.push((url, range.start));
                }
            }
            event
        });
    let events = TextMergeStream::new(events);
    let mut footnotes = FootnoteNames::new(entry_id);
    // For each open link or image: whether its end is ours to write (see `open_link`).
    let mut links: Vec<bool> = Vec::new();
    let mut in_code_block = false;
    let mut transformed = Vec::new();
    for event in events {
        match event {
            Event::Start(Tag::Link {
                dest_url, title, ..
            }) if !dest_url.starts_with('#') => {
                links.push(true);
                transformed.push(open_link(&dest_url, &title));
            }
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => {
                links.push(false);
                transformed.push(event);
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                if links.pop() == Some(true) {
                    transformed.push(close_link());
                } else {
                    transformed.push(event);
                }
            }
            Event::Start(Tag::CodeBlock(_)) => {
                in_code_block = true;
                transformed.push(event);
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code_block = false;
                transformed.push(event);
            }
            Event::Text(text) if links.is_empty() && !in_code_block => {
                autolink(text, &mut transformed);
            }
            Event::TaskListMarker(done) => {
                // A checkbox needs a name to be accessible; the item's text follows it.
                let checked = if done { " checked=\"\"" } else { "" };
                transformed.push(Event::InlineHtml(CowStr::from(format!(
                    "<input type=\"checkbox\" disabled=\"\"{checked} aria-label=\"Task\"> "
                ))));
            }
            Event::FootnoteReference(label) => {
                transformed.push(Event::FootnoteReference(footnotes.name(&label)));
            }
            Event::Start(Tag::FootnoteDefinition(label)) => {
                transformed.push(Event::Start(Tag::FootnoteDefinition(
                    footnotes.name(&label),
                )));
            }
            other => transformed.push(other),
        }
    }
    if let Some(offset) = too_deep {
        return Err(TooDeep { offset });
    }
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut raw, transformed.into_iter());
    Ok(Rendered {
        html: sanitize(&raw, entry_url),
        local_links,
    })
}

/// The raw HTML elements an entry leaves open, as far as their nesting goes, counted so as
/// never to fall far below what an HTML parser nests (which adds a few elements itself, such
/// as a table's body). A start tag opens an element, except void elements and those a parser
/// closes before it opens another of their kind (`p`, `li`, table cells, rows and sections);
/// an end tag closes only the innermost element, and only when it has that name. Tags inside
/// comments or attribute values count too: all of this can only count more.
#[derive(Default)]
struct OpenElements(Vec<String>);

/// Elements a start tag does not leave open.
const NOT_LEFT_OPEN: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "p", "li", "dt", "dd", "option", "td", "th", "tr", "thead", "tbody", "tfoot",
];

impl OpenElements {
    /// Reads the tags of a piece of raw HTML; returns the most elements open at once.
    fn read(&mut self, html: &str) -> usize {
        let mut peak = self.depth();
        for tag in html.split('<').skip(1) {
            let (closing, tag) = match tag.strip_prefix('/') {
                Some(rest) => (true, rest),
                None => (false, tag),
            };
            let name_length = tag
                .find(|c: char| !c.is_ascii_alphanumeric() && c != '-')
                .unwrap_or(tag.len());
            let name = tag[..name_length].to_ascii_lowercase();
            if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
                continue;
            }
            if closing {
                if self.0.last() == Some(&name) {
                    self.0.pop();
                }
            } else if !NOT_LEFT_OPEN.contains(&name.as_str()) {
                self.0.push(name);
                peak = peak.max(self.depth());
            }
        }
        peak
    }

    fn depth(&self) -> usize {
        self.0.len()
    }
}

/// Gives each footnote label a name unique on any page: `fn-<entry id>-<n>`.
struct FootnoteNames<'a> {
    entry_id: &'a str,
    names: HashMap<String, CowStr<'static>>,
}

impl<'a> FootnoteNames<'a> {
    fn new(entry_id: &'a str) -> Self {
        FootnoteNames {
            entry_id,
            names: HashMap::new(),
        }
    }

    fn name(&mut self, label: &str) -> CowStr<'static> {
        let next = self.names.len() + 1;
        let entry_id = self.entry_id;
        self.names
            .entry(label.to_string())
            .or_insert_with(|| CowStr::from(format!("fn-{entry_id}-{next}")))
            .clone()
    }
}

/// The start of a link that leaves the changelog: it opens outside an embedding frame.
/// (In-page links, such as footnotes and `#section`, keep pulldown-cmark's plain `<a>`.)
fn open_link(href: &str, title: &str) -> Event<'static> {
    let mut html = String::from("<a href=\"");
    pulldown_cmark_escape::escape_href(&mut html, href).expect("writing to a String");
    if !title.is_empty() {
        html.push_str("\" title=\"");
        pulldown_cmark_escape::escape_html(&mut html, title).expect("writing to a String");
    }
    html.push_str("\" target=\"_blank\">");
    Event::InlineHtml(CowStr::from(html))
}

fn close_link() -> Event<'static> {
    Event::InlineHtml(CowStr::Borrowed("</a>"))
}

/// GitHub's extended autolinks: bare `https://`, `http://` and `www.` addresses, and email
/// addresses, in text.
fn autolink<'a>(text: CowStr<'a>, out: &mut Vec<Event<'a>>) {
    if !may_autolink(&text) {
        out.push(Event::Text(text));
        return;
    }
    let mut rest: &str = &text;
    let mut found = false;
    while let Some((start, end, href)) = next_autolink(rest) {
        found = true;
        if start > 0 {
            out.push(Event::Text(CowStr::from(rest[..start].to_string())));
        }
        out.push(open_link(&href, ""));
        out.push(Event::Text(CowStr::from(rest[start..end].to_string())));
        out.push(close_link());
        rest = &rest[end..];
    }
    if !found {
        out.push(Event::Text(text));
    } else if !rest.is_empty() {
        out.push(Event::Text(CowStr::from(rest.to_string())));
    }
}

/// Whether `text` may hold an autolink at all: a bare URL needs `:` or `www.`, an email
/// address `@`. Most text holds neither, and is passed over at once.
fn may_autolink(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr2(b':', b'@', bytes).is_some() || memchr::memmem::find(bytes, b"www.").is_some()
}

/// The next autolink in `text`: its byte range and the address it links to.
fn next_autolink(text: &str) -> Option<(usize, usize, String)> {
    let url = next_bare_url(text).map(|(start, end)| {
        let shown = &text[start..end];
        let href = if shown.starts_with("www.") {
            format!("http://{shown}")
        } else {
            shown.to_string()
        };
        (start, end, href)
    });
    let email =
        next_email(text).map(|(start, end)| (start, end, format!("mailto:{}", &text[start..end])));
    match (url, email) {
        (Some(u), Some(e)) => Some(if e.0 < u.0 { e } else { u }),
        (u, e) => u.or(e),
    }
}

/// The byte range of the next email address, by GitHub's rules: `local@domain.tld`, the
/// local part of letters, digits and `.+-_`, the domain of dot-separated labels.
fn next_email(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let is_local = |b: u8| b.is_ascii_alphanumeric() || b"._+-".contains(&b);
    let is_domain = |b: u8| b.is_ascii_alphanumeric() || b"._-".contains(&b);
    let mut search_from = 0;
    while let Some(at) = text[search_from..].find('@').map(|i| search_from + i) {
        search_from = at + 1;
        let start = bytes[..at]
            .iter()
            .rposition(|&b| !is_local(b))
            .map_or(0, |i| i + 1);
        let mut end = at
            + 1
            + bytes[at + 1..]
                .iter()
                .position(|&b| !is_domain(b))
                .unwrap_or(bytes.len() - at - 1);
        while end > at + 1 && bytes[end - 1] == b'.' {
            end -= 1;
        }
        let domain = &text[at + 1..end];
        let valid = start < at
            && domain.contains('.')
            && domain.split('.').all(|label| !label.is_empty())
            && domain.ends_with(|c: char| c.is_ascii_alphanumeric());
        if valid {
            return Some((start, end));
        }
    }
    None
}

/// The byte range of the next bare URL in `text`, by GitHub's rules: it starts a word, runs
/// to white space or `<`, and loses trailing punctuation and unbalanced closing parentheses.
fn next_bare_url(text: &str) -> Option<(usize, usize)> {
    let mut search_from = 0;
    loop {
        let start = ["https://", "http://", "www."]
            .iter()
            .filter_map(|prefix| {
                text[search_from..]
                    .find(prefix)
                    .map(|i| (search_from + i, prefix.len()))
            })
            .min()?;
        let (start, prefix_len) = start;
        let at_word_start = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || "*_~(".contains(c));
        let tail = &text[start..];
        let mut end = tail
            .find(|c: char| c.is_whitespace() || c == '<')
            .unwrap_or(tail.len());
        loop {
            let candidate = &tail[..end];
            let Some(last) = candidate.chars().next_back() else {
                break;
            };
            let unbalanced_paren =
                last == ')' && candidate.matches(')').count() > candidate.matches('(').count();
            if "?!.,:*_~'\"".contains(last) || unbalanced_paren {
                end -= last.len_utf8();
            } else {
                break;
            }
        }
        let host = tail.get(prefix_len..end).unwrap_or_default();
        if at_word_start
            && host.contains(|c: char| c.is_alphanumeric())
            && (prefix_len != 4 || host.contains('.'))
        {
            return Some((start, start + end));
        }
        search_from = start + prefix_len;
    }
}

/// Sanitizes an entry's HTML, resolving relative URLs against `entry_url`. Each thread
/// keeps its sanitizer: building one costs more than cleaning a typical entry.
fn sanitize(html: &str, entry_url: &Url) -> String {
    thread_local! {
        static SANITIZER: RefCell<ammonia::Builder<'static>> = RefCell::new(sanitizer());
    }
    let clean = SANITIZER.with_borrow_mut(|builder| {
        builder
            .url_relative(ammonia::UrlRelative::RewriteWithBase(entry_url.clone()))
            .clean(html)
    });
    // Serialized into a buffer sized once; the sanitizer writes UTF-8 only.
    let mut bytes = Vec::with_capacity(html.len() + html.len() / 4);
    match clean.write_to(&mut bytes) {
        Ok(()) => String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        Err(_) => clean.to_string(),
    }
}

/// The sanitizer: a conservative allow-list, no scripts, no event handlers, only web and
/// mail URL schemes; a `target` can only be `_blank`, and an `<input>` (kept for task lists)
/// only a checkbox. Relative URLs are resolved against the entry's URL, set for
/// each entry by [`sanitize`].
fn sanitizer() -> ammonia::Builder<'static> {
    let mut builder = ammonia::Builder::default();
    builder
        .link_rel(Some("noopener noreferrer"))
        .add_tag_attributes("a", ["target"])
        .add_tags(["input"])
        .add_tag_attributes("input", ["type", "checked", "disabled", "aria-label"])
        // One forced attribute only: ammonia appends missing ones in hash order, and output
        // must not change from one build to the next.
        .set_tag_attribute_value("input", "type", "checkbox")
        .add_tag_attributes("code", ["class"])
        .add_tag_attributes("sup", ["class"])
        .add_tag_attributes("div", ["class", "id"])
        .add_tag_attributes("th", ["style"])
        .add_tag_attributes("td", ["style"])
        .attribute_filter(|element, attribute, value| {
            let keep = match (element, attribute) {
                // Only ever a new tab: content may not navigate the host page.
                ("a", "target") => return Some(Cow::Borrowed("_blank")),
                ("code", "class") => value.strip_prefix("language-").is_some_and(|lang| {
                    !lang.is_empty()
                        && lang
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-_+#.".contains(c))
                }),
                ("sup" | "div", "class") => matches!(
                    value,
                    "footnote-reference" | "footnote-definition" | "footnote-definition-label"
                ),
                ("div", "id") => value.starts_with("fn-"),
                ("th" | "td", "style") => matches!(
                    value,
                    "text-align: left" | "text-align: center" | "text-align: right"
                ),
                _ => true,
            };
            keep.then(|| Cow::Owned(value.to_string()))
        });
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(markdown: &str) -> String {
        let url = Url::parse("https://acme.example.com/changelog/v2/").unwrap();
        render(markdown, &url, "v2").unwrap().html
    }

    #[test]
    fn nesting_is_limited() {
        let url = Url::parse("https://acme.example.com/changelog/v2/").unwrap();
        let ok = |markdown: &str| render(markdown, &url, "v2").is_ok();
        let quotes = |n| format!("text\n\n{} deep", ">".repeat(n));
        assert!(ok(&quotes(MAX_NESTING - 1)));
        // The paragraph inside the innermost quote is one level too many.
        let paragraph = "text\n\n".len() + MAX_NESTING + 1;
        assert_eq!(
            render(&quotes(MAX_NESTING), &url, "v2").err(),
            Some(TooDeep { offset: paragraph })
        );
        // An HTML block is a level, and each element in it, even on one line.
        let divs = |n| format!("{}x{}", "<div>".repeat(n), "</div>".repeat(n));
        assert!(ok(&divs(MAX_NESTING - 1)));
        assert!(!ok(&divs(MAX_NESTING)));
        let spans = format!("text <b>{}x", "<span>".repeat(MAX_NESTING));
        assert!(!ok(&spans), "inline HTML inside a paragraph");
        let closed = "<div><p>a<p>b<br><img src=x></div>".repeat(MAX_NESTING);
        assert!(ok(&closed), "closed and void elements");
        let rows = format!("<table>{}</table>", "<tr><td>a<td>b".repeat(MAX_NESTING));
        assert!(ok(&rows), "cells and rows left open");
        let misnested = "<div><b></div></b>".repeat(MAX_NESTING);
        assert!(!ok(&misnested), "counted as never closed");
    }

    #[test]
    fn relative_links_become_absolute() {
        let out = html("[a](shot.png) [b](/docs) [c](../v1/) [d](#top) ![i](img/x.png)");
        assert!(
            out.contains("href=\"https://acme.example.com/changelog/v2/shot.png\""),
            "{out}"
        );
        assert!(
            out.contains("href=\"https://acme.example.com/docs\""),
            "{out}"
        );
        assert!(
            out.contains("href=\"https://acme.example.com/changelog/v1/\""),
            "{out}"
        );
        assert!(
            out.contains("href=\"https://acme.example.com/changelog/v2/#top\""),
            "{out}"
        );
        assert!(
            out.contains("src=\"https://acme.example.com/changelog/v2/img/x.png\""),
            "{out}"
        );
    }

    #[test]
    fn scripts_and_handlers_are_removed() {
        let out = html(
            "<script>alert(1)</script><img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))",
        );
        assert!(!out.contains("script"), "{out}");
        assert!(!out.contains("onerror"), "{out}");
        assert!(!out.contains("javascript:"), "{out}");
    }

    #[test]
    fn an_input_can_only_be_a_checkbox() {
        let out = html("<input type=\"password\" name=\"p\" placeholder=\"Password\"> <input type=image src=x> <input/>");
        assert_eq!(out.matches("<input type=\"checkbox\">").count(), 3, "{out}");
    }

    #[test]
    fn links_leave_the_frame_but_in_page_links_stay() {
        let out = html("[out](https://example.org) [up](../v1/) [here](#top) Note[^1]. <a href=\"/x\" target=\"_top\">raw</a>\n\n[^1]: Foot.");
        assert!(out.contains("<a href=\"https://example.org\" target=\"_blank\" rel=\"noopener noreferrer\">out</a>"), "{out}");
        assert!(
            out.contains("href=\"https://acme.example.com/changelog/v1/\" target=\"_blank\""),
            "{out}"
        );
        assert!(out.contains("<a href=\"https://acme.example.com/changelog/v2/#top\" rel=\"noopener noreferrer\">here</a>"), "{out}");
        assert!(out.contains("<a href=\"https://acme.example.com/changelog/v2/#fn-v2-1\" rel=\"noopener noreferrer\">1</a>"), "{out}");
        assert!(
            out.contains("target=\"_blank\" rel=\"noopener noreferrer\">raw</a>"),
            "a raw target is forced to _blank: {out}"
        );
    }

    #[test]
    fn email_addresses_are_autolinked() {
        let out = html("Write to support@acme.example.com. Not a@b or @home.");
        assert!(out.contains("<a href=\"mailto:support@acme.example.com\" target=\"_blank\" rel=\"noopener noreferrer\">support@acme.example.com</a>."), "{out}");
        assert_eq!(out.matches("<a ").count(), 1, "{out}");
    }

    #[test]
    fn bare_prefixes_are_not_links() {
        for text in ["www.", "see www. now", "http://", "(https://)", "www.x"] {
            let out = html(text);
            assert!(!out.contains("<a"), "{text}: {out}");
        }
    }

    #[test]
    fn github_extensions_render() {
        let out = html("| a | b |\n|:-|-:|\n| 1 | 2 |\n\n~~old~~\n\n- [x] done\n\nSee www.example.com and https://x.io/a_(b).\n\nNote[^n].\n\n[^n]: Foot.\n\n```rust\nfn main() {}\n```\n");
        assert!(
            out.contains("<table>") && out.contains("style=\"text-align: right\""),
            "{out}"
        );
        assert!(out.contains("<del>old</del>"), "{out}");
        assert!(
            out.contains(
                "<input type=\"checkbox\" disabled=\"\" checked=\"\" aria-label=\"Task\">"
            ),
            "{out}"
        );
        assert!(out.contains("href=\"http://www.example.com\""), "{out}");
        assert!(out.contains("href=\"https://x.io/a_(b)\""), "{out}");
        assert!(out.contains("id=\"fn-v2-1\""), "{out}");
        assert!(out.contains("class=\"language-rust\""), "{out}");
    }
}
