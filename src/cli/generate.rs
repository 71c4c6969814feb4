//! `shiplog generate`: builds the site into the output folder, with a progress bar on a
//! terminal and one summary line.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use shiplog::build::SourceArgs;
use shiplog::{Build, Error, Mode, Sources};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    sources: SourceArgs,
    /// Output folder; changed only once the whole build succeeded, to hold exactly its files.
    #[arg(long, value_name = "DIR", default_value = "public")]
    output: PathBuf,
    /// Build as if it were this time (RFC 3339), for reproducible builds.
    #[arg(long, value_name = "TIME", value_parser = parse_now)]
    now: Option<DateTime<Utc>>,
    /// Rebuild every org, ignoring (and removing) the cache of the last build.
    #[arg(long)]
    no_cache: bool,
    /// Print nothing on success, and show no progress bar.
    #[arg(long, short)]
    quiet: bool,
}

pub(super) fn parse_now(text: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("expected an RFC 3339 time like 2026-11-01T09:00:00Z ({e})"))
}

pub fn run(args: Args) -> Result<(), Error> {
    let started = Instant::now();
    let sources = Sources::from(args.sources);
    let build = Build {
        sources: &sources,
        now: args.now.unwrap_or_else(Utc::now),
        mode: Mode::Write {
            output: args.output.clone(),
            cache: !args.no_cache,
        },
        org_url: None,
    };
    let progress = Progress::new(!args.quiet);
    let report = build.run(&|done, total| progress.update(done, total));
    progress.bar.finish_and_clear();
    let report = report?;
    if !args.quiet {
        let reused = match report.reused {
            0 => String::new(),
            n => format!(" ({n} unchanged)"),
        };
        eprintln!(
            "built {} organizations{reused}, {} published entries, {} files into {} \
             ({} written, {} removed) in {} ms",
            report.orgs.len(),
            report.published(),
            report.files,
            args.output.display(),
            report.changes.written,
            report.changes.removed,
            started.elapsed().as_millis()
        );
    }
    Ok(())
}

/// The progress bar of a build: drawn on a terminal (outside CI) once the build has taken
/// a second, so that quick builds print nothing extra.
struct Progress {
    bar: ProgressBar,
    started: Instant,
    enabled: bool,
    shown: AtomicBool,
}

impl Progress {
    fn new(wanted: bool) -> Self {
        let bar = ProgressBar::hidden();
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} {pos}/{len} organizations {wide_bar} {elapsed}")
        {
            bar.set_style(style);
        }
        Progress {
            bar,
            started: Instant::now(),
            enabled: wanted
                && std::io::stderr().is_terminal()
                && std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            shown: AtomicBool::new(false),
        }
    }

    fn update(&self, done: usize, total: usize) {
        if !self.enabled {
            return;
        }
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
        if self.started.elapsed() >= Duration::from_secs(1)
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
}
