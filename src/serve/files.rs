//! Files of the build: which one a request path names, and what type it is.

use std::path::{Component, Path};

use percent_encoding::percent_decode_str;

use crate::media;

/// The type of HTML pages.
pub(super) const HTML: &str = "text/html; charset=utf-8";
/// The feeds' types: the only files a page of another origin may read (the widget does).
pub(super) const FEEDS: [&str; 3] = [
    "application/rss+xml; charset=utf-8",
    "application/feed+json; charset=utf-8",
    "application/atom+xml; charset=utf-8",
];
/// The type of the sitemap.
const XML: &str = "application/xml; charset=utf-8";
/// The type of an entry's Markdown (`index.md`).
const MARKDOWN: &str = "text/markdown; charset=utf-8";
const JAVASCRIPT: &str = "text/javascript; charset=utf-8";
/// The search index.
const JSON: &str = "application/json; charset=utf-8";
/// The type of plain text.
pub(super) const TEXT: &str = "text/plain; charset=utf-8";

/// The decoded segments of a request path, empty ones left out; `None` for a path that
/// could leave the folder it is looked up in: a `.` or `..` segment (also
/// percent-encoded), a segment holding a separator (`%2F`) or naming a root or drive, a
/// path that is not absolute or not UTF-8.
pub(super) fn segments(path: &str) -> Option<Vec<String>> {
    let relative = path.strip_prefix('/')?;
    let mut segments = Vec::new();
    for raw in relative.split('/').filter(|raw| !raw.is_empty()) {
        let segment = percent_decode_str(raw).decode_utf8().ok()?;
        let mut components = Path::new(segment.as_ref()).components();
        let plain = !segment.contains(['/', '\\', '\0'])
            && matches!(components.next(), Some(Component::Normal(_)))
            && components.next().is_none();
        if !plain {
            return None;
        }
        segments.push(segment.into_owned());
    }
    Some(segments)
}

/// Whether `file` is an HTML page.
pub(super) fn is_html(file: &Path) -> bool {
    content_type(file) == HTML
}

/// The `Content-Type` of a file of the build, by its name.
pub(super) fn content_type(file: &Path) -> &'static str {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match name {
        "feed.xml" => return FEEDS[0],
        "feed.json" => return FEEDS[1],
        "atom.xml" => return FEEDS[2],

        "index.md" => return MARKDOWN,
        "widget.js" | "search.js" => return JAVASCRIPT,
        "search.json" => return JSON,
        _ => {}
    }
    // `sitemap.xml`, and the `sitemap-<n>.xml` files of a sitemap index.
    if name.starts_with("sitemap") && name.ends_with(".xml") {
        return XML;
    }
    let is_page = name
        .rsplit_once('.')
        .is_some_and(|(_, extension)| extension.eq_ignore_ascii_case("html"));
    if is_page {
        return HTML;
    }
    // Whatever else a build holds is a published file of an allowed type.
    media::asset_type(name).unwrap_or("application/octet-stream")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_could_leave_the_folder_are_refused() {
        assert_eq!(segments("/"), Some(vec![]));
        assert_eq!(
            segments("/changelog//feed.xml"),
            Some(vec!["changelog".to_string(), "feed.xml".to_string()])
        );
        assert_eq!(
            segments("/changelog/a%20b.png"),
            Some(vec!["changelog".to_string(), "a b.png".to_string()])
        );
        for bad in [
            "changelog/",
            "/../etc/passwd",
            "/changelog/../../x",
            "/./x",
            "/%2e%2e/x",
            "/%2E%2E/x",
            "/.%2e/x",
            "/a%2F..%2F..%2Fx",
            "/a%2fb",
            "/%2Fetc%2Fpasswd",
            "/a%5C..%5Cx",
            "/a%00b",
            "/%FF",
        ] {
            assert_eq!(segments(bad), None, "{bad}");
        }
    }

    #[test]
    fn types_by_name() {
        for (name, expected) in [
            ("changelog/feed.xml", "application/rss+xml; charset=utf-8"),
            (
                "changelog/feed.json",
                "application/feed+json; charset=utf-8",
            ),
            ("changelog/atom.xml", "application/atom+xml; charset=utf-8"),
            ("sitemap.xml", XML),
            ("sitemap-2.xml", XML),
            ("robots.txt", TEXT),
            ("changelog/llms.txt", TEXT),
            ("changelog/launch/index.md", MARKDOWN),
            ("changelog/index.html", HTML),
            ("changelog/widget.js", JAVASCRIPT),
            ("x/shot.PNG", "image/png"),
            ("x/shot.jpeg", "image/jpeg"),
            ("x/logo.svg", "image/svg+xml"),
            ("x/notes.txt", TEXT),
            ("x/data.bin", "application/octet-stream"),
            ("x/README", "application/octet-stream"),
        ] {
            assert_eq!(content_type(Path::new(name)), expected, "{name}");
        }
    }
}
