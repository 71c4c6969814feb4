//! `shiplog-api`: the authenticated REST listing `GET /api/v1/changelogs`, served from the
//! same content index as `generate`.
//!
//! Per request: unknown path (404) and method (405) first, then the key (401), then the
//! query (400), then the rate (429); then the page of the key's organization, judged
//! against the current time. The index is swapped in whole when the content changes
//! ([`reload`]); the library never prints: everything worth a log line is handed to the
//! caller as an [`Event`].

pub mod auth;
mod cache;
mod catalog;
pub mod encoding;
mod filter;
pub mod listing;
mod rate;
mod reload;
mod shared_rate;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use chrono::{DateTime, SecondsFormat, Utc};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode};
use serde::Serialize;

pub use rate::RateLimiter;

use auth::Unauthorized;

use crate::build::Sources;
use crate::config::SiteConfig;
use crate::error::{Error, Result};
use crate::keys::{ApiKey, Keys};
pub use crate::server::DEFAULT_MAX_CONNECTIONS;
use crate::server::{Reply, Server, Shutdown};

/// Path of the health check.
pub const HEALTH_PATH: &str = "/healthz";

/// The methods both paths answer.
const ALLOW: &str = "GET, HEAD";

/// How the server is run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The content folder and the site settings.
    pub sources: Sources,
    /// The keys file.
    pub keys: PathBuf,
    /// Whether a missing `keys` is an error (the user named it) or means no keys yet.
    pub keys_required: bool,
    /// Address to listen on, like `127.0.0.1:8081` (port 0 picks a free port).
    pub listen: String,
    /// How long a client may take to send a request's head (and how long an idle
    /// connection is kept).
    pub header_read_timeout: Duration,
    /// How long shutting down waits for requests in flight.
    pub drain_timeout: Duration,
    /// Connections served at once; more wait in the listen backlog until one closes.
    pub max_connections: usize,
    /// The Redis (or Valkey) that counts each key's requests across copies; none counts
    /// them in this copy alone.
    pub redis: Option<String>,
}

impl Settings {
    /// The settings `shiplog-api` starts with when given no flags.
    pub fn new() -> Self {
        Settings {
            sources: Sources::new(PathBuf::from("content"), None),
            keys: PathBuf::from("api_keys.yaml"),
            keys_required: false,
            listen: "127.0.0.1:8081".to_string(),
            header_read_timeout: Duration::from_secs(10),
            drain_timeout: Duration::from_secs(30),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            redis: None,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::new()
    }
}

/// Something the server did that deserves a log line. No event holds a key, or anything
/// derived from one, other than the key's name.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The server accepts connections at `addr`.
    Listening {
        /// The address bound.
        addr: SocketAddr,
        /// Organizations in the content.
        orgs: usize,
        /// Keys the server accepts.
        keys: usize,
    },
    /// One request was answered.
    Request {
        /// The method, or `other` for a non-standard one.
        method: String,
        /// The path, or `other` for one the server does not answer.
        path: String,
        /// The response's status code.
        status: u16,
        /// How long answering took.
        duration_ms: f64,
        /// The name of the key the request carried, once it was recognized.
        #[serde(skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        /// The organization that key reads.
        #[serde(skip_serializing_if = "Option::is_none")]
        org: Option<String>,
    },
    /// A new content index is being served.
    ContentReloaded {
        /// What noticed the change: `watch` or `SIGHUP`.
        trigger: &'static str,
        /// Organizations in the new index.
        orgs: usize,
        /// Entries in the new index that are not drafts.
        entries: usize,
        /// The organizations read again (the others had not changed).
        orgs_read: usize,
        /// How long reading took.
        duration_ms: f64,
    },
    /// A new keys file is in use.
    KeysReloaded {
        /// What noticed the change: `watch` or `SIGHUP`.
        trigger: &'static str,
        /// Keys the server now accepts.
        keys: usize,
    },
    /// Re-reading failed; the last good content or keys go on being served. Each problem
    /// reads `path:line:column: message` where it has a place in a file.
    ReloadFailed {
        /// What noticed the change: `watch` or `SIGHUP`.
        trigger: &'static str,
        /// `content` or `keys`.
        what: &'static str,
        /// One line per problem.
        problems: Vec<String>,
    },
    /// Rate limits are now counted across copies (`redis`) or by this copy alone (`local`),
    /// Redis having stopped answering. "Unreachable" is logged at most once a minute.
    RateLimit {
        /// `redis` or `local`.
        counting: &'static str,
        /// What happened, naming Redis by host and port only.
        message: String,
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
    /// Every connection is closed.
    Stopped {
        /// Whether every request in flight was answered before the drain timeout.
        drained: bool,
    },
}

impl Event {
    /// `info`, `warn` or `error`.
    pub fn level(&self) -> &'static str {
        match self {
            Event::Request { status, .. } if *status >= 500 => "error",
            Event::ReloadFailed { .. } => "error",
            Event::Warning { .. }
            | Event::Stopped { drained: false }
            | Event::RateLimit {
                counting: "local", ..
            } => "warn",
            _ => "info",
        }
    }

