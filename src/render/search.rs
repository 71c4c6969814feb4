//! The changelog's search (SPEC section 7): `changelog/search.json`, an index of every
//! published entry, and `changelog/search.js`, the script that puts a search box on the
//! changelog's pages and answers from the index, in the reader's browser. Without script the
//! pages are as before; nothing leaves the changelog's host.

use std::collections::HashMap;

use base64::Engine;
use serde::Serialize;

use crate::content::Entry;
use crate::locale::Words;
use crate::words;

/// The index's name, in the org's `changelog/` folder.
pub const INDEX: &str = "search.json";
/// The script's name, beside it.
pub const SCRIPT: &str = "search.js";

/// The script; `SHIPLOG_SEARCH` in its last line is replaced by the org's words.
pub const SOURCE: &str = include_str!("search.js");

/// `search.json`: the entries as the results show them, and an inverted index from each
/// word to the entries that have it. Per word, a list of entry numbers costs two characters
/// an entry and a bitmap a sixth of one over all entries: a word in one entry of twelve or
/// more gets the bitmap. Against the same entries' `feed.json`, both gzipped, this is 12 %
/// for the 1,000 entries of the browser test's corpus, where a list of each entry's words
/// was 39 %.
#[derive(Serialize)]
struct Index<'a> {
    /// How many entries there are.
    count: usize,
    /// `[id, title, day]` of each entry, newest first; the id is its folder under
    /// `changelog/`.
    entries: Vec<[&'a str; 3]>,
    /// Every word, lower-cased, in code point order.
    words: Vec<String>,
    /// The entries that have each word: `b` and a base64 bitmap (entry `i` is bit `i % 8`
    /// of byte `i / 8`), or `l` and the entry numbers, the first and then each one's distance
    /// from the one before, in base 36, separated by `.`.
    sets: Vec<String>,
}

/// `search.json` for `published` (newest first), with the day each shows, `days`. Words
/// come from the title, the summary, the tags and the text.
pub fn index(published: &[Entry], days: &[&str]) -> Vec<u8> {
    // Hashed while filled, sorted once: an ordered map compared every word of every entry.
    let mut postings: HashMap<String, Vec<usize>> = HashMap::new();
    for (number, entry) in published.iter().enumerate() {
        words::each_text(entry, |part| {
            for word in words::index_words(std::iter::once(part)) {
                let numbers = match postings.get_mut(word.as_ref()) {
                    Some(numbers) => numbers,
                    None => postings.entry(word.into_owned()).or_default(),
                };
                // A word met again in the same entry counts once.
                if numbers.last() != Some(&number) {
                    numbers.push(number);
                }
            }
        });
    }
    let count = published.len();
    let mut postings: Vec<(String, Vec<usize>)> = postings.into_iter().collect();
    postings.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let (words, sets) = postings
        .into_iter()
        .map(|(word, entries)| (word, encode(&entries, count)))
        .unzip();
    let index = Index {
        count,
        entries: published
            .iter()
            .zip(days)
            .map(|(entry, day)| [entry.id.as_str(), entry.title.as_str(), day])
            .collect(),
        words,
        sets,
    };
    serde_json::to_vec(&index).expect("an index of strings serializes")
}

/// The entries `numbers` (ascending) among `count`, as [`Index::sets`] writes them.
fn encode(numbers: &[usize], count: usize) -> String {
    if numbers.len() * 12 >= count {
        let mut bitmap = vec![0u8; count.div_ceil(8)];
        for &number in numbers {
            bitmap[number / 8] |= 1 << (number % 8);
        }
        return format!(
            "b{}",
            base64::engine::general_purpose::STANDARD.encode(bitmap)
        );
    }
    let mut list = String::from("l");
    let mut previous = 0;
    for (at, &number) in numbers.iter().enumerate() {
        if at > 0 {
            list.push('.');
        }
        list.push_str(&base36(number - previous));
        previous = number;
    }
    list
}

fn base36(mut number: usize) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(char::from_digit((number % 36) as u32, 36).expect("a digit below 36"));
        number /= 36;
        if number == 0 {
            break;
        }
    }
    digits.into_iter().rev().collect()
}

/// The settings the script reads, as a JSON object literal.
#[derive(Serialize)]
struct Config {
    lang: String,
    label: String,
    results: String,
    none: String,
}

/// The org's `search.js`.
pub fn script(language: &str, words: &Words) -> Vec<u8> {
    let config = Config {
        lang: language.to_string(),
        label: words.get("search", &[]),
        results: words.get("results", &[]),
        none: words.get("no_results", &[]),
    };
    // JSON is a JavaScript expression; serde_json escapes what could end a string.
    let json = serde_json::to_string(&config).expect("strings serialize");
    super::script_with(SOURCE, "SHIPLOG_SEARCH", &json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_lists_or_bitmaps_by_what_is_smaller() {
        // 1,260 = 35 × 36: `z0`.
        assert_eq!(encode(&[3, 40, 1300], 2000), "l3.11.z0");
        // 2 of 24: a bitmap of 3 bytes, entries 0 and 9.
        assert_eq!(encode(&[0, 9], 24), "bAQIA");
    }
}
