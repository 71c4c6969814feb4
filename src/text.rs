//! Text helpers: a file's bytes read with a bound and taken as text (UTF-8 only, a leading
//! byte-order mark dropped), a character or a string as a message may show it, and positions.

use std::path::Path;

use crate::error::Problem;

/// The file's text without a UTF-8 byte-order mark; invalid UTF-8 is a problem located at
/// the first bad byte.
pub fn decode_utf8<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, Problem> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = &bytes[..e.valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        // Valid by construction: the prefix up to the error is UTF-8.
        let column = String::from_utf8_lossy(&valid[line_start..])
            .chars()
            .count()
            + 1;
        Problem::new(
            path,
            line,
            column,
            format!(
                "the file is not valid UTF-8 (byte 0x{:02X}); save it as UTF-8",
                bytes[e.valid_up_to()]
            ),
        )
    })
}

/// Opens the regular file at `path` for reading, refusing anything else (a device, or a
/// named pipe, which would block) by what the opened file is, not by a look at the path
/// before: the content may change while a build reads it. Without `follow_links`, a link
/// is refused too (as a file that may not be one is, if it became one since the walk).
pub fn open_regular(path: &Path, follow_links: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let no_follow = if follow_links { 0 } else { libc::O_NOFOLLOW };
        options.custom_flags(libc::O_NONBLOCK | no_follow);
    }
    #[cfg(not(unix))]
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

fn not_regular() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, "it is not a regular file")
}

/// The bytes of the regular file at `path` (see [`open_regular`]), refused when it is
/// something else or longer than `max` bytes, which are never read.
pub fn read_limited(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Error as IoError, ErrorKind, Read};
    let file = open_regular(path, true)?;
    let too_long = || {
        IoError::new(
            ErrorKind::InvalidInput,
            format!("it is larger than {max} bytes, the most shiplog reads of such a file"),
        )
    };
    if file.metadata()?.len() > max {
        return Err(too_long());
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    // It may have grown since.
    if bytes.len() as u64 > max {
        return Err(too_long());
    }
    Ok(bytes)
}

/// A character no text field may hold: a control character, or U+FFFE or U+FFFF, which
/// XML (the RSS and Atom feeds) cannot carry at all.
pub fn is_unwritable(c: char) -> bool {
    c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}'
}

/// `text` with every character that XML 1.0 cannot carry, or that it discourages (control
/// characters other than tab and line breaks, U+FFFE, U+FFFF), replaced by U+FFFD.
pub fn xml_safe(text: String) -> String {
    let allowed = |c: char| matches!(c, '\t' | '\n' | '\r') || !is_unwritable(c);
    if text.chars().all(allowed) {
        return text;
    }
    text.chars()
        .map(|c| if allowed(c) { c } else { '\u{FFFD}' })
        .collect()
}

/// A character as an error message shows it: printable ASCII in backticks, anything else
/// (look-alike letters, invisible and control characters) by its code point, such as
/// `U+0430`, so that a reader can tell what is wrong with a name that looks right.
pub fn describe_char(c: char) -> String {
    if c.is_ascii_graphic() {
        format!("`{c}`")
    } else {
        format!("U+{:04X}", u32::from(c))
    }
}

/// Whether `c` is a formatting character that shows nothing but changes how the text
/// around it reads: zero-width spaces and joiners, bidirectional overrides and isolates,
/// the soft hyphen and the byte-order mark (Unicode's Cf characters in common use).
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// `text` as a terminal or a log may show it: control characters (an escape sequence that
/// would rewrite the line, a NUL, a carriage return) written as `\u{1b}`, the rest as it is.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// The 1-based line and column (in characters) of byte `offset` of `text` (an offset inside
/// a character counts as that character's).
pub fn position(text: &str, offset: usize) -> (usize, usize) {
    Positions::new(text).of(offset)
}

