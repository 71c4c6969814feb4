//! The API keys file: its format (only SHA-256 digests of keys, so it can be committed),
//! reading it into the set of keys the server accepts, and adding a key to it or taking one
//! out for `shiplog keys new` and `shiplog keys revoke`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rand::rngs::OsRng;
use rand::TryRngCore;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::digest::hex;
use crate::error::{Error, Problem, Result};
use crate::{atomic, slug};
use crate::{text, yaml};

/// Requests a key may make per minute when the keys file does not say.
pub const DEFAULT_RATE_LIMIT_PER_MINUTE: u32 = 2000;

/// What every key made by `shiplog keys new` starts with.
pub const KEY_PREFIX: &str = "shl_";

/// Random bytes in a new key (written as twice as many hex digits).
const KEY_BYTES: usize = 32;

/// The longest key name `shiplog keys new` accepts.
const MAX_NAME_CHARS: usize = 100;

/// The top-level key of the keys file that holds the list of keys.
const LIST: &str = "keys";

/// A SHA-256 digest.
pub type KeyDigest = [u8; 32];

/// The keys file as written on disk.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeysFile {
    #[serde(default)]
    keys: Option<Vec<KeyRecord>>,
}

/// One item of the keys file's `keys` list.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyRecord {
    name: String,
    org: String,
    sha256: String,
    rate_limit_per_minute: Option<u64>,
}

/// One API key the server accepts (only its digest is known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// The key's name, for logs.
    pub name: String,
    /// The organization whose changelog the key reads.
    pub org: String,
    /// Requests the key may make per minute.
    pub rate_limit_per_minute: u32,
    /// The SHA-256 digest of the key: what the key is looked up and rate-limited by.
    pub(crate) digest: KeyDigest,
}

impl ApiKey {
    /// The first 8 hex digits of the key's digest: enough to tell keys of one name apart,
    /// too few to stand for the digest.
    pub fn digest_start(&self) -> String {
        hex(&self.digest[..4])
    }
}

/// Every key of a keys file, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keys {
    keys: Vec<ApiKey>,
    /// Position in `keys` by digest.
    by_digest: HashMap<KeyDigest, usize>,
}

