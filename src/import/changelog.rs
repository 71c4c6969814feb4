//! A `CHANGELOG.md` in Keep a Changelog form: each version heading (`## [1.2.0] -
//! 2026-03-01`, with or without brackets or a link, `YANKED` or not) becomes an entry, its
//! sections (`### Added`) kept as headings and turned into tags.

use std::ops::Range;
use std::path::Path;

use chrono::{DateTime, NaiveDate};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::{id_of, Imported, Skipped};
use crate::error::Problem;
use crate::text;

/// The tag each usual section name gives (lower case), as the docs list them.
const SECTION_TAGS: &[(&str, &str)] = &[
    ("added", "feature"),
    ("new", "feature"),
    ("features", "feature"),
    ("changed", "improvement"),
    ("improved", "improvement"),
    ("improvements", "improvement"),
    ("deprecated", "deprecation"),
    ("removed", "removal"),
    ("fixed", "fix"),
    ("fixes", "fix"),
    ("bug fixes", "fix"),
    ("bugfixes", "fix"),
    ("security", "security"),
    ("performance", "performance"),
    ("breaking changes", "breaking"),
    ("breaking", "breaking"),
    ("documentation", "docs"),
];

/// The ways a version heading writes its day, tried in turn.
const DAY_FORMATS: &[&str] = &[
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%Y.%m.%d",
    "%d.%m.%Y",
    "%B %d, %Y",
    "%b %d, %Y",
    "%b. %d, %Y",
    "%B %d %Y",
    "%b %d %Y",
    "%d %B %Y",
    "%d %b %Y",
];

/// What to do with the `Unreleased` section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Unreleased {
    /// Leave it out.
    Skip,
    /// Make it a draft entry (id `unreleased`), dated as the newest version (`today` when
    /// there is none).
    Draft,
}

/// How versions become entries.
pub struct Settings<'a> {
    /// The title of each entry; `{version}` is replaced by the version (`1.2.0`).
    pub title: &'a str,
    /// What to do with `Unreleased`.
    pub unreleased: Unreleased,
    /// The date of an unreleased draft when no version has one.
    pub today: NaiveDate,
}

/// A heading of the file: its level, where it stands and its text as read.
struct Heading {
    level: usize,
    range: Range<usize>,
    text: String,
}

/// A version heading's parts.
#[derive(Debug, PartialEq)]
struct Version<'t> {
    /// As written, without brackets or a leading `v`; `Unreleased` for that section.
    name: &'t str,
    /// The day's text, when there is one.
    day: Option<&'t str>,
    yanked: bool,
}

