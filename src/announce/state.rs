//! What has been announced: a journal of one JSON line per org, channel and entry, appended
//! as each delivery arrives, so that a run killed half-way leaves a record of exactly what
//! it sent. The journal only grows; reading it again is a union of its lines, so two copies
//! (this machine's and the one kept in git, see [`super::git`]) merge by joining them.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Problem, Problems, Result};

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Record {
    /// The org's slug.
    pub org: String,
    /// The channel's name in the org.
    pub channel: String,
    /// The entry's id; none on the line that says a channel has started (its first run,
    /// which announces nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// `sent`; `known` for an entry published before the channel's first run; `start` for
    /// a channel's first run; `handed` when a try's last byte went out (the receiver may
    /// have it all from then on), `failed` when that try then failed.
    pub how: String,
    /// The try a `handed` or `failed` line is about: the run's id and the try's number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<String>,
}

impl Record {
    /// A line without a try: what `how` says of `entry` (none: of the channel) of `channel`
    /// of `org`.
    pub fn new(org: &str, channel: &str, entry: Option<&str>, how: &str) -> Record {
        Record {
            org: org.to_string(),
            channel: channel.to_string(),
            entry: entry.map(str::to_string),
            how: how.to_string(),
            attempt: None,
        }
    }
}

/// An org, channel and entry.
type Key = (String, String, String);

/// The longest journal read: about 400,000 lines, years of announcements for a large site;
/// a file longer than that is not one this command wrote.
const MAX_JOURNAL: u64 = 64 * 1024 * 1024;

/// The journal, read into memory, and the file it is appended to.
pub struct State {
    path: PathBuf,
    records: HashSet<Record>,
    /// The tries whose last byte went out, by entry, and those of them that then failed.
    handed: HashMap<Key, Vec<String>>,
    failed: HashSet<(Key, String)>,
    /// The journal's lines in the order read or written, for writing a copy.
    lines: Vec<String>,
    file: Option<File>,
    /// The length of the file's complete lines, when its last line was cut short: the cut
    /// part is removed before anything is appended, so that no line is glued to it.
    complete: Option<u64>,
    /// The lock on the journal's folder, held while the run lasts: two runs at once on one
    /// machine would each send what the other is sending.
    _lock: Option<File>,
}

impl State {
    /// Reads the journal at `path` (none yet: empty), after taking the lock on its folder
    /// (waiting for another run to end); `create` makes the folder first (not in a dry run,
    /// which writes nothing). A last line cut short (a full disk, a machine that lost power)
    /// is dropped; any other line that is not a record is a problem at its line.
    pub fn open(path: &Path, create: bool) -> Result<State> {
        let folder = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let write_error = |source| Error::Write {
            path: path.to_path_buf(),
            source,
        };
        if create {
            std::fs::create_dir_all(folder).map_err(write_error)?;
        }
        let lock = match crate::atomic::lock_folder(folder) {
            Ok(lock) => Some(lock),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !create => None,
            Err(source) => return Err(write_error(source)),
        };
        let bytes = match crate::text::read_limited(path, MAX_JOURNAL) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => {
                return Err(Error::Read {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        let text = crate::text::decode_utf8(path, &bytes)
            .map_err(|p| Error::Invalid(Problems::new(vec![p])))?;
        let complete = text.rfind('\n').map_or(0, |end| end + 1);
        let mut state = State {
            path: path.to_path_buf(),
            records: HashSet::new(),
            handed: HashMap::new(),
            failed: HashSet::new(),
            lines: Vec::new(),
            file: None,
            complete: (complete < text.len()).then_some(complete as u64),
            _lock: lock,
        };
        state.merge(path, text)?;
        Ok(state)
    }

    /// Adds the records of `text`, another copy of the journal read from `source`.
    pub fn merge(&mut self, source: &Path, text: &str) -> Result<()> {
        let complete = text.rfind('\n').map_or(0, |end| end + 1);
        let mut problems = Vec::new();
        for (number, line) in text[..complete].lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Record>(line) {
                Ok(record) => {
                    if self.insert(record) {
                        self.lines.push(line.to_string());
                    }
                }
                Err(e) => problems.push(Problem::new(
                    source,
                    number + 1,
                    e.column().max(1),
                    format!("not a line of the announce journal: {e}"),
                )),
            }
        }
        Error::check(problems)
    }

    /// Adds `record`, and to the tries it is about; false when it was there already.
    fn insert(&mut self, record: Record) -> bool {
        if self.records.contains(&record) {
            return false;
        }
        if let (Some(entry), Some(attempt)) = (&record.entry, &record.attempt) {
            let key = (record.org.clone(), record.channel.clone(), entry.clone());
            match record.how.as_str() {
                "handed" => self.handed.entry(key).or_default().push(attempt.clone()),
                "failed" => {
                    self.failed.insert((key, attempt.clone()));
                }
                _ => {}
            }
        }
        self.records.insert(record)
    }

    /// Whether `channel` of `org` has had its first run.
    pub fn started(&self, org: &str, channel: &str) -> bool {
        self.records
            .contains(&Record::new(org, channel, None, "start"))
    }

    /// Whether `entry` of `org` was sent to `channel`, or known before its first run, or
    /// a try of it handed over its last byte and was never seen to fail: a run killed
    /// then may well have delivered it, and sending it again would repeat it.
    pub fn announced(&self, org: &str, channel: &str, entry: &str) -> bool {
        let done = ["sent", "known"].iter().any(|how| {
            self.records
                .contains(&Record::new(org, channel, Some(entry), how))
        });
        let key = (org.to_string(), channel.to_string(), entry.to_string());
        done || self.handed.get(&key).is_some_and(|tries| {
            tries
                .iter()
                .any(|attempt| !self.failed.contains(&(key.clone(), attempt.clone())))
        })
    }

    /// Appends `records` to the journal, in one write, and flushes it to the disk before
    /// returning: once this returns, a later run knows of them whatever happens to this one.
    pub fn append(&mut self, records: Vec<Record>) -> Result<()> {
        self.write(records, true)
    }

    /// [`State::append`] without waiting for the disk: the line is in the system's hands,
    /// which a killed process cannot take back (only a machine that loses power could).
    /// For the line written between a try's last bytes, where a wait would widen the gap.
    pub fn append_now(&mut self, records: Vec<Record>) -> Result<()> {
        self.write(records, false)
    }

    fn write(&mut self, records: Vec<Record>, durable: bool) -> Result<()> {
        let mut text = String::new();
        for record in records {
            let line = serde_json::to_string(&record).expect("strings always serialize");
            if !self.insert(record) {
                continue;
            }
            text.push_str(&line);
            text.push('\n');
            self.lines.push(line);
        }
        if text.is_empty() {
            return Ok(());
        }
        let write_error = |source| Error::Write {
            path: self.path.clone(),
            source,
        };
        if self.file.is_none() {
            if let Some(parent) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(write_error)?;
            }
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .map_err(write_error)?;
            if let Some(complete) = self.complete.take() {
                file.set_len(complete).map_err(write_error)?;
            }
            self.file = Some(file);
        }
        let file = self.file.as_mut().expect("opened above");
        file.write_all(text.as_bytes()).map_err(write_error)?;
        if durable {
            file.sync_data().map_err(write_error)?;
        }
        Ok(())
    }

    /// The whole journal as text, one record a line.
    pub fn text(&self) -> String {
        let mut text = self.lines.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        text
    }

    /// Where the journal is kept on this machine.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(entry: Option<&str>, how: &str) -> Record {
        Record::new("acme", "slack", entry, how)
    }

