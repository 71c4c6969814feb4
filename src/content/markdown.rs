//! Markdown to safe HTML: CommonMark with GitHub's extensions, sanitized, with every relative
//! link and image made absolute against the entry's own URL (root-relative ones against the
//! org's website).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{
    BlockQuoteKind, CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd,
    TextMergeStream,
};
use url::Url;

use crate::locale::Words;

/// An entry's HTML, with the relative links and images of its Markdown.
pub struct Rendered {
    /// Sanitized HTML with absolute links.
    pub html: String,
    /// Each relative link or image (`[a](shot.png)`, `[b](/docs)`), resolved.
    pub local_links: Vec<LocalLink>,
    /// The Markdown itself with the URLs of its links and images made absolute.
    pub markdown: String,
}

/// A relative link or image of an entry's Markdown.
pub struct LocalLink {
    /// Where it points, resolved.
    pub url: Url,
    /// Where it points, as the author wrote it (`shot.png`).
    pub written: String,
    /// The byte offset in the Markdown where it starts.
    pub offset: usize,
    /// An image (`![a](shot.png)`) rather than a link.
    pub image: bool,
    /// Written from the root of a host (`/docs`), resolved against the org's website.
    pub root_relative: bool,
}

/// The addresses relative URLs in an entry resolve against.
#[derive(Clone)]
pub struct Bases {
    /// The entry's own URL: for `shot.png` or `../other/`.
    pub entry: Url,
    /// The org's website: for root-relative URLs like `/docs/webhooks`.
    pub site: Url,
}

impl Bases {
    /// `url` made absolute: root-relative against the website, anything else against the
    /// entry (an absolute `url` stays as it is).
    pub fn join(&self, url: &str) -> Option<Url> {
        let base = if is_root_relative(url) {
            &self.site
        } else {
            &self.entry
        };
        base.join(url).ok()
    }
}

/// The sanitizer resolves the relative URLs of raw HTML as the Markdown's are.
impl ammonia::UrlRelativeEvaluate<'_> for Bases {
    fn evaluate<'url>(&self, url: &'url str) -> Option<Cow<'url, str>> {
        self.join(url).map(|url| Cow::Owned(url.into()))
    }
}

/// A URL written from the root of its host: `/docs`, not `//host/docs`.
fn is_root_relative(url: &str) -> bool {
    url.starts_with('/') && !url.starts_with("//") && !url.starts_with("/\\")
}

/// How deep Markdown may nest: block quotes, lists and their items, emphasis, links and the
/// like, and raw HTML elements, counted together. No changelog means more, and the HTML
/// sanitizer's time grows with the square of the depth, so deeper is refused rather than
/// rendered slowly.
pub const MAX_NESTING: usize = 100;

/// The most HTML one entry may make. Its HTML is copied into every listing that shows it
/// (its page, the changelog's, the feeds, each of its tags' pages and feeds: some 50 files
/// with 16 tags), so a short text that expands far (a million one-word reference links to
/// the entry's own long address) would otherwise write gigabytes. 8 MiB leaves room for the
/// largest entry file, 4 MiB of prose.
pub const MAX_HTML_BYTES: usize = 8 * 1024 * 1024;

/// Markdown that is not rendered, and why.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Nested deeper than [`MAX_NESTING`] at this byte offset.
    TooDeep { offset: usize },
    /// It makes more than [`MAX_HTML_BYTES`] of HTML (writing stops there).
    TooLarge,
}

/// A `fmt::Write` into a string that fails once the string would pass `max` bytes.
struct Bounded {
    html: String,
    max: usize,
}

impl std::fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.html.len() + s.len() > self.max {
            return Err(std::fmt::Error);
        }
        self.html.push_str(s);
        Ok(())
    }
}

/// Renders `markdown` to sanitized HTML, listing its relative links. Relative URLs resolve
/// against `bases`; footnote anchors are named after `entry_id` so several entries can
/// share a page. GitHub's alerts (`> [!NOTE]`) get their title in the org's `words`.
///
/// Markdown without raw HTML skips the sanitizer: pulldown-cmark escapes every text and
/// attribute it writes, and [`Transform`] resolves and checks each URL as the sanitizer
/// would, so the HTML is already what the sanitizer would return (the tests check this on
/// generated Markdown). Sanitizing costs more than the rest of rendering together.
pub fn render(
    markdown: &str,
    bases: &Bases,
    entry_id: &str,
    words: &Words,
) -> Result<Rendered, Refused> {
    let written = write(markdown, bases, entry_id, words)?;
    let html = if written.needs_sanitizer {
        sanitize(&written.html, bases)
    } else {
        written.html
    };
    // Raw control characters, or `&#1;`, would make the feeds ill-formed XML.
    let html = crate::text::xml_safe(html);
    Ok(Rendered {
        html,
        markdown: with_absolute_urls(
            markdown,
            bases,
            &written.inline,
            &written.definitions,
            &written.hidden,
        )?,
        local_links: written.local_links,
    })
}

