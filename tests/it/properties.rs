//! Properties of the content pipeline, checked on generated input through the library's own
//! loading path (`shiplog::content::load`, then `shiplog::render::render_org`): any bytes as an
//! entry give an index or located problems, never a panic; rendering is deterministic; and
//! sanitized HTML, re-parsed by an independent HTML parser, never holds a script, an event
//! handler or a `javascript:`/`vbscript:`/`data:` URL.
//!
//! Each property runs 256 cases; set `PROPTEST_CASES` for more or fewer.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use shiplog::content::{self, Index};
use shiplog::render::{self, Themes};
use shiplog::{Error, SiteConfig};

/// A content folder in a temporary directory, with one org, `acme`.
struct Content {
    dir: tempfile::TempDir,
}

impl Content {
    fn new() -> Content {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("content/acme")).expect("org folder");
        Content { dir }
    }

    fn folder(&self) -> PathBuf {
        self.dir.path().join("content")
    }

    /// Writes entry file `name` of the org.
    fn entry(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.folder().join("acme").join(name);
        std::fs::write(&path, bytes).expect("write entry");
        path
    }

    fn load(&self) -> shiplog::Result<Index> {
        content::load(&self.folder(), &SiteConfig::default())
    }
}

fn now() -> DateTime<Utc> {
    "2026-11-21T00:00:00Z".parse().expect("a date")
}

/// Every page and feed of `index`, rendered in memory with the built-in theme (parsed once),
/// in org order.
fn render_all(index: &Index) -> Vec<render::OutputFile> {
    static THEMES: OnceLock<Themes> = OnceLock::new();
    let themes = THEMES.get_or_init(|| {
        shiplog::themes::load(["default"], Path::new("themes")).expect("the built-in theme")
    });
    index
        .orgs()
        .iter()
        .flat_map(|org| {
            render::render_org(org, themes.get(&org.settings.theme), now())
                .expect("rendering a valid index succeeds")
        })
        .collect()
}

/// Bytes that often look like an entry: a front matter fence, YAML-ish lines, a closing
/// fence, CR, BOM and invalid UTF-8 mixed with anything.
fn entry_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"---\n".to_vec()),
        Just(b"---\r\n".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"title: T\n".to_vec()),
        Just(b"date: 2026-11-01\n".to_vec()),
        Just(b"tags: [a, b]\n".to_vec()),
        Just(b"id: x\n".to_vec()),
        Just(b"draft: true\n".to_vec()),
        Just(b"summary: \"s\\x07\"\n".to_vec()),
        Just(b"a: &a [*a]\n".to_vec()),
        Just(b"{title: [\n".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\xC3".to_vec()),
        Just(b"\xFF\xFE".to_vec()),
        Just(b"> - [x](javascript:y) <b>*".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..32),
    ];
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..512),
        proptest::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat()),
    ]
}

