//! Splitting an entry file into its YAML front matter and its Markdown body.

/// The two parts of an entry file.
#[derive(Debug, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the `---` lines.
    pub yaml: &'a str,
    /// The line of the file the YAML starts at (1-based).
    pub yaml_line: usize,
    /// The Markdown after the closing `---` line.
    pub body: &'a str,
}

/// What a line ending in a carriage return alone gets: Markdown would read the lines after
/// it as one, and a fenced code block in them would be lost without a word.
pub const LONE_CR: &str =
    "the line ends in a lone carriage return (CR): save the file with LF or CRLF line endings";

/// The offset of the first carriage return not followed by a line feed.
pub fn lone_carriage_return(text: &str) -> Option<usize> {
    memchr::memchr_iter(b'\r', text.as_bytes())
        .find(|&at| text.as_bytes().get(at + 1) != Some(&b'\n'))
}

/// Splits `text` at its `---` lines. The error is the message for line 1, column 1.
pub fn split(text: &str) -> Result<Split<'_>, &'static str> {
    let mut lines = line_spans(text);
    match lines.next() {
        Some((_, line)) if is_fence(line) => {}
        _ => return Err("an entry must start with a `---` line that opens its YAML front matter"),
    }
    let yaml_start = text.find('\n').map_or(text.len(), |i| i + 1);
    for (start, line) in lines {
        if is_fence(line) {
            let body_start = (start + line.len() + 1).min(text.len());
            return Ok(Split {
                yaml: &text[yaml_start..start],
                yaml_line: 2,
                body: &text[body_start..],
            });
        }
    }
    Err("the front matter is not closed: add a `---` line after it")
}

fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Each line with the byte offset it starts at (without its `\n`).
fn line_spans(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n').map(move |line| {
        let start = offset;
        offset += line.len();
        (start, line.strip_suffix('\n').unwrap_or(line))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lf_and_crlf() {
        let s = split("---\ntitle: a\n---\nbody\n").unwrap();
        assert_eq!((s.yaml, s.body), ("title: a\n", "body\n"));
        let s = split("---\r\ntitle: a\r\n---\r\nbody").unwrap();
        assert_eq!((s.yaml, s.body), ("title: a\r\n", "body"));
        let s = split("---\n---").unwrap();
        assert_eq!((s.yaml, s.body), ("", ""));
    }

    #[test]
    fn missing_fences_are_errors() {
        assert!(split("").is_err());
        assert!(split("title: a\n").is_err());
        assert!(split("---\ntitle: a\n").is_err());
    }

    #[test]
    fn a_lone_carriage_return_is_found_where_it_is() {
        assert_eq!(lone_carriage_return("---\r\ntitle: a\r\n"), None);
        assert_eq!(lone_carriage_return("---\rtitle: a\r"), Some(3));
        assert_eq!(lone_carriage_return("a\r\nb\r"), Some(4));
    }
}
