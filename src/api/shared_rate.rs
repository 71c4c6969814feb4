//! Rate limits shared by every copy of the server (SPEC section 8): each key's count lives in
//! Redis (or Valkey), checked and counted by one script call per request, so that copies
//! behind a load balancer hold a key to one limit between them.
//!
//! Redis is never in the way: a call that fails or takes longer than [`CALL_TIMEOUT`] is
//! counted by the copy's own limiter instead, and the copy stops asking Redis until a
//! background probe finds it running the script again (within [`PROBE_EVERY`]).

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use arc_swap::ArcSwapOption;
use redis::aio::MultiplexedConnection;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::rate::RateLimiter;
use super::{Event, Logger};
use crate::error::{Error, Result};
use crate::keys::ApiKey;

/// The longest a request waits for Redis before it is counted locally: a round trip on a
/// network of one data centre takes well under a millisecond.
const CALL_TIMEOUT: Duration = Duration::from_millis(50);
/// How often a copy counting locally checks whether Redis answers again.
const PROBE_EVERY: Duration = Duration::from_secs(1);
/// The longest a probe waits to connect and for its script call.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);
/// At most one "Redis is unreachable" line per this long.
const WARN_EVERY: Duration = Duration::from_secs(60);
/// How many bytes Redis may send beyond what it was sent: every answer of ours is far
/// shorter than its question, so a Redis (or whatever stands at its address) that streams
/// more is cut off rather than let fill the memory.
const READ_SLACK: u64 = 64 << 10;
/// The most characters of a Redis error a log line carries.
const MAX_WHY: usize = 200;

/// GCRA, the local limiter's rule, on Redis's clock: `KEYS[1]` holds the key's theoretical
/// arrival time in microseconds; `ARGV` are the interval between requests and the burst
/// tolerance, in microseconds. Answers 0 when the request is counted, else the microseconds
/// to wait.
const SCRIPT: &str = r"
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local due = tonumber(redis.call('GET', KEYS[1]) or now)
if due < now then due = now end
local ahead = due - now
local tolerance = tonumber(ARGV[2])
if ahead > tolerance then return ahead - tolerance end
local next_due = due + tonumber(ARGV[1])
redis.call('SET', KEYS[1], next_due, 'PX', math.ceil((next_due - now) / 1000) + 1000)
return 0
";

/// The key a probe runs the script on.
const PROBE_COUNTER: &str = "shiplog:rate:probe";

/// How requests are counted: by this copy alone, or with the others through Redis.
pub struct Limits {
    local: RateLimiter,
    redis: Option<Arc<Redis>>,
}

/// The Redis side of [`Limits`].
struct Redis {
    info: redis::ConnectionInfo,
    script: redis::Script,
    /// The connection in use; none while Redis does not answer.
    connection: ArcSwapOption<Connected>,
    /// `host:port`, for log lines (a URL may hold a password).
    place: String,
    report: Mutex<Report>,
    log: Logger,
}

/// A connection and the task that drives it, stopped with it.
struct Connected {
    connection: MultiplexedConnection,
    driver: tokio::task::AbortHandle,
}

impl Drop for Connected {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

/// What the logs last said about counting, so that they never go on saying `redis` while
/// the copy counts locally, and say `local` at most once a minute.
#[derive(Default)]
struct Report {
    /// Whether the last `rate_limit` line said `local`.
    said_local: bool,
    /// When `local` was last said.
    local_at: Option<Instant>,
}

impl Limits {
    /// Limits counted by this copy alone.
    pub fn local() -> Self {
        Limits {
            local: RateLimiter::new(),
            redis: None,
        }
    }

