//! The wire: each channel's settings with their secrets read ([`Resolved`]), and one try
//! of a delivery over HTTP (ureq, rustls) or SMTP (lettre, rustls). Retrying is
//! [`super::retry`]'s job; a try only says how it ended.
//!
//! Trusted roots are Mozilla's (webpki-roots), the same on every machine; `SSL_CERT_FILE`,
//! as for OpenSSL, names a PEM file of roots to trust instead (a private CA, or a test's).

use std::time::Duration;

use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::message;
use super::retry::{self, Try};
use crate::content::{Channel, ChannelKind, Entry, EnvVar, Org};
use crate::error::{Error, Result};

/// A channel with its secrets read. Its `Debug` never shows them.
#[derive(Clone)]
pub enum Resolved {
    /// Standard Webhooks: the address and the key the signatures are made with.
    Webhook {
        /// The receiver.
        url: url::Url,
        /// The signing key (the secret's base64 after `whsec_`, decoded).
        key: Vec<u8>,
    },
    /// A Slack incoming webhook.
    Slack(url::Url),
    /// A Discord webhook.
    Discord(url::Url),
    /// A WebSub hub.
    WebSub(url::Url),
    /// An SMTP server and the mail's addresses.
    Email(Box<Smtp>),
}

/// Where and how mail is sent.
#[derive(Clone)]
pub struct Smtp {
    host: String,
    port: u16,
    /// `smtps://`: TLS from the first byte; else STARTTLS, required unless `insecure`.
    implicit_tls: bool,
    insecure: bool,
    credentials: Option<(String, String)>,
    from: lettre::message::Mailbox,
    to: Vec<lettre::message::Mailbox>,
}

impl std::fmt::Debug for Resolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Resolved({})", self.destination())
    }
}

impl Resolved {
    /// Where deliveries go, fit to print: the host (the rest of a webhook's address is its
    /// secret), or the mail's recipients.
    pub fn destination(&self) -> String {
        match self {
            Resolved::Webhook { url, .. }
            | Resolved::Slack(url)
            | Resolved::Discord(url)
            | Resolved::WebSub(url) => url.host_str().unwrap_or_default().to_string(),
            Resolved::Email(smtp) => {
                let to: Vec<String> = smtp.to.iter().map(|m| m.email.to_string()).collect();
                format!("{} via {}", to.join(", "), smtp.host)
            }
        }
    }
}

/// `channel` with its variables read by `read` (which reports a missing one itself and
/// gives `None`); a value the channel cannot use is the error, at the variable.
pub fn resolve(
    channel: &Channel,
    read: &mut dyn FnMut(&EnvVar) -> Option<String>,
) -> std::result::Result<Option<Resolved>, (EnvVar, String)> {
    let web = |var: &EnvVar, value: String| -> std::result::Result<url::Url, (EnvVar, String)> {
        web_address(&value, channel.allow_insecure)
            .map_err(|why| (var.clone(), format!("`{}`: {} {why}", var.key, var.name)))
    };
    Ok(match &channel.kind {
        ChannelKind::Webhook { url, secret } => {
            let (Some(address), Some(secret_value)) = (read(url), read(secret)) else {
                return Ok(None);
            };
            let key = webhook_key(&secret_value).map_err(|why| {
                (
                    secret.clone(),
                    format!("`secret_env`: {} {why}", secret.name),
                )
            })?;
            Some(Resolved::Webhook {
                url: web(url, address)?,
                key,
            })
        }
        ChannelKind::Slack { url } => match read(url) {
            Some(address) => Some(Resolved::Slack(web(url, address)?)),
            None => None,
        },
        ChannelKind::Discord { url } => match read(url) {
            Some(address) => Some(Resolved::Discord(web(url, address)?)),
            None => None,
        },
        ChannelKind::WebSub { hub } => Some(Resolved::WebSub(
            url::Url::parse(hub).expect("checked when _org.yaml was read"),
        )),
        ChannelKind::Email {
            smtp_url, from, to, ..
        } => match read(smtp_url) {
            Some(value) => Some(Resolved::Email(Box::new(
                smtp(&value, from, to, channel.allow_insecure).map_err(|why| {
                    (
                        smtp_url.clone(),
                        format!("`smtp_url_env`: {} {why}", smtp_url.name),
                    )
                })?,
            ))),
            None => None,
        },
    })
}