/// `markdown` as `index.md` publishes it: each relative URL made absolute (those of
/// inline links and images, `inline`: where each stands and its destination as parsed, and
/// those of reference definitions, `definitions`, found by the parser) and each HTML comment
/// (`hidden`: where each stands) left out, as the HTML leaves it out. Refused when it would
/// pass [`MAX_HTML_BYTES`]: a text of short relative links grows with every one.
fn with_absolute_urls(
    markdown: &str,
    bases: &Bases,
    inline: &[(Range<usize>, String)],
    definitions: &[(Range<usize>, String)],
    hidden: &[Range<usize>],
) -> Result<String, Refused> {
    let mut edits: Vec<(Range<usize>, String)> = hidden
        .iter()
        .map(|range| (range.clone(), String::new()))
        .collect();
    let spans = inline
        .iter()
        .map(|link| (link, "]("))
        .chain(definitions.iter().map(|definition| (definition, "]:")));
    for ((span, destination), opening) in spans {
        let Some(url) = is_relative(destination)
            .then(|| bases.join(&href(destination)))
            .flatten()
        else {
            continue;
        };
        if let Some((found, bracketed)) =
            destination_in(&markdown[span.clone()], opening, destination)
        {
            let url = if bracketed || url.as_str().contains(['(', ')']) {
                format!("<{url}>")
            } else {
                url.into()
            };
            edits.push((span.start + found.start..span.start + found.end, url));
        }
    }
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(markdown.len() + edits.len() * 32);
    let mut copied = 0;
    for (range, replacement) in edits {
        if range.start < copied {
            continue;
        }
        out.push_str(&markdown[copied..range.start]);
        out.push_str(&replacement);
        copied = range.end;
        if out.len() > MAX_HTML_BYTES {
            return Err(Refused::TooLarge);
        }
    }
    out.push_str(&markdown[copied..]);
    if out.len() > MAX_HTML_BYTES {
        return Err(Refused::TooLarge);
    }
    Ok(out)
}

/// Where the destination is written in `source` (a link, or a reference definition): the
/// token after the last `opening` (`](` or `]:`), past blanks, whole with its `<>` if it
/// has them (then `true`). The destination as parsed (`destination`) is looked for first;
/// one written with escapes or entities (`\(v2\)`, `&#47;docs`) is the token there.
fn destination_in(source: &str, opening: &str, destination: &str) -> Option<(Range<usize>, bool)> {
    let (at, _) = source.rmatch_indices(opening).next()?;
    let after = at + opening.len();
    let rest = &source[after..];
    let start = after + (rest.len() - rest.trim_start().len());
    let token = &source[start..];
    if let Some(inner) = token.strip_prefix('<') {
        let end = inner.find(['>', '\n'])?;
        return (inner.as_bytes()[end] == b'>').then(|| (start..start + end + 2, true));
    }
    if !destination.is_empty() && token.starts_with(destination) {
        return Some((start..start + destination.len(), false));
    }
    // Up to a blank, or a `)` that closes no `(`; `\` escapes the character after it.
    let mut depth = 0usize;
    let mut escaped = false;
    let mut end = token.len();
    for (i, c) in token.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '(' => depth += 1,
            ')' if depth == 0 => {
                end = i;
                break;
            }
            ')' => depth -= 1,
            c if c.is_whitespace() || c.is_control() => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    (end > 0).then(|| (start..start + end, false))
}

/// A destination as a URL parser reads it back from the `href` pulldown-cmark writes:
/// percent-encoded where a URL may not hold the character (`escape_href` also escapes `&`
/// and `'` for HTML, which reading undoes). The HTML and `index.md` both resolve this.
fn href(destination: &str) -> String {
    let mut escaped = String::with_capacity(destination.len());
    pulldown_cmark_escape::escape_href(&mut escaped, destination).expect("writing to a String");
    if escaped.contains('&') {
        escaped.replace("&amp;", "&").replace("&#x27;", "'")
    } else {
        escaped
    }
}

