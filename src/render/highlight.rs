//! Fenced code with a language, highlighted at build time for the pages (SPEC section 7):
//! tree-sitter grammars, each token a `<span class="hl-…">` that the theme colours for light
//! and dark. The feeds keep the code plain: a reader's app has none of the theme's styles.
//!
//! tree-sitter rather than syntect, by measurement (docs/performance.md): a tenth of the
//! time per block (0.19–0.34 s per 1,000 blocks of Rust, JSON, shell and TypeScript against
//! 2.2–2.7 s for syntect with its pure-Rust regex engine, 0.75–1.1 s with Oniguruma), for a
//! larger binary and fewer languages (the 13 below; syntect with bat's syntaxes has 213).

use std::borrow::Cow;
use std::sync::OnceLock;

use tree_sitter_highlight::{HighlightConfiguration, Highlighter, HtmlRenderer};

/// The captures the grammars' queries name that get a colour, and the class of each (a
/// capture takes the entry that matches most of its dotted parts: `function.method` is
/// `function`'s, `string.special.key` the key's own).
const CLASSES: &[(&str, &str)] = &[
    ("comment", "hl-c"),
    ("string", "hl-s"),
    ("string.special.key", "hl-a"),
    ("escape", "hl-s"),
    ("number", "hl-n"),
    ("boolean", "hl-n"),
    ("constant", "hl-n"),
    ("keyword", "hl-k"),
    ("function", "hl-f"),
    ("type", "hl-t"),
    ("constructor", "hl-t"),
    ("module", "hl-t"),
    ("attribute", "hl-a"),
    ("property", "hl-a"),
    ("label", "hl-a"),
    ("tag", "hl-g"),
    ("variable.builtin", "hl-v"),
    ("variable.parameter", "hl-v"),
];

/// One language: how to make its configuration, and the fence words that name it.
struct Language {
    make: fn() -> HighlightConfiguration,
    names: &'static [&'static str],
    /// Made the first time a block of the language is met: compiling a grammar's queries
    /// takes 5–50 ms, which a build without that language should not pay.
    config: OnceLock<HighlightConfiguration>,
}

macro_rules! language {
    ($names:expr, $make:expr) => {
        Language {
            make: $make,
            names: $names,
            config: OnceLock::new(),
        }
    };
}

fn config(
    language: tree_sitter::Language,
    name: &str,
    highlights: &str,
    injections: &str,
    locals: &str,
) -> HighlightConfiguration {
    let mut config = HighlightConfiguration::new(language, name, highlights, injections, locals)
        .expect("a grammar's own queries compile");
    let names: Vec<&str> = CLASSES.iter().map(|(capture, _)| *capture).collect();
    config.configure(&names);
    config
}

static LANGUAGES: [Language; 13] = [
    language!(&["rust", "rs"], || config(
        tree_sitter_rust::LANGUAGE.into(),
        "rust",
        tree_sitter_rust::HIGHLIGHTS_QUERY,
        tree_sitter_rust::INJECTIONS_QUERY,
        ""
    )),
    language!(&["json", "jsonc", "json5"], || config(
        tree_sitter_json::LANGUAGE.into(),
        "json",
        tree_sitter_json::HIGHLIGHTS_QUERY,
        "",
        ""
    )),
    language!(
        &["bash", "sh", "shell", "console", "zsh", "shellsession"],
        || config(
            tree_sitter_bash::LANGUAGE.into(),
            "bash",
            tree_sitter_bash::HIGHLIGHT_QUERY,
            "",
            ""
        )
    ),
    // TypeScript's queries extend JavaScript's.
    language!(&["typescript", "ts", "mts", "cts"], || config(
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        "typescript",
        &format!(
            "{}\n{}",
            tree_sitter_typescript::HIGHLIGHTS_QUERY,
            tree_sitter_javascript::HIGHLIGHT_QUERY
        ),
        "",
        &format!(
            "{}\n{}",
            tree_sitter_typescript::LOCALS_QUERY,
            tree_sitter_javascript::LOCALS_QUERY
        ),
    )),
    language!(&["tsx"], || config(
        tree_sitter_typescript::LANGUAGE_TSX.into(),
        "tsx",
        &format!(
            "{}\n{}\n{}",
            tree_sitter_typescript::HIGHLIGHTS_QUERY,
            tree_sitter_javascript::JSX_HIGHLIGHT_QUERY,
            tree_sitter_javascript::HIGHLIGHT_QUERY
        ),
        "",
        &format!(
            "{}\n{}",
            tree_sitter_typescript::LOCALS_QUERY,
            tree_sitter_javascript::LOCALS_QUERY
        ),
    )),
    language!(&["javascript", "js", "jsx", "mjs", "cjs"], || config(
        tree_sitter_javascript::LANGUAGE.into(),
        "javascript",
        &format!(
            "{}\n{}",
            tree_sitter_javascript::JSX_HIGHLIGHT_QUERY,
            tree_sitter_javascript::HIGHLIGHT_QUERY
        ),
        "",
        tree_sitter_javascript::LOCALS_QUERY,
    )),
    language!(&["python", "py"], || config(
        tree_sitter_python::LANGUAGE.into(),
        "python",
        tree_sitter_python::HIGHLIGHTS_QUERY,
        "",
        ""
    )),
    language!(&["go", "golang"], || config(
        tree_sitter_go::LANGUAGE.into(),
        "go",
        tree_sitter_go::HIGHLIGHTS_QUERY,
        "",
        ""
    )),
    language!(&["yaml", "yml"], || config(
        tree_sitter_yaml::LANGUAGE.into(),
        "yaml",
        tree_sitter_yaml::HIGHLIGHTS_QUERY,
        "",
        ""
    )),
    language!(&["toml"], || config(
        tree_sitter_toml_ng::LANGUAGE.into(),
        "toml",
        tree_sitter_toml_ng::HIGHLIGHTS_QUERY,
        "",
        ""
    )),
    language!(&["html", "htm", "xhtml"], || config(
        tree_sitter_html::LANGUAGE.into(),
        "html",
        tree_sitter_html::HIGHLIGHTS_QUERY,
        "",
        ""
    )),
    language!(&["css"], || config(
        tree_sitter_css::LANGUAGE.into(),
        "css",
        tree_sitter_css::HIGHLIGHTS_QUERY,
        "",
        ""
    )),
    language!(&["sql"], || config(
        tree_sitter_sequel::LANGUAGE.into(),
        "sql",
        tree_sitter_sequel::HIGHLIGHTS_QUERY,
        "",
        ""
    )),
];