/// Reads the versions of `text` (the file at `path`) as entries, newest first as written.
/// All problems are returned together.
pub fn read(
    path: &Path,
    text: &str,
    settings: &Settings<'_>,
) -> Result<(Vec<Imported>, Skipped), Vec<Problem>> {
    let parser = Parser::new_ext(text, Options::all()).into_offset_iter();
    // Link definitions (`[1.2.0]: https://…`), usually at the file's end: cut from the
    // bodies, and given again to each entry that uses them.
    let definitions: Vec<Range<usize>> = parser
        .reference_definitions()
        .iter()
        .map(|(_, definition)| definition.span.clone())
        .collect();
    let headings = headings(parser);
    let at = |offset: usize, message: String| Problem::at_offset(path, text, offset, message);
    let Some(level) = headings
        .iter()
        .find(|h| version(&h.text).is_some())
        .map(|h| h.level)
    else {
        return Err(vec![Problem::file(
            path,
            "no version heading found: Keep a Changelog writes each version as `## [1.2.0] - 2026-03-01`",
        )]);
    };
    let mut problems = Vec::new();
    let mut entries: Vec<Imported> = Vec::new();
    let mut skipped = Vec::new();
    let mut seen: Vec<(String, usize)> = Vec::new();
    for (i, heading) in headings.iter().enumerate() {
        if heading.level != level {
            continue;
        }
        let Some(version) = version(&heading.text) else {
            // After the first version, a heading of its level ends the version before it:
            // what it holds goes nowhere, and is said so.
            if !seen.is_empty() || !entries.is_empty() {
                skipped.push(at(
                    heading.range.start,
                    format!(
                        "skipped the heading `{}` and what it holds: it names no version",
                        heading.text.trim()
                    ),
                ));
            }
            continue;
        };
        let (line, _) = text::position(text, heading.range.start);
        let end = headings[i + 1..]
            .iter()
            .find(|h| h.level <= level)
            .map_or(text.len(), |h| h.range.start);
        let sections: Vec<&Heading> = headings[i + 1..]
            .iter()
            .take_while(|h| h.range.start < end)
            .collect();
        let unreleased = version.name.eq_ignore_ascii_case("unreleased");
        if unreleased && settings.unreleased == Unreleased::Skip {
            skipped.push(at(
                heading.range.start,
                "skipped `Unreleased` (`--unreleased draft` makes it a draft)".into(),
            ));
            continue;
        }
        let id = if unreleased {
            "unreleased".to_string()
        } else {
            format!("v{}", id_of(version.name))
        };
        if let Some((_, first)) = seen.iter().find(|(seen, _)| *seen == id) {
            problems.push(at(
                heading.range.start,
                format!("version {} is already at line {first}", version.name),
            ));
            continue;
        }
        seen.push((id.clone(), line));
        let date = if unreleased {
            // The newest version's day, so that the draft is the same from run to run.
            headings[i + 1..]
                .iter()
                .filter(|h| h.level == level)
                .filter_map(|h| self::version(&h.text))
                .find_map(|v| day(v.day).ok())
                .unwrap_or_else(|| settings.today.format("%Y-%m-%d").to_string())
        } else {
            match day(version.day) {
                Ok(date) => date,
                Err(message) => {
                    let offset = version
                        .day
                        .and_then(|d| text[heading.range.clone()].find(d))
                        .map_or(heading.range.start, |o| heading.range.start + o);
                    problems.push(at(offset, format!("version {}: {message}", version.name)));
                    continue;
                }
            }
        };
        let (body, tags) = body(text, heading.range.end..end, &sections, &definitions);
        let mut tags = tags;
        if version.yanked {
            tags.push("yanked".to_string());
        }
        entries.push(Imported {
            id,
            title: if unreleased {
                "Unreleased".to_string()
            } else {
                settings.title.replace("{version}", version.name)
            },
            date,
            updated: None,
            tags,
            draft: unreleased,
            summary: None,
            body,
            at: at(heading.range.start, String::new()),
            assets: Vec::new(),
        });
    }
    if problems.is_empty() {
        Ok((entries, skipped))
    } else {
        Err(problems)
    }
}