/// A reference label as labels match: letter case and runs of blanks do not count.
fn label_key(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A link's destination that is neither absolute nor in the page (`#notes`).
fn is_relative(destination: &str) -> bool {
    !destination.starts_with('#') && Url::parse(destination).is_err()
}

/// An entry's HTML as pulldown-cmark writes it, before any sanitizing.
struct Written {
    html: String,
    local_links: Vec<LocalLink>,
    /// Each inline link or image with a relative destination: its span and destination.
    inline: Vec<(Range<usize>, String)>,
    /// Each reference definition: its span and destination.
    definitions: Vec<(Range<usize>, String)>,
    /// Each HTML comment: its span.
    hidden: Vec<Range<usize>>,
    /// Whether `html` needs the sanitizer: it holds raw HTML, or a URL that is not plainly a
    /// web or mail address. Otherwise sanitizing would return it unchanged.
    needs_sanitizer: bool,
}

/// Parses `markdown`, transforms its events and writes them as HTML (see [`render`]).
fn write(markdown: &str, bases: &Bases, entry_id: &str, words: &Words) -> Result<Written, Refused> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM;
    let mut local_links = Vec::new();
    let mut inline = Vec::new();
    let mut hidden = Vec::new();
    let mut html_block = None;
    let mut depth: usize = 0;
    let mut raw_elements = OpenElements::default();
    let mut raw_html = false;
    let mut too_deep = None;
    let parser = Parser::new_ext(markdown, options).into_offset_iter();
    let definitions: Vec<(String, Range<usize>, String)> = parser
        .reference_definitions()
        .iter()
        .map(|(label, definition)| {
            let label = label_key(label);
            (label, definition.span.clone(), definition.dest.to_string())
        })
        .collect();
    let mut used_labels = std::collections::HashSet::new();
    let events = parser.map(|(event, range)| {
        let raw_peak = match &event {
            Event::Start(_) => {
                depth += 1;
                raw_elements.depth()
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                raw_elements.depth()
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                raw_html = true;
                raw_elements.read(html)
            }
            _ => raw_elements.depth(),
        };
        if depth + raw_peak > MAX_NESTING && too_deep.is_none() {
            too_deep = Some(range.start);
        }
        // An HTML comment, a block of its own or inline, is left out of `index.md`.
        match &event {
            Event::Start(Tag::HtmlBlock) => html_block = Some(range.clone()),
            Event::Html(html) => {
                if let Some(block) = html_block.take() {
                    if html.trim_start().starts_with("<!--") {
                        hidden.push(block);
                    }
                }
            }
            Event::InlineHtml(html) if html.starts_with("<!--") => hidden.push(range.clone()),
            _ => {}
        }
        if let Event::Start(
            Tag::Link {
                dest_url,
                link_type,
                id,
                ..
            }
            | Tag::Image {
                dest_url,
                link_type,
                id,
                ..
            },
        ) = &event
        {
            if !id.is_empty() {
                used_labels.insert(label_key(id));
            }
            if let Some(url) = is_relative(dest_url)
                .then(|| bases.join(&href(dest_url)))
                .flatten()
            {
                local_links.push(LocalLink {
                    url,
                    written: dest_url.to_string(),
                    offset: range.start,
                    image: matches!(event, Event::Start(Tag::Image { .. })),
                    root_relative: is_root_relative(dest_url),
                });
                if *link_type == LinkType::Inline {
                    inline.push((range, dest_url.to_string()));
                }
            }
        }
        event
    });
    let mut transform = Transform::new(bases, entry_id, words);
    for event in TextMergeStream::new(events) {
        transform.event(event);
    }
    if let Some(offset) = too_deep {
        return Err(Refused::TooDeep { offset });
    }
    // A definition no link uses shows nowhere in the HTML: `index.md` leaves it out too.
    let (used, unused): (Vec<_>, Vec<_>) = definitions
        .into_iter()
        .partition(|(label, _, _)| used_labels.contains(label));
    hidden.extend(unused.into_iter().map(|(_, span, _)| span));
    let definitions = used
        .into_iter()
        .map(|(_, span, destination)| (span, destination))
        .collect();
    let mut bounded = Bounded {
        html: String::with_capacity((markdown.len() * 3 / 2).min(MAX_HTML_BYTES)),
        max: MAX_HTML_BYTES,
    };
    pulldown_cmark::html::write_html_fmt(&mut bounded, transform.events.into_iter())
        .map_err(|_| Refused::TooLarge)?;
    let mut html = bounded.html;
    if html.contains('\r') {
        // Left in a link's title: line breaks as an HTML parser reads them.
        html = html.replace("\r\n", "\n").replace('\r', "\n");
    }
    Ok(Written {
        html,
        local_links,
        inline,
        definitions,
        hidden,
        // A parser drops U+0000 from text but replaces it in attributes: left to the sanitizer.
        needs_sanitizer: raw_html || transform.needs_sanitizer || markdown.contains('\0'),
    })
}

/// What shiplog changes in the parser's events before they are written: links resolved,
/// opening in a new tab and autolinked as on GitHub, footnotes named per entry, and what the
/// sanitizer would drop (a code block's odd language) dropped here already; alerts titled.
struct Transform<'a> {
    bases: &'a Bases,
    words: &'a Words,
    footnotes: FootnoteNames<'a>,
    events: Vec<Event<'a>>,
    needs_sanitizer: bool,
    open_links: usize,
    open_images: usize,
    in_code_block: bool,
}

impl<'a> Transform<'a> {
    fn new(bases: &'a Bases, entry_id: &'a str, words: &'a Words) -> Self {
        Transform {
            bases,
            words,
            footnotes: FootnoteNames::new(entry_id),
            events: Vec::new(),
            needs_sanitizer: false,
            open_links: 0,
            open_images: 0,
            in_code_block: false,
        }
    }

