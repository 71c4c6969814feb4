//! What each channel is sent, as bytes or text, made from an org and its entries: pure, so
//! that each shape is tested without a receiver. The services' documented limits are kept
//! here, each cut made at a word with "…".

use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::content::{Entry, Org};
use crate::html;
use crate::render::JsonFeedItem;

/// Slack's limits (Block Kit reference): a header's text, a section's text, and the
/// message's `text`, which Slack advises keeping under 4,000 characters.
pub const SLACK_HEADER: usize = 150;
/// A Block Kit section's text.
pub const SLACK_SECTION: usize = 3000;
/// The fallback `text`.
pub const SLACK_TEXT: usize = 4000;

/// Discord's embed limits (its API reference): title, description, footer, and all of an
/// embed's text together.
pub const DISCORD_TITLE: usize = 256;
/// An embed's description.
pub const DISCORD_DESCRIPTION: usize = 4096;
/// An embed's footer text.
pub const DISCORD_FOOTER: usize = 2048;
/// All of an embed's text.
pub const DISCORD_TOTAL: usize = 6000;

/// The longest mail subject, in characters.
pub const SUBJECT: usize = 200;

/// The webhook body (SPEC section 6): the event, the org and the entry's JSON Feed item.
pub fn webhook_body(org: &Org, entry: &Entry) -> Vec<u8> {
    #[derive(Serialize)]
    struct Event<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        org: &'a str,
        entry: JsonFeedItem<'a>,
    }
    serde_json::to_vec(&Event {
        kind: "changelog.entry.published",
        org: &org.slug,
        entry: JsonFeedItem::of(entry),
    })
    .expect("strings always serialize")
}

/// The `webhook-id` of an entry: the same on every run and machine, so that a receiver can
/// drop a repeat (Standard Webhooks).
pub fn webhook_id(org: &Org, entry: &Entry) -> String {
    format!("msg_{}", stable_hash(&[&org.slug, &entry.id]))
}

/// The `Message-ID` of a mail: stable per entry (or per set of entries, for a digest).
pub fn message_id(org: &Org, entries: &[&Entry]) -> String {
    let ids: Vec<&str> = std::iter::once(org.slug.as_str())
        .chain(entries.iter().map(|e| e.id.as_str()))
        .collect();
    let host = url::Url::parse(&org.url)
        .ok()
        .and_then(|url| url.host_str().map(str::to_string))
        .unwrap_or_else(|| "shiplog.invalid".to_string());
    format!("<{}@{host}>", stable_hash(&ids))
}

/// 32 hex digits of the SHA-256 of `parts`, each ended by a NUL so no two lists hash alike.
fn stable_hash(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    crate::digest::hex(&hash.finalize()[..16])
}

/// A Slack incoming-webhook message: a header with the title, the summary or the start of
/// the text, and a link, with a plain-text fallback.
pub fn slack(org: &Org, entry: &Entry) -> Vec<u8> {
    let title = cut(&entry.title, SLACK_HEADER);
    let teaser = teaser(entry, SLACK_SECTION);
    let link = format!(
        "<{}|{}> · {}",
        slack_url(&entry.url),
        slack_escape(&cut(&org.settings.title, 200)),
        entry.date.format("%Y-%m-%d")
    );
    let mut blocks = vec![json!({
        "type": "header",
        "text": {"type": "plain_text", "text": title, "emoji": true}
    })];
    if !teaser.is_empty() {
        blocks.push(json!({
            "type": "section",
            "text": {"type": "mrkdwn", "text": slack_escaped(&teaser, SLACK_SECTION)}
        }));
    }
    blocks.push(json!({"type": "context", "elements": [{"type": "mrkdwn", "text": link}]}));
    // Read as mrkdwn too (and shown in notifications): escaped like the section, so that a
    // title cannot mention `<!channel>` or disguise a link.
    let fallback = slack_escaped(
        &format!("{}: {} {}", org.settings.title, entry.title, entry.url),
        SLACK_TEXT,
    );
    serde_json::to_vec(&json!({
        "text": fallback,
        "blocks": blocks,
        "unfurl_links": false,
    }))
    .expect("JSON values always serialize")
}

/// `text` escaped for mrkdwn in at most `max` characters: the longest cut of it whose
/// escaped form fits (escapes lengthen it, by up to five times).
fn slack_escaped(text: &str, max: usize) -> String {
    let fits = |length: usize| {
        let escaped = slack_escape(&cut(text, length));
        (utf16_len(&escaped) <= max).then_some(escaped)
    };
    if let Some(whole) = fits(utf16_len(text)) {
        return whole;
    }
    // Binary search on the cut's length: the longest that fits.
    let (mut low, mut high) = (0, utf16_len(text).min(max));
    let mut best = String::new();
    while low <= high {
        let middle = (low + high) / 2;
        match fits(middle) {
            Some(escaped) => {
                best = escaped;
                low = middle + 1;
            }
            None if middle == 0 => break,
            None => high = middle - 1,
        }
    }
    best
}

/// An address as a Slack link's target: `<`, `>` and `|` would end the link, `&` starts
/// an escape.
fn slack_url(url: &str) -> String {
    url.replace('&', "&amp;")
        .replace('<', "%3C")
        .replace('>', "%3E")
        .replace('|', "%7C")
}