/// A webhook's address: `https://`, or `http://` where the channel allows it. The reason
/// never repeats the address, which may hold a token.
fn web_address(value: &str, allow_insecure: bool) -> std::result::Result<url::Url, String> {
    let url =
        url::Url::parse(value.trim()).map_err(|_| "does not hold a web address".to_string())?;
    match url.scheme() {
        "https" if url.host().is_some() => Ok(url),
        "http" if url.host().is_some() && allow_insecure => Ok(url),
        "http" => Err(format!(
            "holds an http:// address (host {}): use https://, or set `allow_insecure: true` for a receiver on a private network",
            url.host_str().unwrap_or_default()
        )),
        _ => Err("must hold an https:// address".to_string()),
    }
}

/// The signing key of a Standard Webhooks secret: base64, after an optional `whsec_`.
fn webhook_key(secret: &str) -> std::result::Result<Vec<u8>, String> {
    let encoded = secret
        .trim()
        .strip_prefix("whsec_")
        .unwrap_or(secret.trim());
    let key = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| "must hold a Standard Webhooks secret: `whsec_` and base64".to_string())?;
    if key.len() < 24 {
        return Err(
            "holds a key of fewer than 24 bytes: make one with `openssl rand -base64 32`"
                .to_string(),
        );
    }
    Ok(key)
}

fn smtp(
    value: &str,
    from: &str,
    to: &[String],
    insecure: bool,
) -> std::result::Result<Smtp, String> {
    let url = url::Url::parse(value.trim())
        .map_err(|_| "does not hold an smtp:// or smtps:// address".to_string())?;
    let implicit_tls = match url.scheme() {
        "smtps" => true,
        "smtp" => false,
        _ => return Err("must hold an smtp:// (STARTTLS) or smtps:// (TLS) address".to_string()),
    };
    let host = url
        .host_str()
        .filter(|host| !host.is_empty())
        .ok_or("has no host")?
        .to_string();
    let decode = |part: &str| {
        percent_encoding::percent_decode_str(part)
            .decode_utf8_lossy()
            .into_owned()
    };
    let credentials = (!url.username().is_empty()).then(|| {
        (
            decode(url.username()),
            decode(url.password().unwrap_or_default()),
        )
    });
    let mailbox = |address: &str| {
        address
            .parse::<lettre::message::Mailbox>()
            .map_err(|e| format!("cannot send from or to `{address}`: {e}"))
    };
    Ok(Smtp {
        port: url.port().unwrap_or(if implicit_tls { 465 } else { 587 }),
        host,
        implicit_tls,
        insecure,
        credentials,
        from: mailbox(from)?,
        to: {
            let mut to: Vec<lettre::message::Mailbox> = to
                .iter()
                .map(|a| mailbox(a))
                .collect::<std::result::Result<_, _>>()?;
            // An address listed twice gets one copy.
            let mut seen = std::collections::HashSet::new();
            to.retain(|m| seen.insert(m.email.to_string().to_ascii_lowercase()));
            to
        },
    })
}

/// Makes the tries: one HTTP agent for the run, and the roots mail is checked against.
pub struct Sender {
    agent: ureq::Agent,
    timeout: Duration,
    /// The roots of `SSL_CERT_FILE`, as PEM, when it is set.
    roots_pem: Option<Vec<u8>>,
}

