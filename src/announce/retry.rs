//! When a delivery is tried again (SPEC section 6): after a network error, a 429 (waiting
//! what its `Retry-After` asks) or a 5xx, with a doubling wait between tries; never after
//! another 4xx or a TLS failure, which the same request would only meet again.

use std::time::Duration;

/// How one try of a delivery ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Try {
    /// The receiver took it.
    Arrived,
    /// Worth another try, after `wait` if the receiver asked for one.
    Again {
        /// Why this try failed.
        why: String,
        /// The receiver's `Retry-After`.
        wait: Option<Duration>,
    },
    /// No other try would do better.
    Refused(String),
}

/// How many tries a delivery gets and how long it waits between them.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// Tries in all, the first one included.
    pub tries: u32,
    /// The wait after the first failed try; each next wait doubles it.
    pub backoff: Duration,
    /// The longest wait, `Retry-After` included: a receiver asking for an hour would
    /// hold the run (and the CI job) that long.
    pub longest_wait: Duration,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            tries: 4,
            backoff: Duration::from_secs(1),
            longest_wait: Duration::from_secs(60),
        }
    }
}

/// A delivery's end: arrived after `tries` tries, or failed with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Whether it arrived.
    pub arrived: bool,
    /// Tries made.
    pub tries: u32,
    /// Why the last try failed, when it did.
    pub why: Option<String>,
}

impl Policy {
    /// Runs `attempt` until it arrives, is refused or runs out of tries; `waiting` hears of
    /// each wait before it is slept, with the try that failed and why.
    pub fn run(
        &self,
        mut attempt: impl FnMut() -> Try,
        waiting: &mut dyn FnMut(u32, &str, Duration),
        sleep: &mut dyn FnMut(Duration),
    ) -> Outcome {
        let mut backoff = self.backoff;
        for number in 1..=self.tries.max(1) {
            match attempt() {
                Try::Arrived => {
                    return Outcome {
                        arrived: true,
                        tries: number,
                        why: None,
                    }
                }
                Try::Refused(why) => {
                    return Outcome {
                        arrived: false,
                        tries: number,
                        why: Some(why),
                    }
                }
                Try::Again { why, wait } => {
                    if number == self.tries.max(1) {
                        return Outcome {
                            arrived: false,
                            tries: number,
                            why: Some(why),
                        };
                    }
                    let wait = wait.unwrap_or(backoff).min(self.longest_wait);
                    waiting(number, &why, wait);
                    sleep(wait);
                    backoff = backoff.saturating_mul(2);
                }
            }
        }
        unreachable!("the last try returns")
    }
}

/// The wait a `Retry-After` header asks for: seconds, or an HTTP date (`now` is the time it
/// is measured from, as seconds since 1970).
pub fn retry_after(value: &str, now: i64) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Too many digits for a number: as long as it gets (the policy cuts it).
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    Some(Duration::from_secs(
        u64::try_from(date.timestamp() - now).unwrap_or(0),
    ))
}

/// How an HTTP status ends a try.
pub fn by_status(status: u16, retry_after_header: Option<&str>, now: i64) -> Try {
    match status {
        200..=299 => Try::Arrived,
        429 => Try::Again {
            why: "429 Too Many Requests".to_string(),
            wait: retry_after_header.and_then(|value| retry_after(value, now)),
        },
        500..=599 => Try::Again {
            why: format!("HTTP {status}"),
            wait: retry_after_header.and_then(|value| retry_after(value, now)),
        },
        _ => Try::Refused(format!("HTTP {status}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(policy: &Policy, tries: Vec<Try>) -> (Outcome, Vec<Duration>) {
        let mut tries = tries.into_iter();
        let mut slept = Vec::new();
        let outcome = policy.run(|| tries.next().unwrap(), &mut |_, _, _| {}, &mut |wait| {
            slept.push(wait)
        });
        (outcome, slept)
    }

    #[test]
    fn waits_double_and_retry_after_is_honoured_up_to_the_longest_wait() {
        let policy = Policy::default();
        let again = |wait| Try::Again {
            why: "x".into(),
            wait,
        };
        let (outcome, slept) = run(
            &policy,
            vec![
                again(None),
                again(Some(Duration::from_secs(2))),
                again(Some(Duration::from_secs(3600))),
                Try::Arrived,
            ],
        );
        assert_eq!((outcome.arrived, outcome.tries), (true, 4));
        assert_eq!(
            slept,
            [1, 2, 60].map(Duration::from_secs).to_vec(),
            "backoff 1 s, then Retry-After 2 s, then an hour cut to a minute"
        );
        let (outcome, slept) = run(&policy, vec![Try::Refused("HTTP 404".into())]);
        assert_eq!((outcome.arrived, outcome.tries, slept.len()), (false, 1, 0));
        let (outcome, _) = run(&policy, (0..4).map(|_| again(None)).collect());
        assert_eq!((outcome.arrived, outcome.tries), (false, 4));
    }

    #[test]
    fn statuses_and_retry_after_forms() {
        assert_eq!(by_status(204, None, 0), Try::Arrived);
        assert!(matches!(by_status(404, None, 0), Try::Refused(_)));
        assert!(matches!(
            by_status(429, Some("2"), 0),
            Try::Again { wait: Some(w), .. } if w == Duration::from_secs(2)
        ));
        assert!(matches!(
            by_status(503, None, 0),
            Try::Again { wait: None, .. }
        ));
        let now = chrono::DateTime::parse_from_rfc2822("Wed, 25 Nov 2026 10:00:00 GMT")
            .unwrap()
            .timestamp();
        assert_eq!(
            retry_after("Wed, 25 Nov 2026 10:00:05 GMT", now),
            Some(Duration::from_secs(5))
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(
            retry_after("99999999999999999999", now),
            Some(Duration::from_secs(u64::MAX))
        );
    }
}
