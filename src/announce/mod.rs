//! `shiplog announce` (SPEC section 6): tells each org's channels of the entries published
//! since they last heard, each exactly once. The content index says what is published at
//! `now`; the [`State`] journal says what each channel already has; what is left is sent,
//! oldest first, and written to the journal as each delivery arrives.
//!
//! A channel's first run sends nothing: it takes the entries already published as known,
//! so that adding a channel never floods it with the whole history.

mod git;
mod message;
mod retry;
mod send;
mod state;

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};

use retry::Try;

use crate::content::{Channel, ChannelKind, Entry, EnvVar, Index, Org};
use crate::error::{Error, Problem, Result};

pub use git::StateBranch;
pub use retry::Policy;
pub use send::Resolved;
pub use state::{Record, State};

/// How a run goes.
pub struct Options {
    /// The time entries are published at (scheduled ones come due by it).
    pub now: DateTime<Utc>,
    /// Print what would be sent and send nothing.
    pub dry_run: bool,
    /// The longest one request may take.
    pub timeout: Duration,
    /// Tries and waits.
    pub policy: Policy,
    /// The content folder, where each org's `_org.yaml` is (for located problems).
    pub content: PathBuf,
}

/// What a run did, as it happens: one line each for the caller to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A channel's first run took `known` entries as already announced.
    FirstRun {
        /// The org's slug.
        org: String,
        /// The channel's name.
        channel: String,
        /// Entries taken as known.
        known: usize,
    },
    /// A delivery arrived (or, in a dry run, would be sent).
    Sent {
        /// The org's slug.
        org: String,
        /// The channel's name.
        channel: String,
        /// The entries it told of.
        entries: Vec<String>,
        /// Tries it took; 0 in a dry run.
        tries: u32,
        /// Where it went (no secret: the host, or the mail's recipients).
        to: String,
    },
    /// A try failed and another follows after `wait`.
    Retrying {
        /// The org's slug.
        org: String,
        /// The channel's name.
        channel: String,
        /// The try that failed.
        attempt: u32,
        /// Why.
        why: String,
        /// The wait before the next try.
        wait: Duration,
    },
    /// A delivery failed for good: a later run tries it again.
    Failed {
        /// The org's slug.
        org: String,
        /// The channel's name.
        channel: String,
        /// The entries it was to tell of.
        entries: Vec<String>,
        /// Why, with where it went.
        why: String,
    },
}

/// The counts of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Deliveries that arrived (or would be sent, in a dry run).
    pub sent: usize,
    /// Deliveries that failed.
    pub failed: usize,
    /// Entries taken as known by first runs.
    pub known: usize,
}

/// One delivery to make: a channel and the entries it tells of (several only in a digest
/// or a WebSub ping, which tells of the feeds).
struct Delivery<'a> {
    org: &'a Org,
    channel: &'a Channel,
    resolved: Resolved,
    entries: Vec<&'a Entry>,
}

/// Announces what is due for every org of `index`, reading secrets through `env`.
pub fn run(
    index: &Index,
    state: &mut State,
    env: &dyn Fn(&str) -> Option<String>,
    options: &Options,
    report: &mut dyn FnMut(Event),
) -> Result<Summary> {
    let resolved = resolve_all(index, env, &options.content)?;
    let mut summary = Summary::default();
    let deliveries = plan(resolved, state, options, &mut summary, report)?;
    let sender = send::Sender::new(options.timeout)?;
    // Names this run's tries in the journal, apart from any other run's.
    let run_id = format!(
        "{}-{}",
        Utc::now().timestamp_nanos_opt().unwrap_or_default(),
        std::process::id()
    );
    for delivery in deliveries {
        let to = delivery.resolved.destination();
        let sent = |tries| Event::Sent {
            org: delivery.org.slug.clone(),
            channel: delivery.channel.name.clone(),
            entries: delivery.entries.iter().map(|e| e.id.clone()).collect(),
            tries,
            to: to.clone(),
        };
        if options.dry_run {
            summary.sent += 1;
            report(sent(0));
            continue;
        }
        let mut number = 0;
        let outcome = options.policy.run(
            || {
                number += 1;
                try_once(&sender, &delivery, state, &format!("{run_id}.{number}"))
            },
            &mut |attempt, why, wait| {
                report(Event::Retrying {
                    org: delivery.org.slug.clone(),
                    channel: delivery.channel.name.clone(),
                    attempt,
                    why: why.to_string(),
                    wait,
                })
            },
            &mut std::thread::sleep,
        );
        if outcome.arrived {
            // Written before anything else happens: a run killed after this line knows it.
            state.append(delivery.records("sent", None))?;
            summary.sent += 1;
            report(sent(outcome.tries));
        } else {
            summary.failed += 1;
            let why = outcome.why.unwrap_or_default();
            let tries = if outcome.tries == 1 { "try" } else { "tries" };
            report(Event::Failed {
                org: delivery.org.slug.clone(),
                channel: delivery.channel.name.clone(),
                entries: delivery.entries.iter().map(|e| e.id.clone()).collect(),
                why: format!("{to}: {why} (after {} {tries})", outcome.tries),
            });
        }
    }
    Ok(summary)
}