    /// Limits shared through the Redis at `url` (`redis://` or `unix://`). A URL that does
    /// not parse is an [`Error::Usage`]; a Redis that does not answer is not an error: the
    /// copy counts locally until it does. Probing runs on the current Tokio runtime while
    /// the limits live.
    pub fn shared(url: &str, log: Logger) -> Result<Self> {
        let info = redis::IntoConnectionInfo::into_connection_info(url).map_err(|e| {
            Error::Usage(format!(
                "--redis: not a Redis URL like `redis://[:PASSWORD@]HOST[:PORT][/DB]` ({})",
                e.category()
            ))
        })?;
        let place = match info.addr() {
            redis::ConnectionAddr::Tcp(host, port) => format!("{host}:{port}"),
            redis::ConnectionAddr::Unix(path) => path.display().to_string(),
            _ => {
                return Err(Error::Usage(
                    "--redis: TLS (`rediss://`) is not supported; reach Redis over a private network or a local tunnel"
                        .to_string(),
                ))
            }
        };
        let redis = Arc::new(Redis {
            info,
            script: redis::Script::new(SCRIPT),
            connection: ArcSwapOption::empty(),
            place,
            report: Mutex::new(Report::default()),
            log,
        });
        tokio::spawn(probe(Arc::downgrade(&redis)));
        Ok(Limits {
            local: RateLimiter::new(),
            redis: Some(redis),
        })
    }

    /// `redis` while counts are shared, `local` while this copy counts alone.
    pub fn mode(&self) -> &'static str {
        match &self.redis {
            Some(redis) if redis.connection.load().is_some() => "redis",
            _ => "local",
        }
    }

    /// Counts one request of `key`, or says how long to wait when over the limit.
    pub async fn check(&self, key: &ApiKey) -> std::result::Result<(), Duration> {
        if let Some(redis) = &self.redis {
            if let Some(connected) = redis.connection.load_full() {
                let limit = key.rate_limit_per_minute;
                match redis
                    .call(&connected, &counter_name(key), limit, CALL_TIMEOUT)
                    .await
                {
                    Ok(answer) => return answer,
                    Err(why) => redis.lost(&connected, &why),
                }
            }
        }
        self.local.check(key, Instant::now())
    }
}

impl Redis {
    /// One script call on `counter` for a limit of `limit` a minute, bounded by `timeout`.
    async fn call(
        &self,
        connected: &Connected,
        counter: &str,
        limit: u32,
        timeout: Duration,
    ) -> std::result::Result<std::result::Result<(), Duration>, String> {
        let interval = Duration::from_secs(60) / limit.max(1);
        let tolerance = Duration::from_secs(60).saturating_sub(interval);
        let mut connection = connected.connection.clone();
        let mut call = self.script.key(counter);
        call.arg(interval.as_micros() as u64)
            .arg(tolerance.as_micros() as u64);
        let wait: u64 = tokio::time::timeout(timeout, call.invoke_async(&mut connection))
            .await
            .map_err(|_| format!("no answer within {} ms", timeout.as_millis()))?
            .map_err(|e| e.to_string())?;
        Ok(match wait {
            0 => Ok(()),
            micros => Err(Duration::from_micros(micros)),
        })
    }

    /// Stops using `connected` (unless another request already replaced it) and says so.
    fn lost(&self, connected: &Arc<Connected>, why: &str) {
        let current = self.connection.load();
        if !current.as_ref().is_some_and(|c| Arc::ptr_eq(c, connected)) {
            return;
        }
        self.connection.store(None);
        self.say_local(why);
    }

    /// Logs that the copy counts locally, unless the logs say so already or said so less
    /// than [`WARN_EVERY`] ago (then the probe says it once the minute is up).
    fn say_local(&self, why: &str) {
        let mut report = self.report.lock().unwrap_or_else(PoisonError::into_inner);
        if report.said_local || report.local_at.is_some_and(|at| at.elapsed() < WARN_EVERY) {
            return;
        }
        report.said_local = true;
        report.local_at = Some(Instant::now());
        let why: String = crate::text::printable(why).chars().take(MAX_WHY).collect();
        (self.log)(Event::RateLimit {
            counting: "local",
            message: format!(
                "Redis at {} does not answer ({why}): each copy counts its own requests until it does",
                self.place
            ),
        });
    }

