//! The one place YAML is parsed: front matter, `_org.yaml`, `shiplog.yaml` and the API keys
//! file all come through here, so every YAML problem is reported the same way, with the line
//! and column it stands at in its file.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_yaml::Value;

use crate::error::Problem;
use crate::text;

/// A top-level YAML mapping read from (part of) a file, with where each key stands. Keys
/// are located by their line in block style (`key: value` at the start of a line); in flow
/// style they are reported at the start of the mapping.
pub struct Mapping<'a> {
    path: &'a Path,
    first_line: usize,
    fields: Vec<Field>,
}

/// One `name: text` pair of a nested mapping (see [`Mapping::string_map`]), with where its
/// name is written (1-based line and column).
pub struct NestedString {
    pub key: String,
    pub value: String,
    pub line: usize,
    pub column: usize,
}

/// One `key: value` pair of a [`Mapping`].
pub struct Field {
    pub key: String,
    pub value: Value,
    line: usize,
    value_column: usize,
}

/// Parses `text`, which starts at line `first_line` of `path`, as a mapping of keys to values.
/// An empty document is an empty mapping.
pub fn parse_mapping<'a>(
    path: &'a Path,
    text: &str,
    first_line: usize,
) -> Result<Mapping<'a>, Problem> {
    if text.len() > MAX_MAPPING_BYTES {
        return Err(Problem::new(
            path,
            first_line,
            1,
            format!(
                "these settings are {} bytes long; at most {MAX_MAPPING_BYTES} are read (put long text in the entry's body)",
                text.len()
            ),
        ));
    }
    check_nesting(path, text, first_line)?;
    let value: Value =
        serde_yaml::from_str(text).map_err(|e| located(path, text, first_line, &e))?;
    let mapping = match value {
        Value::Null => serde_yaml::Mapping::new(),
        Value::Mapping(mapping) => mapping,
        _ => {
            return Err(Problem::new(
                path,
                first_line,
                1,
                "expected a mapping of `key: value` lines",
            ))
        }
    };
    let keys = KeyIndex::new(text);
    let mut fields = Vec::with_capacity(mapping.len());
    for (key, value) in mapping {
        let Value::String(key) = key else {
            // Locate a plain key (a number, `true`) by how it is written.
            let written = serde_yaml::to_string(&key).unwrap_or_default();
            let line = key_lines(text, written.trim_end())
                .next()
                .map_or(first_line, |(line, _)| first_line + line);
            return Err(Problem::new(
                path,
                line,
                1,
                format!("keys must be strings, found {}", describe(&key)),
            ));
        };
        let (line, value_column) = keys
            .find(text, &key)
            .map_or((first_line, 1), |(line, column)| {
                (first_line + line, column)
            });
        fields.push(Field {
            key,
            value,
            line,
            value_column,
        });
    }
    Ok(Mapping {
        path,
        first_line,
        fields,
    })
}

/// Writes `value` as a YAML document (without the leading `---`), for files shiplog creates.
pub fn to_string<T: Serialize>(value: &T) -> String {
    serde_yaml::to_string(value).expect("plain strings and lists always serialize")
}

/// Parses a whole YAML file into `T` (for nested documents such as the keys file); the
/// first problem is reported with its position.
pub fn parse_typed<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, Problem> {
    check_nesting(path, text, 1)?;
    serde_yaml::from_str(text).map_err(|e| located(path, text, 1, &e))
}

/// The longest mapping [`parse_mapping`] reads (front matter, `_org.yaml`, `shiplog.yaml`):
/// settings take a few hundred bytes, and the cost of parsing must stay small.
pub const MAX_MAPPING_BYTES: usize = 64 * 1024;

/// The deepest nesting of flow collections (`[`, `{`) read: the YAML parser's time grows
/// faster than the depth, and no setting needs more than a few levels.
pub const MAX_NESTING: usize = 64;