/// The configuration of the language a fence names (`ts`, `TypeScript`), if highlighted.
fn language(name: &str) -> Option<&'static HighlightConfiguration> {
    let name = name.to_ascii_lowercase();
    let language = LANGUAGES
        .iter()
        .find(|language| language.names.contains(&name.as_str()))?;
    Some(language.config.get_or_init(language.make))
}

/// The largest block highlighted, in bytes of its escaped code: highlighting takes about
/// 0.3 s a megabyte, and a block longer than a few thousand lines is a log or a dump that no
/// one reads for its colours.
const MAX_BLOCK: usize = 256 * 1024;

/// `html` (an entry's sanitized HTML) with the code of each `<pre><code class="language-…">`
/// of a highlighted language, and not over [`MAX_BLOCK`], in coloured spans; other code stays
/// as it is. The code is the
/// block's text: the sanitized HTML holds it escaped, and nothing else, between the tags.
pub fn code_blocks(html: &str) -> Cow<'_, str> {
    const OPEN: &str = "<pre><code class=\"language-";
    const CLOSE: &str = "</code></pre>";
    if !html.contains(OPEN) {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len() * 2);
    let mut highlighter = Highlighter::new();
    let mut renderer = HtmlRenderer::new();
    let mut rest = html;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let (Some(quote), Some(end)) = (after.find('"'), after.find(CLOSE)) else {
            break;
        };
        let name = &after[..quote];
        let Some(code_start) = after[quote..].find('>').map(|gt| quote + gt + 1) else {
            break;
        };
        let escaped = &after[code_start.min(end)..end];
        let highlighted = language(name)
            .filter(|_| escaped.len() <= MAX_BLOCK)
            .and_then(|config| {
                let code = crate::html::unescape(escaped);
                let events = highlighter
                    .highlight(config, code.as_bytes(), None, None, |_| None)
                    .ok()?;
                renderer.reset();
                renderer
                    .render(events, code.as_bytes(), &|highlight, out| {
                        out.extend_from_slice(b"class=\"");
                        out.extend_from_slice(CLASSES[highlight.0].1.as_bytes());
                        out.push(b'"');
                    })
                    .ok()?;
                let spans = std::str::from_utf8(&renderer.html).ok()?;
                Some(tidy(spans, &code))
            });
        out.push_str(&rest[..at + OPEN.len() + code_start.min(end)]);
        match highlighted {
            Some(spans) => out.push_str(&spans),
            None => out.push_str(escaped),
        }
        out.push_str(CLOSE);
        rest = &after[end + CLOSE.len()..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The renderer's HTML of `code` as the code's own: the renderer closes and reopens the open
/// spans at each line's end, which leaves empty ones, and ends with a line break of its own
/// where the code's last line had none of its own to end on.
fn tidy(spans: &str, code: &str) -> String {
    let mut out = String::with_capacity(spans.len());
    let mut rest = spans;
    while let Some(at) = rest.find("<span class=\"hl-") {
        let tag_end = rest[at..].find('>').map_or(rest.len(), |end| at + end + 1);
        out.push_str(&rest[..at]);
        if rest[tag_end..].starts_with("</span>") {
            rest = &rest[tag_end + "</span>".len()..];
        } else {
            out.push_str(&rest[at..tag_end]);
            rest = &rest[tag_end..];
        }
    }
    out.push_str(rest);
    let breaks = |text: &str| text.len() - text.trim_end_matches('\n').len();
    let extra = breaks(&out).saturating_sub(breaks(code));
    out.truncate(out.len() - extra);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_languages_get_token_classes_and_others_stay_plain() {
        let html = "<p>x</p>\n<pre><code class=\"language-rust\">fn main() { let x = &quot;a&lt;b&quot;; }\n</code></pre>\n\
                    <pre><code class=\"language-klingon\">a &lt; b\n</code></pre>";
        let out = code_blocks(html);
        assert!(out.contains("<span class=\"hl-k\">fn</span>"), "{out}");
        assert!(
            out.contains("<span class=\"hl-s\">&quot;a&lt;b&quot;</span>"),
            "{out}"
        );
        assert!(
            out.contains("<pre><code class=\"language-klingon\">a &lt; b\n</code></pre>"),
            "{out}"
        );
        assert!(
            out.starts_with("<p>x</p>\n<pre><code class=\"language-rust\">"),
            "{out}"
        );
    }

    #[test]
    fn a_block_over_the_limit_stays_plain() {
        let code = "fn f() {}\n".repeat(MAX_BLOCK / 10 + 1);
        let html = format!("<pre><code class=\"language-rust\">{code}</code></pre>");
        assert_eq!(code_blocks(&html), html);
    }
}
