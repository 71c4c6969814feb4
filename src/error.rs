//! Typed errors of the library. Content problems carry the file, line and column they
//! were found at; everything else names the path it concerns.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::text;

/// One problem found in the input, located in a file (lines and columns start at 1).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// The file it is in.
    pub path: PathBuf,
    /// 1-based (a problem with the whole file is at line 1, column 1).
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    /// What is wrong, and how to fix it where that is known.
    pub message: String,
}

impl Problem {
    /// A problem at `line:column` of `path`.
    pub fn new(path: &Path, line: usize, column: usize, message: impl Into<String>) -> Self {
        Problem {
            path: path.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }

    /// A problem at byte `offset` of `text`, the contents of `path`.
    pub fn at_offset(path: &Path, text: &str, offset: usize, message: impl Into<String>) -> Self {
        let (line, column) = text::position(text, offset);
        Problem::new(path, line, column, message)
    }

    /// A problem with a whole file (reported at its first line and column).
    pub fn file(path: &Path, message: impl Into<String>) -> Self {
        Problem::new(path, 1, 1, message)
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Content reaches the message (an id, a file name): no control character of it may
        // reach a terminal or a log line.
        write!(
            f,
            "{}:{}:{}: {}",
            text::printable(&self.path.to_string_lossy()),
            self.line,
            self.column,
            text::printable(&self.message)
        )
    }
}

/// Every problem found in one pass over the input, sorted by file and position, and the
/// warnings found beside them (which `check` shows with them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problems(Vec<Problem>, Vec<Problem>);

impl Problems {
    /// Sorts and de-duplicates the problems so that reports are stable from run to run.
    pub fn new(problems: Vec<Problem>) -> Self {
        Problems::with_warnings(problems, Vec::new())
    }

    /// [`Problems::new`], with the warnings found beside the problems.
    pub fn with_warnings(mut problems: Vec<Problem>, mut warnings: Vec<Problem>) -> Self {
        problems.sort();
        problems.dedup();
        warnings.sort();
        warnings.dedup();
        Problems(problems, warnings)
    }

    /// The problems, in file and position order.
    pub fn as_slice(&self) -> &[Problem] {
        &self.0
    }

    /// The warnings found beside the problems, in file and position order.
    pub fn warnings(&self) -> &[Problem] {
        &self.1
    }

    /// The problems, to add more to.
    pub fn into_vec(self) -> Vec<Problem> {
        self.0
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The content, configuration or keys hold problems; nothing was written.
    #[error("{0}")]
    Invalid(Problems),
    /// A path given on the command line does not exist or cannot be used.
    #[error("{0}")]
    Usage(String),
    /// Reading a file or folder failed.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Writing the output failed; the previous output is left as it was.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Something went wrong that is not the user's doing (a runtime or thread that could not
    /// be started, a task that died); exit status 1.
    #[error("{0}")]
    Internal(String),
    /// A theme template failed to parse or render.
    #[error("theme template `{name}` failed")]
    Template {
        /// The template's name.
        name: String,
        /// Why.
        #[source]
        source: tera::Error,
    },
}

impl Error {
    /// Wraps a list of problems, or returns `Ok` when there are none.
    pub fn check(problems: Vec<Problem>) -> Result<()> {
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Invalid(Problems::new(problems)))
        }
    }

    /// What a command tells a person about this error, line by line: each problem, then
    /// `error: N problems found; <consequence>`; or `error: <message>` and one
    /// `  caused by: …` line per cause.
    pub fn report_lines(&self, consequence: &str) -> Vec<String> {
        match self {
            Error::Invalid(problems) => {
                let count = problems.as_slice().len();
                let plural = if count == 1 { "" } else { "s" };
                let mut lines = self.problem_lines();
                lines.push(format!(
                    "error: {count} problem{plural} found; {consequence}"
                ));
                lines
            }
            other => {
                let mut lines = vec![format!("error: {other}")];
                let mut cause = std::error::Error::source(other);
                while let Some(inner) = cause {
                    lines.push(format!("  caused by: {inner}"));
                    cause = inner.source();
                }
                lines
            }
        }
    }

    /// The exit status a command ends with: 2 for a usage error, 1 for anything else.
    pub fn exit_status(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            _ => 1,
        }
    }

    /// Every problem as one line: `path:line:column: message` for problems in the input,
    /// the message and its causes otherwise.
    pub fn problem_lines(&self) -> Vec<String> {
        match self {
            Error::Invalid(problems) => problems
                .as_slice()
                .iter()
                .map(ToString::to_string)
                .collect(),
            other => {
                let mut line = other.to_string();
                let mut cause = std::error::Error::source(other);
                while let Some(inner) = cause {
                    line.push_str(&format!(": {inner}"));
                    cause = inner.source();
                }
                vec![line]
            }
        }
    }
}

/// The [`Error::Read`] of `path`, for `map_err`.
pub fn read_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| Error::Read { path, source }
}

/// The [`Error::Write`] of `path`, for `map_err`.
pub fn write_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| Error::Write { path, source }
}

impl From<Problem> for Error {
    fn from(problem: Problem) -> Self {
        Error::Invalid(Problems::new(vec![problem]))
    }
}

/// Result with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