    /// The event as one line of JSON (without the line break), with its time and level.
    pub fn to_json_line(&self) -> String {
        let fields = serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string());
        let time = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
        let rest = fields.strip_prefix('{').unwrap_or("}");
        format!(
            "{{\"time\":\"{time}\",\"level\":\"{}\",{rest}",
            self.level()
        )
    }
}

/// Where the server's events go.
pub type Logger = Arc<dyn Fn(Event) + Send + Sync>;

/// One generation of content being served: the site settings, the catalog of entries,
/// and the pages made from them so far.
#[derive(Debug)]
struct Snapshot {
    site: SiteConfig,
    catalog: catalog::Catalog,
    pages: cache::PageCache,
}

impl Snapshot {
    fn new(site: SiteConfig, catalog: catalog::Catalog) -> Self {
        Snapshot {
            site,
            catalog,
            pages: cache::PageCache::new(cache::PAGE_CACHE_BYTES),
        }
    }

    /// The entry `id` of organization `slug` if it is published at `now`: made once, then
    /// shared.
    fn entry(&self, slug: &str, id: &str, now: DateTime<Utc>) -> Option<Arc<listing::Listing>> {
        let org = self.catalog.org(slug)?;
        let position = org.position(id)?;
        (position >= org.first_published(now)).then(|| {
            self.pages
                .get_or_make(slug, cache::PageKey::Entry(position), || {
                    listing::entry(org, position)
                })
        })
    }

    /// The page `query` of organization `slug`, published at `now`: made once, then shared.
    fn page(&self, slug: &str, query: listing::Query, now: DateTime<Utc>) -> Arc<listing::Listing> {
        let org = self.catalog.org(slug);
        let first = org.map_or(0, |org| org.first_published(now));
        let made =
            |query: &listing::Query| listing::listing(org, first, query, &self.site.base_url);
        let key = cache::PageKey::Page {
            first,
            query: query.clone(),
        };
        self.pages.get_or_make(slug, key, || made(&query))
    }
}

/// What every request reads: swapped in whole on reload.
struct Shared {
    content: ArcSwap<Snapshot>,
    keys: ArcSwap<Keys>,
    limits: shared_rate::Limits,
    log: Logger,
}

/// Loads the settings, content and keys, listens, and serves until SIGTERM or Ctrl-C; then
/// stops accepting, lets requests in flight finish (up to `drain_timeout`) and returns.
/// Bad content or keys at start-up are an [`Error::Invalid`]; a bad address or a missing
/// named file an [`Error::Usage`].
pub async fn serve(settings: Settings, log: Logger) -> Result<()> {
    // Signals are handled from the start, so that none sent once the server is up is lost
    // (nor, for SIGHUP, fatal).
    let mut shutdown = Shutdown::new()?;
    let hangup = reload::Hangup::new()?;
    let (site, catalog) = {
        let settings = settings.clone();
        tokio::task::spawn_blocking(move || reload::load_content(&settings))
            .await
            .map_err(|e| Error::Internal(format!("loading the content failed: {e}")))??
    };
    let keys = match Keys::load(&settings.keys, settings.keys_required)? {
        Some(keys) => keys,
        None => {
            log(Event::Warning {
                message: format!(
                    "no keys file at {}: every listing request gets 401 until one is made with `shiplog keys new`",
                    settings.keys.display()
                ),
            });
            Keys::default()
        }
    };
    warn_about_keys(&keys, &catalog, &log);

    let server = Server::bind(
        &settings.listen,
        settings.header_read_timeout,
        settings.max_connections,
    )
    .await?;
    let addr = server.addr();
    let shared = Arc::new(Shared {
        content: ArcSwap::from_pointee(Snapshot::new(site, catalog)),
        keys: ArcSwap::from_pointee(keys),
        limits: match &settings.redis {
            Some(url) => shared_rate::Limits::shared(url, log.clone())?,
            None => shared_rate::Limits::local(),
        },
        log: log.clone(),
    });

    let reloader = reload::spawn(settings.clone(), shared.clone(), hangup);
    {
        let snapshot = shared.content.load();
        log(Event::Listening {
            addr,
            orgs: snapshot.catalog.org_count(),
            keys: shared.keys.load().as_slice().len(),
        });
    }

    let handler = shared.clone();
    let warn = |message| log(Event::Warning { message });
    let stopping = server
        .serve(
            &mut shutdown,
            move |request| {
                let shared = handler.clone();
                async move { handle(request, &shared).await }
            },
            &warn,
        )
        .await;
    reloader.abort();
    log(Event::ShuttingDown {
        signal: stopping.signal,
    });
    let drained = stopping.drain(&mut shutdown, settings.drain_timeout).await;
    log(Event::Stopped { drained });
    Ok(())
}

