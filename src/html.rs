//! Escaping text for HTML: the one escape of the pages and feeds shiplog writes and of the
//! preview's own pages. (Entry HTML is escaped as the sanitizer serializes it, in
//! `content::markdown`, so that its fast path gives the sanitizer's bytes.)

/// Escapes text for HTML content and quoted attributes. Unlike tera's default it leaves `/`
/// alone, so URLs stay readable.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    // Copies the runs between the characters to escape whole; those are ASCII, so every
    // index here is a character boundary.
    let mut copied = 0;
    for (i, byte) in text.bytes().enumerate() {
        let escaped = match byte {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[copied..i]);
        out.push_str(escaped);
        copied = i + 1;
    }
    out.push_str(&text[copied..]);
    out
}

/// The start of the text of `html` (sanitized HTML: every `<` of its text is escaped), as
/// plain text: tags dropped, the entities the sanitizer writes decoded, blanks collapsed,
/// cut at a word boundary after at most `max` characters, with `…` where it was cut.
pub fn text_start(html: &str, max: usize) -> String {
    // Enough text for `max` characters once blanks are collapsed, in all but odd cases.
    let enough = max * 8;
    let mut text = String::with_capacity(enough.min(html.len()) + 8);
    let mut rest = html;
    while text.len() < enough && !rest.is_empty() {
        let (run, after) = match rest.find('<') {
            Some(tag) => {
                let end = rest[tag..]
                    .find('>')
                    .map_or(rest.len(), |end| tag + end + 1);
                (&rest[..tag], &rest[end..])
            }
            None => (rest, ""),
        };
        text.push_str(
            &run.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&#x27;", "'")
                .replace("&nbsp;", " ")
                .replace("&amp;", "&"),
        );
        // A tag between two words (`</p><p>`) separates them.
        text.push(' ');
        rest = after;
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(space) if space > 0 => &cut[..space],
        _ => &cut,
    };
    format!(
        "{}\u{2026}",
        cut.trim_end_matches([',', ';', ':', '.', ' '])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_content_and_quoted_attributes() {
        assert_eq!(
            escape(r#"<a href="/x">Tom & Jerry's</a> — ünïcode"#),
            "&lt;a href=&quot;/x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt; — ünïcode"
        );
        assert_eq!(escape(""), "");
        assert_eq!(escape("&"), "&amp;");
    }

    #[test]
    fn the_start_of_a_text_is_plain_and_cut_between_words() {
        let html = "<h2>New</h2><p>Tom &amp; Jerry&#39;s <a href=\"x\">big</a> \n update, now</p>";
        assert_eq!(text_start(html, 200), "New Tom & Jerry's big update, now");
        assert_eq!(text_start(html, 20), "New Tom & Jerry's\u{2026}");
        assert_eq!(text_start("", 10), "");
    }
}