/// Slack's mrkdwn escapes: `&`, `<` and `>` (Slack, "Formatting text for app surfaces").
fn slack_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A Discord webhook message: one embed with the title, link, summary, time and the org's
/// accent colour; mentions in the text never ping anyone.
pub fn discord(org: &Org, entry: &Entry) -> Vec<u8> {
    let title = cut(&entry.title, DISCORD_TITLE);
    let footer = cut(&org.settings.title, DISCORD_FOOTER.min(200));
    let room = DISCORD_TOTAL - utf16_len(&title) - utf16_len(&footer);
    let description = teaser(entry, DISCORD_DESCRIPTION.min(room));
    let mut embed = json!({
        "title": title,
        "url": entry.url,
        "timestamp": entry.date_published(),
        "footer": {"text": footer},
    });
    if !description.is_empty() {
        embed["description"] = json!(description);
    }
    if let Some(colour) = &org.settings.accent_color {
        embed["color"] = json!(u32::from_be_bytes([0, colour.r, colour.g, colour.b]));
    }
    serde_json::to_vec(&json!({
        "embeds": [embed],
        "allowed_mentions": {"parse": []},
    }))
    .expect("JSON values always serialize")
}

/// The form a WebSub hub is pinged with: `hub.mode=publish` and each feed's address.
pub fn websub_form(org: &Org) -> String {
    let mut form = url::form_urlencoded::Serializer::new(String::new());
    form.append_pair("hub.mode", "publish");
    for feed in ["feed.xml", "atom.xml", "feed.json"] {
        form.append_pair("hub.url", &format!("{}/changelog/{feed}", org.url));
    }
    form.finish()
}

/// A mail's subject, plain text and HTML: for one entry, or a digest of several.
pub struct Mail {
    /// One line.
    pub subject: String,
    /// The text part.
    pub text: String,
    /// The HTML part: the entries' sanitized HTML, whose links are absolute.
    pub html: String,
}

/// The mail for `entries` (one, or a digest of several).
pub fn mail(org: &Org, entries: &[&Entry]) -> Mail {
    // Cut to what a mail client shows: a long one would pass SMTP's 998-byte line limit.
    let subject = cut(
        &match entries {
            [entry] => format!("{}: {}", org.settings.title, entry.title),
            _ => format!("{}: {} updates", org.settings.title, entries.len()),
        },
        SUBJECT,
    );
    let changelog = format!("{}/changelog/", org.url);
    let mut text = String::new();
    let mut body = String::new();
    for entry in entries {
        let day = entry.date.format("%Y-%m-%d");
        text.push_str(&format!(
            "{}\n{day}\n\n{}\n\n{}\n\n",
            entry.title,
            html::text_start(&entry.content_html, 2000),
            entry.url
        ));
        body.push_str(&format!(
            "<article><h2><a href=\"{url}\">{title}</a></h2><p><time datetime=\"{iso}\">{day}</time></p>\n{content}\n<p><a href=\"{url}\">{url}</a></p></article>\n",
            url = html::escape(&entry.url),
            title = html::escape(&entry.title),
            iso = entry.date_published(),
            content = entry.content_html,
        ));
    }
    text.push_str(&format!("-- \n{}\n{changelog}\n", org.settings.title));
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\"><title>{subject}</title></head><body>\n{body}<hr><p><a href=\"{changelog}\">{org}</a></p></body></html>\n",
        lang = html::escape(&org.settings.language),
        subject = html::escape(&subject),
        changelog = html::escape(&changelog),
        org = html::escape(&org.settings.title),
    );
    Mail {
        subject,
        text,
        html,
    }
}

/// The entry's summary, or else the start of its text, in at most `max` UTF-16 units
/// (Discord counts as JavaScript does; Slack counts characters, never more).
fn teaser(entry: &Entry, max: usize) -> String {
    match &entry.summary {
        Some(summary) => cut(summary, max),
        None => teaser_of_html(&entry.content_html, max),
    }
}

/// Plain `text` cut at a word to at most `max` UTF-16 units, with "…" where it was cut.
pub fn cut(text: &str, max: usize) -> String {
    if utf16_len(text) <= max {
        return text.to_string();
    }
    teaser_of_html(&html::escape(text), max)
}

/// The start of the text of `escaped` (sanitized HTML, or escaped text) in at most `max`
/// UTF-16 units: cut by characters, then shorter while wide characters overflow.
fn teaser_of_html(escaped: &str, max: usize) -> String {
    let mut length = max.saturating_sub(1);
    loop {
        let text = html::text_start(escaped, length);
        if utf16_len(&text) <= max || length == 0 {
            return text;
        }
        length = length * 9 / 10;
    }
}

/// Length as JavaScript counts it.
pub fn utf16_len(text: &str) -> usize {
    text.encode_utf16().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_fit_the_limit_at_a_word() {
        let long = "word ".repeat(100);
        let cut_text = cut(&long, 42);
        assert!(utf16_len(&cut_text) <= 42, "{cut_text}");
        assert!(cut_text.ends_with("word…"), "{cut_text}");
        // Astral characters count two units each, as Discord counts them.
        let emoji = "🚀 ".repeat(100);
        assert!(utf16_len(&cut(&emoji, 41)) <= 41);
        assert_eq!(cut("short", 10), "short");
        assert_eq!(slack_escape("a <b> & c"), "a &lt;b&gt; &amp; c");
        let escaped = slack_escaped(&"a < b & c ".repeat(1000), SLACK_SECTION);
        assert!(utf16_len(&escaped) <= SLACK_SECTION && escaped.ends_with('…'));
        // Mostly escapes: still as much as fits, not a lone "…".
        let escaped = slack_escaped(&"& ".repeat(600), SLACK_SECTION);
        assert!(
            utf16_len(&escaped) > SLACK_SECTION - 10,
            "{}",
            escaped.len()
        );
        assert_eq!(
            slack_url("https://x/a|b>c<d&e"),
            "https://x/a%7Cb%3Ec%3Cd&amp;e"
        );
    }
}
