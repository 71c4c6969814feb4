//! `shiplog-api`: serves the authenticated listing `GET /api/v1/changelogs` from the content
//! folder. It parses flags, calls [`shiplog::api::serve`], writes the server's events as one
//! JSON line each on standard error, and turns start-up errors into messages and exit
//! codes: 1 for problems in the content or keys, 2 for usage errors.

use std::io::{BufWriter, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use clap::Parser;
use shiplog::api::{Event, Settings};
use shiplog::build::SourceArgs;
use shiplog::Error;

/// Serve the authenticated changelog listing (GET /api/v1/changelogs) from the content folder.
#[derive(Parser)]
#[command(
    name = "shiplog-api",
    version,
    about,
    after_help = "Logs are one JSON object per line on standard error. SIGHUP re-reads the content and keys; SIGTERM or Ctrl-C stop after the requests in flight.\n\nExamples:\n  shiplog-api\n  shiplog-api --content content --keys api_keys.yaml --listen 0.0.0.0:8081\n  SHIPLOG_REDIS_URL=redis://:secret@10.0.0.5:6379 shiplog-api --listen 0.0.0.0:8081"
)]
struct Cli {
    #[command(flatten)]
    sources: SourceArgs,
    /// Keys file (SHA-256 digests of the API keys) [default: api_keys.yaml, if present].
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
    /// Address to listen on; port 0 picks a free port (the log's `listening` line tells which).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8081")]
    listen: String,
    /// Seconds a client may take to send a request's head (idle connections close then too).
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    header_read_timeout: u64,
    /// Connections served at once; more wait in the listen backlog until one closes.
    #[arg(long, value_name = "N", default_value_t = shiplog::api::DEFAULT_MAX_CONNECTIONS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    max_connections: usize,
    /// Count each key's requests across every copy of the server in this Redis or Valkey
    /// (`redis://[:PASSWORD@]HOST[:PORT][/DB]`); kept in the environment, the URL's password
    /// stays out of the process list. Unreachable, each copy counts its own.
    #[arg(
        long,
        value_name = "URL",
        env = "SHIPLOG_REDIS_URL",
        hide_env_values = true
    )]
    redis: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let defaults = Settings::new();
    let settings = Settings {
        sources: cli.sources.into(),
        keys_required: cli.keys.is_some(),
        keys: cli.keys.unwrap_or(defaults.keys),
        listen: cli.listen,
        header_read_timeout: Duration::from_secs(cli.header_read_timeout),
        drain_timeout: defaults.drain_timeout,
        max_connections: cli.max_connections,
        redis: cli.redis,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the server's runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let (lines, writer) = start_log_writer();
    let finish = lines.clone();
    let log = Arc::new(move |event: Event| {
        let mut line = event.to_json_line();
        line.push('\n');
        // Only once the writer has finished (never while serving) could this fail.
        let _ = lines.send(Some(line));
    });
    let served = runtime.block_on(shiplog::api::serve(settings, log));
    // Every line logged is written before the process ends.
    let _ = finish.send(None);
    let _ = writer.join();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => report(&error),
    }
}

/// A thread that writes the log lines sent to it on standard error, whole lines only. A
/// line that comes to an idle writer is written at once; the lines that come in the next
/// [`LOG_BATCH`] are then written together, so that under load the thread wakes and writes
/// once per batch rather than once per request. `None` ends it, once the lines sent before
/// it are written.
fn start_log_writer() -> (mpsc::Sender<Option<String>>, JoinHandle<()>) {
    let (sender, receiver) = mpsc::channel::<Option<String>>();
    let writer = std::thread::spawn(move || {
        let mut stderr = BufWriter::with_capacity(64 * 1024, std::io::stderr().lock());
        let mut pending = receiver.recv().ok().flatten();
        while let Some(line) = pending {
            let _ = stderr.write_all(line.as_bytes());
            pending = match receiver.try_recv() {
                Ok(message) => message,
                Err(mpsc::TryRecvError::Disconnected) => None,
                Err(mpsc::TryRecvError::Empty) => {
                    let _ = stderr.flush();
                    // Let the next lines gather; wait for one if none came meanwhile.
                    std::thread::sleep(LOG_BATCH);
                    match receiver.try_recv() {
                        Ok(message) => message,
                        Err(mpsc::TryRecvError::Disconnected) => None,
                        Err(mpsc::TryRecvError::Empty) => receiver.recv().ok().flatten(),
                    }
                }
            };
        }
        let _ = stderr.flush();
    });
    (sender, writer)
}

/// How long the log writer lets lines gather after a write.
const LOG_BATCH: Duration = Duration::from_millis(10);

/// Prints a start-up error like `shiplog generate` does and picks the exit code.
fn report(error: &Error) -> ExitCode {
    for line in error.report_lines("the server did not start") {
        eprintln!("{line}");
    }
    ExitCode::from(error.exit_status())
}
