//! `shiplog check`: everything `generate` checks, with nothing written; errors and warnings
//! together, as lines on standard error or as GitHub Actions annotations.

use std::process::ExitCode;

use chrono::Utc;
use shiplog::build::SourceArgs;
use shiplog::text::printable;
use shiplog::{Build, Error, Mode, Problem, Sources};

use super::{error_label, report};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    sources: SourceArgs,
    /// `human`: lines on stderr; `github`: GitHub Actions annotations on stdout.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Fail on warnings too.
    #[arg(long)]
    strict: bool,
}

/// How `check` reports what it found.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Human,
    Github,
}

impl Format {
    fn say(self, severity: &str, problem: &Problem) {
        match self {
            Format::Human if severity == "error" => eprintln!("{problem}"),
            Format::Human => eprintln!(
                "{}:{}:{}: {severity}: {}",
                printable(&problem.path.to_string_lossy()),
                problem.line,
                problem.column,
                printable(&problem.message)
            ),
            Format::Github => println!("{}", github_annotation(severity, problem)),
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode, Error> {
    let sources = Sources::from(args.sources);
    let build = Build {
        sources: &sources,
        now: Utc::now(),
        mode: Mode::Check,
        org_url: None,
    };
    match build.run(&|_, _| {}) {
        Ok(report) => {
            for warning in &report.warnings {
                args.format.say("warning", warning);
            }
            let warnings = report.warnings.len();
            let summary = format!(
                "checked {} and {}: no problems, {}",
                counted(report.orgs.len(), "organization"),
                counted(report.entries(), "entry"),
                counted(warnings, "warning"),
            );
            if args.strict && warnings > 0 {
                eprintln!("{} {summary}; --strict fails on warnings", error_label());
                Ok(ExitCode::from(1))
            } else {
                eprintln!("{summary}");
                Ok(ExitCode::SUCCESS)
            }
        }
        Err(Error::Invalid(found)) => {
            // Errors and warnings together, in file and position order: fixing the errors
            // first should not hide what else there is to fix.
            let mut all: Vec<(&str, &Problem)> = found
                .as_slice()
                .iter()
                .map(|problem| ("error", problem))
                .chain(found.warnings().iter().map(|warning| ("warning", warning)))
                .collect();
            all.sort_by(|a, b| a.1.cmp(b.1));
            for (severity, problem) in all {
                args.format.say(severity, problem);
            }
            eprintln!(
                "{} {} and {} found; the content does not build",
                error_label(),
                counted(found.as_slice().len(), "problem"),
                counted(found.warnings().len(), "warning"),
            );
            Ok(ExitCode::from(1))
        }
        Err(error) => Ok(report(&error)),
    }
}

/// `1 entry`, `2 entries`, `0 warnings`.
fn counted(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}

/// A GitHub Actions workflow command that annotates `problem` in the pull request.
fn github_annotation(severity: &str, problem: &Problem) -> String {
    let escape = |text: &str, property: bool| {
        let mut out = text
            .replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A");
        if property {
            out = out.replace(':', "%3A").replace(',', "%2C");
        }
        out
    };
    format!(
        "::{severity} file={},line={},col={}::{}",
        escape(&printable(&problem.path.to_string_lossy()), true),
        problem.line,
        problem.column,
        escape(&printable(&problem.message), false)
    )
}
