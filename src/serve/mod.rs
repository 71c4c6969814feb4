//! `shiplog serve`: a local preview of the site that rebuilds itself.
//!
//! The site is built by the same [`Build`] as `generate`, with its cache, into a temporary
//! folder (so a change rebuilds only the orgs it touched), with every organization's address
//! set to
//! `http://<org>.localhost:<port>`; browsers resolve `*.localhost` to this machine. A
//! request whose `Host` is `<org>.localhost` is answered from that organization's folder of
//! the build (so `/changelog/` is page 1); any other host gets the list of organizations.
//!
//! The content folder, the config file and the themes folder are watched; each change
//! rebuilds the site, and every HTML page served carries a small script that reloads it
//! once the build changed. While the content has problems, every HTML request gets a page
//! listing them instead of a stale page. The library never prints: what the server does is
//! handed to the caller as [`Event`]s.

mod files;
mod pages;
mod routes;

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use chrono::Utc;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};

use crate::build::{Build, Mode, Report, Sources};
use crate::config::THEMES_FOLDER;
use crate::error::{write_error, Error, Result};
use crate::server::{Server, Shutdown, DEFAULT_MAX_CONNECTIONS};
use crate::watch::{Target, Watch};

/// The path, on every host, that answers the current build's token: the reload script
/// polls it and reloads the page when the token changes.
pub const BUILD_TOKEN_PATH: &str = "/_shiplog/build";

/// How long a client may take to send a request's head (and an idle connection is kept).
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long stopping waits for the requests in flight.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// How the preview is run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The content folder and the site settings (the themes are looked up beside them).
    pub sources: Sources,
    /// The address to listen on.
    pub bind: IpAddr,
    /// The port to listen on; 0 picks a free one.
    pub port: u16,
}

/// Something the preview server did that its user should see. [`fmt::Display`] gives the
/// text to show, one or more lines.
#[derive(Debug, Clone)]
pub enum Event {
    /// The first build is done (or failed) and the server accepts connections.
    Listening {
        /// The address bound.
        addr: SocketAddr,
        /// Where the list of organizations is: `http://localhost:<port>`.
        url: String,
        /// The address of each organization's changelog.
        changelogs: Vec<String>,
    },
    /// A build succeeded and is being served.
    Built {
        /// `start`, or what noticed the change (`watch`).
        trigger: &'static str,
        /// Organizations built.
        orgs: usize,
        /// Orgs kept from the build before, unchanged.
        reused: usize,
        /// Published entries across all orgs.
        entries: usize,
        /// Files of the built tree.
        files: usize,
        /// How long the build took.
        duration_ms: u128,
    },
    /// A build failed: HTML requests get a page listing the problems until the next build.
    /// Each problem reads `path:line:column: message` where it has a place in a file.
    BuildFailed {
        /// `start`, or what noticed the change (`watch`).
        trigger: &'static str,
        /// One line per problem.
        problems: Vec<String>,
    },
    /// Something is off but the server goes on.
    Warning {
        /// What is off.
        message: String,
    },
    /// A signal asked the server to stop: no new connections; requests in flight finish.
    ShuttingDown {
        /// The signal's name.
        signal: &'static str,
    },
    /// Every connection is closed (`drained`), or stopping waited long enough.
    Stopped {
        /// Whether every request in flight was answered in time.
        drained: bool,
    },
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Listening {
                url, changelogs, ..
            } => {
                write!(f, "serving on {url}")?;
                for changelog in changelogs {
                    write!(f, "\n  {changelog}")?;
                }
                Ok(())
            }
            Event::Built {
                trigger,
                orgs,
                reused,
                entries,
                files,
                duration_ms,
            } => {
                let verb = if *trigger == "start" {
                    "built"
                } else {
                    "rebuilt"
                };
                let reused = match reused {
                    0 => String::new(),
                    n => format!(" ({n} unchanged)"),
                };
                write!(
                    f,
                    "{verb} {orgs} organizations{reused}, {entries} published entries, {files} files in {duration_ms} ms"
                )
            }
            Event::BuildFailed { problems, .. } => {
                for problem in problems {
                    writeln!(f, "{problem}")?;
                }
                let plural = if problems.len() == 1 { "" } else { "s" };
                write!(
                    f,
                    "error: {} problem{plural} found; the pages show them until they are fixed",
                    problems.len()
                )
            }
            Event::Warning { message } => write!(f, "warning: {message}"),
            Event::ShuttingDown { signal } => write!(f, "stopping ({signal})"),
            Event::Stopped { drained: true } => write!(f, "stopped"),
            Event::Stopped { drained: false } => {
                write!(f, "stopped before every request in flight was answered")
            }
        }
    }
}