impl Keys {
    /// Reads the keys file at `path`. A missing file is `Ok(None)`, unless `must_exist`
    /// (the user named the file), when it is a usage error.
    pub fn load(path: &Path, must_exist: bool) -> Result<Option<Keys>> {
        match std::fs::read(path) {
            Ok(bytes) => {
                let text = text::decode_utf8(path, &bytes)?;
                Keys::parse(path, text).map(Some)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::Usage(format!(
                "keys file {} does not exist (make a key with `shiplog keys new --org <org> --name <name> --keys {}`)",
                path.display(),
                path.display()
            ))),
            Err(source) => Err(Error::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses and checks the text of a keys file; every problem is reported.
    pub fn parse(path: &Path, text: &str) -> Result<Keys> {
        let file: KeysFile = yaml::parse_typed(path, text)?;
        let mut problems = Vec::new();
        let mut keys: Vec<ApiKey> = Vec::new();
        let mut seen: HashMap<KeyDigest, String> = HashMap::new();
        for (index, record) in file.keys.unwrap_or_default().into_iter().enumerate() {
            // Where a field of this item is written (line 1 when there is no `keys:` line
            // to start from, as when the whole file is one flow mapping).
            let position = |field: &str| yaml::list_item_key(text, LIST, index, field);
            let at = |field: &str, message: &str| {
                let (line, column) = position(field).unwrap_or((1, 1));
                Problem::new(path, line, column, message)
            };
            let Some(key) = check_record(record, &at, &mut problems) else {
                continue;
            };
            if let Some(first) = seen.insert(key.digest, key.name.clone()) {
                problems.push(Problem::new(
                    path,
                    position("sha256").map_or(1, |(line, _)| line),
                    1,
                    format!("the same key is listed twice (also as `{first}`)"),
                ));
                continue;
            }
            keys.push(key);
        }
        Error::check(problems)?;
        let by_digest = keys
            .iter()
            .enumerate()
            .map(|(i, key)| (key.digest, i))
            .collect();
        Ok(Keys { keys, by_digest })
    }

    /// The keys, in file order.
    pub fn as_slice(&self) -> &[ApiKey] {
        &self.keys
    }

    /// The key whose SHA-256 digest is `digest`: one hash-map look-up, whatever the number
    /// of keys.
    pub fn get(&self, digest: &KeyDigest) -> Option<&ApiKey> {
        self.by_digest.get(digest).map(|&i| &self.keys[i])
    }
}

/// Checks one item of the keys file, pushing its problems (`at` places a message at a
/// field); the key, unless its digest or rate limit cannot be read at all.
fn check_record(
    record: KeyRecord,
    at: &dyn Fn(&str, &str) -> Problem,
    problems: &mut Vec<Problem>,
) -> Option<ApiKey> {
    let name = record.name.trim().to_string();
    if name.is_empty() || name.chars().any(char::is_control) {
        problems.push(at("name", "`name` must be a non-empty line of text"));
    }
    if let Err(message) = slug::check_org(&record.org) {
        problems.push(at("org", &format!("`org`: {message}")));
    }
    let Some(digest) = parse_digest(&record.sha256) else {
        problems.push(at(
            "sha256",
            "`sha256` must be 64 lowercase hex digits: the SHA-256 of the whole key",
        ));
        return None;
    };
    let rate = match record.rate_limit_per_minute {
        None => DEFAULT_RATE_LIMIT_PER_MINUTE,
        Some(n) => match u32::try_from(n) {
            Ok(n) if n >= 1 => n,
            _ => {
                problems.push(at(
                    "rate_limit_per_minute",
                    &format!(
                        "`rate_limit_per_minute` must be a whole number from 1 to {}",
                        u32::MAX
                    ),
                ));
                return None;
            }
        },
    };
    Some(ApiKey {
        name,
        org: record.org,
        rate_limit_per_minute: rate,
        digest,
    })
}

/// 64 lowercase hex digits as bytes.
fn parse_digest(hex: &str) -> Option<KeyDigest> {
    let bytes = hex.as_bytes();
    if bytes.len() != 64 || !bytes.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let mut digest = [0u8; 32];
    for (i, pair) in bytes.chunks(2).enumerate() {
        let text = std::str::from_utf8(pair).ok()?;
        digest[i] = u8::from_str_radix(text, 16).ok()?;
    }
    Some(digest)
}

/// What `shiplog keys new` made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewKey {
    /// The key itself: shown once, stored nowhere.
    pub key: String,
    /// The keys file the digest was added to.
    pub keys_file: PathBuf,
    /// Whether the keys file was created.
    pub created: bool,
}

/// What a key of the keys file says: name, org, digest in hex, rate limit. A rewritten file
/// is checked against these.
type KeyFields = (String, String, String, u32);

/// An exclusive lock on the folder of `keys_path`, held while the guard lives: two
/// `shiplog keys new` at once each read the file the other wrote, and no key is lost. (The
/// folder, not the file, since the file is replaced by a rename.)
fn lock_folder_of(keys_path: &Path) -> Result<std::fs::File> {
    let folder = match keys_path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    crate::atomic::lock_folder(folder).map_err(|e| {
        Error::Usage(format!(
            "the folder of keys file {} cannot be locked: {e}",
            keys_path.display()
        ))
    })
}

/// Makes a random key for organization `org`, named `name`, and appends its digest to the
/// keys file at `keys_path` (created if missing). The org must be a folder of `content_dir`.
pub fn new_key(keys_path: &Path, content_dir: &Path, org: &str, name: &str) -> Result<NewKey> {
    let name = check_new_key(content_dir, org, name)?;
    let _lock = lock_folder_of(keys_path)?;
    let (existing, created) = match std::fs::read(keys_path) {
        Ok(bytes) => (text::decode_utf8(keys_path, &bytes)?.to_string(), false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (String::new(), true),
        Err(source) => {
            return Err(Error::Read {
                path: keys_path.to_path_buf(),
                source,
            })
        }
    };
    let old = Keys::parse(keys_path, &existing)?;

    let key = random_key()?;
    let digest = hex(&Sha256::digest(key.as_bytes()));

    let wanted: Vec<KeyFields> = old
        .as_slice()
        .iter()
        .map(key_fields)
        .chain(std::iter::once((
            name.to_string(),
            org.to_string(),
            digest.clone(),
            DEFAULT_RATE_LIMIT_PER_MINUTE,
        )))
        .collect();
    let new_text = appended(&existing, name, org, &digest)
        .into_iter()
        .find(|candidate| {
            Keys::parse(keys_path, candidate).is_ok_and(|keys| {
                let got: Vec<_> = keys.as_slice().iter().map(key_fields).collect();
                got == wanted
            })
        })
        .unwrap_or_else(|| rewritten(&wanted));
    atomic::replace_durably(keys_path, new_text.as_bytes())?;
    Ok(NewKey {
        key,
        keys_file: keys_path.to_path_buf(),
        created,
    })
}

/// Takes the key named `name` out of the keys file at `keys_path` (the one whose digest
/// starts with `digest_start`, when several share the name), keeping the rest of the file as
/// it was; the key taken out. A running server stops accepting it as soon as it sees the
/// file change.
pub fn revoke_key(keys_path: &Path, name: &str, digest_start: Option<&str>) -> Result<ApiKey> {
    let _lock = lock_folder_of(keys_path)?;
    let existing = match std::fs::read(keys_path) {
        Ok(bytes) => text::decode_utf8(keys_path, &bytes)?.to_string(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::Usage(format!(
                "keys file {} does not exist",
                keys_path.display()
            )))
        }
        Err(source) => {
            return Err(Error::Read {
                path: keys_path.to_path_buf(),
                source,
            })
        }
    };
    let old = Keys::parse(keys_path, &existing)?;
    // As `keys list` shows it (`e93f6fee…`), in either case.
    let digest_start =
        digest_start.map(|start| start.trim().trim_end_matches('…').to_ascii_lowercase());
    if let Some(start) = digest_start.as_deref() {
        if start.is_empty() || !start.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::Usage(format!(
                "--digest takes the first hex digits of a key's SHA-256, as `shiplog keys list` shows them; not `{start}`"
            )));
        }
    }
    let named: Vec<&ApiKey> = old
        .as_slice()
        .iter()
        .filter(|key| key.name == name.trim())
        .filter(|key| {
            digest_start
                .as_deref()
                .is_none_or(|start| hex(&key.digest).starts_with(start))
        })
        .collect();
    let gone = match named.as_slice() {
        [one] => (*one).clone(),
        [] => {
            let names: Vec<&str> = old.as_slice().iter().map(|k| k.name.as_str()).collect();
            return Err(Error::Usage(format!(
                "{} has no key named `{}`{}; its keys: {}",
                keys_path.display(),
                name.trim(),
                digest_start
                    .as_deref()
                    .map_or(String::new(), |d| format!(" whose digest starts with {d}")),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
        several => {
            // Enough digits to tell each from the others: eight unless two share them.
            let digests: Vec<String> = several.iter().map(|key| hex(&key.digest)).collect();
            let length = (8..=64)
                .step_by(2)
                .find(|&n| {
                    let starts: std::collections::HashSet<&str> =
                        digests.iter().map(|d| &d[..n]).collect();
                    starts.len() == digests.len()
                })
                .unwrap_or(64);
            let which: Vec<String> = digests
                .iter()
                .map(|digest| format!("--digest {}", &digest[..length]))
                .collect();
            return Err(Error::Usage(format!(
                "{} keys are named `{}`: say which with {}",
                several.len(),
                name.trim(),
                which.join(" or ")
            )));
        }
    };
    let wanted: Vec<KeyFields> = old
        .as_slice()
        .iter()
        .filter(|key| key.digest != gone.digest)
        .map(key_fields)
        .collect();
    let new_text = without_each_item(&existing)
        .into_iter()
        .find(|candidate| {
            Keys::parse(keys_path, candidate).is_ok_and(|keys| {
                keys.as_slice().iter().map(key_fields).collect::<Vec<_>>() == wanted
            })
        })
        .unwrap_or_else(|| rewritten(&wanted));
    atomic::replace_durably(keys_path, new_text.as_bytes())?;
    Ok(gone)
}

/// What a key of the file says, to check a rewritten file against.
fn key_fields(key: &ApiKey) -> KeyFields {
    (
        key.name.clone(),
        key.org.clone(),
        hex(&key.digest),
        key.rate_limit_per_minute,
    )
}

/// The keys file's text without each of the items of its `keys` list in turn (an item's
/// lines run from its `- ` to the next item or the end of the list), comments and the
/// other items as they were.
fn without_each_item(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(list) = lines.iter().position(|line| line.starts_with("keys:")) else {
        return Vec::new();
    };
    let indent = |line: &str| line.len() - line.trim_start().len();
    let is_item = |line: &str| line.trim_start().starts_with("- ") || line.trim() == "-";
    let Some(first) = (list + 1..lines.len()).find(|&i| is_item(lines[i])) else {
        return Vec::new();
    };
    let item_indent = indent(lines[first]);
    // Where each item starts, and where the list ends (a line of the top level).
    let mut starts = Vec::new();
    let mut end = lines.len();
    for (i, line) in lines.iter().enumerate().skip(first) {
        let blank = line.trim().is_empty() || line.trim_start().starts_with('#');
        if !blank && indent(line) < item_indent
            || !blank && indent(line) == item_indent && !is_item(line)
        {
            end = i;
            break;
        }
        if !blank && indent(line) == item_indent {
            starts.push(i);
        }
    }
    starts
        .iter()
        .enumerate()
        .map(|(n, &start)| {
            let stop = starts.get(n + 1).copied().unwrap_or(end);
            let mut kept: String = lines[..start].concat();
            kept.push_str(&lines[stop..].concat());
            kept
        })
        .collect()
}

/// Checks the org and name given to `shiplog keys new`; the name trimmed.
fn check_new_key<'n>(content_dir: &Path, org: &str, name: &'n str) -> Result<&'n str> {
    slug::check_org(org).map_err(Error::Usage)?;
    if !content_dir.is_dir() {
        return Err(Error::Usage(format!(
            "content folder {} does not exist",
            content_dir.display()
        )));
    }
    if !content_dir.join(org).is_dir() {
        return Err(Error::Usage(format!(
            "organization `{org}` is not in the content folder {} (there is no folder {})",
            content_dir.display(),
            content_dir.join(org).display()
        )));
    }
    let name = name.trim();
    if name.is_empty()
        || name.chars().count() > MAX_NAME_CHARS
        || name
            .chars()
            .any(|c| c.is_control() || text::is_invisible(c))
    {
        return Err(Error::Usage(format!(
            "the key name must be 1 to {MAX_NAME_CHARS} characters of one line of visible text (it is shown in the logs)"
        )));
    }
    Ok(name)
}

/// A new key: [`KEY_PREFIX`] and [`KEY_BYTES`] from the operating system's random source,
/// in hex.
fn random_key() -> Result<String> {
    let mut random = [0u8; KEY_BYTES];
    OsRng.try_fill_bytes(&mut random).map_err(|e| Error::Read {
        path: PathBuf::from("the operating system's random source"),
        source: std::io::Error::other(e.to_string()),
    })?;
    Ok(format!("{KEY_PREFIX}{}", hex(&random)))
}
/// The comment a new keys file starts with: the file is meant to be committed, so it says
/// why that is safe and how to add to it.
const KEYS_FILE_HEADER: &str = "# API keys of shiplog-api. Only SHA-256 digests of the keys are kept here, so this\n# file can be committed. Make a key with `shiplog keys new --org <org> --name <name>`.\n";

/// A YAML double-quoted scalar (JSON strings are valid YAML).
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_string())
}

