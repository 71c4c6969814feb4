//! The per-key rate limit of the API.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::keys::{ApiKey, KeyDigest};

/// Counts requests per key: each key has a bucket of `rate_limit_per_minute` requests that
/// refills continuously at that many per minute (GCRA). Counts live in this process only.
#[derive(Debug, Default)]
pub struct RateLimiter {
    /// Per key digest: the theoretical arrival time of the next request.
    next_due: Mutex<HashMap<KeyDigest, Instant>>,
}

impl RateLimiter {
    /// A limiter with no requests counted.
    pub fn new() -> Self {
        RateLimiter::default()
    }

    /// Counts one request of `key` at `now`, or says how long to wait when over the limit.
    pub fn check(&self, key: &ApiKey, now: Instant) -> std::result::Result<(), Duration> {
        let limit = key.rate_limit_per_minute.max(1);
        let interval = Duration::from_secs(60) / limit;
        let tolerance = Duration::from_secs(60).saturating_sub(interval);
        let mut next_due = self
            .next_due
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let due = next_due.entry(key.digest).or_insert(now);
        let start = (*due).max(now);
        let ahead = start - now;
        if ahead > tolerance {
            return Err(ahead - tolerance);
        }
        *due = start + interval;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limit_allows_a_burst_then_the_rate() {
        let key = ApiKey {
            name: "k".into(),
            org: "acme".into(),
            rate_limit_per_minute: 3,
            digest: [7; 32],
        };
        let limiter = RateLimiter::new();
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.check(&key, t0).is_ok());
        }
        let wait = limiter.check(&key, t0).unwrap_err();
        assert_eq!(wait, Duration::from_secs(20));
        assert!(limiter.check(&key, t0 + Duration::from_secs(19)).is_err());
        assert!(limiter.check(&key, t0 + Duration::from_secs(20)).is_ok());
        assert!(limiter.check(&key, t0 + Duration::from_secs(20)).is_err());
    }
}
