//! Slugs, each kind in one place: an org's (a DNS host label, checked, never made), a tag
//! page's (any letters, lowercased) and a new entry's file name (ASCII, from its title).
//! They differ on purpose: an org slug names a host, a tag slug keeps the tag's own letters
//! in its URL, and a file name made by `shiplog new` must be a valid entry id.

use url::form_urlencoded;

use crate::text;

/// The longest name a build writes as one path segment (an entry id, a tag page's slug), in
/// bytes: file systems refuse names over 255 bytes, and the output adds to some of them.
pub const MAX_SEGMENT_BYTES: usize = 200;

/// Longest file name (without `.md`) made from a title.
pub const MAX_TITLE_SLUG_LEN: usize = 60;

/// Checks an org slug: a DNS host label of `a-z`, `0-9` and `-`, 1–63 characters, not
/// starting or ending with `-`.
pub fn check_org(slug: &str) -> Result<(), String> {
    let valid = (1..=63).contains(&slug.len())
        && slug
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-'))
        && !slug.starts_with('-')
        && !slug.ends_with('-');
    if valid {
        Ok(())
    } else {
        let found = slug
            .chars()
            .find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-'))
            .map(|bad| format!(" (it holds {})", text::describe_char(bad)))
            .unwrap_or_default();
        Err(format!(
            "`{slug}` is not a valid organization slug{found}: use 1 to 63 characters of a-z, 0-9 and `-`, not starting or ending with `-` (folders starting with `.` or `_` are ignored)"
        ))
    }
}

/// The slug of a tag's page: letters and digits lowercased, every run of other characters
/// turned into one `-`, none at either end (`Security & Privacy` → `security-privacy`).
/// Empty for a tag without letters or digits, which then gets no page.
pub fn of_tag(tag: &str) -> String {
    let mut slug = String::with_capacity(tag.len());
    for c in tag.chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let trimmed = slug.trim_end_matches('-').len();
    slug.truncate(trimmed);
    slug
}

/// A relative path of `/`-separated names, each percent-encoded where a URL path may not
/// hold the character as it is (`logo file.png` → `logo%20file.png`).
pub fn url_path(path: &str) -> String {
    const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~')
        .remove(b'/');
    percent_encoding::utf8_percent_encode(path, SEGMENT).to_string()
}

/// A slug as a URL path segment: ASCII stays as it is, anything else is percent-encoded.
pub fn url_segment(slug: &str) -> String {
    form_urlencoded::byte_serialize(slug.as_bytes()).collect()
}

/// A file name from a title: transliterated to ASCII, lowercase letters and digits, runs of
/// anything else turned into one `-`, at most 60 characters, cut at a word boundary.
pub fn of_title(title: &str) -> String {
    let ascii = deunicode::deunicode(title);
    let mut slug = String::with_capacity(ascii.len());
    for c in ascii.chars().map(|c| c.to_ascii_lowercase()) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let mut slug = slug.trim_end_matches('-').to_string();
    if slug.len() > MAX_TITLE_SLUG_LEN {
        let cut = slug[..MAX_TITLE_SLUG_LEN]
            .rfind('-')
            .unwrap_or(MAX_TITLE_SLUG_LEN);
        slug.truncate(cut);
    }
    slug
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        for good in ["acme", "my-org", "a", "x1", &"a".repeat(63)] {
            assert!(check_org(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "Acme",
            "a_b",
            "a.b",
            "..",
            &"a".repeat(64),
            "ａcme",
        ] {
            assert!(check_org(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn slugs_lowercase_and_collapse_everything_else() {
        for (tag, expected) in [
            ("security", "security"),
            ("Security & Privacy", "security-privacy"),
            ("  --API v2--  ", "api-v2"),
            ("C++", "c"),
            ("Sécurité", "sécurité"),
            ("🚀", ""),
            ("", ""),
        ] {
            assert_eq!(of_tag(tag), expected, "{tag}");
        }
        assert_eq!(url_segment("sécurité"), "s%C3%A9curit%C3%A9");
        assert_eq!(url_segment("api-v2"), "api-v2");
    }

    #[test]
    fn slugs_from_titles() {
        assert_eq!(
            of_title("Webhooks: retries & backoff!"),
            "webhooks-retries-backoff"
        );
        assert_eq!(of_title("  v2.0 — Faster exports "), "v2-0-faster-exports");
        assert_eq!(of_title("Café crème"), "cafe-creme");
        assert_eq!(of_title("¿?"), "");
        let long = of_title(&"word ".repeat(30));
        assert!(long.len() <= MAX_TITLE_SLUG_LEN && !long.ends_with('-'));
    }
}