/// Ways to append one item to the keys file's text, most faithful first.
fn appended(existing: &str, name: &str, org: &str, digest: &str) -> Vec<String> {
    let item = |indent: &str| {
        format!(
            "{indent}- name: {}\n{indent}  org: {}\n{indent}  sha256: {}\n",
            quoted(name),
            quoted(org),
            quoted(digest)
        )
    };
    let mut base = existing.to_string();
    if !base.is_empty() && !base.ends_with('\n') {
        base.push('\n');
    }
    let has_keys_line = base.lines().any(|line| line.starts_with("keys:"));
    if base.trim().is_empty() {
        return vec![format!("{KEYS_FILE_HEADER}{base}keys:\n{}", item("  "))];
    }
    if !has_keys_line {
        return vec![format!("{base}keys:\n{}", item("  "))];
    }
    // The indentation the existing list items use, if any.
    let detected = base
        .lines()
        .skip_while(|line| !line.starts_with("keys:"))
        .skip(1)
        .find(|line| line.trim_start().starts_with("- "))
        .map(|line| line[..line.len() - line.trim_start().len()].to_string());
    let mut indents: Vec<String> = detected.into_iter().collect();
    for indent in ["  ", ""] {
        if !indents.iter().any(|i| i == indent) {
            indents.push(indent.to_string());
        }
    }
    indents
        .iter()
        .map(|indent| format!("{base}{}", item(indent)))
        .collect()
}

