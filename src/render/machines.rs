//! For language models and other readers of plain text: `changelog/llms.txt` (the org,
//! then a link per entry, per llmstxt.org) and `changelog/<id>/index.md`, each entry as
//! Markdown with its links made absolute.

use std::fmt::Write;

use super::FeedInfo;
use crate::content::{Entry, Org};

/// `llms.txt` and every published entry's `index.md`, as paths under `changelog/`.
pub fn render(org: &Org, feed: &FeedInfo, published: &[Entry]) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::with_capacity(published.len() + 1);
    files.push(("llms.txt".to_string(), llms_txt(org, feed, published)));
    for entry in published {
        files.push((format!("{}/index.md", entry.id), entry_markdown(entry)));
    }
    files
}

/// The llmstxt.org form: an H1 with the name, a block quote with the summary, then
/// sections of links: the feeds, and every entry's Markdown, newest first.
fn llms_txt(org: &Org, feed: &FeedInfo, published: &[Entry]) -> Vec<u8> {
    let mut out = String::with_capacity(256 + published.len() * 160);
    let _ = write!(
        out,
        "# {}\n\n> {}\n\nEvery update of {} is linked below, newest first, as Markdown. Main site: <{}>\n\n## Feeds\n\n",
        text(&org.settings.title),
        text(&org.settings.description),
        text(&org.settings.title),
        feed.website,
    );
    for (name, url) in [
        ("Changelog page", format!("{}/", feed.home_page_url)),
        ("RSS", feed.rss_url.clone()),
        ("Atom", feed.atom_url.clone()),
        ("JSON Feed", feed.json_url.clone()),
    ] {
        let _ = writeln!(out, "- [{name}]({url})");
    }
    out.push_str("\n## Updates\n\n");
    for entry in published {
        let _ = write!(
            out,
            "- [{}]({}index.md): {}",
            text(&entry.title),
            entry.url,
            entry.date.format("%Y-%m-%d")
        );
        if let Some(summary) = &entry.summary {
            let _ = write!(out, ", {}", text(summary));
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// An entry as Markdown: its title, a list of its facts, its summary and its text.
fn entry_markdown(entry: &Entry) -> Vec<u8> {
    let mut out = String::with_capacity(entry.markdown.len() + 512);
    let _ = write!(
        out,
        "# {}\n\n- Published: {}\n",
        text(&entry.title),
        entry.date_published()
    );
    if let Some(updated) = entry.date_modified() {
        let _ = writeln!(out, "- Updated: {updated}");
    }
    if !entry.tags.is_empty() {
        let tags: Vec<String> = entry.tags.iter().map(|tag| text(tag)).collect();
        let _ = writeln!(out, "- Tags: {}", tags.join(", "));
    }
    let _ = writeln!(out, "- Permalink: {}", entry.url);
    if let Some(image) = &entry.image {
        let _ = writeln!(out, "- Image: {}", image.url);
    }
    if let Some(summary) = &entry.summary {
        let _ = write!(out, "\n> {}\n", text(summary));
    }
    out.push('\n');
    out.push_str(entry.markdown.trim_start_matches(['\n', '\r']));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.into_bytes()
}

/// Plain text (a title, a summary, a tag) as Markdown that shows it as written, on one
/// line: line breaks and runs of blanks made single spaces, and every character that could
/// start a link, an autolink, HTML, an entity, emphasis, code or a heading escaped.
fn text(plain: &str) -> String {
    let mut out = String::with_capacity(plain.len() + 8);
    for (i, word) in plain.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        for c in word.chars() {
            if matches!(
                c,
                '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '!' | '|' | '~' | '#'
            ) {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_stays_text_in_markdown() {
        assert_eq!(text("a] (b) [c\\"), "a\\] (b) \\[c\\\\");
        assert_eq!(text("a\n  b\tc "), "a b c");
        assert_eq!(
            text("<https://x.io> [n](https://x.io) `c` **b** &amp; #1"),
            "\\<https://x.io\\> \\[n\\](https://x.io) \\`c\\` \\*\\*b\\*\\* \\&amp; \\#1"
        );
    }
}