impl Sender {
    /// An agent whose every request ends within `timeout`, that follows no redirect (a
    /// signed body must not be sent on to another host) and treats no status as an error.
    pub fn new(timeout: Duration) -> Result<Sender> {
        let roots_pem = match std::env::var_os("SSL_CERT_FILE") {
            Some(path) if !path.is_empty() => Some(
                crate::text::read_limited(std::path::Path::new(&path), 16 * 1024 * 1024)
                    .map_err(|e| Error::Usage(format!("SSL_CERT_FILE: {e}")))?,
            ),
            _ => None,
        };
        let roots = match &roots_pem {
            Some(pem) => {
                let certs: Vec<ureq::tls::Certificate<'static>> = ureq::tls::parse_pem(pem)
                    .filter_map(|item| match item {
                        Ok(ureq::tls::PemItem::Certificate(cert)) => Some(cert),
                        _ => None,
                    })
                    .collect();
                if certs.is_empty() {
                    return Err(Error::Usage(
                        "SSL_CERT_FILE names a file without a PEM certificate: no server could be trusted".to_string(),
                    ));
                }
                ureq::tls::RootCerts::new_with_certs(&certs)
            }
            None => ureq::tls::RootCerts::WebPki,
        };
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("shiplog/", env!("CARGO_PKG_VERSION")))
            .tls_config(ureq::tls::TlsConfig::builder().root_certs(roots).build())
            .build()
            .into();
        Ok(Sender {
            agent,
            timeout,
            roots_pem,
        })
    }

    /// One try of telling `resolved` of `entries` of `org`. `handing` is called just before
    /// an HTTP request's last byte goes out (an error from it stops the request there); a
    /// mail, whose end lettre writes, never calls it.
    pub fn send(
        &self,
        org: &Org,
        resolved: &Resolved,
        entries: &[&Entry],
        handing: &mut dyn FnMut() -> std::io::Result<()>,
    ) -> Try {
        match resolved {
            Resolved::Webhook { url, key } => {
                let entry = entries[0];
                let body = message::webhook_body(org, entry);
                let id = message::webhook_id(org, entry);
                let timestamp = chrono::Utc::now().timestamp().to_string();
                let signature = sign(key, &id, &timestamp, &body);
                self.post(
                    url,
                    "application/json",
                    &body,
                    &[
                        ("webhook-id", &id),
                        ("webhook-timestamp", &timestamp),
                        ("webhook-signature", &signature),
                    ],
                    handing,
                )
            }
            Resolved::Slack(url) | Resolved::Discord(url) => {
                let body = match resolved {
                    Resolved::Slack(_) => message::slack(org, entries[0]),
                    _ => message::discord(org, entries[0]),
                };
                self.post(url, "application/json", &body, &[], handing)
            }
            Resolved::WebSub(hub) => self.post(
                hub,
                "application/x-www-form-urlencoded",
                message::websub_form(org).as_bytes(),
                &[],
                handing,
            ),
            Resolved::Email(smtp) => self.mail(org, smtp, entries),
        }
    }

    fn post(
        &self,
        url: &url::Url,
        kind: &str,
        body: &[u8],
        headers: &[(&str, &str)],
        handing: &mut dyn FnMut() -> std::io::Result<()>,
    ) -> Try {
        let mut request = self
            .agent
            .post(url.as_str())
            .header("content-type", kind)
            // Given, so that ureq sends the body as it is read, not in chunks.
            .header("content-length", body.len().to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut reader = LastByte {
            body,
            at: 0,
            handing: Some(handing),
        };
        match request.send(ureq::SendBody::from_reader(&mut reader)) {
            Ok(response) => {
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|value| value.to_str().ok());
                retry::by_status(
                    response.status().as_u16(),
                    retry_after,
                    chrono::Utc::now().timestamp(),
                )
            }
            Err(error) => by_http_error(&error),
        }
    }

    fn mail(&self, org: &Org, smtp: &Smtp, entries: &[&Entry]) -> Try {
        use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
        use lettre::Transport;
        let mail = message::mail(org, entries);
        let mut builder = lettre::Message::builder()
            .from(smtp.from.clone())
            .subject(mail.subject)
            .message_id(Some(message::message_id(org, entries)));
        // One recipient is the mail's `To:`; several each get a blind copy, addressed to the
        // sender: no one sees the others, and the header stays one short line.
        builder = match smtp.to.as_slice() {
            [one] => builder.to(one.clone()),
            _ => builder.to(smtp.from.clone()),
        };
        let recipients = smtp.to.iter().map(|m| m.email.clone()).collect();
        match lettre::address::Envelope::new(Some(smtp.from.email.clone()), recipients) {
            Ok(envelope) => builder = builder.envelope(envelope),
            Err(e) => return Try::Refused(format!("the mail cannot be made: {e}")),
        }
        let message = match builder.multipart(lettre::message::MultiPart::alternative_plain_html(
            mail.text, mail.html,
        )) {
            Ok(message) => message,
            Err(e) => return Try::Refused(format!("the mail cannot be made: {e}")),
        };
        let mut parameters = TlsParameters::builder(smtp.host.clone());
        if let Some(pem) = &self.roots_pem {
            for block in pem_blocks(pem) {
                match Certificate::from_pem(block) {
                    Ok(cert) => parameters = parameters.add_root_certificate(cert),
                    Err(e) => return Try::Refused(format!("SSL_CERT_FILE: {e}")),
                }
            }
        }
        let parameters = match parameters.build_rustls() {
            Ok(parameters) => parameters,
            Err(e) => return Try::Refused(format!("TLS settings: {e}")),
        };
        let tls = if smtp.implicit_tls {
            Tls::Wrapper(parameters)
        } else if smtp.insecure {
            Tls::Opportunistic(parameters)
        } else {
            Tls::Required(parameters)
        };
        let mut transport = lettre::SmtpTransport::builder_dangerous(&smtp.host)
            .port(smtp.port)
            .tls(tls)
            .timeout(Some(self.timeout));
        if let Some((user, password)) = &smtp.credentials {
            transport =
                transport.credentials(lettre::transport::smtp::authentication::Credentials::new(
                    user.clone(),
                    password.clone(),
                ));
        }
        match transport.build().send(&message) {
            Ok(_) => Try::Arrived,
            Err(e) if e.is_permanent() || e.is_tls() => Try::Refused(format!("SMTP: {e}")),
            Err(e) => Try::Again {
                why: format!("SMTP: {e}"),
                wait: None,
            },
        }
    }
}