/// Refuses `text` when its flow collections nest more than [`MAX_NESTING`] deep, at the
/// bracket that goes too deep: a linear scan before the parser sees it.
fn check_nesting(path: &Path, text: &str, first_line: usize) -> Result<(), Problem> {
    let mut depth = 0usize;
    let mut quote = None;
    let mut chars = text.char_indices().peekable();
    let mut previous = '\n';
    while let Some((offset, c)) = chars.next() {
        match (quote, c) {
            (Some('"'), '\\') => {
                chars.next();
            }
            (Some(open), _) if c == open => quote = None,
            (Some(_), _) => {}
            // A quote opens a quoted scalar only where a scalar starts (`it's` does not).
            (None, '"' | '\'')
                if previous.is_whitespace() || matches!(previous, '[' | '{' | ',' | ':') =>
            {
                quote = Some(c)
            }
            (None, '#') if previous.is_whitespace() => {
                while chars.next_if(|&(_, c)| c != '\n').is_some() {}
            }
            (None, '[' | '{') => {
                depth += 1;
                if depth > MAX_NESTING {
                    let (line, column) = text::position(text, offset);
                    return Err(Problem::new(
                        path,
                        first_line + line - 1,
                        column,
                        format!("the YAML nests more than {MAX_NESTING} levels deep here"),
                    ));
                }
            }
            (None, ']' | '}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        previous = c;
    }
    Ok(())
}

/// Where each top-level key of block-style YAML first stands, read in one pass, so that
/// locating every key of a mapping stays linear in its size.
struct KeyIndex<'t>(std::collections::HashMap<&'t str, (usize, usize)>);

impl<'t> KeyIndex<'t> {
    fn new(text: &'t str) -> Self {
        let mut keys = std::collections::HashMap::new();
        for (index, line) in text.lines().enumerate() {
            let Some(key) = written_key(line) else {
                continue;
            };
            if let Some(column) = value_column(line, key) {
                keys.entry(key).or_insert((index, column));
            }
        }
        KeyIndex(keys)
    }

    /// The (0-based line, 1-based value column) of `key`; a key the one pass could not
    /// read (a plain key holding `:`) is looked for line by line.
    fn find(&self, text: &str, key: &str) -> Option<(usize, usize)> {
        self.0
            .get(key)
            .copied()
            .or_else(|| key_lines(text, key).next())
    }
}

/// The key a top-level `key: value` line starts with, as written (without its quotes).
fn written_key(line: &str) -> Option<&str> {
    let first = line.chars().next()?;
    if first == '"' || first == '\'' {
        let rest = &line[1..];
        return rest.find(first).map(|end| &rest[..end]);
    }
    if first.is_whitespace() || matches!(first, '#' | '-' | '[' | '{') {
        return None;
    }
    line.find(':')
        .map(|end| line[..end].trim_end_matches([' ', '\t']))
}

fn located(path: &Path, text: &str, first_line: usize, error: &serde_yaml::Error) -> Problem {
    let (message, offset) = file_positions(&error.to_string(), first_line);
    let (mut line, mut column) = match (offset, error.location()) {
        (Some(offset), _) => {
            let (line, column) = text::position(text, offset);
            (first_line + line - 1, column)
        }
        (None, Some(l)) => (first_line + l.line() - 1, l.column()),
        (None, None) => (first_line, 1),
    };
    let mut message = message;
    if let Some(key) = message
        .strip_prefix("duplicate entry with key \"")
        .and_then(|rest| rest.strip_suffix('"'))
    {
        // Point at the second occurrence rather than at the start of the mapping.
        if let Some((second, _)) = key_lines(text, key).nth(1) {
            (line, column) = (first_line + second, 1);
        }
    } else if message.contains("more than one document") {
        // Point at the line that starts the next document.
        if let Some(index) = text.lines().skip(1).position(|l| {
            let l = l.trim_end();
            l == "---" || l == "..." || l.starts_with("--- ")
        }) {
            (line, column) = (first_line + index + 1, 1);
        }
    } else if let Some(opened) = message
        .split_once("while scanning a quoted scalar at line ")
        .map(|(_, at)| at)
    {
        // Point at the quote that is never closed, not at the end of the front matter.
        let mut numbers = opened
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse::<usize>().ok());
        if let (Some(at_line), Some(at_column)) = (numbers.next(), numbers.next()) {
            (line, column) = (at_line, at_column);
            message = "a quoted value is never closed".to_string();
        }
    } else if message == "repetition limit exceeded" {
        message.push_str(": its aliases (`*name`) expand to too many values");
    } else if message == "recursion limit exceeded" {
        message.push_str(": its values are nested too deeply");
    }
    let line_text = text
        .lines()
        .nth(line.saturating_sub(first_line))
        .unwrap_or_default();
    if let Some(hint) = hint(&message, line_text) {
        message.push_str("; ");
        message.push_str(&hint);
    }
    Problem::new(path, line, column, format!("invalid YAML: {message}"))
}

