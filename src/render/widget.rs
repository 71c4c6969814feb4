//! `changelog/widget.js`: the "what's new" widget a host application loads with one
//! `<script>` line (SPEC section 5, docs/widget.md). The script is the same for every org
//! but for a few settings put in front of it: where the feed and the changelog are, the
//! language its words and dates are in, and the accent's readable shades.

use serde::Serialize;

use super::page::Accent;
use super::FeedInfo;
use crate::content::Org;
use crate::locale::Words;

/// Its name, in the org's `changelog/` folder.
pub const FILE: &str = "widget.js";

/// The script; `SHIPLOG_CONFIG` in its last line is replaced by the org's settings.
pub const SOURCE: &str = include_str!("widget.js");

/// The settings the script reads, as a JSON object literal.
#[derive(Serialize)]
struct Config<'a> {
    feed: &'a str,
    changelog: &'a str,
    lang: &'a str,
    /// `rtl` for a language written right to left.
    dir: &'static str,
    words: WidgetWords,
    /// The accent as text and badge colour, readable on the light and the dark background.
    accent: Pair,
    /// The accent's tint behind tags.
    soft: Pair,
}

/// The widget's words; `unread` by plural category (`Intl.PluralRules`), empty for a
/// category the language does not have.
#[derive(Serialize)]
struct WidgetWords {
    whats_new: String,
    close: String,
    see_all: String,
    unread: std::collections::BTreeMap<&'static str, String>,
}

#[derive(Serialize)]
struct Pair {
    light: String,
    dark: String,
}

/// The org's `widget.js`.
pub fn render(org: &Org, words: &Words, feed: &FeedInfo) -> Vec<u8> {
    let Accent { light, dark, .. } = Accent::of(org);
    let unread = ["zero", "one", "two", "few", "many", "other"]
        .into_iter()
        .map(|category| (category, words.get(&format!("unread_{category}"), &[])))
        .collect();
    let config = Config {
        feed: &feed.json_url,
        changelog: &feed.home_page_url,
        lang: &org.settings.language,
        dir: crate::locale::direction(&org.settings.language),
        words: WidgetWords {
            whats_new: words.get("whats_new", &[]),
            close: words.get("close", &[]),
            see_all: words.get("see_all", &[]),
            unread,
        },
        accent: Pair {
            light: light.text,
            dark: dark.text,
        },
        soft: Pair {
            light: light.soft,
            dark: dark.soft,
        },
    };
    // JSON is a JavaScript expression; serde_json escapes every character that could end
    // the string early. The colours are `#rrggbb`, the URLs and language validated.
    let json = serde_json::to_string(&config).expect("strings serialize");
    super::script_with(SOURCE, "SHIPLOG_CONFIG", &json)
}