    fn event(&mut self, event: Event<'a>) {
        if self.open_images > 0 {
            // An image's text is its `alt`: written as plain text, links and all.
            return self.image_text(event);
        }
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            }) => {
                self.open_links += 1;
                let href = match link_type {
                    LinkType::Email => CowStr::from(format!("mailto:{dest_url}")),
                    _ => dest_url,
                };
                self.open_link(&href, &title);
            }
            Event::End(TagEnd::Link) => {
                self.open_links -= 1;
                self.events.push(event);
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                self.open_images += 1;
                let dest_url = match self.resolve(&dest_url) {
                    Some(url) => CowStr::from(url),
                    None => dest_url,
                };
                self.events.push(Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    id,
                }));
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                self.fenced_code(info);
            }
            Event::Start(Tag::CodeBlock(_)) => {
                self.in_code_block = true;
                self.events.push(event);
            }
            Event::End(TagEnd::CodeBlock) => {
                self.in_code_block = false;
                self.events.push(event);
            }
            Event::Start(Tag::BlockQuote(Some(kind))) => self.alert(kind),
            Event::Text(text) if self.open_links == 0 && !self.in_code_block => {
                self.autolink(text);
            }
            Event::TaskListMarker(done) => {
                // A checkbox needs a name to be accessible; the item's text follows it.
                let checked = if done { " checked=\"\"" } else { "" };
                self.events.push(Event::InlineHtml(CowStr::from(format!(
                    "<input type=\"checkbox\" disabled=\"\"{checked} aria-label=\"Task\"> "
                ))));
            }
            Event::FootnoteReference(label) => self.footnote_reference(&label),
            Event::Start(Tag::FootnoteDefinition(label)) => self.footnote_definition(&label),
            other => self.events.push(other),
        }
    }

    /// The start of one of GitHub's alerts (`> [!WARNING]`): a block quote whose first
    /// paragraph is its title, in bold. A page's style makes it a coloured callout; a feed
    /// reader, which drops classes, still shows a titled quote. GitHub writes a `<div>`,
    /// which a feed reader would show as plain text, the warning lost in it.
    fn alert(&mut self, kind: BlockQuoteKind) {
        let (name, key) = match kind {
            BlockQuoteKind::Note => ("note", "alert_note"),
            BlockQuoteKind::Tip => ("tip", "alert_tip"),
            BlockQuoteKind::Important => ("important", "alert_important"),
            BlockQuoteKind::Warning => ("warning", "alert_warning"),
            BlockQuoteKind::Caution => ("caution", "alert_caution"),
        };
        let mut html = format!(
            "<blockquote class=\"markdown-alert markdown-alert-{name}\">\n<p class=\"markdown-alert-title\"><strong>"
        );
        let title = self.words.get(key, &[]);
        pulldown_cmark_escape::escape_html(&mut html, &title).expect("writing to a String");
        html.push_str("</strong></p>\n");
        self.events.push(Event::Html(CowStr::from(html)));
    }

    /// The start of a fenced code block: of its info string only the first word is kept,
    /// when it may be a class (pulldown-cmark writes it as `language-<word>`). A comma ends
    /// the word too, as in rustdoc's ```` ```rust,ignore ````.
    fn fenced_code(&mut self, info: CowStr<'a>) {
        self.in_code_block = true;
        let language = info.split([' ', ',']).next().unwrap_or_default();
        let info = if is_code_language(language) {
            CowStr::from(language.to_string())
        } else {
            CowStr::Borrowed("")
        };
        self.events
            .push(Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))));
    }

    /// A footnote's number in the text, linking to the note on the entry's own page.
    fn footnote_reference(&mut self, label: &str) {
        let (name, number) = self.footnotes.name(label);
        let mut html = String::from("<sup class=\"footnote-reference\"><a href=\"");
        push_attribute(&mut html, self.bases.entry.as_str());
        html.push('#');
        push_attribute(&mut html, &name);
        html.push_str(&format!("\" {REL}>{number}</a></sup>"));
        self.events.push(Event::InlineHtml(CowStr::from(html)));
    }

    /// The start of a footnote's text, with its number.
    fn footnote_definition(&mut self, label: &str) {
        let (name, number) = self.footnotes.name(label);
        let mut html = String::from("\n<div class=\"footnote-definition\" id=\"");
        push_attribute(&mut html, &name);
        html.push_str(&format!(
            "\"><sup class=\"footnote-definition-label\">{number}</sup>"
        ));
        self.events.push(Event::Html(CowStr::from(html)));
    }

    /// An event inside an image, whose text pulldown-cmark writes as the `alt` attribute.
    fn image_text(&mut self, event: Event<'a>) {
        match event {
            Event::Start(Tag::Image { .. }) => self.open_images += 1,
            Event::End(TagEnd::Image) => self.open_images -= 1,
            _ => {}
        }
        self.events.push(event);
    }

    /// The URL a link or image points to, as the sanitizer would leave it: relative ones
    /// resolved against the entry's URL, absolute ones kept if they are web or mail
    /// addresses. For any other URL, `None`, and the HTML goes through the sanitizer, which
    /// drops it.
    fn resolve(&mut self, url: &str) -> Option<String> {
        let url = href(url);
        let resolved = match Url::parse(&url) {
            Ok(parsed) => matches!(parsed.scheme(), "http" | "https" | "mailto").then_some(url),
            Err(url::ParseError::RelativeUrlWithoutBase) => self.bases.join(&url).map(String::from),
            Err(_) => None,
        };
        self.needs_sanitizer |= resolved.is_none();
        resolved
    }

    /// Opens a link, its URL resolved. It opens in a new tab when it leaves the changelog;
    /// in-page links (`#section`) stay in the frame.
    fn open_link(&mut self, href: &str, title: &str) {
        let target = if href.starts_with('#') {
            ""
        } else {
            " target=\"_blank\""
        };
        let resolved = self.resolve(href);
        let mut html = String::from("<a href=\"");
        pulldown_cmark_escape::escape_href(&mut html, resolved.as_deref().unwrap_or(href))
            .expect("writing to a String");
        if !title.is_empty() {
            html.push_str("\" title=\"");
            push_attribute(&mut html, title);
        }
        html.push_str(&format!("\"{target} {REL}>"));
        self.events.push(Event::InlineHtml(CowStr::from(html)));
    }

    /// GitHub's extended autolinks: bare `https://`, `http://` and `www.` addresses, and
    /// email addresses, in text.
    fn autolink(&mut self, text: CowStr<'a>) {
        if !may_autolink(&text) {
            return self.events.push(Event::Text(text));
        }
        let mut links = Autolinks::new(&text);
        let mut done = 0;
        while let Some((start, end, href)) = links.next() {
            if start > done {
                self.events
                    .push(Event::Text(CowStr::from(text[done..start].to_string())));
            }
            self.open_link(&href, "");
            self.events
                .push(Event::Text(CowStr::from(text[start..end].to_string())));
            self.events.push(Event::End(TagEnd::Link));
            done = end;
        }
        if done == 0 {
            self.events.push(Event::Text(text));
        } else if done < text.len() {
            self.events
                .push(Event::Text(CowStr::from(text[done..].to_string())));
        }
    }
}