/// What to do about the YAML mistakes people make every day, from the parser's message and
/// the line it points at: a tab in the indentation, a value holding `: ` left unquoted, a
/// quote never closed.
fn hint(message: &str, line: &str) -> Option<String> {
    let indentation = &line[..line.len() - line.trim_start().len()];
    if indentation.contains('\t') {
        return Some("YAML indents with spaces, not tabs: replace the tab at the start of this line with spaces".to_string());
    }
    if message.starts_with("mapping values are not allowed") {
        let (key, value) = line.split_once(": ")?;
        // A comment after the value is not part of it.
        let value = value.split(" #").next().unwrap_or(value).trim();
        let key = key.trim_end();
        if written_key(line).is_some() && !value.starts_with(['"', '\'']) {
            if key == "tags" {
                let items: Vec<String> = value
                    .split(',')
                    .map(str::trim)
                    .map(|tag| match tag.contains(": ") {
                        true => serde_json::to_string(tag).unwrap_or_default(),
                        false => tag.to_string(),
                    })
                    .collect();
                return Some(format!(
                    "tags are a list, and a tag holding `: ` must be quoted: `tags: [{}]`",
                    items.join(", ")
                ));
            }
            return Some(format!(
                "a value holding `: ` must be quoted: `{key}: {}`",
                serde_json::to_string(value).ok()?
            ));
        }
    }
    // `title: [Beta] new`, `title: @team`: a character YAML reads as the start of
    // something else.
    if let (Some(key), Some((_, value))) = (written_key(line), line.split_once(": ")) {
        let value = value.trim();
        if key != "tags" && value.starts_with(['[', '{', '@', '`', '*', '!', '%', '&', '|', '>']) {
            let start = match &value[..1] {
                "`" => "a backtick".to_string(),
                other => format!("`{other}`"),
            };
            return Some(format!(
                "a value starting with {start} must be quoted: `{key}: {}`",
                serde_json::to_string(value).ok()?
            ));
        }
    }
    // `title: "Say "hi" now"`: the value ends at its second quote.
    if let (Some(key), Some((_, value))) = (written_key(line), line.split_once(": ")) {
        let value = value.trim();
        if let Some(quote) = value.chars().next().filter(|c| matches!(c, '"' | '\'')) {
            let inner = &value[1..value.len().saturating_sub(1).max(1)];
            if value.len() > 2 && value.ends_with(quote) && inner.contains(quote) {
                let fixed = match (quote, inner.contains('\'')) {
                    ('"', false) => format!("'{inner}'"),
                    _ => serde_json::to_string(inner).ok()?,
                };
                return Some(format!(
                    "the value ends at its second `{quote}`: write it in the other quotes, `{key}: {fixed}`"
                ));
            }
        }
    }
    if message == "a quoted value is never closed" {
        return Some("end it with the quote it starts with".to_string());
    }
    None
}

/// Text of a plain (unquoted) top-level value among `keys` that YAML reads as something else,
/// so that part of what was written is lost without an error: ` #` starts a comment (`title:
/// Fix #123 crash` is the title `Fix`), a leading `&` an anchor (`title: &co rocks` is
/// `rocks`). Each is given as a line and column of `yaml` (counted from `first_line`) and
/// what to write instead.
pub fn swallowed_text(yaml: &str, first_line: usize, keys: &[&str]) -> Vec<(usize, usize, String)> {
    let mut found = Vec::new();
    for (number, line) in yaml.lines().enumerate() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        if !keys.contains(&key) || !value.starts_with([' ', '\t']) {
            continue;
        }
        let written = value.trim();
        let value_column = line.len() - value.trim_start().len();
        if written.starts_with(['"', '\'', '|', '>', '[', '{']) {
            continue;
        }
        let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
        let at = |offset: usize| line[..offset].chars().count() + 1;
        if let Some(comment) = written.find(" #").or_else(|| written.find("\t#")) {
            found.push((
                first_line + number,
                at(value_column + comment + 1),
                format!(
                    "` #` starts a YAML comment, so the {key} ends before it and the rest is lost; quote the value: `{key}: {}`",
                    quoted(written)
                ),
            ));
        } else if written.starts_with('&') {
            found.push((
                first_line + number,
                at(value_column),
                format!(
                    "a leading `&` makes a YAML anchor, so its first word is lost; quote the value: `{key}: {}`",
                    quoted(written)
                ),
            ));
        }
    }
    found
}