/// Markdown mixing raw HTML (tags, event handlers, URL attributes), URLs with dangerous
/// schemes written in evasive ways, entities and Markdown syntax.
fn hostile_markdown() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        // Tags and the parser's raw-text traps.
        one_of(&[
            "<script>",
            "</script>",
            "<script src=",
            "<img",
            "<a",
            "<svg",
            "<svg><script>",
            "<math>",
            "<iframe",
            "<object",
            "<embed",
            "<form",
            "<input",
            "<button",
            "<style>",
            "</style>",
            "<div",
            "<details open",
            "<video",
            "<audio",
            "<source",
            "<base",
            "<meta http-equiv=refresh content=",
            "<link",
            "<!--",
            "-->",
            "<![CDATA[",
            "]]>",
            "<noscript>",
            "<template>",
            "<textarea>",
            "<title>",
            "<xmp>",
            "<plaintext>",
            "<iframe srcdoc=",
            "<isindex",
            "<table background=",
            "<body",
            ">",
            "/>",
            "</a>",
        ]),
        // Attributes.
        one_of(&[
            " onerror=alert(1)",
            " onload=\"alert(1)\"",
            " OnClick='x'",
            " onmouseover=x",
            " href=",
            " href=\"",
            " src=",
            " xlink:href=",
            " formaction=",
            " action=",
            " style=\"background:url(javascript:alert(1))\"",
            " srcset=",
            " data=",
            " poster=",
            " background=",
            " lowsrc=",
            " dynsrc=",
            " cite=",
            " target=_top",
            " =",
            "\"",
            "'",
        ]),
        // URLs, plain and evasive.
        one_of(&[
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            "java&#x09;script:alert(1)",
            "&#106;avascript:alert(1)",
            "&#x6A;avascript:alert(1)",
            "&#0000106&#0000097vascript:alert(1)",
            " javascript:alert(1)",
            "\u{1}javascript:alert(1)",
            "javascript&colon;alert(1)",
            "jav&#x0A;ascript:alert(1)",
            "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
            "DATA:image/svg+xml,x",
            "vbscript:msgbox(1)",
            "VBScript:x",
            "https://ok.example/a?b=c",
            "//evil.example/x",
            "#top",
            "mailto:a@b.example",
            "x.png",
            "../up",
            "/root",
        ]),
        // Entities.
        one_of(&[
            "&lt;",
            "&#60;",
            "&#x3C;",
            "&amp;",
            "&quot;",
            "&#0;",
            "&#x0;",
            "&colon;",
            "&Tab;",
            "&NewLine;",
            "&#x3c;script&#x3e;",
        ]),
        // Markdown syntax.
        one_of(&[
            "[x](",
            ")",
            "![i](",
            "<javascript:alert(1)>",
            "\n[ref]: javascript:alert(1)\n",
            "[ref]",
            "[x][ref]",
            "\n\n",
            "\n",
            "```\n",
            "`",
            "*",
            "**",
            "> ",
            "- ",
            "1. ",
            "\n| a | b |\n|---|---|\n| ",
            "[^1]",
            "\n[^1]: note\n",
            "    ",
            "- [x] ",
            "~~",
            "www.example.com",
            "https://x.example/<script>",
            "a@b.example",
        ]),
        "[a-z<>\"'=:/ ]{0,8}".prop_map(|s: String| s),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

/// One of `items`, as a `String`.
fn one_of(items: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(items).prop_map(str::to_string)
}

/// An entry file with a fixed, valid front matter and `body`.
fn entry_with_body(body: &str) -> Vec<u8> {
    format!("---\ntitle: Generated\ndate: 2026-11-01\ntags: [gen]\n---\n{body}").into_bytes()
}

/// `code` without the `<span class="hl-…">` and `</span>` tags of highlighting (its text is
/// escaped: any other `<` would be a tag that should not be there, and is kept).
fn without_token_spans(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let tag_end = rest.find('>').map_or(rest.len(), |end| end + 1);
        let tag = &rest[..tag_end];
        let is_token = tag == "</span>"
            || (tag.starts_with("<span class=\"hl-") && tag.ends_with("\">") && tag.len() == 19);
        if !is_token {
            out.push_str(tag);
        }
        rest = &rest[tag_end..];
    }
    out.push_str(rest);
    out
}

/// Escaped text decoded (`&amp;` last, so that `&amp;lt;` stays `&lt;`).
fn decoded(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The text of `html` between the first `open` and the `close` after it.
fn between<'h>(html: &'h str, open: &str, close: &str) -> Option<&'h str> {
    let start = html.find(open)? + open.len();
    let end = html[start..].find(close)? + start;
    Some(&html[start..end])
}

/// Attributes whose value a browser may load or navigate to.
const URL_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "xlink:href",
    "action",
    "formaction",
    "srcset",
    "data",
    "poster",
    "background",
    "lowsrc",
    "dynsrc",
    "cite",
    "longdesc",
    "codebase",
    "manifest",
    "ping",
];

