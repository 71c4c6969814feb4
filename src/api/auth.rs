//! API keys: the keys file (only SHA-256 digests of keys, so it can be committed), the
//! look-up of a presented key by its digest, the per-key rate limit, and the making of new
//! keys for `shiplog keys new`.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::rngs::OsRng;
use rand::TryRngCore;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::digest::hex;
use crate::error::{Error, Problem, Result};
use crate::slug;
use crate::{text, yaml};

/// Requests a key may make per minute when the keys file does not say.
pub const DEFAULT_RATE_LIMIT_PER_MINUTE: u32 = 2000;

/// What every key made by `shiplog keys new` starts with.
pub const KEY_PREFIX: &str = "shl_";

/// Random bytes in a new key (written as twice as many hex digits).
const KEY_BYTES: usize = 32;

/// The longest key name `shiplog keys new` accepts.
const MAX_NAME_CHARS: usize = 100;

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
    digest: KeyDigest,
}

impl ApiKey {
    /// The SHA-256 digest of the key.
    pub fn digest(&self) -> &KeyDigest {
        &self.digest
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
        for record in file.keys.unwrap_or_default() {
            let at =
                |key: &str, value: &str, message: &str| locate(path, text, key, value, message);
            let name = record.name.trim().to_string();
            if name.is_empty() || name.chars().any(char::is_control) {
                problems.push(at(
                    "name",
                    &record.name,
                    "`name` must be a non-empty line of text",
                ));
            }
            if let Err(message) = slug::check_org(&record.org) {
                problems.push(at("org", &record.org, &format!("`org`: {message}")));
            }
            let digest = match parse_digest(&record.sha256) {
                Some(digest) => digest,
                None => {
                    problems.push(at(
                        "sha256",
                        &record.sha256,
                        "`sha256` must be 64 lowercase hex digits: the SHA-256 of the whole key",
                    ));
                    continue;
                }
            };
            let rate = match record.rate_limit_per_minute {
                None => DEFAULT_RATE_LIMIT_PER_MINUTE,
                Some(n) => match u32::try_from(n) {
                    Ok(n) if n >= 1 => n,
                    _ => {
                        problems.push(at(
                            "rate_limit_per_minute",
                            &n.to_string(),
                            &format!(
                                "`rate_limit_per_minute` must be a whole number from 1 to {}",
                                u32::MAX
                            ),
                        ));
                        continue;
                    }
                },
            };
            if let Some(first) = seen.insert(digest, name.clone()) {
                problems.push(Problem::new(
                    path,
                    nth_line_with(text, &record.sha256, 2).unwrap_or(1),
                    1,
                    format!("the same key is listed twice (also as `{first}`)"),
                ));
                continue;
            }
            keys.push(ApiKey {
                name,
                org: record.org,
                rate_limit_per_minute: rate,
                digest,
            });
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

    /// The key whose digest is that of `presented`, found by that digest: one hash-map
    /// look-up, whatever the number of keys.
    ///
    /// The time taken does not tell an attacker anything useful about the keys. It depends
    /// only on the SHA-256 digest of what they sent, not on the text itself, and a digest
    /// cannot be steered: to learn that a guess's digest shares its first bytes (or hash
    /// bucket) with a stored one, they would have to find inputs with chosen digest bits,
    /// which is what SHA-256 rules out; and even a stored digest in full does not give the
    /// key back (that is why the keys file may be committed). So comparing digests through
    /// a map is as safe here as a constant-time scan over all of them, without its cost.
    pub fn authenticate(&self, presented: &str) -> Option<&ApiKey> {
        let digest: KeyDigest = Sha256::digest(presented.as_bytes()).into();
        self.by_digest.get(&digest).map(|&i| &self.keys[i])
    }
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

/// A problem at the line of the keys file where `key: value` stands (or line 1).
fn locate(path: &Path, text: &str, key: &str, value: &str, message: &str) -> Problem {
    let position = text.lines().enumerate().find_map(|(i, line)| {
        let at = line.find(&format!("{key}:"))?;
        let after = &line[at + key.len() + 1..];
        let value_at = after
            .find(value.trim())
            .filter(|_| !value.trim().is_empty());
        let column = match value_at {
            Some(offset) => at + key.len() + 1 + offset,
            None if value.trim().is_empty() => at,
            None => return None,
        };
        Some((i + 1, line[..column].chars().count() + 1))
    });
    let (line, column) = position.unwrap_or((1, 1));
    Problem::new(path, line, column, message)
}

/// The line number of the `nth` line (1-based) that holds `needle`.
fn nth_line_with(text: &str, needle: &str, nth: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.contains(needle))
        .nth(nth - 1)
        .map(|(i, _)| i + 1)
}

/// Counts requests per key: each key has a bucket of `rate_limit_per_minute` requests that
/// refills continuously at that many per minute (GCRA). Counts live in this process only.
#[derive(Debug, Default)]
pub struct RateLimiter {
    /// Per key digest: the theoretical arrival time of the next request.
    next_due: Mutex<HashMap<KeyDigest, Instant>>,
}

impl RateLimiter {
    /// A limiter with no requests counted.
    pub fn new() -> Self {
        RateLimiter::default()
    }

    /// Counts one request of `key` at `now`, or says how long to wait when over the limit.
    pub fn check(&self, key: &ApiKey, now: Instant) -> std::result::Result<(), Duration> {
        let limit = key.rate_limit_per_minute.max(1);
        let interval = Duration::from_secs(60) / limit;
        let tolerance = Duration::from_secs(60).saturating_sub(interval);
        let mut next_due = self
            .next_due
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let due = next_due.entry(key.digest).or_insert(now);
        let start = (*due).max(now);
        let ahead = start - now;
        if ahead > tolerance {
            return Err(ahead - tolerance);
        }
        *due = start + interval;
        Ok(())
    }
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

/// Makes a random key for organization `org`, named `name`, and appends its digest to the
/// keys file at `keys_path` (created if missing). The org must be a folder of `content_dir`.
pub fn new_key(keys_path: &Path, content_dir: &Path, org: &str, name: &str) -> Result<NewKey> {
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
        || name.chars().any(char::is_control)
    {
        return Err(Error::Usage(format!(
            "the key name must be 1 to {MAX_NAME_CHARS} characters of one line of text"
        )));
    }

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

    let mut random = [0u8; KEY_BYTES];
    OsRng.try_fill_bytes(&mut random).map_err(|e| Error::Read {
        path: PathBuf::from("the operating system's random source"),
        source: std::io::Error::other(e.to_string()),
    })?;
    let key = format!("{KEY_PREFIX}{}", hex(&random));
    let digest = hex(&Sha256::digest(key.as_bytes()));

    // What each key of the file should say, to check a rewrite against.
    let fields = |k: &ApiKey| {
        (
            k.name.clone(),
            k.org.clone(),
            hex(&k.digest),
            k.rate_limit_per_minute,
        )
    };
    let wanted: Vec<(String, String, String, u32)> = old
        .as_slice()
        .iter()
        .map(fields)
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
                let got: Vec<_> = keys.as_slice().iter().map(fields).collect();
                got == wanted
            })
        })
        .unwrap_or_else(|| rewritten(&wanted));
    write_replacing(keys_path, new_text.as_bytes())?;
    Ok(NewKey {
        key,
        keys_file: keys_path.to_path_buf(),
        created,
    })
}

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
fn rewritten(keys: &[(String, String, String, u32)]) -> String {
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

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`, so a
/// reader (the server's file watch) never sees half a file.
fn write_replacing(path: &Path, bytes: &[u8]) -> Result<()> {
    let write_error = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Error::Usage(format!("keys file {} has no usable name", path.display())))?;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let temporary = folder.join(format!(".{name}.shiplog-new-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Ok(metadata) = std::fs::metadata(path) {
            std::fs::set_permissions(&temporary, metadata.permissions())?;
        }
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result.map_err(write_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest_of(key: &str) -> String {
        hex(&Sha256::digest(key.as_bytes()))
    }

    #[test]
    fn keys_are_found_by_digest() {
        let text = format!(
            "keys:\n  - name: a\n    org: acme\n    sha256: {}\n  - name: b\n    org: globex\n    sha256: {}\n    rate_limit_per_minute: 5\n",
            digest_of("one"),
            digest_of("two")
        );
        let keys = Keys::parse(Path::new("k.yaml"), &text).unwrap();
        assert_eq!(keys.authenticate("one").unwrap().org, "acme");
        let two = keys.authenticate("two").unwrap();
        assert_eq!((two.name.as_str(), two.rate_limit_per_minute), ("b", 5));
        assert!(keys.authenticate("three").is_none());
        assert!(keys.authenticate("").is_none());
        assert_eq!(
            keys.authenticate("one").unwrap().rate_limit_per_minute,
            DEFAULT_RATE_LIMIT_PER_MINUTE
        );
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
    fn rate_limit_allows_a_burst_then_the_rate() {
        let key = ApiKey {
            name: "k".into(),
            org: "acme".into(),
            rate_limit_per_minute: 3,
            digest: [7; 32],
        };
        let limiter = RateLimiter::new();
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.check(&key, t0).is_ok());
        }
        let wait = limiter.check(&key, t0).unwrap_err();
        assert_eq!(wait, Duration::from_secs(20));
        assert!(limiter.check(&key, t0 + Duration::from_secs(19)).is_err());
        assert!(limiter.check(&key, t0 + Duration::from_secs(20)).is_ok());
        assert!(limiter.check(&key, t0 + Duration::from_secs(20)).is_err());
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
        assert_eq!(keys.authenticate(&first.key).unwrap().name, "first");
        assert_eq!(
            keys.authenticate(&second.key).unwrap().name,
            "second \"quoted\""
        );
        // A flow-style list cannot be appended to: the file is written anew.
        std::fs::write(&keys_path, "keys: []\n").unwrap();
        let third = new_key(&keys_path, dir.path(), "acme", "third").unwrap();
        let text = std::fs::read_to_string(&keys_path).unwrap();
        let keys = Keys::parse(&keys_path, &text).unwrap();
        assert_eq!(keys.authenticate(&third.key).unwrap().name, "third");
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
}
