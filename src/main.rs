//! `shiplog`: the command line. It parses flags, calls the library and turns its errors
//! into messages and exit codes: 1 for problems in the content, 2 for usage errors.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use clap::{Args, CommandFactory, Parser, Subcommand};
use clap_complete::Shell;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use shiplog::Error;

/// mimalloc rather than the system allocator: a build allocates many small strings on every
/// core at once, where glibc's allocator spent a quarter of the CPU time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EXAMPLES: &str = "Examples:
  shiplog new acme \"Faster CSV exports\" --tags feature,exports
  shiplog check
  shiplog generate --output public
  shiplog keys new --org acme --name ci-dashboard";

/// Turn a folder of Markdown changelog entries into embeddable pages and feeds.
#[derive(Parser)]
#[command(name = "shiplog", version, about, propagate_version = true, after_help = EXAMPLES)]
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
    /// Preview the site: build it into a temporary folder, serve each organization at
    /// http://<org>.localhost:<port>/ and rebuild (and reload the open page) on every change.
    #[command(
        after_help = "The list of organizations is at http://localhost:<port>/. SIGTERM or Ctrl-C stop the server.\n\nExamples:\n  shiplog serve\n  shiplog serve --port 0 --content content --config shiplog.yaml"
    )]
    Serve(ServeArgs),
    /// Check the settings and content as generate would, without writing anything.
    #[command(
        after_help = "Exit status: 0 when the content builds (warnings allowed unless --strict), 1 otherwise.\n\nExamples:\n  shiplog check\n  shiplog check --format github --strict"
    )]
    Check(CheckArgs),
    /// Create a new entry, and the organization's folder if it is new.
    #[command(
        after_help = "Examples:\n  shiplog new acme \"Faster CSV exports\" --tags feature,exports\n  shiplog new acme \"New dashboard\" --bundle --date 2026-12-01"
    )]
    New(NewArgs),
    /// Manage the API keys of shiplog-api.
    #[command(subcommand)]
    Keys(KeysCommand),
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

#[derive(Args)]
struct CheckArgs {
    /// Content folder: one sub-folder per organization.
    #[arg(long, value_name = "DIR", default_value = "content")]
    content: PathBuf,
    /// Site settings [default: shiplog.yaml, if present].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
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

#[derive(Args)]
struct NewArgs {
    /// The organization's slug; its folder is made when it is new.
    org: String,
    /// The entry's title; the file is named after it.
    title: String,
    /// Comma-separated tags.
    #[arg(long, value_name = "TAGS", value_delimiter = ',')]
    tags: Vec<String>,
    /// Publication time: RFC 3339 or YYYY-MM-DD [default: now].
    #[arg(long, value_name = "DATE")]
    date: Option<String>,
    /// Make a folder `<id>/index.md` that can hold the entry's images.
    #[arg(long)]
    bundle: bool,
    /// Mark the entry as a draft.
    #[arg(long)]
    draft: bool,
    /// Content folder: one sub-folder per organization.
    #[arg(long, value_name = "DIR", default_value = "content")]
    content: PathBuf,
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
    /// Output folder; changed only once the whole build succeeded, to hold exactly its files.
    #[arg(long, value_name = "DIR", default_value = "public")]
    output: PathBuf,
    /// Site settings [default: shiplog.yaml, if present].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
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

#[derive(Args)]
struct ServeArgs {
    /// Port to listen on; 0 picks a free port.
    #[arg(long, value_name = "PORT", default_value_t = 8080)]
    port: u16,
    /// Content folder: one sub-folder per organization.
    #[arg(long, value_name = "DIR", default_value = "content")]
    content: PathBuf,
    /// Site settings [default: shiplog.yaml, if present]; themes are looked up beside it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
}

fn parse_now(text: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("expected an RFC 3339 time like 2026-11-01T09:00:00Z ({e})"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => return check(args),
        Command::Generate(args) => generate(args),
        Command::Serve(args) => serve(args),
        Command::New(args) => new_entry(args),
        Command::Keys(KeysCommand::New(args)) => keys_new(args),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "shiplog", &mut script);
            write_stdout(&script)
        }
        Command::Man => {
            let mut page = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut page)
                .expect("rendering to memory cannot fail");
            write_stdout(&page)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => report(&error),
    }
}

