//! The `announce:` list of `_org.yaml` (SPEC section 6): which channels hear of an org's new
//! entries, as settings only. Secrets are never here: a channel names the environment
//! variables that hold them, and `shiplog announce` reads those when it runs.

use crate::error::Problem;
use crate::yaml::Mapping;

/// The channel types, as `type:` names them.
pub const TYPES: &[&str] = &["webhook", "slack", "discord", "websub", "email"];

/// Keys that would hold a secret in git, with the key to write instead.
const LITERAL_SECRETS: &[(&str, &str)] = &[
    ("url", "url_env"),
    ("webhook_url", "url_env"),
    ("secret", "secret_env"),
    ("smtp_url", "smtp_url_env"),
    ("password", "smtp_url_env"),
    ("token", "url_env"),
];

/// One channel of an org.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    /// Its name in the org, `name:` or else its type: what the delivery state and the
    /// messages call it.
    pub name: String,
    /// What it is and where it sends.
    pub kind: ChannelKind,
    /// Whether `http://` (or SMTP without TLS) is allowed, for a receiver on a private
    /// network or in a test.
    pub allow_insecure: bool,
}

/// A channel's type and its settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChannelKind {
    /// A signed POST per entry (Standard Webhooks).
    Webhook {
        /// The receiver's address.
        url: EnvVar,
        /// The signing secret, `whsec_` and base64.
        secret: EnvVar,
    },
    /// A Slack incoming webhook.
    Slack {
        /// The webhook's address.
        url: EnvVar,
    },
    /// A Discord webhook.
    Discord {
        /// The webhook's address.
        url: EnvVar,
    },
    /// A publish ping to a WebSub hub; the feeds name the hub.
    WebSub {
        /// The hub's address: public, so written as it is.
        hub: String,
    },
    /// Mail over SMTP.
    Email {
        /// `smtp://user:password@host:587` (STARTTLS) or `smtps://…:465`.
        smtp_url: EnvVar,
        /// The sender, like `Acme <updates@acme.example>`.
        from: String,
        /// The recipients.
        to: Vec<String>,
        /// One message for all of a run's entries rather than one per entry.
        digest: bool,
    },
}

/// An environment variable a setting names, with where the name is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvVar {
    /// The variable's name.
    pub name: String,
    /// The key that names it, like `url_env`.
    pub key: &'static str,
    /// Where the name is written in `_org.yaml` (1-based).
    pub line: usize,
    /// The column of the name.
    pub column: usize,
}

impl ChannelKind {
    /// The `type:` that gives this kind.
    pub fn type_name(&self) -> &'static str {
        match self {
            ChannelKind::Webhook { .. } => "webhook",
            ChannelKind::Slack { .. } => "slack",
            ChannelKind::Discord { .. } => "discord",
            ChannelKind::WebSub { .. } => "websub",
            ChannelKind::Email { .. } => "email",
        }
    }
}

/// Reads `announce:` from `_org.yaml` (`text` is the file); every problem is reported.
pub fn read(map: &Mapping<'_>, text: &str, problems: &mut Vec<Problem>) -> Vec<Channel> {
    let Some(items) = map.mapping_list(text, "announce", problems) else {
        return Vec::new();
    };
    let mut channels: Vec<Channel> = Vec::new();
    for item in &items {
        let Some(channel) = read_channel(item, problems) else {
            continue;
        };
        if channels.iter().any(|other| other.name == channel.name) {
            let at = item.get("name").or_else(|| item.get("type"));
            if let Some(field) = at {
                problems.push(item.problem(
                    field,
                    format!(
                        "two channels are called `{}`: give each of the same type its own `name:`",
                        channel.name
                    ),
                ));
            }
            continue;
        }
        channels.push(channel);
    }
    channels
}