/// The positions of many offsets of one text. Offsets given in order (as a parser reports
/// them) cost the text's length in all, not its length for each: an entry with 40,000 broken
/// links on one line is located in milliseconds.
pub struct Positions<'t> {
    text: &'t str,
    /// The last offset located, its line and column, and where its line starts.
    at: usize,
    line: usize,
    column: usize,
}

impl<'t> Positions<'t> {
    /// Starts at the beginning of `text`.
    pub fn new(text: &'t str) -> Self {
        Positions {
            text,
            at: 0,
            line: 1,
            column: 1,
        }
    }

    /// The 1-based line and column (in characters) of byte `offset` (an offset inside a
    /// character counts as that character's).
    pub fn of(&mut self, offset: usize) -> (usize, usize) {
        let mut end = offset.min(self.text.len());
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        if end < self.at {
            *self = Positions::new(self.text);
        }
        let between = &self.text[self.at..end];
        match memchr::memrchr(b'\n', between.as_bytes()) {
            Some(last) => {
                self.line += memchr::memchr_iter(b'\n', between.as_bytes()).count();
                self.column = between[last + 1..].chars().count() + 1;
            }
            None => self.column += between.chars().count(),
        }
        self.at = end;
        (self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn only_regular_files_open_and_never_block() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.png");
        std::fs::write(&file, b"x").unwrap();
        let link = dir.path().join("link.png");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let pipe = dir.path().join("pipe.png");
        let name = std::ffi::CString::new(pipe.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string naming a path in our own temporary folder.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert!(open_regular(&file, false).is_ok());
        assert!(open_regular(&link, true).is_ok());
        assert!(open_regular(&link, false).is_err(), "a link, not followed");
        // A named pipe with no writer: opening it for reading would wait for one.
        assert!(open_regular(&pipe, true).is_err());
        assert!(open_regular(dir.path(), true).is_err());
    }

    #[test]
    fn what_xml_cannot_carry_is_replaced() {
        let text = "a\tb\nc\u{1b}d\u{1}e\u{FFFF}f\u{85}".to_string();
        assert_eq!(xml_safe(text), "a\tb\nc\u{FFFD}d\u{FFFD}e\u{FFFD}f\u{FFFD}");
        assert!(is_unwritable('\u{FFFE}') && !is_unwritable('é'));
    }

    #[test]
    fn positions_in_any_order_are_those_counted_from_the_start() {
        let text = "ab\nçd\n\nwörld\n";
        let counted = |offset: usize| {
            let before = &text[..text.floor_char_boundary(offset)];
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            (
                before.matches('\n').count() + 1,
                before[line_start..].chars().count() + 1,
            )
        };
        let mut positions = Positions::new(text);
        let offsets = (0..=text.len()).chain([3, 0, 9, 4, 100]);
        for offset in offsets {
            assert_eq!(
                positions.of(offset),
                counted(offset.min(text.len())),
                "{offset}"
            );
        }
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("plain ünïcode"), "plain ünïcode");
        assert_eq!(
            printable("x\u{1b}[2K\u{1b}[32mall good\0\r\n"),
            "x\\u{1b}[2K\\u{1b}[32mall good\\u{0}\\u{d}\\u{a}"
        );
    }

    #[test]
    fn characters_are_described_so_look_alikes_show() {
        assert_eq!(describe_char('/'), "`/`");
        assert_eq!(describe_char('\u{430}'), "U+0430");
        assert_eq!(describe_char('\u{200B}'), "U+200B");
        assert_eq!(describe_char(' '), "U+0020");
    }

    #[test]
    fn bom_is_dropped_and_bad_bytes_located() {
        let path = Path::new("a.md");
        assert_eq!(decode_utf8(path, b"\xEF\xBB\xBFhi").unwrap(), "hi");
        let problem = decode_utf8(path, b"one\ntw\xFFo").unwrap_err();
        assert_eq!((problem.line, problem.column), (2, 3));
    }
}
