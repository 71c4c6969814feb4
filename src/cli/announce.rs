//! `shiplog announce`: tells each org's channels of the entries published since they last
//! heard (SPEC section 6), one line per delivery; exit 0 when every delivery arrived, 1 when
//! any failed (each named), 2 on usage errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use chrono::{DateTime, Utc};
use shiplog::announce::{self, Event, Options, Policy, State, StateBranch};
use shiplog::build::SourceArgs;
use shiplog::text::printable;
use shiplog::{Error, Sources};

use super::generate::parse_now;
use super::report_as;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    sources: SourceArgs,
    /// The journal of what was announced: one JSON line per org, channel and entry. Keep it
    /// between runs (see docs/announce.md for keeping it in git across CI machines).
    #[arg(long, value_name = "FILE", default_value = ".shiplog/announce.jsonl")]
    state: PathBuf,
    /// Keep the journal in this branch of the repository's `origin` too, for CI machines
    /// that start from a fresh clone: read before sending, pushed when the run ends.
    #[arg(long, value_name = "BRANCH")]
    state_branch: Option<String>,
    /// Announce as if it were this time (RFC 3339): scheduled entries due by then count.
    #[arg(long, value_name = "TIME", value_parser = parse_now)]
    now: Option<DateTime<Utc>>,
    /// Print what would be sent; send nothing and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Seconds one request may take before it counts as failed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600))]
    timeout: u64,
    /// Tries per delivery, the first included (retries wait 1 s, 2 s, 4 s… or what a 429's
    /// Retry-After asks, up to a minute).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=10))]
    tries: u32,
}

pub fn run(args: Args) -> Result<ExitCode, Error> {
    Ok(announce(args).unwrap_or_else(|error| report_as(&error, "nothing was sent")))
}

fn announce(args: Args) -> Result<ExitCode, Error> {
    let sources = Sources::from(args.sources);
    let content = sources.content.clone();
    let (_, index) = sources.load()?;
    let mut state = State::open(&args.state, !args.dry_run)?;
    let branch = match &args.state_branch {
        Some(name) => Some(StateBranch::new(Path::new("."), name)?),
        None => None,
    };
    if let Some(branch) = &branch {
        branch.pull(&mut state)?;
    }
    let options = Options {
        now: args.now.unwrap_or_else(Utc::now),
        dry_run: args.dry_run,
        timeout: Duration::from_secs(args.timeout),
        policy: Policy {
            tries: args.tries,
            ..Policy::default()
        },
        content,
    };
    let env = |name: &str| std::env::var(name).ok();
    let outcome = announce::run(&index, &mut state, &env, &options, &mut |event| {
        say(&event, args.dry_run)
    });
    // Pushed whatever happened: what did arrive must not be sent again from another machine.
    if let (Some(branch), false) = (&branch, args.dry_run) {
        branch.push(&mut state)?;
    }
    let summary = outcome?;
    let verb = if args.dry_run { "would send" } else { "sent" };
    eprintln!(
        "announce: {} {verb}, {} failed, {} taken as already announced",
        summary.sent, summary.failed, summary.known
    );
    Ok(if summary.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One line for each event: deliveries on standard output, retries and failures on
/// standard error.
fn say(event: &Event, dry_run: bool) {
    match event {
        Event::FirstRun {
            org,
            channel,
            known,
        } => println!(
            "{org}/{channel}: first run: {known} published entr{} taken as already announced, none sent",
            if *known == 1 { "y" } else { "ies" }
        ),
        Event::Sent {
            org,
            channel,
            entries,
            tries,
            to,
        } => {
            let what = printable(&entries.join(", ")).into_owned();
            if dry_run {
                println!("{org}/{channel}: would send {what} to {to}");
            } else {
                let tries_word = if *tries == 1 { "try" } else { "tries" };
                println!("{org}/{channel}: sent {what} to {to} ({tries} {tries_word})");
            }
        }
        Event::Retrying {
            org,
            channel,
            attempt,
            why,
            wait,
        } => eprintln!(
            "{org}/{channel}: try {attempt} failed ({}); trying again in {} s",
            printable(why),
            wait.as_secs_f32()
        ),
        Event::Failed {
            org,
            channel,
            entries,
            why,
        } => eprintln!(
            "{org}/{channel}: FAILED {}: {}",
            printable(&entries.join(", ")),
            printable(why)
        ),
    }
}
