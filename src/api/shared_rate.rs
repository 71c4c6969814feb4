//! Rate limits shared by every copy of the server (SPEC section 8): each key's count lives in
//! Redis (or Valkey), checked and counted by one script call per request, so that copies
//! behind a load balancer hold a key to one limit between them.
//!
//! Redis is never in the way: a call that fails or takes longer than [`CALL_TIMEOUT`] is
//! counted by the copy's own limiter instead, and the copy stops asking Redis until a
//! background probe finds it answering again (within [`PROBE_EVERY`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use arc_swap::ArcSwapOption;
use redis::aio::MultiplexedConnection;
use sha2::{Digest, Sha256};

use super::rate::RateLimiter;
use super::{Event, Logger};
use crate::error::{Error, Result};
use crate::keys::ApiKey;

/// The longest a request waits for Redis before it is counted locally: a round trip on a
/// network of one data centre takes well under a millisecond.
pub const CALL_TIMEOUT: Duration = Duration::from_millis(50);
/// How often a copy counting locally checks whether Redis answers again.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);
/// The longest a probe waits to connect and for `PING`.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);
/// At most one "Redis is unreachable" line per this long.
const WARN_EVERY: Duration = Duration::from_secs(60);

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

/// How requests are counted: by this copy alone, or with the others through Redis.
pub struct Limits {
    local: RateLimiter,
    redis: Option<Arc<Redis>>,
}

/// The Redis side of [`Limits`].
struct Redis {
    client: redis::Client,
    script: redis::Script,
    /// The connection in use; none while Redis is unreachable.
    connection: ArcSwapOption<MultiplexedConnection>,
    /// `host:port`, for log lines (a URL may hold a password).
    place: String,
    /// When "unreachable" was last logged.
    warned: Mutex<Option<Instant>>,
    /// Whether "unreachable" was logged since Redis last answered.
    reported: AtomicBool,
    log: Logger,
}

impl Limits {
    /// Limits counted by this copy alone.
    pub fn local() -> Self {
        Limits {
            local: RateLimiter::new(),
            redis: None,
        }
    }

    /// Limits shared through the Redis at `url` (`redis://`, `rediss://` or `unix://`). A
    /// URL that does not parse is an [`Error::Usage`]; a Redis that does not answer is not
    /// an error: the copy counts locally until it does. Probing runs on the current Tokio
    /// runtime until the process ends.
    pub fn shared(url: &str, log: Logger) -> Result<Self> {
        let client = redis::Client::open(url)
            .map_err(|e| Error::Usage(format!("--redis: not a Redis URL ({})", e.category())))?;
        let info = client.get_connection_info();
        let place = match info.addr() {
            redis::ConnectionAddr::Tcp(host, port)
            | redis::ConnectionAddr::TcpTls { host, port, .. } => {
                format!("{host}:{port}")
            }
            other => other.to_string(),
        };
        let redis = Arc::new(Redis {
            client,
            script: redis::Script::new(SCRIPT),
            connection: ArcSwapOption::empty(),
            place,
            warned: Mutex::new(None),
            reported: AtomicBool::new(false),
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
            if let Some(connection) = redis.connection.load_full() {
                match redis.check(&connection, key).await {
                    Ok(answer) => return answer,
                    Err(why) => redis.lost(&connection, &why),
                }
            }
        }
        self.local.check(key, Instant::now())
    }
}

impl Redis {
    /// One script call, bounded by [`CALL_TIMEOUT`].
    async fn check(
        &self,
        connection: &MultiplexedConnection,
        key: &ApiKey,
    ) -> std::result::Result<std::result::Result<(), Duration>, String> {
        let limit = key.rate_limit_per_minute.max(1);
        let interval = Duration::from_secs(60) / limit;
        let tolerance = Duration::from_secs(60).saturating_sub(interval);
        let mut connection = connection.clone();
        let mut call = self.script.key(counter_name(key));
        call.arg(interval.as_micros() as u64)
            .arg(tolerance.as_micros() as u64);
        let wait: u64 = tokio::time::timeout(CALL_TIMEOUT, call.invoke_async(&mut connection))
            .await
            .map_err(|_| format!("no answer within {} ms", CALL_TIMEOUT.as_millis()))?
            .map_err(|e| e.to_string())?;
        Ok(match wait {
            0 => Ok(()),
            micros => Err(Duration::from_micros(micros)),
        })
    }

    /// Stops using `connection` (unless another request already replaced it) and logs why,
    /// at most once every [`WARN_EVERY`].
    fn lost(&self, connection: &Arc<MultiplexedConnection>, why: &str) {
        let current = self.connection.load();
        if !current.as_ref().is_some_and(|c| Arc::ptr_eq(c, connection)) {
            return;
        }
        self.connection.store(None);
        self.warn(why);
    }

    fn warn(&self, why: &str) {
        let mut warned = self.warned.lock().unwrap_or_else(PoisonError::into_inner);
        if warned.is_some_and(|at| at.elapsed() < WARN_EVERY) {
            return;
        }
        *warned = Some(Instant::now());
        self.reported.store(true, Ordering::Relaxed);
        (self.log)(Event::RateLimit {
            counting: "local",
            message: format!(
                "Redis at {} is unreachable ({}): each copy counts its own requests until it answers again",
                self.place,
                crate::text::printable(why)
            ),
        });
    }

    /// A new connection that answers `PING`.
    async fn connect(&self) -> std::result::Result<MultiplexedConnection, String> {
        let attempt = async {
            let mut connection = self
                .client
                .get_multiplexed_async_connection()
                .await
                .map_err(|e| e.to_string())?;
            redis::cmd("PING")
                .query_async::<()>(&mut connection)
                .await
                .map_err(|e| e.to_string())?;
            Ok(connection)
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
                Ok(connection) => {
                    redis.connection.store(Some(Arc::new(connection)));
                    if redis.reported.swap(false, Ordering::Relaxed) {
                        (redis.log)(Event::RateLimit {
                            counting: "redis",
                            message: format!(
                                "Redis at {} answers again: requests are counted across copies",
                                redis.place
                            ),
                        });
                    }
                }
                Err(why) => redis.warn(&why),
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
