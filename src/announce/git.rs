//! The journal kept in git, for CI machines that start from a fresh clone each time: a
//! branch of its own (`--state-branch`, like `gh-pages`) holding one file, `announce.jsonl`.
//! A run reads it before it sends anything and pushes the union of it and its own journal
//! when it ends, failed deliveries or not; two runs that push at once are merged, since the
//! journal only grows. The branch is written with git's plumbing, so the work tree and the
//! checked-out branch are never touched.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::State;
use crate::error::{Error, Result};

/// The file the branch holds.
const FILE: &str = "announce.jsonl";

/// A branch of the `origin` remote of the repository at `repo`.
pub struct StateBranch {
    repo: PathBuf,
    branch: String,
}

impl StateBranch {
    /// The branch `branch` of the repository holding `repo`; the name is checked as git
    /// checks a branch name.
    pub fn new(repo: &Path, branch: &str) -> Result<StateBranch> {
        let valid = run_git(repo, &["check-ref-format", "--branch", branch], None).is_ok();
        if !valid || branch.starts_with('-') {
            return Err(Error::Usage(format!(
                "--state-branch: `{branch}` is not a branch name git takes"
            )));
        }
        Ok(StateBranch {
            repo: repo.to_path_buf(),
            branch: branch.to_string(),
        })
    }

    /// Adds the branch's journal to `state`. A branch that is not there yet adds nothing;
    /// one that cannot be fetched (no `origin`, no network) is an error: a run without it
    /// would send again what earlier runs sent.
    pub fn pull(&self, state: &mut State) -> Result<()> {
        if let Some(text) = self.fetch()? {
            state.merge(Path::new(&format!("{}:{FILE}", self.branch)), &text)?;
        }
        Ok(())
    }

    /// Pushes the union of the branch's journal and `state`'s. Tried three times, fetching
    /// again between tries, for a run that pushed in between.
    pub fn push(&self, state: &mut State) -> Result<()> {
        let mut last = String::new();
        for _ in 0..3 {
            let remote = self.fetch()?;
            let parent = match &remote {
                Some(text) => {
                    state.merge(Path::new(&format!("{}:{FILE}", self.branch)), text)?;
                    Some(self.git(&["rev-parse", "FETCH_HEAD"], None)?)
                }
                None => None,
            };
            let text = state.text();
            // The journal only grows, so a branch with as many lines has all of them.
            let known = remote.as_deref().map_or(0, |remote| remote.lines().count());
            if remote.is_some() && known == text.lines().count() {
                return Ok(());
            }
            let blob = self.git(&["hash-object", "-w", "--stdin"], Some(text.as_bytes()))?;
            let tree = self.git(
                &["mktree"],
                Some(format!("100644 blob {blob}\t{FILE}\n").as_bytes()),
            )?;
            let mut commit = vec![
                "commit-tree",
                tree.as_str(),
                "-m",
                "shiplog announce: what each channel has heard",
            ];
            if let Some(parent) = &parent {
                commit.extend(["-p", parent.as_str()]);
            }
            let commit = self.git(&commit, None)?;
            let target = format!("{commit}:refs/heads/{}", self.branch);
            match self.git(&["push", "--quiet", "origin", &target], None) {
                Ok(_) => return Ok(()),
                Err(error) => last = error.to_string(),
            }
        }
        Err(Error::Internal(format!(
            "cannot push the announce journal to the branch `{}`: {last}",
            self.branch
        )))
    }

    /// The branch's journal, or none when the branch does not exist on `origin`.
    fn fetch(&self) -> Result<Option<String>> {
        let exists = self.git(
            &[
                "ls-remote",
                "--heads",
                "origin",
                &format!("refs/heads/{}", self.branch),
            ],
            None,
        )?;
        if exists.is_empty() {
            return Ok(None);
        }
        self.git(
            &[
                "fetch",
                "--quiet",
                "origin",
                &format!("refs/heads/{}", self.branch),
            ],
            None,
        )?;
        // A branch of code (`main`) would be replaced by one holding the journal alone.
        let files = self.git(&["ls-tree", "--name-only", "FETCH_HEAD"], None)?;
        if files != FILE {
            return Err(Error::Usage(format!(
                "--state-branch: the branch `{}` holds other files than {FILE}; name a branch of its own, like `shiplog-state`",
                self.branch
            )));
        }
        let text = self.git(&["show", &format!("FETCH_HEAD:{FILE}")], None)?;
        Ok(Some(if text.is_empty() { text } else { text + "\n" }))
    }

    fn git(&self, args: &[&str], input: Option<&[u8]>) -> Result<String> {
        run_git(&self.repo, args, input)
    }
}

/// Runs git in `repo` and gives its output without the last line break; a failure is an
/// error with git's own message. The commit's author is shiplog, so that a CI machine
/// without `user.name` can write it.
fn run_git(repo: &Path, args: &[&str], input: Option<&[u8]>) -> Result<String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "shiplog")
        .env("GIT_AUTHOR_EMAIL", "shiplog@localhost")
        .env("GIT_COMMITTER_NAME", "shiplog")
        .env("GIT_COMMITTER_EMAIL", "shiplog@localhost")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Internal(format!("cannot run git: {e}")))?;
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin
            .write_all(input)
            .map_err(|e| Error::Internal(format!("cannot write to git: {e}")))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| Error::Internal(format!("git {}: {e}", args[0])))?;
    if !output.status.success() {
        return Err(Error::Internal(format!(
            "git {}: {}",
            args[0],
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    if text.ends_with('\n') {
        text.pop();
    }
    Ok(text)
}