fn read_channel(item: &Mapping<'_>, problems: &mut Vec<Problem>) -> Option<Channel> {
    let before = problems.len();
    for &(key, instead) in LITERAL_SECRETS {
        if let Some(field) = item.get(key) {
            problems.push(item.problem(
                field,
                format!(
                    "`{key}` would put a secret in git: write `{instead}: NAME` and set the environment variable NAME (a CI secret) to it"
                ),
            ));
        }
    }
    let Some(type_name) = item.string("type", problems) else {
        if item.get("type").is_none() {
            problems.push(item.problem_at_start(format!(
                "a channel needs a `type`: one of {}",
                TYPES.join(", ")
            )));
        }
        return None;
    };
    let Some(allowed) = allowed_keys(&type_name) else {
        let field = item.get("type").expect("read above");
        problems.push(item.problem(
            field,
            format!(
                "unknown channel type `{type_name}`; the types are: {}",
                TYPES.join(", ")
            ),
        ));
        return None;
    };
    let unknown: Vec<Problem> = {
        let mut found = Vec::new();
        item.reject_unknown_keys(allowed, &mut found);
        found
    };
    // A literal secret is reported once, as that, not again as an unknown key.
    problems.extend(unknown.into_iter().filter(|p| {
        !LITERAL_SECRETS
            .iter()
            .any(|(key, _)| p.message.starts_with(&format!("unknown key `{key}`")))
    }));
    let allow_insecure = item.bool("allow_insecure", problems).unwrap_or(false);
    let kind = read_kind(item, &type_name, allow_insecure, problems)?;
    let name = match item.string("name", problems) {
        Some(name) if is_channel_name(&name) => name,
        Some(_) => {
            let field = item.get("name").expect("read above");
            problems.push(item.problem(
                field,
                "`name` may hold only a-z, 0-9 and `-` (1 to 40 characters)",
            ));
            return None;
        }
        None => type_name,
    };
    (problems.len() == before).then_some(Channel {
        name,
        kind,
        allow_insecure,
    })
}

/// The keys a channel of `type_name` may have; none for a type shiplog does not know.
fn allowed_keys(type_name: &str) -> Option<&'static [&'static str]> {
    Some(match type_name {
        "webhook" => &["type", "name", "url_env", "secret_env", "allow_insecure"],
        "slack" | "discord" => &["type", "name", "url_env", "allow_insecure"],
        "websub" => &["type", "name", "hub", "allow_insecure"],
        "email" => &[
            "type",
            "name",
            "smtp_url_env",
            "from",
            "to",
            "digest",
            "allow_insecure",
        ],
        _ => return None,
    })
}

/// The settings of a channel of `type_name`, one of [`TYPES`].
fn read_kind(
    item: &Mapping<'_>,
    type_name: &str,
    allow_insecure: bool,
    problems: &mut Vec<Problem>,
) -> Option<ChannelKind> {
    let env = |key: &'static str, problems: &mut Vec<Problem>| env_var(item, key, problems);
    Some(match type_name {
        "webhook" => {
            let url = env("url_env", problems);
            let secret = env("secret_env", problems);
            ChannelKind::Webhook {
                url: url?,
                secret: secret?,
            }
        }
        "slack" => ChannelKind::Slack {
            url: env("url_env", problems)?,
        },
        "discord" => ChannelKind::Discord {
            url: env("url_env", problems)?,
        },
        "websub" => ChannelKind::WebSub {
            hub: read_hub(item, allow_insecure, problems)?,
        },
        _ => read_email(item, problems)?,
    })
}

fn read_email(item: &Mapping<'_>, problems: &mut Vec<Problem>) -> Option<ChannelKind> {
    let smtp_url = env_var(item, "smtp_url_env", problems);
    let from = required_string(item, "from", problems);
    let to = match item.string_list("to", problems) {
        Some(to) if !to.is_empty() => Some(to),
        Some(_) => {
            let field = item.get("to").expect("read above");
            problems.push(item.problem(field, "`to` must list at least one address"));
            None
        }
        None => {
            if item.get("to").is_none() {
                problems.push(item.problem_at_start(
                    "an email channel needs `to:`, the list of addresses it sends to",
                ));
            }
            None
        }
    };
    for (key, address) in from
        .iter()
        .map(|f| ("from", f))
        .chain(to.iter().flatten().map(|address| ("to", address)))
    {
        if !looks_like_mailbox(address) {
            let field = item.get(key).expect("read above");
            problems.push(item.problem(
                field,
                format!("`{address}` is not a mail address like `updates@acme.example` or `Acme <updates@acme.example>`"),
            ));
        }
    }
    let digest = item.bool("digest", problems).unwrap_or(false);
    Some(ChannelKind::Email {
        smtp_url: smtp_url?,
        from: from?,
        to: to?,
        digest,
    })
}

fn read_hub(
    item: &Mapping<'_>,
    allow_insecure: bool,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    let hub = required_string(item, "hub", problems)?;
    let scheme_ok = match url::Url::parse(&hub) {
        Ok(url) if url.host().is_some() => {
            url.scheme() == "https" || (allow_insecure && url.scheme() == "http")
        }
        _ => false,
    };
    if !scheme_ok {
        let field = item.get("hub").expect("read above");
        problems.push(item.problem(
            field,
            format!("`hub` must be an https:// address (http:// only with `allow_insecure: true`), not `{hub}`"),
        ));
        return None;
    }
    Some(hub)
}