/// Rewrites the positions serde_yaml writes into its messages, which count from the start
/// of the YAML rather than of the file: the first (the problem's own, which the [`Problem`]
/// carries) is dropped, the others (where the construct being read started) are moved to
/// the file's lines. A problem given as " at position N" (a byte offset) is dropped too, and
/// N returned.
fn file_positions(message: &str, first_line: usize) -> (String, Option<usize>) {
    let number = |s: &str| -> (Option<usize>, usize) {
        let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        (s[..digits].parse().ok(), digits)
    };
    let mut out = String::with_capacity(message.len());
    let mut offset = None;
    let mut rest = message;
    let mut first = true;
    loop {
        let at_line = rest.find(" at line ");
        let at_position = rest.find(" at position ");
        let (at, is_line) = match (at_line, at_position) {
            (Some(l), Some(p)) if p < l => (p, false),
            (Some(l), _) => (l, true),
            (None, Some(p)) => (p, false),
            (None, None) => break,
        };
        out.push_str(&rest[..at]);
        if is_line {
            let after = &rest[at + " at line ".len()..];
            let (line, digits) = number(after);
            let after = &after[digits..];
            let after = after.strip_prefix(" column ").unwrap_or(after);
            let (column, digits) = number(after);
            rest = &after[digits..];
            if !first {
                if let (Some(line), Some(column)) = (line, column) {
                    out.push_str(&format!(
                        " at line {} column {column}",
                        first_line + line - 1
                    ));
                }
            }
        } else {
            let after = &rest[at + " at position ".len()..];
            let (position, digits) = number(after);
            rest = &after[digits..];
            if first {
                offset = position;
            }
        }
        first = false;
    }
    out.push_str(rest);
    (out, offset)
}

/// The lines where top-level `key:` stands in block-style YAML: (0-based line, 1-based
/// column of the value).
fn key_lines<'t>(text: &'t str, key: &'t str) -> impl Iterator<Item = (usize, usize)> + 't {
    text.lines()
        .enumerate()
        .filter_map(move |(index, line)| Some((index, value_column(line, key)?)))
}

/// When `line` starts with `key:` (the key plain or quoted), the 1-based column of its value.
fn value_column(line: &str, key: &str) -> Option<usize> {
    let quoted = |quote: char| {
        line.strip_prefix(quote)?
            .strip_prefix(key)?
            .strip_prefix(quote)
    };
    let rest = line
        .strip_prefix(key)
        .or_else(|| quoted('"'))
        .or_else(|| quoted('\''))?;
    let after_colon = rest.trim_start_matches([' ', '\t']).strip_prefix(':')?;
    let value = after_colon.trim_start_matches([' ', '\t']);
    let value_start = line.len() - value.len();
    Some(line[..value_start].chars().count() + 1)
}

fn is_string_keyed_mapping(value: &Value) -> bool {
    value
        .as_mapping()
        .is_some_and(|mapping| mapping.keys().all(Value::is_string))
}

/// Where to report a problem with `key` of item `index` (0-based) of the list that is the
/// value of the top-level `list:`, as (1-based line, column). In a block-style list of
/// block mappings (`- key: value` lines), the value of `key:`; failing that, where the item
/// starts, or else the list itself (flow style, `[...]`), as [`Mapping`] reports keys in
/// flow style at the start of the mapping. `None` when there is no top-level `list:`. It
/// places the problems found in what [`parse_typed`] read, which carries no positions.
pub fn list_item_key(text: &str, list: &str, index: usize, key: &str) -> Option<(usize, usize)> {
    let (list_line, list_column) = key_lines(text, list).next()?;
    // The indentation of the list's `-`, set by its first item.
    let mut dash = None;
    let mut started = 0;
    // Where item `index` starts, once reached, and the column of its keys (which follow
    // its `-`, or start the next line after a bare `-`).
    let mut item = None;
    let mut keys_at = None;
    for (number, line) in text.lines().enumerate().skip(list_line + 1) {
        let mut rest = line.trim_start_matches(' ');
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        let indent = line.len() - rest.len();
        let dash = *dash.get_or_insert(indent);
        if indent == dash && (rest == "-" || rest.starts_with("- ")) {
            if started > index {
                break;
            }
            started += 1;
            rest = rest[1..].trim_start_matches(' ');
            if started > index {
                item = Some((number + 1, line.len() - rest.len() + 1));
            }
        } else if indent <= dash {
            break;
        }
        let column = line.len() - rest.len();
        if item.is_some() && !rest.is_empty() && *keys_at.get_or_insert(column) == column {
            if let Some(value) = value_column(rest, key) {
                return Some((number + 1, column + value));
            }
        }
    }
    Some(item.unwrap_or((list_line + 1, list_column)))
}