/// The `rel` of every link in an entry, as the sanitizer sets it.
const REL: &str = "rel=\"noopener noreferrer\"";

/// Appends `value` escaped for a quoted attribute, as the sanitizer's serializer escapes it
/// (not as [`crate::html::escape`] does): the fast path must give the sanitizer's bytes.
fn push_attribute(html: &mut String, value: &str) {
    pulldown_cmark_escape::escape_html(html, value).expect("writing to a String");
}

/// Whether a code block's language may be a class, `language-<it>`: letters, digits and
/// `-_+#.` only.
fn is_code_language(language: &str) -> bool {
    !language.is_empty()
        && language
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_+#.".contains(c))
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

/// Numbers footnotes in order of first use, as they are shown, and names each
/// `fn-<entry id>-<number>`, unique on any page.
struct FootnoteNames<'a> {
    entry_id: &'a str,
    numbers: HashMap<String, usize>,
}

impl<'a> FootnoteNames<'a> {
    fn new(entry_id: &'a str) -> Self {
        FootnoteNames {
            entry_id,
            numbers: HashMap::new(),
        }
    }

    /// The footnote's name and number.
    fn name(&mut self, label: &str) -> (String, usize) {
        let next = self.numbers.len() + 1;
        let number = *self.numbers.entry(label.to_string()).or_insert(next);
        (format!("fn-{}-{number}", self.entry_id), number)
    }
}

/// Whether `text` may hold an autolink at all: a bare URL needs `:` or `www.`, an email
/// address `@`. Most text holds neither, and is passed over at once.
fn may_autolink(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr2(b':', b'@', bytes).is_some() || memchr::memmem::find(bytes, b"www.").is_some()
}

/// The autolinks of one text, left to right. Each search for a URL's start or an `@`
/// resumes where the last one stopped, and a link found beyond the next one is kept for later,
/// so no byte is searched twice: a text of many thousands of addresses costs time in
/// proportion to its length, not to its length times its addresses.
struct Autolinks<'t> {
    text: &'t str,
    /// Where the previous link ended: nothing before it belongs to the next one.
    done: usize,
    /// Where each of `https://`, `http://`, `www.` and `@` occurs next, from `searched`.
    next: [Found; 4],
    /// The next bare URL and email address found, kept while they start at or after `done`.
    url: Found<(usize, usize)>,
    email: Found<(usize, usize)>,
}

/// A search's result, or that it has not run since the position it depends on moved.
#[derive(Clone, Copy)]
enum Found<T = usize> {
    Unknown,
    At(T),
    Nowhere,
}

const URL_PREFIXES: [&str; 3] = ["https://", "http://", "www."];

impl<'t> Autolinks<'t> {
    fn new(text: &'t str) -> Self {
        Autolinks {
            text,
            done: 0,
            next: [Found::Unknown; 4],
            url: Found::Unknown,
            email: Found::Unknown,
        }
    }

    /// The next autolink: its byte range in the text and the address it links to.
    fn next(&mut self) -> Option<(usize, usize, String)> {
        let url = self.cached(false).map(|(start, end)| {
            let shown = &self.text[start..end];
            let href = match shown.starts_with("www.") {
                true => format!("http://{shown}"),
                false => shown.to_string(),
            };
            (start, end, href)
        });
        let email = self
            .cached(true)
            .map(|(start, end)| (start, end, format!("mailto:{}", &self.text[start..end])));
        let next = match (url, email) {
            (Some(u), Some(e)) => Some(if e.0 < u.0 { e } else { u }),
            (u, e) => u.or(e),
        }?;
        self.done = next.1;
        Some(next)
    }

    /// Where `pattern` (0 to 2: a URL prefix, 3: `@`) next occurs at or after `from`.
    fn occurrence(&mut self, pattern: usize, from: usize) -> Option<usize> {
        if let Found::At(at) = self.next[pattern] {
            if at >= from {
                return Some(at);
            }
        }
        if let Found::Nowhere = self.next[pattern] {
            return None;
        }
        let needle = URL_PREFIXES.get(pattern).copied().unwrap_or("@");
        let found = memchr::memmem::find(&self.text.as_bytes()[from..], needle.as_bytes())
            .map(|i| from + i);
        self.next[pattern] = found.map_or(Found::Nowhere, Found::At);
        found
    }

    /// The next bare URL (`email: false`) or email address: the one found before while it
    /// starts at or after the last link's end, else searched for from there.
    fn cached(&mut self, email: bool) -> Option<(usize, usize)> {
        let kept = if email { self.email } else { self.url };
        match kept {
            Found::At(range) if range.0 >= self.done => return Some(range),
            Found::Nowhere => return None,
            _ => {}
        }
        let found = if email {
            self.next_email()
        } else {
            self.next_bare_url()
        };
        let kept = found.map_or(Found::Nowhere, Found::At);
        if email {
            self.email = kept;
        } else {
            self.url = kept;
        }
        found
    }

