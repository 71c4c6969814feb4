//! Markdown to safe HTML: CommonMark with GitHub's extensions, sanitized, with every relative
//! link and image made absolute against the entry's own URL.

use std::borrow::Cow;
use std::collections::HashMap;

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd, TextMergeStream};
use url::Url;

/// Renders `markdown` to sanitized HTML. Relative URLs resolve against `entry_url`;
/// footnote anchors are named after `entry_id` so several entries can share a page.
pub fn to_html(markdown: &str, entry_url: &Url, entry_id: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM;
    let events = TextMergeStream::new(Parser::new_ext(markdown, options));
    let mut footnotes = FootnoteNames::new(entry_id);
    let mut link_depth = 0usize;
    let mut in_code_block = false;
    let mut transformed = Vec::new();
    for event in events {
        match event {
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => {
                link_depth += 1;
                transformed.push(event);
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                link_depth = link_depth.saturating_sub(1);
                transformed.push(event);
            }
            Event::Start(Tag::CodeBlock(_)) => {
                in_code_block = true;
                transformed.push(event);
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code_block = false;
                transformed.push(event);
            }
            Event::Text(text) if link_depth == 0 && !in_code_block => {
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
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut raw, transformed.into_iter());
    sanitizer(entry_url).clean(&raw).to_string()
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

/// GitHub's extended autolinks: bare `https://`, `http://` and `www.` addresses in text.
fn autolink<'a>(text: CowStr<'a>, out: &mut Vec<Event<'a>>) {
    let mut rest: &str = &text;
    let mut found = false;
    while let Some((start, end)) = next_bare_url(rest) {
        found = true;
        if start > 0 {
            out.push(Event::Text(CowStr::from(rest[..start].to_string())));
        }
        let shown = &rest[start..end];
        let href = if shown.starts_with("www.") {
            format!("http://{shown}")
        } else {
            shown.to_string()
        };
        out.push(Event::Start(Tag::Link {
            link_type: LinkType::Autolink,
            dest_url: CowStr::from(href),
            title: CowStr::Borrowed(""),
            id: CowStr::Borrowed(""),
        }));
        out.push(Event::Text(CowStr::from(shown.to_string())));
        out.push(Event::End(TagEnd::Link));
        rest = &rest[end..];
    }
    if !found {
        out.push(Event::Text(text));
    } else if !rest.is_empty() {
        out.push(Event::Text(CowStr::from(rest.to_string())));
    }
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

/// The sanitizer for one entry: a conservative allow-list, no scripts, no event handlers,
/// only web and mail URL schemes, relative URLs resolved against the entry, and links that
/// open outside an embedding frame.
fn sanitizer(entry_url: &Url) -> ammonia::Builder<'static> {
    let mut builder = ammonia::Builder::default();
    builder
        .url_relative(ammonia::UrlRelative::RewriteWithBase(entry_url.clone()))
        .link_rel(Some("noopener noreferrer"))
        .set_tag_attribute_value("a", "target", "_blank")
        .add_tags(["input"])
        .add_tag_attributes("input", ["type", "checked", "disabled", "aria-label"])
        .add_tag_attributes("code", ["class"])
        .add_tag_attributes("sup", ["class"])
        .add_tag_attributes("div", ["class", "id"])
        .add_tag_attributes("th", ["style"])
        .add_tag_attributes("td", ["style"])
        .attribute_filter(|element, attribute, value| {
            let keep = match (element, attribute) {
                ("input", "type") => value == "checkbox",
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
        to_html(markdown, &url, "v2")
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