/// A short description of a YAML value's type, for error messages.
fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

impl<'a> Mapping<'a> {
    /// A problem at the start of the mapping (for missing keys).
    pub fn problem_at_start(&self, message: impl Into<String>) -> Problem {
        Problem::new(self.path, self.first_line, 1, message)
    }

    /// Reports every key that is not in `allowed`, naming the allowed keys.
    pub fn reject_unknown_keys(&self, allowed: &[&str], problems: &mut Vec<Problem>) {
        for field in self
            .fields
            .iter()
            .filter(|f| !allowed.contains(&f.key.as_str()))
        {
            problems.push(Problem::new(
                self.path,
                field.line,
                1,
                format!(
                    "unknown key `{}`; allowed keys are: {}",
                    field.key,
                    allowed.join(", ")
                ),
            ));
        }
    }

    /// The field for `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// Where the value of `field` is written: 1-based line and column.
    pub fn position(&self, field: &Field) -> (usize, usize) {
        (field.line, field.value_column)
    }

    /// A problem about the value of `field`.
    pub fn problem(&self, field: &Field, message: impl Into<String>) -> Problem {
        Problem::new(self.path, field.line, field.value_column, message)
    }

    /// The value of `key` as a string; a value of another type is a problem.
    pub fn string(&self, key: &str, problems: &mut Vec<Problem>) -> Option<String> {
        let field = self.get(key)?;
        match &field.value {
            Value::String(s) => Some(s.clone()),
            other => {
                problems.push(self.problem(
                    field,
                    format!(
                        "`{key}` must be a string, found {} (put it in quotes)",
                        describe(other)
                    ),
                ));
                None
            }
        }
    }

    /// The value of `key` as a mapping of strings to strings, each with where its key is
    /// written in `text`, the mapping's text (block style; in flow style, where the mapping
    /// starts). Any other value is a problem; so is a value that is not text, and the
    /// others are still returned, to be checked too.
    pub fn string_map(
        &self,
        text: &str,
        key: &str,
        problems: &mut Vec<Problem>,
    ) -> Option<Vec<NestedString>> {
        let field = self.get(key)?;
        let shape = format!("like `{key}:` and then `  name: \"text\"` lines");
        let mapping = match &field.value {
            Value::Null => return Some(Vec::new()),
            Value::Mapping(mapping) if mapping.keys().all(|name| name.as_str().is_some()) => {
                mapping
            }
            _ => {
                problems
                    .push(self.problem(field, format!("`{key}` must map names to text, {shape}")));
                return None;
            }
        };
        // The block below `key:`: the indented lines that follow it.
        let block: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .skip(field.line.saturating_sub(self.first_line) + 1)
            .take_while(|(_, line)| line.is_empty() || line.starts_with([' ', '\t', '#']))
            .collect();
        let mut nested = Vec::with_capacity(mapping.len());
        for (name, value) in mapping {
            let name = name.as_str().unwrap_or_default();
            let (line, column) = block
                .iter()
                .find_map(|(index, line)| {
                    let trimmed = line.trim_start();
                    let indent = line.chars().count() - trimmed.chars().count();
                    value_column(trimmed, name).map(|_| (self.first_line + index, indent + 1))
                })
                .unwrap_or((field.line, field.value_column));
            match value.as_str() {
                Some(value) => nested.push(NestedString {
                    key: name.to_string(),
                    value: value.to_string(),
                    line,
                    column,
                }),
                // Located at its own line, not at `key:`: the mapping may be long.
                None => problems.push(self.problem_at(
                    line,
                    column,
                    format!(
                        "`{key}.{name}` must be text, found {} (put it in quotes)",
                        describe(value)
                    ),
                )),
            }
        }
        Some(nested)
    }