/// Every heading of the file that stands on its own, ATX or setext, with the text it shows:
/// not one inside a quote, a list or a footnote.
fn headings<'t>(parser: impl Iterator<Item = (Event<'t>, Range<usize>)>) -> Vec<Heading> {
    let mut headings = Vec::new();
    let mut open: Option<Heading> = None;
    let mut depth = 0usize;
    for (event, range) in parser {
        match event {
            Event::Start(
                Tag::BlockQuote(_) | Tag::List(_) | Tag::Item | Tag::FootnoteDefinition(_),
            ) => depth += 1,
            Event::End(
                TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item | TagEnd::FootnoteDefinition,
            ) => depth = depth.saturating_sub(1),
            Event::Start(Tag::Heading { level, .. }) if depth == 0 => {
                open = Some(Heading {
                    level: level as usize,
                    range,
                    text: String::new(),
                });
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(heading) = open.as_mut() {
                    heading.text.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => headings.extend(open.take()),
            _ => {}
        }
    }
    headings
}

/// The parts of a version heading's text (`[1.2.0] - 2026-03-01 [YANKED]`, `v1.2.0
/// (2026-03-01)`, `Unreleased`), or `None` when it names no version.
fn version(heading: &str) -> Option<Version<'_>> {
    let mut rest = heading.trim();
    for word in ["version ", "release "] {
        if rest
            .get(..word.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(word))
        {
            rest = rest[word.len()..].trim_start();
        }
    }
    rest = rest.trim_start_matches('[');
    let token_end = rest
        .find(|c: char| c.is_whitespace() || c == ']' || c == '(')
        .unwrap_or(rest.len());
    let token = &rest[..token_end];
    let name = if token.eq_ignore_ascii_case("unreleased") {
        token
    } else {
        let bare = token.strip_prefix(['v', 'V']).unwrap_or(token);
        if !bare.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        bare
    };
    let mut rest = rest[token_end..].trim_start_matches([']', ' ', '\t']);
    let mut yanked = false;
    if let Some(at) = rest.to_ascii_uppercase().find("YANKED") {
        yanked = true;
        rest = rest[..at].trim_end_matches(['[', ' ', '\t']);
    }
    let day = rest.trim_matches(|c: char| {
        c.is_whitespace() || matches!(c, '-' | '–' | '—' | '/' | ':' | '(' | ')' | ',' | '[' | ']')
    });
    Some(Version {
        name,
        day: (!day.is_empty()).then_some(day),
        yanked,
    })
}

/// The day of a version as `YYYY-MM-DD`.
fn day(written: Option<&str>) -> Result<String, String> {
    let written =
        written.ok_or("the heading has no date: write it as `## [1.2.0] - 2026-03-01`")?;
    let parsed = DAY_FORMATS
        .iter()
        .find_map(|format| NaiveDate::parse_from_str(written, format).ok())
        .or_else(|| {
            DateTime::parse_from_rfc3339(written)
                .ok()
                .map(|d| d.date_naive())
        });
    parsed
        .map(|d| d.format("%Y-%m-%d").to_string())
        .ok_or_else(|| {
            format!("`{written}` is not a date shiplog reads: write a day like `2026-03-01`")
        })
}

/// A version's body (`range` of `text`) without link definitions and empty sections, with
/// the definitions it uses added at its end; and the tags of its sections.
fn body(
    text: &str,
    range: Range<usize>,
    sections: &[&Heading],
    definitions: &[Range<usize>],
) -> (String, Vec<String>) {
    let mut cuts: Vec<Range<usize>> = definitions
        .iter()
        .filter(|d| d.start >= range.start && d.end <= range.end)
        .cloned()
        .collect();
    let mut tags: Vec<String> = Vec::new();
    for (i, section) in sections.iter().enumerate() {
        let next = sections.get(i + 1).map_or(range.end, |h| h.range.start);
        let content = &text[section.range.end..next];
        let only_definitions = cuts
            .iter()
            .filter(|c| c.start >= section.range.end && c.end <= next)
            .map(|c| c.len())
            .sum::<usize>();
        let has_subsections = sections.get(i + 1).is_some_and(|h| h.level > section.level);
        if !has_subsections && content.trim().len() <= only_definitions {
            cuts.push(section.range.start..next);
            continue;
        }
        // `⚠ BREAKING CHANGES`, `🐛 Bug Fixes`: the words only.
        let name: String = section
            .text
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ')
            .collect::<String>()
            .trim()
            .to_lowercase();
        if let Some((_, tag)) = SECTION_TAGS.iter().find(|(section, _)| *section == name) {
            if !tags.iter().any(|t| t == tag) {
                tags.push(tag.to_string());
            }
        }
    }
    cuts.sort_by_key(|c| c.start);
    let mut body = String::new();
    let mut at = range.start;
    for cut in cuts {
        if cut.start >= at {
            body.push_str(&text[at..cut.start]);
            at = cut.end;
        }
    }
    body.push_str(&text[at.min(range.end)..range.end]);
    let mut body = body.trim().replace("\r\n", "\n");
    let lower = body.to_lowercase();
    let used: Vec<&str> = definitions
        .iter()
        .map(|d| text[d.clone()].trim())
        .filter(|definition| {
            definition
                .split_once("]:")
                .is_some_and(|(label, _)| lower.contains(&format!("{}]", label.to_lowercase())))
        })
        .collect();
    if !used.is_empty() {
        body.push_str("\n\n");
        body.push_str(&used.join("\n"));
    }
    (body, tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_headings_are_read_in_their_usual_forms() {
        let v = |name, day, yanked| Some(Version { name, day, yanked });
        assert_eq!(
            version("[1.2.0] - 2026-03-01"),
            v("1.2.0", Some("2026-03-01"), false)
        );
        assert_eq!(
            version("1.2.0 - 2026-03-01"),
            v("1.2.0", Some("2026-03-01"), false)
        );
        assert_eq!(
            version("v1.2.0 (2026-03-01)"),
            v("1.2.0", Some("2026-03-01"), false)
        );
        assert_eq!(
            version("[0.9.0] - 2025-12-01 [YANKED]"),
            v("0.9.0", Some("2025-12-01"), true)
        );
        assert_eq!(
            version("Version 2.0.0-rc.1 — March 1, 2026"),
            v("2.0.0-rc.1", Some("March 1, 2026"), false)
        );
        assert_eq!(version("[Unreleased]"), v("Unreleased", None, false));
        assert_eq!(version("Changelog"), None);
        assert_eq!(version("Added"), None);
        assert_eq!(day(Some("March 1, 2026")).unwrap(), "2026-03-01");
        assert_eq!(day(Some("1 March 2026")).unwrap(), "2026-03-01");
        assert_eq!(day(Some("2026/03/01")).unwrap(), "2026-03-01");
        assert!(day(Some("2026-13-01")).is_err());
        assert!(day(None).is_err());
    }
}