/// Where the server's events go.
pub type Logger = Arc<dyn Fn(Event) + Send + Sync>;

/// Runs the preview until SIGTERM or Ctrl-C: binds the address, builds the site, serves it
/// and rebuilds it on every change. Problems in the content do not stop it (they are shown
/// instead of the pages); a content folder or named config file that does not exist, or an
/// address it cannot listen on, is an [`Error::Usage`].
pub fn run(settings: Settings, log: Logger) -> Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Internal(format!("cannot start the server's runtime: {e}")))?
        .block_on(serve(settings, log))
}

async fn serve(settings: Settings, log: Logger) -> Result<()> {
    // Signals are handled from the start, so that none sent once the server is up is lost.
    let mut shutdown = Shutdown::new()?;
    let listen = SocketAddr::new(settings.bind, settings.port).to_string();
    let server = Server::bind(&listen, HEADER_READ_TIMEOUT, DEFAULT_MAX_CONNECTIONS).await?;
    let addr = server.addr();
    let scratch = tempfile::Builder::new()
        .prefix("shiplog-serve-")
        .tempdir()
        .map_err(write_error(&std::env::temp_dir()))?;
    let builder = Arc::new(Builder {
        port: addr.port(),
        scratch: scratch.path().to_path_buf(),
        settings,
        busy: std::sync::Mutex::new(false),
    });
    // Watched from before the first build, so that no change is missed.
    let watch = watch(&builder.settings.sources, &log);
    let shared = Arc::new(Shared {
        state: ArcSwap::from_pointee(State {
            token: String::new(),
            site: None,
            problems: Vec::new(),
        }),
        port: addr.port(),
    });

    let first = builder.clone().build().await;
    if let Err(Error::Usage(message)) = &first.result {
        return Err(Error::Usage(message.clone()));
    }
    let mut builds = Builds {
        instance: format!("{:x}", Utc::now().timestamp_millis()),
        generation: 0,
    };
    builds.publish(first, "start", &shared, &log);
    log(Event::Listening {
        addr,
        url: format!("http://localhost:{}", addr.port()),
        changelogs: shared.changelog_urls(),
    });
    let cleanup = builder.clone();
    let rebuilder = tokio::spawn(rebuild_on_change(
        watch,
        builder,
        builds,
        shared.clone(),
        log.clone(),
    ));

    let warn = |message| log(Event::Warning { message });
    let stopping = server
        .serve(
            &mut shutdown,
            move |request| answer(request, shared.clone()),
            &warn,
        )
        .await;
    rebuilder.abort();
    log(Event::ShuttingDown {
        signal: stopping.signal,
    });
    let drained = stopping.drain(&mut shutdown, DRAIN_TIMEOUT).await;
    // No new build starts now; one under way ends before the scratch folder goes.
    let _ = tokio::task::spawn_blocking(move || {
        *cleanup
            .busy
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = true;
    })
    .await;
    drop(scratch);
    log(Event::Stopped { drained });
    Ok(())
}

/// Answers `request` from the latest build. Answering reads files: it runs off the threads
/// that drive the connections.
async fn answer(request: Request<Incoming>, shared: Arc<Shared>) -> Response<Full<Bytes>> {
    tokio::task::spawn_blocking(move || routes::handle(request, &shared))
        .await
        .unwrap_or_else(|_| routes::failed())
}

/// What the rebuilds watch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Watched {
    Content,
    Config,
    Themes,
}

/// Starts watching the content folder, the config file and the themes folder beside it.
fn watch(sources: &Sources, log: &Logger) -> Watch<Watched> {
    let themes = sources
        .config
        .parent()
        .unwrap_or_else(|| Path::new(""))
        .join(THEMES_FOLDER);
    let log = log.clone();
    let mut targets = Target::sources(sources, Watched::Content, Watched::Config);
    targets.push(Target::folder(Watched::Themes, &themes));
    Watch::start(
        targets,
        Arc::new(move |message| log(Event::Warning { message })),
    )
}