/// Logs keys that read an organization the content does not have.
fn warn_about_keys(keys: &Keys, catalog: &catalog::Catalog, log: &Logger) {
    for key in keys.as_slice() {
        if catalog.org(&key.org).is_none() {
            log(Event::Warning {
                message: format!(
                    "key `{}` reads organization `{}`, which is not in the content: its listing is empty",
                    key.name, key.org
                ),
            });
        }
    }
}

/// A reply, and the key it was made for (named in the log line).
struct Answered {
    reply: Reply,
    /// The key's name and organization, once the key is known.
    caller: Option<(String, String)>,
}

impl From<Reply> for Answered {
    fn from(reply: Reply) -> Self {
        Answered {
            reply,
            caller: None,
        }
    }
}

fn json(status: StatusCode, body: Bytes) -> Reply {
    Reply::new(status, "application/json", body)
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    status: u16,
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    param: Option<&'a str>,
}

/// The one error body: `{"error": {"status", "code", "message"[, "param"]}}`.
fn error(status: StatusCode, code: &str, message: &str, param: Option<&str>) -> Reply {
    let body = serde_json::to_vec(&ErrorBody {
        error: ErrorDetail {
            status: status.as_u16(),
            code,
            message,
            param,
        },
    })
    .expect("an error of strings always serializes");
    let mut reply = json(status, Bytes::from(body));
    reply.header(header::CACHE_CONTROL, "no-store");
    reply
}

/// Answers one request and logs it.
async fn handle(request: Request<Incoming>, shared: &Shared) -> Response<Full<Bytes>> {
    let started = Instant::now();
    // The head only: no request of this API has a body worth reading.
    let (request, _) = request.into_parts();
    let Answered { reply, caller } = route(&request, shared).await;
    let (key, org) = caller.unzip();
    (shared.log)(Event::Request {
        method: logged_method(&request.method).to_string(),
        path: logged_path(request.uri.path()).to_string(),
        status: reply.status.as_u16(),
        duration_ms: (started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
        key,
        org,
    });
    reply.into_response(&request.method)
}

/// The method as logged: a client may send any token as a method, so only the standard
/// ones are written; the rest read `other`.
fn logged_method(method: &Method) -> &'static str {
    const STANDARD: [Method; 9] = [
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::PATCH,
        Method::OPTIONS,
        Method::CONNECT,
        Method::TRACE,
    ];
    STANDARD
        .iter()
        .find(|standard| *standard == method)
        .map_or("other", Method::as_str)
}

/// The path as logged: one the server answers, else `other`. A client may put anything in a
/// path, an API key included, and no key may reach a log line.
fn logged_path(path: &str) -> &'static str {
    if entry_id(path).is_some() {
        return ENTRY_PATH;
    }
    [listing::PATH, HEALTH_PATH]
        .into_iter()
        .find(|known| *known == path)
        .unwrap_or("other")
}

/// How the path of one entry is logged: its id is the client's to choose.
const ENTRY_PATH: &str = "/api/v1/changelogs/{id}";

/// The id of `/api/v1/changelogs/<id>`, percent-decoded: one non-empty segment.
fn entry_id(path: &str) -> Option<String> {
    let segment = path.strip_prefix(listing::PATH)?.strip_prefix('/')?;
    if segment.is_empty() || segment.contains('/') {
        return None;
    }
    // Bytes that are not UTF-8 name no entry either: the id stays one that matches none.
    Some(
        percent_encoding::percent_decode_str(segment)
            .decode_utf8_lossy()
            .into_owned(),
    )
}