    /// Logs that counting is shared again, if the logs last said it was not.
    fn say_shared(&self) {
        let mut report = self.report.lock().unwrap_or_else(PoisonError::into_inner);
        if !std::mem::take(&mut report.said_local) {
            return;
        }
        (self.log)(Event::RateLimit {
            counting: "redis",
            message: format!(
                "Redis at {} answers again: requests are counted across copies",
                self.place
            ),
        });
    }

    /// A new connection on which the script runs (a Redis that answers `PING` but cannot
    /// write, a read-only replica say, does not count).
    async fn connect(&self) -> std::result::Result<Connected, String> {
        let attempt = async {
            let stream = Fenced::connect(self.info.addr())
                .await
                .map_err(|e| e.to_string())?;
            let (connection, driver) = MultiplexedConnection::new_with_config(
                self.info.redis_settings(),
                stream,
                redis::AsyncConnectionConfig::default(),
            )
            .await
            .map_err(|e| e.to_string())?;
            let connected = Connected {
                connection,
                driver: tokio::spawn(driver).abort_handle(),
            };
            // Counted or told to wait: either way the script ran.
            let _ = self
                .call(&connected, PROBE_COUNTER, 1, PROBE_TIMEOUT)
                .await?;
            Ok(connected)
        };
        tokio::time::timeout(PROBE_TIMEOUT, attempt)
            .await
            .map_err(|_| format!("no answer within {} s", PROBE_TIMEOUT.as_secs()))?
    }
}

/// While counting locally, tries Redis every [`PROBE_EVERY`]; ends when the limits are
/// dropped.
async fn probe(redis: std::sync::Weak<Redis>) {
    loop {
        let Some(redis) = redis.upgrade() else { return };
        if redis.connection.load().is_none() {
            match redis.connect().await {
                Ok(connected) => {
                    redis.connection.store(Some(Arc::new(connected)));
                    redis.say_shared();
                }
                Err(why) => redis.say_local(&why),
            }
        }
        drop(redis);
        tokio::time::sleep(PROBE_EVERY).await;
    }
}

/// The Redis key of `key`'s count: a digest of its digest, so that what Redis holds is of
/// no use against the keys file.
fn counter_name(key: &ApiKey) -> String {
    let digest = Sha256::new()
        .chain_update(b"shiplog rate limit\0")
        .chain_update(key.digest)
        .finalize();
    format!("shiplog:rate:{}", crate::digest::hex(&digest[..16]))
}

/// A socket to Redis that fails once Redis has sent [`READ_SLACK`] bytes more than it was
/// sent.
struct Fenced {
    stream: Pin<Box<dyn Stream>>,
    sent: u64,
    received: u64,
}

/// What a connection to Redis reads and writes through.
trait Stream: AsyncRead + AsyncWrite + Send {}
impl<S: AsyncRead + AsyncWrite + Send> Stream for S {}

impl Fenced {
    async fn connect(addr: &redis::ConnectionAddr) -> std::io::Result<Fenced> {
        let stream: Pin<Box<dyn Stream>> = match addr {
            redis::ConnectionAddr::Tcp(host, port) => {
                let stream = tokio::net::TcpStream::connect((host.as_str(), *port)).await?;
                stream.set_nodelay(true)?;
                Box::pin(stream)
            }
            redis::ConnectionAddr::Unix(path) => {
                Box::pin(tokio::net::UnixStream::connect(path).await?)
            }
            _ => {
                return Err(std::io::Error::other(
                    "this kind of Redis address is not supported",
                ))
            }
        };
        Ok(Fenced {
            stream,
            sent: 0,
            received: 0,
        })
    }
}

impl AsyncRead for Fenced {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = self.stream.as_mut().poll_read(cx, buf);
        self.received += (buf.filled().len() - before) as u64;
        if self.received > self.sent + READ_SLACK {
            return Poll::Ready(Err(std::io::Error::other(
                "Redis sent far more than it was asked for",
            )));
        }
        polled
    }
}

impl AsyncWrite for Fenced {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = self.stream.as_mut().poll_write(cx, buf);
        if let Poll::Ready(Ok(written)) = polled {
            self.sent += written as u64;
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.stream.as_mut().poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.stream.as_mut().poll_shutdown(cx)
    }
}