/// A request body that holds back its last byte until `handing` has run: from the moment
/// that byte goes out the receiver may have the whole request, whatever becomes of this
/// process (ureq writes what each read gives before it reads again).
struct LastByte<'a> {
    body: &'a [u8],
    at: usize,
    handing: Option<&'a mut dyn FnMut() -> std::io::Result<()>>,
}

impl std::io::Read for LastByte<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let rest = &self.body[self.at..];
        if rest.is_empty() || buffer.is_empty() {
            return Ok(0);
        }
        let mut length = buffer.len().min(rest.len());
        if length == rest.len() {
            if rest.len() > 1 {
                length -= 1;
            } else if let Some(handing) = self.handing.take() {
                handing()?;
            }
        }
        buffer[..length].copy_from_slice(&rest[..length]);
        self.at += length;
        Ok(length)
    }
}

/// The PEM blocks of a file of several certificates, each on its own.
fn pem_blocks(pem: &[u8]) -> Vec<&[u8]> {
    const END: &[u8] = b"-----END CERTIFICATE-----";
    let mut blocks = Vec::new();
    let mut rest = pem;
    while let Some(start) = find(rest, b"-----BEGIN CERTIFICATE-----") {
        let Some(end) = find(&rest[start..], END) else {
            break;
        };
        let stop = start + end + END.len();
        blocks.push(&rest[start..stop]);
        rest = &rest[stop..];
    }
    blocks
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// How a request that got no answer ends: a TLS failure would fail again; anything else
/// (refused, reset, timed out, a name not found) may not.
fn by_http_error(error: &ureq::Error) -> Try {
    let why = error.to_string();
    // rustls's errors reach ureq inside an I/O error, as the stream it reads gives them.
    let rustls_inside = match error {
        ureq::Error::Io(e) => e
            .get_ref()
            .is_some_and(|inner| inner.downcast_ref::<rustls::Error>().is_some()),
        _ => false,
    };
    match error {
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) => Try::Refused(format!("TLS: {why}")),
        _ if rustls_inside => Try::Refused(format!("TLS: {why}")),
        _ => Try::Again { why, wait: None },
    }
}

/// `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` (Standard Webhooks).
fn sign(key: &[u8], id: &str, timestamp: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_matches_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification's reference libraries.
        let key = webhook_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            sign(&key, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn addresses_are_checked_without_being_repeated() {
        let why = web_address("http://hooks.example/T0/secret", false).unwrap_err();
        assert!(
            why.contains("hooks.example") && !why.contains("secret"),
            "{why}"
        );
        assert!(web_address("http://hooks.example/x", true).is_ok());
        assert!(web_address("ftp://x", true).is_err());
        assert!(webhook_key("whsec_c2hvcnQ=").is_err());
        let smtp = smtp(
            "smtp://user%40acme:p%2Fw@mail.example",
            "Acme <updates@acme.example>",
            &["list@acme.example".into()],
            false,
        )
        .unwrap();
        assert_eq!((smtp.port, smtp.implicit_tls), (587, false));
        assert_eq!(
            smtp.credentials,
            Some(("user@acme".to_string(), "p/w".to_string()))
        );
        assert!(smtp_error("http://mail.example"));
    }

    #[test]
    fn the_last_byte_waits_for_the_record() {
        use std::io::Read;
        let calls = std::cell::Cell::new(0);
        let mut handing = || {
            calls.set(calls.get() + 1);
            Ok(())
        };
        let mut reader = LastByte {
            body: b"hello",
            at: 0,
            handing: Some(&mut handing),
        };
        let mut buffer = [0u8; 64];
        assert_eq!(reader.read(&mut buffer).unwrap(), 4);
        assert_eq!(calls.get(), 0, "not before the last byte is asked for");
        assert_eq!(reader.read(&mut buffer).unwrap(), 1);
        assert_eq!(&buffer[..1], b"o");
        assert_eq!(reader.read(&mut buffer).unwrap(), 0);
        assert_eq!(calls.get(), 1);
    }

    fn smtp_error(value: &str) -> bool {
        smtp(value, "a@b.c", &["d@e.f".into()], false).is_err()
    }
}