/// The deliveries due: for each channel, the published entries it has not heard of, oldest
/// first (one delivery each, or all in one for a digest or a WebSub ping). A channel's first
/// run is written to the journal here (unless `dry_run`) and delivers nothing.
fn plan<'a>(
    resolved: Vec<(&'a Org, &'a Channel, Resolved)>,
    state: &mut State,
    options: &Options,
    summary: &mut Summary,
    report: &mut dyn FnMut(Event),
) -> Result<Vec<Delivery<'a>>> {
    let mut deliveries = Vec::new();
    for (org, channel, resolved) in resolved {
        let published: Vec<&Entry> = org.published(options.now).iter().rev().collect();
        if !state.started(&org.slug, &channel.name) {
            summary.known += published.len();
            if !options.dry_run {
                let mut records = vec![record(org, channel, None, "start")];
                records.extend(
                    published
                        .iter()
                        .map(|e| record(org, channel, Some(e), "known")),
                );
                state.append(records)?;
            }
            report(Event::FirstRun {
                org: org.slug.clone(),
                channel: channel.name.clone(),
                known: published.len(),
            });
            continue;
        }
        let due: Vec<&Entry> = published
            .into_iter()
            .filter(|entry| !state.announced(&org.slug, &channel.name, &entry.id))
            .collect();
        let together = matches!(
            channel.kind,
            ChannelKind::WebSub { .. } | ChannelKind::Email { digest: true, .. }
        );
        let groups: Vec<Vec<&Entry>> = if together && !due.is_empty() {
            vec![due]
        } else {
            due.into_iter().map(|entry| vec![entry]).collect()
        };
        deliveries.extend(groups.into_iter().map(|entries| Delivery {
            org,
            channel,
            resolved: resolved.clone(),
            entries,
        }));
    }
    Ok(deliveries)
}

/// One try of `delivery`. An HTTP try writes `handed` lines to the journal just before its
/// last byte goes out, and `failed` lines when it then fails, so that a run killed in
/// between never sends again what the receiver may have.
fn try_once(
    sender: &send::Sender,
    delivery: &Delivery<'_>,
    state: &mut State,
    attempt: &str,
) -> Try {
    let mut handed = false;
    let result = sender.send(
        delivery.org,
        &delivery.resolved,
        &delivery.entries,
        &mut || {
            handed = true;
            state
                .append_now(delivery.records("handed", Some(attempt)))
                .map_err(std::io::Error::other)
        },
    );
    if handed && result != Try::Arrived {
        // Seen to fail: the next try, or run, sends it again.
        if let Err(error) = state.append(delivery.records("failed", Some(attempt))) {
            return Try::Refused(error.to_string());
        }
    }
    result
}

impl Delivery<'_> {
    /// A journal line for each of its entries.
    fn records(&self, how: &str, attempt: Option<&str>) -> Vec<Record> {
        self.entries
            .iter()
            .map(|entry| Record {
                attempt: attempt.map(str::to_string),
                ..record(self.org, self.channel, Some(entry), how)
            })
            .collect()
    }
}

fn record(org: &Org, channel: &Channel, entry: Option<&&Entry>, how: &str) -> Record {
    Record::new(&org.slug, &channel.name, entry.map(|e| e.id.as_str()), how)
}

/// Every channel of every org with its secrets read: a variable that is not set, or an
/// address the channel may not use, is a problem at the setting that names it; all of them
/// are reported at once.
fn resolve_all<'a>(
    index: &'a Index,
    env: &dyn Fn(&str) -> Option<String>,
    content: &Path,
) -> Result<Vec<(&'a Org, &'a Channel, Resolved)>> {
    let mut problems = Vec::new();
    let mut resolved = Vec::new();
    for org in index.orgs() {
        let path = content.join(&org.slug).join("_org.yaml");
        for channel in &org.settings.channels {
            let mut missing = Vec::new();
            let mut read = |var: &EnvVar| -> Option<String> {
                match env(&var.name) {
                    Some(value) if !value.trim().is_empty() => Some(value),
                    _ => {
                        missing.push(Problem::new(
                            &path,
                            var.line,
                            var.column,
                            format!(
                                "`{}`: the environment variable {} is not set (set it in CI's secrets)",
                                var.key, var.name
                            ),
                        ));
                        None
                    }
                }
            };
            let outcome = send::resolve(channel, &mut read);
            problems.append(&mut missing);
            match outcome {
                Ok(Some(channel_resolved)) => resolved.push((org, channel, channel_resolved)),
                Ok(None) => {}
                Err((var, message)) => {
                    problems.push(Problem::new(&path, var.line, var.column, message))
                }
            }
        }
    }
    Error::check(problems)?;
    Ok(resolved)
}
