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
            eprintln!(
                "checked {} organizations and {} entries: no problems, {warnings} warning{}",
                report.orgs.len(),
                report.entries(),
                if warnings == 1 { "" } else { "s" }
            );
            if args.strict && warnings > 0 {
                Ok(ExitCode::from(1))
            } else {
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
            let (errors, warnings) = (found.as_slice().len(), found.warnings().len());
            eprintln!(
                "{} {errors} problem{} and {warnings} warning{} found; the content does not build",
                error_label(),
                if errors == 1 { "" } else { "s" },
                if warnings == 1 { "" } else { "s" },
            );
            Ok(ExitCode::from(1))
        }
        Err(error) => Ok(report(&error)),
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
