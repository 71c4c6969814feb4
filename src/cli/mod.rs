//! The `shiplog` command line: the flags of each command (clap), one handler per command in
//! its own file, and how errors become messages and exit codes (1 for problems in the
//! content, 2 for usage errors).

mod announce;
mod check;
mod generate;
mod import;
mod keys;
mod new;
mod serve;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use clap_complete::Shell;
use shiplog::Error;

const EXAMPLES: &str = "Examples:
  shiplog new acme \"Faster CSV exports\" --tags feature,exports
  shiplog check
  shiplog generate --output public
  shiplog keys new --org acme --name ci-dashboard";

/// Turn a folder of Markdown changelog entries into embeddable pages and feeds.
#[derive(Parser)]
#[command(name = "shiplog", version, about, propagate_version = true, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build every organization's changelog pages and feeds into the output folder.
    #[command(
        after_help = "Examples:\n  shiplog generate\n  shiplog generate --content content --output public --now 2026-11-01T00:00:00Z"
    )]
    Generate(generate::Args),
    /// Preview the site: build it into a temporary folder, serve each organization at
    /// http://<org>.localhost:<port>/ and rebuild (and reload the open page) on every change.
    #[command(
        after_help = "The list of organizations is at http://localhost:<port>/. SIGTERM or Ctrl-C stop the server.\n\nExamples:\n  shiplog serve\n  shiplog serve --port 0 --content content --config shiplog.yaml"
    )]
    Serve(serve::Args),
    /// Check the settings and content as generate would, without writing anything.
    #[command(
        after_help = "Exit status: 0 when the content builds (warnings allowed unless --strict), 1 otherwise.\n\nExamples:\n  shiplog check\n  shiplog check --format github --strict"
    )]
    Check(check::Args),
    /// Create a new entry, and the organization's folder if it is new.
    #[command(
        after_help = "Examples:\n  shiplog new acme \"Faster CSV exports\" --tags feature,exports\n  shiplog new acme \"New dashboard\" --bundle --date 2026-12-01"
    )]
    New(new::Args),
    /// Tell each org's channels (webhooks, Slack, Discord, WebSub, email) of the entries
    /// published since they last heard, each exactly once.
    #[command(
        after_help = "Exit status: 0 when every delivery arrived, 1 when any failed, 2 on usage errors.\n\nExamples:\n  shiplog announce --dry-run\n  shiplog announce --state .shiplog/announce.jsonl"
    )]
    Announce(announce::Args),
    /// Manage the API keys of shiplog-api.
    #[command(subcommand)]
    Keys(keys::Command),
    /// Bring an existing changelog in: a CHANGELOG.md, GitHub Releases or a feed. Running it
    /// again adds only what is new and never overwrites an edited file unless --update.
    #[command(subcommand)]
    Import(import::Command),
    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  shiplog completions bash > ~/.local/share/bash-completion/completions/shiplog"
    )]
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the manual page (roff).
    #[command(after_help = "Example:\n  shiplog man > shiplog.1 && man ./shiplog.1")]
    Man,
}

/// Runs the command `cli` names and gives the exit code.
pub fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Announce(args) => announce::run(args),
        Command::Generate(args) => generate::run(args).map(success),
        Command::Serve(args) => serve::run(args).map(success),
        Command::New(args) => new::run(args).map(success),
        Command::Keys(command) => keys::run(command).map(success),
        Command::Import(command) => import::run(command).map(success),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "shiplog", &mut script);
            write_stdout(&script).map(success)
        }
        Command::Man => man_page().and_then(|page| write_stdout(&page)).map(success),
    };
    result.unwrap_or_else(|error| report(&error))
}

fn success(_: ()) -> ExitCode {
    ExitCode::SUCCESS
}

fn man_page() -> Result<Vec<u8>, Error> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|e| Error::Internal(format!("cannot render the manual page: {e}")))?;
    Ok(page)
}

/// Writes data to standard output. A closed pipe (`shiplog man | head`) ends the program
/// quietly with success, as other Unix tools do.
fn write_stdout(bytes: &[u8]) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(source) => Err(Error::Write {
            path: PathBuf::from("<stdout>"),
            source,
        }),
        Ok(()) => Ok(()),
    }
}

/// `error:`, in red when standard error is a terminal and `NO_COLOR` is not set.
fn error_label() -> &'static str {
    let colour = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    if colour {
        "\x1b[1;31merror:\x1b[0m"
    } else {
        "error:"
    }
}

/// Prints an error with its whole cause chain and picks the exit code.
fn report(error: &Error) -> ExitCode {
    report_as(error, "nothing was written")
}

/// [`report`], saying what the failure left undone (`nothing was sent`).
fn report_as(error: &Error, consequence: &str) -> ExitCode {
    for line in error.report_lines(consequence) {
        match line.strip_prefix("error:") {
            Some(rest) => eprintln!("{}{rest}", error_label()),
            None => eprintln!("{line}"),
        }
    }
    ExitCode::from(error.exit_status())
}