    /// The value of `key` as a list of mappings (`- type: slack` lines), each item a
    /// [`Mapping`] whose keys are located in `text`, the mapping's text, by
    /// [`list_item_key`]. Anything else is a problem.
    pub fn mapping_list(
        &self,
        text: &str,
        key: &str,
        problems: &mut Vec<Problem>,
    ) -> Option<Vec<Mapping<'a>>> {
        let field = self.get(key)?;
        let items = match &field.value {
            Value::Null => return Some(Vec::new()),
            Value::Sequence(items) if items.iter().all(is_string_keyed_mapping) => items,
            _ => {
                problems.push(self.problem(
                    field,
                    format!("`{key}` must be a list of settings, like `{key}:` and then `  - type: …` lines"),
                ));
                return None;
            }
        };
        let items = items.iter().enumerate().map(|(index, item)| {
            // A key no item has: where the item starts.
            let start = list_item_key(text, key, index, "\0")
                .map_or(field.line, |(line, _)| self.first_line + line - 1);
            let fields = item
                .as_mapping()
                .into_iter()
                .flatten()
                .map(|(name, value)| {
                    let name = name.as_str().unwrap_or_default();
                    let (line, value_column) = list_item_key(text, key, index, name)
                        .map_or((field.line, field.value_column), |(line, column)| {
                            (self.first_line + line - 1, column)
                        });
                    Field {
                        key: name.to_string(),
                        value: value.clone(),
                        line,
                        value_column,
                    }
                })
                .collect();
            Mapping {
                path: self.path,
                first_line: start,
                fields,
            }
        });
        Some(items.collect())
    }

    /// A problem at `line:column` of the mapping's file.
    pub fn problem_at(&self, line: usize, column: usize, message: impl Into<String>) -> Problem {
        Problem::new(self.path, line, column, message)
    }

    /// The value of `key` as `true` or `false`.
    pub fn bool(&self, key: &str, problems: &mut Vec<Problem>) -> Option<bool> {
        let field = self.get(key)?;
        match &field.value {
            Value::Bool(b) => Some(*b),
            other => {
                problems.push(self.problem(
                    field,
                    format!("`{key}` must be true or false, found {}", describe(other)),
                ));
                None
            }
        }
    }

    /// The value of `key` as a whole number of at least 1.
    pub fn positive_integer(&self, key: &str, problems: &mut Vec<Problem>) -> Option<usize> {
        let field = self.get(key)?;
        match field.value.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) if n >= 1 => Some(n),
            _ => {
                problems.push(self.problem(
                    field,
                    format!("`{key}` must be a whole number of at least 1"),
                ));
                None
            }
        }
    }

    /// The value of `key` as a list of strings.
    pub fn string_list(&self, key: &str, problems: &mut Vec<Problem>) -> Option<Vec<String>> {
        let field = self.get(key)?;
        let list = match &field.value {
            Value::Null => Some(Vec::new()),
            Value::Sequence(items) => items
                .iter()
                .map(|item| item.as_str().map(str::to_string))
                .collect(),
            _ => None,
        };
        if list.is_none() {
            // `tags: a, b` reads as one string: show the list it was meant to be.
            let example = match &field.value {
                Value::String(text) if text.contains(',') => {
                    let items: Vec<&str> = text
                        .split(',')
                        .map(str::trim)
                        .filter(|item| !item.is_empty())
                        .collect();
                    format!("write `{key}: [{}]`", items.join(", "))
                }
                _ => format!("like `{key}: [one, two]`"),
            };
            problems.push(self.problem(
                field,
                format!("`{key}` must be a list of strings, {example}"),
            ));
        }
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_anchors_in_plain_values_are_found() {
        let found = swallowed_text(
            "title: Fix #123 crash\nsummary: &co rocks\ntags: [a] # fine\nother: x #y\ntitle: \"Quoted #1\"\n",
            2,
            &["title", "summary"],
        );
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].0, found[0].1), (2, 12));
        assert!(
            found[0].2.ends_with("`title: \"Fix #123 crash\"`"),
            "{}",
            found[0].2
        );
        assert_eq!((found[1].0, found[1].1), (3, 10));
    }

    #[test]
    fn deep_flow_nesting_is_refused_before_parsing() {
        let path = Path::new("e.md");
        let deep = format!("x: {}{}\n", "[".repeat(65), "]".repeat(65));
        let problem = parse_mapping(path, &deep, 2).err().unwrap();
        assert_eq!((problem.line, problem.column), (2, 68));
        let fine = format!("x: {}{}\n", "[".repeat(64), "]".repeat(64));
        assert!(parse_mapping(path, &fine, 2).is_ok());
        // Brackets in quoted scalars and comments do not count; an apostrophe in a plain
        // scalar opens no quote.
        let quoted = format!(
            "a: \"{}\"\nb: '{}' # {}\n",
            "[".repeat(99),
            "{".repeat(99),
            "[".repeat(99)
        );
        assert!(parse_mapping(path, &quoted, 1).is_ok());
        let sneaky = format!("it's: {}{}\n", "[".repeat(65), "]".repeat(65));
        assert!(parse_mapping(path, &sneaky, 1).is_err());
    }

    #[test]
    fn many_keys_are_located_in_one_pass() {
        let text: String = (0..5000).map(|i| format!("k{i}: {i}\n")).collect();
        let map = parse_mapping(Path::new("e.md"), &text, 2).unwrap();
        let field = map.get("k4999").unwrap();
        assert_eq!((field.line, field.value_column), (5001, 8));
        let quoted = parse_mapping(Path::new("e.md"), "\"a b\": 1\n'c': 2\n", 1).unwrap();
        assert_eq!(quoted.get("c").map(|f| f.line), Some(2));
    }

    #[test]
    fn positions_are_those_of_the_file() {
        let path = Path::new("x.md");
        let map = parse_mapping(path, "title: Hi\n  \ndate:   2026-01-01\n", 2).unwrap();
        let date = map.get("date").unwrap();
        assert_eq!((date.line, date.value_column), (4, 9));
        let err = parse_mapping(path, "title: Hi\ndate: [\n", 2)
            .err()
            .unwrap();
        assert_eq!(err.path, path);
        assert!(err.line >= 3, "{err}");
        assert!(err.message.starts_with("invalid YAML"), "{err}");
    }

    #[test]
    fn positions_in_messages_are_moved_to_the_file() {
        let (message, offset) = file_positions(
            "found unexpected end of stream at line 3 column 1, while scanning a quoted scalar at line 1 column 8",
            2,
        );
        assert_eq!(
            message,
            "found unexpected end of stream, while scanning a quoted scalar at line 2 column 8"
        );
        assert_eq!(offset, None);
        let (message, offset) =
            file_positions("control characters are not allowed at position 11", 2);
        assert_eq!(
            (message.as_str(), offset),
            ("control characters are not allowed", Some(11))
        );
        let err = parse_mapping(Path::new("x.md"), "title: a\n1: b\n", 2)
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "x.md:3:1: keys must be strings, found a number"
        );
    }

    #[test]
    fn list_items_are_located() {
        let text = "# keys\nkeys:\n  - name: a\n    org: acme\n\n  # between\n  -   name: b\n      \"org\": globex\n  -\n    org: c\n  - {org: d}\nother: 1\n";
        assert_eq!(list_item_key(text, "keys", 0, "org"), Some((4, 10)));
        assert_eq!(list_item_key(text, "keys", 1, "name"), Some((7, 13)));
        assert_eq!(list_item_key(text, "keys", 1, "org"), Some((8, 14)));
        assert_eq!(list_item_key(text, "keys", 2, "org"), Some((10, 10)));
        // Not found: the item, or else the list.
        assert_eq!(list_item_key(text, "keys", 0, "sha256"), Some((3, 5)));
        assert_eq!(list_item_key(text, "keys", 3, "org"), Some((11, 5)));
        assert_eq!(list_item_key(text, "keys", 4, "org"), Some((2, 6)));
        assert_eq!(
            list_item_key("keys:\n- org: x\n", "keys", 0, "org"),
            Some((2, 8))
        );
        assert_eq!(
            list_item_key("keys: [{org: x}]\n", "keys", 0, "org"),
            Some((1, 7))
        );
        assert_eq!(list_item_key("other: 1\n", "keys", 0, "org"), None);
    }

    #[test]
    fn unknown_keys_name_the_allowed_ones() {
        let path = Path::new("x.md");
        let map = parse_mapping(path, "title: a\ntitel: b\n", 2).unwrap();
        let mut problems = Vec::new();
        map.reject_unknown_keys(&["title", "date"], &mut problems);
        assert_eq!(
            problems[0].to_string(),
            "x.md:3:1: unknown key `titel`; allowed keys are: title, date"
        );
    }
}
