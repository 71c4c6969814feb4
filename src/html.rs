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
/// cut at a word boundary after at most `max` characters, with `…` where it was cut. One
/// pass that stops as soon as it has enough: every entry page without a summary asks.
pub fn text_start(html: &str, max: usize) -> String {
    let mut text = String::with_capacity(max.saturating_add(8).min(html.len()));
    let mut count = 0;
    // A blank is written only before the next word, so none ends the text.
    let mut blank = false;
    let mut rest = html;
    while let Some(c) = rest.chars().next() {
        let (decoded, length) = match c {
            '<' => {
                let end = rest.find('>').map_or(rest.len(), |end| end + 1);
                // Inline elements (`<strong>`, `<a>`) join what stands around them.
                let name = rest[1..end]
                    .trim_start_matches('/')
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .next()
                    .unwrap_or_default();
                let inline = INLINE.contains(&name);
                (if inline { '\u{0}' } else { ' ' }, end)
            }
            '&' => ENTITIES
                .iter()
                .find(|(entity, _)| rest.starts_with(entity))
                .map_or(('&', 1), |(entity, decoded)| (*decoded, entity.len())),
            c => (c, c.len_utf8()),
        };
        rest = &rest[length..];
        if decoded == '\u{0}' {
            continue;
        }
        if decoded.is_whitespace() {
            blank = !text.is_empty();
            continue;
        }
        if blank {
            text.push(' ');
            count += 1;
            blank = false;
        }
        text.push(decoded);
        count += 1;
        if count > max {
            let cut = text
                .rfind(' ')
                .filter(|&space| space > 0)
                .unwrap_or(text.len() - decoded.len_utf8());
            text.truncate(cut);
            let kept = text.trim_end_matches([',', ';', ':', '.', ' ']).len();
            text.truncate(kept);
            text.push('\u{2026}');
            return text;
        }
    }
    text
}

/// `text` (escaped text of sanitized HTML) with the entities of [`ENTITIES`] decoded; any
/// other `&` stays as it is.
pub fn unescape(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('&') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match ENTITIES.iter().find(|(entity, _)| rest.starts_with(entity)) {
            // A no-break space is one here, not the blank text wants.
            Some((entity, decoded)) => {
                out.push(if *entity == "&nbsp;" {
                    '\u{a0}'
                } else {
                    *decoded
                });
                rest = &rest[entity.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// The elements that sit inside a line of text.
const INLINE: &[&str] = &[
    "a", "abbr", "b", "code", "del", "em", "i", "kbd", "mark", "s", "small", "span", "strong",
    "sub", "sup", "u",
];

/// The entities an escaped text may hold (as the sanitizer and this module write them),
/// with the character each stands for.
const ENTITIES: &[(&str, char)] = &[
    ("&amp;", '&'),
    ("&lt;", '<'),
    ("&gt;", '>'),
    ("&quot;", '"'),
    ("&#39;", '\''),
    ("&#x27;", '\''),
    ("&nbsp;", ' '),
];

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
        let html = "<h2>New</h2><p>Tom &amp; Jerry&#39;s <a href=\"x\">big</a> \n update, <strong>no</strong>w</p>";
        assert_eq!(text_start(html, 200), "New Tom & Jerry's big update, now");
        assert_eq!(text_start(html, 20), "New Tom & Jerry's\u{2026}");
        assert_eq!(text_start("", 10), "");
    }
}
