//! The words a search matches on, shared by the changelog's search box (its index,
//! `search.json`) and the API's `q` filter, so that both find the same entries: a run of
//! letters and digits is a word; a query's word must start one of an entry's words, or, in a
//! script written without spaces (Chinese, Japanese), stand anywhere in one of its runs.

use std::borrow::Cow;

use unicode_normalization::char::is_combining_mark;

use crate::content::Entry;
use unicode_normalization::UnicodeNormalization as _;

/// The characters of a word an index keeps (and of a query's word).
pub const MAX_WORD: usize = 40;

/// The words of `texts` an index keeps, lower-cased and cut after [`MAX_WORD`] characters:
/// runs of letters and digits of two characters or more.
pub fn index_words<'t>(texts: impl Iterator<Item = &'t str>) -> impl Iterator<Item = Cow<'t, str>> {
    texts
        .flat_map(runs)
        .filter(|word| word.len() > 1 && word.chars().nth(1).is_some())
        // A query matches the start of a word: the first characters of a long one do, and
        // the index does not carry a whole hash or blob pasted into an entry.
        .map(cut)
        .map(|word| {
            if word.chars().any(char::is_uppercase) {
                Cow::Owned(word.to_lowercase())
            } else {
                Cow::Borrowed(word)
            }
        })
}

/// Calls `each` with every text of `entry` a search looks in: its title, summary, text (its
/// HTML as plain text) and tags.
pub fn each_text(entry: &Entry, mut each: impl FnMut(&str)) {
    let text = crate::html::text_start(&entry.content_html, usize::MAX);
    let parts = [
        entry.title.as_str(),
        entry.summary.as_deref().unwrap_or_default(),
        &text,
    ];
    parts
        .into_iter()
        .chain(entry.tags.iter().map(String::as_str))
        .for_each(&mut each);
}

/// The words of a query, folded like the index's and cut after [`MAX_WORD`] characters; a
/// word of one character counts (it starts many).
pub fn query_words(query: &str) -> Vec<String> {
    runs(&fold(query))
        .map(|word| cut(word).to_string())
        .collect()
}

/// `text` as searches compare it: lower case, accents off (`Résumé` is `resume`), and
/// compatibility forms made plain (`ﬁ` is `fi`), as the search script's `fold` does.
pub fn fold(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return if text.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(text.to_ascii_lowercase())
        } else {
            Cow::Borrowed(text)
        };
    }
    let plain: String = text.nfkd().filter(|c| !is_combining_mark(*c)).collect();
    Cow::Owned(plain.to_lowercase())
}

/// Whether `word` is in a script written without spaces (Han, Hiragana, Katakana), whose
/// runs are phrases: a query's word is looked for anywhere inside them.
pub fn is_dense(word: &str) -> bool {
    word.chars().any(|c| {
        matches!(u32::from(c),
            0x3040..=0x30FF // Hiragana, Katakana
            | 0x31F0..=0x31FF // Katakana extensions
            | 0x3400..=0x4DBF // Han extension A
            | 0x4E00..=0x9FFF // Han
            | 0xF900..=0xFAFF // Han compatibility
            | 0xFF66..=0xFF9F // half-width Katakana
            | 0x20000..=0x3134F // Han extensions B to G
        )
    })
}

/// The runs of letters and digits of `text`.
fn runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|run| !run.is_empty())
}

/// `word` cut after [`MAX_WORD`] characters.
fn cut(word: &str) -> &str {
    match word.char_indices().nth(MAX_WORD) {
        Some((end, _)) => &word[..end],
        None => word,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lower_case_and_keep_phrases_without_spaces() {
        let texts = [
            "Exports are faster: 10,000 rows.",
            "A Ü-Umlaut! 导出速度更快",
        ];
        let found: Vec<Cow<'_, str>> = index_words(texts.into_iter()).collect();
        let expected = [
            "exports",
            "are",
            "faster",
            "10",
            "000",
            "rows",
            "umlaut",
            "导出速度更快",
        ];
        assert_eq!(found, expected);
    }

    #[test]
    fn queries_fold_accents_case_and_compatibility_forms() {
        assert_eq!(
            query_words("Résumé  ﬁle-Export a"),
            ["resume", "file", "export", "a"]
        );
        assert_eq!(fold("ÉCOLE"), "ecole");
        assert_eq!(query_words(&"x".repeat(50))[0].len(), MAX_WORD);
        assert!(query_words(" ,;! ").is_empty());
        assert!(is_dense("导出") && is_dense("カタカナ") && !is_dense("export"));
    }
}
