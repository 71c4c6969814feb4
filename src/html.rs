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
}