    /// The byte range of the next email address, by GitHub's rules: `local@domain.tld`, the
    /// local part of letters, digits and `.+-_`, the domain of dot-separated labels.
    fn next_email(&mut self) -> Option<(usize, usize)> {
        let bytes = self.text.as_bytes();
        let is_local = |b: u8| b.is_ascii_alphanumeric() || b"._+-".contains(&b);
        let is_domain = |b: u8| b.is_ascii_alphanumeric() || b"._-".contains(&b);
        let mut search_from = self.done;
        while let Some(at) = self.occurrence(3, search_from) {
            search_from = at + 1;
            let start = bytes[self.done..at]
                .iter()
                .rposition(|&b| !is_local(b))
                .map_or(self.done, |i| self.done + i + 1);
            let mut end = at
                + 1
                + bytes[at + 1..]
                    .iter()
                    .position(|&b| !is_domain(b))
                    .unwrap_or(bytes.len() - at - 1);
            while end > at + 1 && bytes[end - 1] == b'.' {
                end -= 1;
            }
            let domain = &self.text[at + 1..end];
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

    /// The byte range of the next bare URL, by GitHub's rules: it starts a word, runs to
    /// white space or `<`, and loses trailing punctuation and unbalanced closing parentheses.
    fn next_bare_url(&mut self) -> Option<(usize, usize)> {
        let text = self.text;
        let mut search_from = self.done;
        loop {
            let (start, prefix_len) = (0..URL_PREFIXES.len())
                .filter_map(|pattern| {
                    self.occurrence(pattern, search_from)
                        .map(|at| (at, URL_PREFIXES[pattern].len()))
                })
                .min()?;
            search_from = start + prefix_len;
            let at_word_start = text[self.done..start]
                .chars()
                .next_back()
                .is_none_or(|c| c.is_whitespace() || "*_~(".contains(c));
            if !at_word_start {
                continue;
            }
            let tail = &text[start..];
            let mut end = tail
                .find(|c: char| c.is_whitespace() || c == '<')
                .unwrap_or(tail.len());
            // Counted once, then kept as the end moves back: a run of a million `)` is
            // trimmed in one pass.
            let opened = tail[..end].matches('(').count();
            let mut closed = tail[..end].matches(')').count();
            while let Some(last) = tail[..end].chars().next_back() {
                let unbalanced_paren = last == ')' && closed > opened;
                if !(unbalanced_paren || "?!.,:*_~'\"".contains(last)) {
                    break;
                }
                closed -= usize::from(last == ')');
                end -= last.len_utf8();
            }
            let host = tail.get(prefix_len..end).unwrap_or_default();
            if host.contains(|c: char| c.is_alphanumeric())
                && (prefix_len != 4 || host.contains('.'))
            {
                return Some((start, start + end));
            }
        }
    }
}

/// Sanitizes an entry's HTML, resolving relative URLs against `bases`. Each thread keeps
/// its sanitizer: building one costs more than cleaning a typical entry.
fn sanitize(html: &str, bases: &Bases) -> String {
    thread_local! {
        static SANITIZER: RefCell<ammonia::Builder<'static>> = RefCell::new(sanitizer());
    }
    let clean = SANITIZER.with_borrow_mut(|builder| {
        builder
            .url_relative(ammonia::UrlRelative::Custom(Box::new(bases.clone())))
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
        .add_tag_attributes("blockquote", ["class"])
        .add_tag_attributes("p", ["class"])
        .add_tag_attributes("th", ["style"])
        .add_tag_attributes("td", ["style"])
        .attribute_filter(|element, attribute, value| {
            let keep = match (element, attribute) {
                // Only ever a new tab: content may not navigate the host page.
                ("a", "target") => return Some(Cow::Borrowed("_blank")),
                ("code", "class") => value
                    .strip_prefix("language-")
                    .is_some_and(is_code_language),
                ("sup" | "div", "class") => matches!(
                    value,
                    "footnote-reference" | "footnote-definition" | "footnote-definition-label"
                ),
                ("div", "id") => value.starts_with("fn-"),
                ("blockquote", "class") => value
                    .strip_prefix("markdown-alert markdown-alert-")
                    .is_some_and(|kind| {
                        ["note", "tip", "important", "warning", "caution"].contains(&kind)
                    }),
                ("p", "class") => value == "markdown-alert-title",
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

    /// An entry of acme, whose website is elsewhere.
    fn bases() -> Bases {
        Bases {
            entry: Url::parse("https://acme.example.com/changelog/v2/").unwrap(),
            site: Url::parse("https://www.acme.example/").unwrap(),
        }
    }

    /// The words of an org in English that changes none.
    fn english() -> Words {
        Words::new("en", &Default::default())
    }

    fn html(markdown: &str) -> String {
        render(markdown, &bases(), "v2", &english()).unwrap().html
    }

    /// The tree an HTML parser builds from `html`: each node in document order, with its
    /// depth, and an element's attributes sorted.
    fn parsed(html: &str) -> Vec<(usize, String)> {
        let fragment = scraper::Html::parse_fragment(html);
        fragment
            .tree
            .nodes()
            .map(|node| {
                let description = match node.value() {
                    scraper::Node::Element(element) => {
                        let mut attributes: Vec<_> = element.attrs().collect();
                        attributes.sort();
                        format!("<{} {attributes:?}>", element.name())
                    }
                    scraper::Node::Text(text) => format!("{:?}", &**text),
                    other => format!("{other:?}"),
                };
                (node.ancestors().count(), description)
            })
            .collect()
    }

    /// Writes `markdown`; where that skips the sanitizer, checks that sanitizing would not
    /// have changed the parsed HTML. Returns whether it was skipped.
    fn skips_the_sanitizer_safely(markdown: &str) -> bool {
        let url = bases();
        let written = write(markdown, &url, "v2", &english()).unwrap();
        if written.needs_sanitizer {
            return false;
        }
        let sanitized = sanitize(&written.html, &url);
        assert_eq!(
            parsed(&written.html),
            parsed(&sanitized),
            "the sanitizer changes\n{}\ninto\n{sanitized}\nfrom\n{markdown}",
            written.html
        );
        // Nor would parsing it change a character (the tree above cannot show that).
        assert!(
            !written.html.contains(['\0', '\r']),
            "{:?} from {markdown:?}",
            written.html
        );
        true
    }

    #[test]
    fn markdown_without_raw_html_needs_no_sanitizer() {
        for markdown in [
            "# Title\n\nA *b* **c** ~~d~~ `e < f & g \"h\"` 'i' & < > \u{a0} \\<b>",
            "[a](shot.png) [b](/docs?x=1&y='2') [c](../v1/ \"T & \\\"q\\\"\") [d](#top) ![i](img/x.png \"t\")",
            "[e](https://example.org/a_(b)?c=[d]|{e}) [f](HTTPS://EXAMPLE.ORG) [g](mailto:a@b.example)",
            "[h](<a b/ä ö>) [i](%7Ex) [j](//cdn.example/x) [k](?q) [l](.) [m]()",
            "![alt *with* [a link](x) and `code`](y.png) [![inner](i.png)](https://x.example)",
            "<https://auto.example/x> <a@b.example> www.example.com https://x.io/a_(b). a@b.example",
            "| a | b | c |\n|:-|:-:|-:|\n| 1 | **2** | [3](x) |\n\n| only |\n|---|",
            "- [x] done\n- [ ] open\n\n1. one\n2. two\n\n3. three\n   - nested\n\n     > quote",
            "> [!NOTE]\n> Alert.\n\n> [!WARNING]\n> Careful.",
            "```rust\nfn main() {}\n```\n\n```c++ {.x}\nx\n```\n\n```\"><script>\nx\n```\n\n~~~\n\nleading blank\n~~~\n\n    indented",
            "Note[^n] and again[^n] and[^m].\n\n[^m]: M first.\n[^n]: N with [a link](x) and ![i](i.png).\n\n[^unused]: U.",
            "line  \nbreak\\\nand\n\n---\n\n***\n\nSetext\n===\n\nSub\n---",
            "a\r\nb\r\n\r\n```\r\ncode\r\n```\r\n\u{1}\u{7f}\u{feff}&#0;&amp;&copy;&#x1F600;",
            "[a](x \"t\r\nu\rv\") ![i\r\nj](y \"\r\")",
            "[ref] [ref][] [text][ref] [undefined]\n\n[ref]: https://example.org/ \"Ref title\"",
        ] {
            assert!(
                skips_the_sanitizer_safely(markdown),
                "needs the sanitizer: {markdown}"
            );
        }
    }

    #[test]
    fn raw_html_and_other_urls_need_the_sanitizer() {
        for markdown in [
            "<b>raw</b>",
            "<div>\nblock\n</div>",
            "<!-- comment -->",
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](&#106;avascript:alert(1))",
            "![i](data:image/png;base64,AA)",
            "[x](ftp://example.org/file)",
            "[x](http://[::1:bad]/)",
            "<javascript:alert(1)>",
            "before\u{0}after [t](x \"\u{0}\")",
        ] {
            assert!(!skips_the_sanitizer_safely(markdown), "{markdown}");
        }
    }

    proptest::proptest! {
        #[test]
        fn sanitizing_what_skips_the_sanitizer_changes_nothing(
            pieces in proptest::collection::vec(proptest::sample::select(&[
                "text ", "*", "**", "_", "~~", "`", "\\", "&amp;", "&#60;", "&quot;", "\"", "'",
                "<", ">", "&", "\n", "\n\n", "  \n", "# ", "> ", "> [!TIP]\n> ", "- ", "1. ",
                "3) ", "- [ ] ", "    ", "```", "```js", "```x\"y", "~~~", "---\n", "| a | b |\n|:-|-:|\n| ",
                " | ", "[", "]", "(", ")", "![", "](", "[x](", "[x][r]", "\n[r]: ", "<https://a.example/>",
                "<a@b.example>", "https://x.example/p?q=1&r=[2]", "www.x.example", "c@d.example",
                "#frag", "../up", "/root", "rel/ä ö", "//host.example", "mailto:m@x.example",
                "javascript:x", "ftp://x", "\"title\"", "[^1]", "\n[^1]: ", "[^b]", "\n\n[^b]: ",
                "\u{a0}", "\r\n", "\r", "\t", "\u{0}",
            ][..]), 0..30)
        ) {
            skips_the_sanitizer_safely(&pieces.concat());
        }
    }

    #[test]
    fn nesting_is_limited() {
        let url = bases();
        let ok = |markdown: &str| render(markdown, &url, "v2", &english()).is_ok();
        let quotes = |n| format!("text\n\n{} deep", ">".repeat(n));
        assert!(ok(&quotes(MAX_NESTING - 1)));
        // The paragraph inside the innermost quote is one level too many.
        let paragraph = "text\n\n".len() + MAX_NESTING + 1;
        assert_eq!(
            render(&quotes(MAX_NESTING), &url, "v2", &english()).err(),
            Some(Refused::TooDeep { offset: paragraph })
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
    fn the_markdown_gets_absolute_urls() {
        let markdown = "[a](shot.png \"t\") ![b]( <img/x.png> ) [c](/docs) [d](#top) \
                        [e](https://x.io/) [f][ref] `[g](code.png)`\n\n[ref]: ../v1/\n";
        let rendered = render(markdown, &bases(), "v2", &english()).unwrap();
        assert_eq!(
            rendered.markdown,
            "[a](https://acme.example.com/changelog/v2/shot.png \"t\") \
             ![b]( <https://acme.example.com/changelog/v2/img/x.png> ) \
             [c](https://www.acme.example/docs) [d](#top) [e](https://x.io/) [f][ref] \
             `[g](code.png)`\n\n[ref]: https://acme.example.com/changelog/v1/\n"
        );
        // Escaped or entity-written destinations, and comments, which the HTML leaves out.
        let written = "[e](/docs/\\(v2\\)) [f](&#47;docs/e) [t](</a\tb>)\n\n\
                       <!-- internal: BigCustomer -->\n\nText <!-- inline note --> on.\n\n\
                       [Unused]: https://wiki.internal.example/\n";
        let rendered_too = render(written, &bases(), "v2", &english()).unwrap();
        assert_eq!(
            rendered_too.markdown,
            "[e](<https://www.acme.example/docs/(v2)>) [f](https://www.acme.example/docs/e) \
             [t](<https://www.acme.example/a%09b>)\n\n\nText  on.\n\n\n"
        );
        assert!(rendered_too
            .html
            .contains("href=\"https://www.acme.example/a%09b\""));
        // A text of short relative links grows past the limit once they are absolute; a
        // definition no link uses is left out, not made absolute.
        let unused: String = (0..50_000).map(|i| format!("[l{i}]:x\n")).collect();
        assert_eq!(
            render(&unused, &bases(), "v2", &english())
                .unwrap()
                .markdown
                .trim(),
            ""
        );
        let used: String = (0..120_000)
            .map(|i| format!("[l{i}]:x\n[l{i}]\n\n"))
            .collect();
        assert_eq!(
            render(&used, &bases(), "v2", &english()).err(),
            Some(Refused::TooLarge)
        );
        let kinds: Vec<(bool, bool)> = rendered
            .local_links
            .iter()
            .map(|link| (link.image, link.root_relative))
            .collect();
        assert_eq!(
            kinds,
            [(false, false), (true, false), (false, true), (false, false)]
        );
    }

    #[test]
    fn relative_links_become_absolute() {
        let out = html(
            "[a](shot.png) [b](/docs) [c](../v1/) [d](#top) ![i](img/x.png) <a href=\"/raw\">r</a>",
        );
        assert!(
            out.contains("href=\"https://acme.example.com/changelog/v2/shot.png\""),
            "{out}"
        );
        assert!(
            out.contains("href=\"https://www.acme.example/docs\""),
            "{out}"
        );
        assert!(
            out.contains("href=\"https://www.acme.example/raw\""),
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
        let out = html("Or <help@acme.example.com>.");
        assert!(
            out.contains("<a href=\"mailto:help@acme.example.com\" target=\"_blank\""),
            "{out}"
        );
    }

    #[test]
    fn an_image_text_is_plain_text() {
        let out = html("![The [new](/x) *screen*](shot.png)");
        assert!(out.contains("alt=\"The new screen\""), "{out}");
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

    #[test]
    fn alerts_are_block_quotes_titled_in_the_org_language() {
        let out = html("> [!WARNING]\n> Breaking.\n\n> [!NOTE]\n> Aside.\n\n> Quote.");
        assert!(
            out.contains(
                "<blockquote class=\"markdown-alert markdown-alert-warning\">\n<p class=\"markdown-alert-title\"><strong>Warning</strong></p>\n<p>Breaking.</p>\n</blockquote>"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "markdown-alert-note\">\n<p class=\"markdown-alert-title\"><strong>Note</strong>"
            ),
            "{out}"
        );
        assert!(out.contains("<blockquote>\n<p>Quote.</p>"), "{out}");
        // In the org's language, its own words escaped; and through the sanitizer too.
        let strings = [("alert_tip".to_string(), "<Tipp & Trick>".to_string())].into();
        let german = Words::new("de", &strings);
        for markdown in [
            "> [!TIP]\n> Hier.\n\n> [!CAUTION]\n> Vorsicht.",
            "> [!TIP]\n> <b>Hier.</b>\n\n> [!CAUTION]\n> Vorsicht.",
        ] {
            let out = render(markdown, &bases(), "v2", &german).unwrap().html;
            assert!(out.contains("markdown-alert-tip\">\n<p class=\"markdown-alert-title\"><strong>&lt;Tipp &amp; Trick&gt;</strong>"), "{out}");
            assert!(out.contains("markdown-alert-caution\">\n<p class=\"markdown-alert-title\"><strong>Achtung</strong>"), "{out}");
        }
        // Raw HTML may not borrow a class of its own making.
        let out = html("<blockquote class=\"markdown-alert markdown-alert-x\"><p class=\"title\">x</p></blockquote>");
        assert!(!out.contains("class"), "{out}");
    }
}