fn required_string(item: &Mapping<'_>, key: &str, problems: &mut Vec<Problem>) -> Option<String> {
    let value = item.string(key, problems);
    if item.get(key).is_none() {
        problems.push(item.problem_at_start(format!("this channel needs `{key}:`")));
    }
    value
}

/// The variable named by `key`: a name in capitals, digits and `_`, as CI secrets are
/// named. An address or a secret written there instead is refused, not taken as a name.
fn env_var(item: &Mapping<'_>, key: &'static str, problems: &mut Vec<Problem>) -> Option<EnvVar> {
    let literal = LITERAL_SECRETS
        .iter()
        .any(|&(written, instead)| instead == key && item.get(written).is_some());
    if literal {
        // Reported as the secret it is; asking for `key` as well would say it twice.
        return None;
    }
    let name = required_string(item, key, problems)?;
    let field = item.get(key).expect("read above");
    let is_name = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if !is_name {
        let what = if name.contains("://") || name.len() > 40 {
            "holds what looks like the secret itself, which would then be in git"
        } else {
            "is not the name of an environment variable"
        };
        problems.push(item.problem(
            field,
            format!("`{key}` {what}: name a variable in capitals, digits and `_`, like `ACME_SLACK_URL`, and set it in CI's secrets"),
        ));
        return None;
    }
    let (line, column) = item.position(field);
    Some(EnvVar {
        name,
        key,
        line,
        column,
    })
}

fn is_channel_name(name: &str) -> bool {
    (1..=40).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Whether `address` is a mailbox (`a@b.example` or `Name <a@b.example>`) as the mailer
/// reads it when it sends, so that what `check` lets through `announce` can send.
fn looks_like_mailbox(address: &str) -> bool {
    address.parse::<lettre::message::Mailbox>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml;
    use std::path::Path;

    fn read_text(text: &str) -> (Vec<Channel>, Vec<String>) {
        let path = Path::new("content/acme/_org.yaml");
        let map = yaml::parse_mapping(path, text, 1).unwrap();
        let mut problems = Vec::new();
        let channels = read(&map, text, &mut problems);
        (channels, problems.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn every_type_is_read_with_its_settings() {
        let (channels, problems) = read_text(
            "title: Acme\nannounce:\n  - type: webhook\n    url_env: ACME_HOOK_URL\n    secret_env: ACME_HOOK_SECRET\n  - type: slack\n    url_env: ACME_SLACK\n  - type: email\n    name: list\n    smtp_url_env: ACME_SMTP\n    from: Acme <updates@acme.example>\n    to: [news@lists.acme.example]\n    digest: true\n  - type: websub\n    hub: https://hub.example/\n",
        );
        assert_eq!(problems, Vec::<String>::new());
        let names: Vec<&str> = channels.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["webhook", "slack", "list", "websub"]);
        let ChannelKind::Webhook { url, .. } = &channels[0].kind else {
            panic!("{channels:?}")
        };
        assert_eq!(
            (url.name.as_str(), url.line, url.column),
            ("ACME_HOOK_URL", 4, 14)
        );
    }

    #[test]
    fn secrets_and_unknown_types_are_located_problems() {
        let (channels, problems) = read_text(
            "announce:\n  - type: slack\n    url: https://hooks.slack.com/services/T0/B0/xyz\n  - type: pager\n  - type: webhook\n    url_env: https://example.com/hook\n    secret_env: whsec_abc\n  - type: email\n    smtp_url_env: SMTP\n    from: nobody\n    to: []\n  - type: websub\n    hub: http://hub.example/\n",
        );
        assert!(channels.is_empty(), "{channels:?}");
        let expected = [
            "content/acme/_org.yaml:3:10: `url` would put a secret in git",
            "content/acme/_org.yaml:4:11: unknown channel type `pager`",
            "content/acme/_org.yaml:6:14: `url_env` holds what looks like the secret itself",
            "content/acme/_org.yaml:7:17: `secret_env` is not the name of an environment variable",
            "content/acme/_org.yaml:11:9: `to` must list at least one address",
            "content/acme/_org.yaml:10:11: `nobody` is not a mail address",
            "content/acme/_org.yaml:13:10: `hub` must be an https:// address",
        ];
        for (problem, start) in problems.iter().zip(expected) {
            assert!(
                problem.starts_with(start),
                "{problem} / {start}\n{problems:#?}"
            );
        }
        assert_eq!(problems.len(), expected.len(), "{problems:#?}");
    }
}