/// What is wrong with sanitized `html` by the rules above, as the parser sees it.
fn unsafe_parts(html: &str) -> Vec<String> {
    let fragment = scraper::Html::parse_fragment(html);
    let mut found = Vec::new();
    for node in fragment.tree.nodes() {
        let Some(element) = node.value().as_element() else {
            continue;
        };
        if element.name().eq_ignore_ascii_case("script") {
            found.push("a script element".to_string());
        }
        for (name, value) in element.attrs() {
            let name = name.to_ascii_lowercase();
            if name.starts_with("on") {
                found.push(format!("event handler {name}={value:?}"));
            }
            if URL_ATTRIBUTES.contains(&name.as_str()) && dangerous_scheme(value) {
                found.push(format!("{name}={value:?}"));
            }
        }
    }
    found
}

/// Whether a URL (entities already decoded by the parser) uses a scheme that runs code or
/// carries a document, as a browser reads it: leading spaces and control characters
/// dropped, tabs and newlines anywhere ignored, case ignored.
fn dangerous_scheme(url: &str) -> bool {
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect::<String>()
        .to_ascii_lowercase();
    ["javascript:", "vbscript:", "data:"]
        .iter()
        .any(|scheme| url.starts_with(scheme))
}

/// Checks that every problem of a failed load is located inside `text`'s lines (`path` is
/// the one file of the folder).
fn assert_located(error: &Error, path: &Path, bytes: &[u8]) {
    let Error::Invalid(problems) = error else {
        panic!("not a content problem: {error}");
    };
    let lines = bytes.split(|&b| b == b'\n').count();
    for problem in problems.as_slice() {
        assert_eq!(problem.path, path, "{problem}");
        assert!(
            problem.line >= 1 && problem.line <= lines && problem.column >= 1,
            "{problem} is outside the file's {lines} lines"
        );
        assert!(!problem.message.is_empty(), "{problem}");
    }
}