/// The whole keys file written anew (when the existing text cannot simply be appended to).
fn rewritten(keys: &[KeyFields]) -> String {
    let mut text = format!("{KEYS_FILE_HEADER}keys:\n");
    for (name, org, digest, rate) in keys {
        text.push_str(&format!(
            "  - name: {}\n    org: {}\n    sha256: {}\n",
            quoted(name),
            quoted(org),
            quoted(digest)
        ));
        if *rate != DEFAULT_RATE_LIMIT_PER_MINUTE {
            text.push_str(&format!("    rate_limit_per_minute: {rate}\n"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest_of(key: &str) -> String {
        hex(&Sha256::digest(key.as_bytes()))
    }

    /// The key of `keys` that `key` is, found by its digest as the server finds it.
    fn find<'k>(keys: &'k Keys, key: &str) -> Option<&'k ApiKey> {
        keys.get(&Sha256::digest(key.as_bytes()).into())
    }

    #[test]
    fn empty_files_have_no_keys() {
        for text in ["", "keys:\n", "keys: []\n", "# nothing\n"] {
            let keys = Keys::parse(Path::new("k.yaml"), text).unwrap();
            assert!(keys.as_slice().is_empty(), "{text:?}");
        }
    }

    #[test]
    fn bad_entries_are_located() {
        let text = "keys:\n  - name: a\n    org: Acme\n    sha256: ABC\n";
        let err = Keys::parse(Path::new("k.yaml"), text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("k.yaml:3:10: `org`"), "{err}");
        assert!(err.contains("k.yaml:4:13: `sha256`"), "{err}");
        let err = Keys::parse(Path::new("k.yaml"), "keys:\n  - name: a\n    orgg: x\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("k.yaml:"), "{err}");
        assert!(err.contains("unknown field `orgg`"), "{err}");
        let dup = format!(
            "keys:\n  - name: a\n    org: acme\n    sha256: {d}\n  - name: b\n    org: acme\n    sha256: {d}\n",
            d = digest_of("x")
        );
        let err = Keys::parse(Path::new("k.yaml"), &dup)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("k.yaml:7:1: the same key is listed twice"),
            "{err}"
        );
    }

    #[test]
    fn appending_keeps_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("acme")).unwrap();
        let keys_path = dir.path().join("keys.yaml");
        let first = new_key(&keys_path, dir.path(), "acme", "first").unwrap();
        assert!(first.created);
        assert!(first.key.starts_with(KEY_PREFIX));
        assert_eq!(first.key.len(), KEY_PREFIX.len() + 2 * KEY_BYTES);
        // A hand-edited file with a comment and items at column 0.
        let text = std::fs::read_to_string(&keys_path).unwrap();
        let edited = text.replace("  - name", "- name").replace("    ", "  ") + "# end\n";
        std::fs::write(&keys_path, &edited).unwrap();
        let second = new_key(&keys_path, dir.path(), "acme", "second \"quoted\"").unwrap();
        assert!(!second.created);
        let text = std::fs::read_to_string(&keys_path).unwrap();
        assert!(text.starts_with(&edited), "{text}");
        assert!(!text.contains(&first.key) && !text.contains(&second.key));
        let keys = Keys::parse(&keys_path, &text).unwrap();
        assert_eq!(find(&keys, &first.key).unwrap().name, "first");
        assert_eq!(find(&keys, &second.key).unwrap().name, "second \"quoted\"");
        // A flow-style list cannot be appended to: the file is written anew.
        std::fs::write(&keys_path, "keys: []\n").unwrap();
        let third = new_key(&keys_path, dir.path(), "acme", "third").unwrap();
        let text = std::fs::read_to_string(&keys_path).unwrap();
        let keys = Keys::parse(&keys_path, &text).unwrap();
        assert_eq!(find(&keys, &third.key).unwrap().name, "third");
    }

    #[test]
    fn unknown_orgs_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let keys_path = dir.path().join("keys.yaml");
        for org in ["nope", "Bad Org", "_hidden"] {
            let err = new_key(&keys_path, dir.path(), org, "n").unwrap_err();
            assert!(matches!(err, Error::Usage(_)), "{org}: {err}");
        }
        assert!(!keys_path.exists());
    }

    #[test]
    fn names_must_be_visible_text() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("acme")).unwrap();
        let keys_path = dir.path().join("keys.yaml");
        for name in [
            "",
            "  ",
            "a\nb",
            "ci\u{200B}bot",
            "ci\u{202E}tob",
            "x\u{FEFF}",
        ] {
            let err = new_key(&keys_path, dir.path(), "acme", name).unwrap_err();
            assert!(matches!(err, Error::Usage(_)), "{name:?}: {err}");
        }
        assert!(!keys_path.exists());
        assert!(new_key(&keys_path, dir.path(), "acme", "  ci dashboard  ").is_ok());
    }

    #[test]
    fn revoke_takes_the_digest_as_keys_list_shows_it_and_tells_close_ones_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.yaml");
        let (first, second) = ("ab".repeat(32), format!("abababab0{}", "1".repeat(55)));
        std::fs::write(
            &path,
            format!("keys:\n  - name: ci\n    org: acme\n    sha256: {first}\n  - name: ci\n    org: acme\n    sha256: {second}\n"),
        )
        .unwrap();
        let refused = |digest: Option<&str>| match revoke_key(&path, "ci", digest) {
            Err(Error::Usage(message)) => message,
            other => panic!("{other:?}"),
        };
        // Eight digits are not enough here: ten are offered.
        let message = refused(Some("ABABABAB…"));
        assert!(
            message.ends_with("--digest ababababab or --digest abababab01"),
            "{message}"
        );
        assert!(refused(Some("zz")).contains("not `zz`"));
        let gone = revoke_key(&path, "ci", Some("abababab01")).unwrap();
        assert_eq!(hex(&gone.digest), second);
        assert!(std::fs::read_to_string(&path).unwrap().contains(&first));
    }
}