/// Picks the answer: 404 and 405 before anything else.
async fn route(request: &Parts, shared: &Shared) -> Answered {
    let path = request.uri.path();
    let entry = entry_id(path);
    if path != listing::PATH && path != HEALTH_PATH && entry.is_none() {
        return error(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!(
                "there is nothing at this path; the listing is at {}",
                listing::PATH
            ),
            None,
        )
        .into();
    }
    if !matches!(request.method, Method::GET | Method::HEAD) {
        let mut reply = error(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            &format!("this path answers {ALLOW} only"),
            None,
        );
        reply.header(header::ALLOW, ALLOW);
        return reply.into();
    }
    if path == HEALTH_PATH {
        let body = format!(
            r#"{{"status":"ok","rate_limit":"{}"}}"#,
            shared.limits.mode()
        );
        let mut reply = json(StatusCode::OK, Bytes::from(body));
        reply.header(header::CACHE_CONTROL, "no-store");
        return reply.into();
    }
    changelogs(request, shared, entry.as_deref()).await
}

/// `GET /api/v1/changelogs`, or one entry of it (`entry`).
async fn changelogs(request: &Parts, shared: &Shared, entry: Option<&str>) -> Answered {
    let keys = shared.keys.load_full();
    let key = match auth::bearer(&request.headers)
        .and_then(|presented| auth::authenticate(&keys, presented).ok_or(Unauthorized::Unknown))
    {
        Ok(key) => key,
        Err(why) => {
            let (code, message) = match why {
                Unauthorized::Missing => (
                    "missing_api_key",
                    "this listing needs an API key: send `Authorization: Bearer <key>`",
                ),
                Unauthorized::Malformed => (
                    "invalid_authorization",
                    "the Authorization header must read `Bearer <key>`",
                ),
                Unauthorized::Unknown => ("invalid_api_key", "the API key is not valid"),
            };
            let mut reply = error(StatusCode::UNAUTHORIZED, code, message, None);
            reply.header(header::WWW_AUTHENTICATE, "Bearer");
            return reply.into();
        }
    };
    Answered {
        reply: answer(request, shared, key, entry).await,
        caller: Some((key.name.clone(), key.org.clone())),
    }
}

/// The listing, or the entry `entry`, for a recognized key: query, rate, then the page.
async fn answer(request: &Parts, shared: &Shared, key: &ApiKey, entry: Option<&str>) -> Reply {
    let query = match entry {
        Some(_) => None,
        None => match listing::parse_query(request.uri.query()) {
            Ok(query) => Some(query),
            Err(bad) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "invalid_parameter",
                    &bad.message,
                    Some(bad.param),
                )
            }
        },
    };
    if let Err(wait) = shared.limits.check(key).await {
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        let seconds = seconds.max(1);
        let mut reply = error(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            &format!(
                "this key may make {} requests per minute; try again in {seconds} s",
                key.rate_limit_per_minute
            ),
            None,
        );
        reply.header(header::RETRY_AFTER, &seconds.to_string());
        return reply;
    }
    let snapshot = shared.content.load();
    let page = match (query, entry) {
        (Some(query), _) => snapshot.page(&key.org, query, Utc::now()),
        (None, id) => match snapshot.entry(&key.org, id.unwrap_or_default(), Utc::now()) {
            Some(page) => page,
            None => {
                return error(
                    StatusCode::NOT_FOUND,
                    "entry_not_found",
                    "this key's organization has no published entry with this id",
                    None,
                )
            }
        },
    };
    let values = |name| {
        request
            .headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
    };
    let encoding = encoding::negotiate(values(header::ACCEPT_ENCODING));
    let (body, etag) = page.body.get(encoding);
    let mut reply = if listing::none_match(values(header::IF_NONE_MATCH), &etag) {
        Reply::empty(StatusCode::NOT_MODIFIED)
    } else {
        json(StatusCode::OK, body)
    };
    let headers = &mut reply.headers;
    headers.insert(header::ETAG, etag);
    if let Some(coding) = encoding.header() {
        headers.insert(header::CONTENT_ENCODING, coding);
    }
    if let Some(link) = &page.link {
        headers.insert(header::LINK, link.clone());
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    headers.insert(
        header::VARY,
        HeaderValue::from_static("Accept-Encoding, Authorization"),
    );
    reply
}