fn generate(args: GenerateArgs) -> Result<(), Error> {
    let started = Instant::now();
    let settings = shiplog::generate::Settings {
        config_required: args.config.is_some(),
        config: args.config.unwrap_or_else(|| PathBuf::from("shiplog.yaml")),
        content: args.content,
        output: args.output,
        now: args.now.unwrap_or_else(Utc::now),
        incremental: !args.no_cache,
    };
    let progress = Progress::new(!args.quiet);
    let summary = shiplog::generate::run(&settings, &|done, total| progress.update(done, total));
    progress.bar.finish_and_clear();
    let summary = summary?;
    if !args.quiet {
        let reused = match summary.reused {
            0 => String::new(),
            n => format!(" ({n} unchanged)"),
        };
        eprintln!(
            "built {} organizations{reused}, {} published entries, {} files into {} \
             ({} written, {} removed) in {} ms",
            summary.orgs,
            summary.entries,
            summary.files,
            settings.output.display(),
            summary.changes.written,
            summary.changes.removed,
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
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {pos}/{len} organizations {wide_bar} {elapsed}",
            )
            .expect("the template is valid"),
        );
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

fn serve(args: ServeArgs) -> Result<(), Error> {
    let settings = shiplog::serve::Settings {
        content: args.content,
        config_required: args.config.is_some(),
        config: args.config.unwrap_or_else(|| PathBuf::from("shiplog.yaml")),
        bind: args.bind,
        port: args.port,
    };
    shiplog::serve::run(settings, std::sync::Arc::new(|event| eprintln!("{event}")))
}

fn check(args: CheckArgs) -> ExitCode {
    let config_path = args
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from("shiplog.yaml"));
    let say = |severity: &str, problem: &shiplog::Problem| match args.format {
        Format::Human if severity == "error" => eprintln!("{problem}"),
        Format::Human => eprintln!(
            "{}:{}:{}: {severity}: {}",
            problem.path.display(),
            problem.line,
            problem.column,
            problem.message
        ),
        Format::Github => println!("{}", github_annotation(severity, problem)),
    };
    match shiplog::check(
        &args.content,
        &config_path,
        args.config.is_some(),
        Utc::now(),
    ) {
        Ok(index) => {
            for warning in index.warnings() {
                say("warning", warning);
            }
            let warnings = index.warnings().len();
            let entries: usize = index.orgs().iter().map(|o| o.entries.len()).sum();
            eprintln!(
                "checked {} organizations and {entries} entries: no problems, {warnings} warning{}",
                index.orgs().len(),
                if warnings == 1 { "" } else { "s" }
            );
            if args.strict && warnings > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(Error::Invalid(problems)) if args.format == Format::Github => {
            for problem in problems.as_slice() {
                say("error", problem);
            }
            ExitCode::from(1)
        }
        Err(error) => report(&error),
    }
}

/// A GitHub Actions workflow command that annotates `problem` in the pull request.
fn github_annotation(severity: &str, problem: &shiplog::Problem) -> String {
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
        escape(&problem.path.to_string_lossy(), true),
        problem.line,
        problem.column,
        escape(&problem.message, false)
    )
}

fn new_entry(args: NewArgs) -> Result<(), Error> {
    let tags = args
        .tags
        .iter()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    let request = shiplog::scaffold::NewEntry {
        content: &args.content,
        org: &args.org,
        title: &args.title,
        tags,
        date: args.date.as_deref(),
        bundle: args.bundle,
        draft: args.draft,
    };
    let created = shiplog::scaffold::new_entry(&request, Utc::now())?;
    if let Some(settings) = &created.org_settings {
        eprintln!(
            "created organization `{}` with {}",
            args.org,
            settings.display()
        );
    }
    write_stdout(format!("{}\n", created.path.display()).as_bytes())
}

fn keys_new(args: KeysNewArgs) -> Result<(), Error> {
    let made = shiplog::keys::new_key(&args.keys, &args.content, &args.org, &args.name)?;
    write_stdout(format!("{}\n", made.key).as_bytes())?;
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
    for line in error.report_lines("nothing was written") {
        match line.strip_prefix("error:") {
            Some(rest) => eprintln!("{}{rest}", error_label()),
            None => eprintln!("{line}"),
        }
    }
    ExitCode::from(error.exit_status())
}