/// Builds the site; one at a time.
struct Builder {
    settings: Settings,
    /// The port the site's addresses use.
    port: u16,
    /// The temporary folder that holds the builds.
    scratch: PathBuf,
    /// Held by the build under way: stopping waits for it before the scratch folder is
    /// removed, or the build would write into a folder that is being removed. It holds
    /// `true` once the server stops: a build that starts then does nothing.
    busy: std::sync::Mutex<bool>,
}

/// A finished build, good or not.
struct Outcome {
    result: Result<Site>,
    duration_ms: u128,
}

impl Builder {
    /// Builds the site on a blocking thread.
    async fn build(self: Arc<Self>) -> Outcome {
        let started = Instant::now();
        let result = tokio::task::spawn_blocking(move || self.build_now())
            .await
            .unwrap_or_else(|e| Err(Error::Internal(format!("the build failed: {e}"))));
        Outcome {
            result,
            duration_ms: started.elapsed().as_millis(),
        }
    }

    /// Builds the site into the scratch folder, as of now: the orgs unchanged since the
    /// last build keep their files.
    fn build_now(&self) -> Result<Site> {
        let stopped = self
            .busy
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if *stopped {
            return Err(Error::Internal("the server is stopping".into()));
        }
        let build = Build {
            sources: &self.settings.sources,
            now: Utc::now(),
            mode: Mode::Write {
                output: self.root(),
                cache: true,
            },
            org_url: Some(format!("http://{{org}}.localhost:{}", self.port)),
        };
        let report = build.run(&|_, _| {})?;
        Ok(Site {
            report,
            root: self.root(),
        })
    }

    /// Where the built tree is: one folder per organization.
    fn root(&self) -> PathBuf {
        self.scratch.join("site")
    }
}

/// Numbers the builds.
struct Builds {
    /// Names this run of the server, so that a page reloads after a restart too.
    instance: String,
    generation: u64,
}

impl Builds {
    /// Serves the outcome of a build from now on, and reports it.
    fn publish(&mut self, outcome: Outcome, trigger: &'static str, shared: &Shared, log: &Logger) {
        self.generation += 1;
        let token = format!("{}-{}", self.instance, self.generation);
        let previous = shared.state.load_full();
        let state = match outcome.result {
            Ok(site) => {
                log(Event::Built {
                    trigger,
                    orgs: site.report.orgs.len(),
                    reused: site.report.reused,
                    entries: site.report.published(),
                    files: site.report.files,
                    duration_ms: outcome.duration_ms,
                });
                State {
                    token,
                    site: Some(Arc::new(site)),
                    problems: Vec::new(),
                }
            }
            Err(error) => {
                let problems = error.problem_lines();
                log(Event::BuildFailed {
                    trigger,
                    problems: problems.clone(),
                });
                State {
                    token,
                    site: previous.site.clone(),
                    problems,
                }
            }
        };
        shared.state.store(Arc::new(state));
    }
}

/// Rebuilds after every batch of changes; runs until aborted.
async fn rebuild_on_change(
    mut watch: Watch<Watched>,
    builder: Arc<Builder>,
    mut builds: Builds,
    shared: Arc<Shared>,
    log: Logger,
) {
    loop {
        let changes = watch.next().await;
        let outcome = builder.clone().build().await;
        builds.publish(outcome, changes.trigger, &shared, &log);
    }
}

/// One successful build.
struct Site {
    report: Report,
    /// The built tree: one folder per organization.
    root: PathBuf,
}

/// What every request reads: swapped in whole after each build.
struct State {
    /// Names the latest build.
    token: String,
    /// The latest build that succeeded.
    site: Option<Arc<Site>>,
    /// The problems of the latest build, when it failed.
    problems: Vec<String>,
}

struct Shared {
    state: ArcSwap<State>,
    /// The port the pages' addresses use.
    port: u16,
}

impl Shared {
    /// The address of each organization's changelog in the latest good build.
    fn changelog_urls(&self) -> Vec<String> {
        let state = self.state.load();
        let Some(site) = &state.site else {
            return Vec::new();
        };
        site.report
            .orgs
            .iter()
            .map(|org| pages::changelog_url(&org.slug, self.port))
            .collect()
    }
}
