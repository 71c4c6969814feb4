//! `shiplog`: the command line. It parses flags, calls the library and turns its errors
//! into messages and exit codes: 1 for problems in the content, 2 for usage errors.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use chrono::{DateTime, Utc};
use clap::{Args, Parser, Subcommand};
use shiplog::{Error, SiteConfig};

/// Turn a folder of Markdown changelog entries into embeddable pages and feeds.
#[derive(Parser)]
#[command(name = "shiplog", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build every organization's changelog pages and feeds into the output folder.
    #[command(
        after_help = "Examples:\n  shiplog generate\n  shiplog generate --content content --output public --now 2026-11-01T00:00:00Z"
    )]
    Generate(GenerateArgs),
    /// Manage the API keys of shiplog-api.
    #[command(subcommand)]
    Keys(KeysCommand),
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Make a random key for one organization: print it once and add its digest to the keys file.
    #[command(
        after_help = "The key is printed once on standard output and stored nowhere; the keys file keeps only its SHA-256.\n\nExample:\n  shiplog keys new --org acme --name ci-dashboard"
    )]
    New(KeysNewArgs),
}

#[derive(Args)]
struct KeysNewArgs {
    /// The organization the key reads (a folder of the content folder).
    #[arg(long, value_name = "SLUG")]
    org: String,
    /// A name for the key, shown in the server's logs.
    #[arg(long, value_name = "NAME")]
    name: String,
    /// Keys file to add the key's digest to (created if missing).
    #[arg(long, value_name = "FILE", default_value = "api_keys.yaml")]
    keys: PathBuf,
    /// Content folder: one sub-folder per organization.
    #[arg(long, value_name = "DIR", default_value = "content")]
    content: PathBuf,
}

#[derive(Args)]
struct GenerateArgs {
    /// Content folder: one sub-folder per organization.
    #[arg(long, value_name = "DIR", default_value = "content")]
    content: PathBuf,
    /// Output folder; replaced as a whole when the build succeeds.
    #[arg(long, value_name = "DIR", default_value = "public")]
    output: PathBuf,
    /// Site settings [default: shiplog.yaml, if present].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Build as if it were this time (RFC 3339), for reproducible builds.
    #[arg(long, value_name = "TIME", value_parser = parse_now)]
    now: Option<DateTime<Utc>>,
    /// Print nothing on success.
    #[arg(long, short)]
    quiet: bool,
}

fn parse_now(text: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("expected an RFC 3339 time like 2026-11-01T09:00:00Z ({e})"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Generate(args) => generate(args),
        Command::Keys(KeysCommand::New(args)) => keys_new(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => report(&error),
    }
}

fn generate(args: GenerateArgs) -> Result<(), Error> {
    let started = Instant::now();
    let config_path = args
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from("shiplog.yaml"));
    let site = SiteConfig::load(&config_path, args.config.is_some())?;
    let now = args.now.unwrap_or_else(Utc::now);
    let summary = shiplog::generate(&args.content, &args.output, &site, now)?;
    if !args.quiet {
        eprintln!(
            "built {} organizations, {} published entries, {} files into {} in {} ms",
            summary.orgs,
            summary.entries,
            summary.files,
            args.output.display(),
            started.elapsed().as_millis()
        );
    }
    Ok(())
}

fn keys_new(args: KeysNewArgs) -> Result<(), Error> {
    let made = shiplog::api::new_key(&args.keys, &args.content, &args.org, &args.name)?;
    println!("{}", made.key);
    let name = args.name.trim();
    let file = made.keys_file.display();
    if made.created {
        eprintln!(
            "created {file} with key `{name}` for organization `{}`",
            args.org
        );
    } else {
        eprintln!(
            "added key `{name}` for organization `{}` to {file}",
            args.org
        );
    }
    eprintln!("the key is shown only this once: store it now (the file keeps only its SHA-256)");
    Ok(())
}

/// Prints an error with its whole cause chain and picks the exit code.
fn report(error: &Error) -> ExitCode {
    match error {
        Error::Invalid(problems) => {
            for problem in problems.as_slice() {
                eprintln!("{problem}");
            }
            let count = problems.as_slice().len();
            let plural = if count == 1 { "" } else { "s" };
            eprintln!("error: {count} problem{plural} found; nothing was written");
            ExitCode::from(1)
        }
        Error::Usage(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
        other => {
            eprintln!("error: {other}");
            let mut cause = std::error::Error::source(other);
            while let Some(inner) = cause {
                eprintln!("  caused by: {inner}");
                cause = inner.source();
            }
            ExitCode::from(1)
        }
    }
}