    #[test]
    fn records_survive_a_new_reading_and_a_torn_last_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/announce.jsonl");
        let mut state = State::open(&path, true).unwrap();
        assert!(!state.started("acme", "slack"));
        state
            .append(vec![record(None, "start"), record(Some("a"), "known")])
            .unwrap();
        state.append(vec![record(Some("b"), "sent")]).unwrap();
        drop(state);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"org\":\"acme\",\"chan");
        std::fs::write(&path, &text).unwrap();
        let mut again = State::open(&path, true).unwrap();
        assert!(again.started("acme", "slack"));
        assert!(again.announced("acme", "slack", "a") && again.announced("acme", "slack", "b"));
        assert!(!again.announced("acme", "slack", "c"));
        assert!(!again.announced("acme", "discord", "a"));
        assert_eq!(again.text().lines().count(), 3);
        // The cut line is removed before the next one is written, not glued to it.
        again.append(vec![record(Some("c"), "sent")]).unwrap();
        drop(again);
        let third = State::open(&path, true).unwrap();
        assert!(third.announced("acme", "slack", "c"));
        assert!(std::fs::read_to_string(&path).unwrap().ends_with("}\n"));
    }

    #[test]
    fn a_try_that_handed_its_last_byte_counts_unless_it_failed() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = State::open(&dir.path().join("s.jsonl"), true).unwrap();
        let try_of = |entry: &str, how: &str, attempt: &str| Record {
            attempt: Some(attempt.into()),
            ..record(Some(entry), how)
        };
        state
            .append_now(vec![
                try_of("a", "handed", "r1.1"),
                try_of("b", "handed", "r1.1"),
            ])
            .unwrap();
        state.append(vec![try_of("b", "failed", "r1.1")]).unwrap();
        assert!(
            state.announced("acme", "slack", "a"),
            "killed after its last byte"
        );
        assert!(
            !state.announced("acme", "slack", "b"),
            "seen to fail: tried again"
        );
        state
            .append_now(vec![try_of("b", "handed", "r2.1")])
            .unwrap();
        assert!(state.announced("acme", "slack", "b"));
    }

    #[test]
    fn a_line_that_is_not_a_record_is_located() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("announce.jsonl");
        std::fs::write(
            &path,
            "{\"org\":\"a\",\"channel\":\"b\",\"how\":\"start\"}\nnot json\n",
        )
        .unwrap();
        let Err(Error::Invalid(problems)) = State::open(&path, true) else {
            panic!("a broken journal must be refused")
        };
        let message = problems.into_vec()[0].to_string();
        assert!(message.contains("announce.jsonl:2:"), "{message}");
    }
}