proptest! {
    #[test]
    fn any_bytes_as_an_entry_give_an_index_or_located_problems(bytes in entry_bytes()) {
        let content = Content::new();
        let path = content.entry("entry.md", &bytes);
        match content.load() {
            Ok(index) => {
                render_all(&index);
            }
            Err(error) => assert_located(&error, &path, &bytes),
        }
    }

    #[test]
    fn rendering_is_deterministic(
        bodies in proptest::collection::vec(hostile_markdown(), 1..4),
        titles in proptest::collection::vec("[ -~]{1,20}|[\u{a0}-\u{2fff}]{1,8}", 3),
        tags in proptest::collection::vec("[A-Za-z &<>]{1,6}", 0..4),
        days in proptest::collection::vec(1u32..4, 3),
    ) {
        let content = Content::new();
        let tags = serde_json::to_string(&tags).expect("JSON is YAML");
        for (i, body) in bodies.iter().enumerate() {
            let title = serde_json::to_string(titles[i].trim()).expect("JSON is YAML");
            let entry = format!(
                "---\ntitle: {title}\ndate: 2026-11-0{}\ntags: {tags}\n---\n{body}",
                days[i]
            );
            content.entry(&format!("e{i}.md"), entry.as_bytes());
        }
        let first = match content.load() {
            Ok(index) => index,
            Err(error) => return Err(TestCaseError::reject(error.to_string())),
        };
        let second = content.load().expect("the second load is like the first");
        prop_assert_eq!(&first, &second);
        let files = render_all(&first);
        prop_assert!(files == render_all(&second), "two renders differ");
    }

    #[test]
    fn every_feed_carries_each_entrys_html_as_it_is(
        bodies in proptest::collection::vec(hostile_markdown(), 1..4),
    ) {
        let content = Content::new();
        for (i, body) in bodies.iter().enumerate() {
            let entry = format!("---\ntitle: Entry {i}\ndate: 2026-11-0{}\ntags: [a]\n---\n{body}", i + 1);
            content.entry(&format!("e{i}.md"), entry.as_bytes());
        }
        let index = match content.load() {
            Ok(index) => index,
            Err(error) => return Err(TestCaseError::reject(error.to_string())),
        };
        let mut html: Vec<String> = index.org("acme").expect("the org").entries.iter()
            .map(|entry| entry.content_html.trim().to_string()).collect();
        html.sort();
        let mut feeds = 0;
        for (path, bytes) in render_all(&index) {
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
            if !["feed.xml", "feed.json", "atom.xml"].contains(&name) {
                continue;
            }
            feeds += 1;
            let feed = feed_rs::parser::parse(bytes.as_slice())
                .map_err(|e| TestCaseError::fail(format!("{}: {e}", path.display())))?;
            let mut carried: Vec<String> = feed.entries.iter().map(|entry| {
                // RSS's description is feed-rs's summary, Atom's and JSON Feed's content its
                // content; feed-rs trims the text of an element.
                entry.content.as_ref().and_then(|c| c.body.clone())
                    .or_else(|| entry.summary.as_ref().map(|s| s.content.clone()))
                    .unwrap_or_default().trim().to_string()
            }).collect();
            carried.sort();
            prop_assert_eq!(&carried, &html, "{}", path.display());
        }
        prop_assert_eq!(feeds, 6, "the org's three feeds and those of its tag");
    }

    #[test]
    fn highlighting_adds_only_token_spans_to_the_code(
        language in one_of(&["rust", "json", "sh", "ts", "tsx", "html", "css", "yaml", "sql", "python", "go", "toml", "js", "klingon"]),
        code in proptest::collection::vec(hostile_markdown(), 1..4),
    ) {
        let code = code.join("\n").replace("```", "``");
        let content = Content::new();
        content.entry("entry.md", &entry_with_body(&format!("```{language}\n{code}\n```\n")));
        let index = match content.load() {
            Ok(index) => index,
            Err(error) => return Err(TestCaseError::reject(error.to_string())),
        };
        let html = &index.org("acme").expect("the org").entries[0].content_html;
        let open = format!("<code class=\"language-{language}\">");
        let plain = between(html, &open, "</code>").expect("the code block");
        let files = render_all(&index);
        let (_, page) = files
            .iter()
            .find(|(path, _)| path.ends_with("changelog/entry/index.html"))
            .expect("the entry's page");
        let page = String::from_utf8_lossy(page);
        let highlighted = between(&page, &open, "</code>").expect("the code block on the page");
        // Without its token spans, the page's code is the feed's: the same text, escaped (a
        // quote may be written as `&quot;` on one side only).
        let bare = without_token_spans(highlighted);
        prop_assert!(!bare.contains('<') && !plain.contains('<'), "{}", bare);
        prop_assert_eq!(decoded(&bare), decoded(plain));
        prop_assert_eq!(highlighted.matches("<span").count(), highlighted.matches("</span>").count());
    }

    #[test]
    fn sanitized_html_holds_no_script_handler_or_dangerous_url(body in hostile_markdown()) {
        let content = Content::new();
        content.entry("entry.md", &entry_with_body(&body));
        let index = match content.load() {
            Ok(index) => index,
            Err(error) => return Err(TestCaseError::reject(error.to_string())),
        };
        let entry = &index.org("acme").expect("the org").entries[0];
        let found = unsafe_parts(&entry.content_html);
        prop_assert!(
            found.is_empty(),
            "{found:?} in\n{}\nfrom\n{body}",
            entry.content_html
        );
    }
}

#[test]
fn the_checker_finds_what_it_looks_for() {
    // The sanitizer's checker must be able to fail: raw dangerous HTML is caught.
    for html in [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<a href=\" java&#x09;script:alert(1)\">x</a>",
        "<a href=\"&#x6A;avascript:alert(1)\">x</a>",
        "<iframe src=\"DATA:text/html,x\"></iframe>",
        "<svg><a xlink:href=\"vbscript:x\">x</a></svg>",
    ] {
        assert!(!unsafe_parts(html).is_empty(), "missed {html}");
    }
    assert!(unsafe_parts("<a href=\"https://ok.example/\" title=\"javascript:\">x</a>").is_empty());
}
