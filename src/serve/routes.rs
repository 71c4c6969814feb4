//! Answering requests from the latest build: which organization a host names, which file
//! a path names, and what to show instead while the build is broken.

use std::path::PathBuf;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header;
use hyper::{Method, Request, Response, StatusCode};

use super::{files, pages, Shared, Site, State, BUILD_TOKEN_PATH};
use crate::media;
use crate::server::Reply;
use crate::slug;

fn html(status: StatusCode, body: String) -> Reply {
    Reply::new(status, files::HTML, body)
}

fn text(status: StatusCode, body: impl Into<Bytes>) -> Reply {
    Reply::new(status, files::TEXT, body)
}

fn redirect(status: StatusCode, location: String) -> Reply {
    let mut reply = text(status, format!("see {location}\n"));
    reply.header(header::LOCATION, &location);
    reply
}

/// Answers one request (it reads files: run it off the async threads). HTML gets the
/// reload script; nothing is cached.
pub(super) fn handle<B>(request: Request<B>, shared: &Shared) -> Response<Full<Bytes>> {
    let state = shared.state.load_full();
    let mut reply = route(&request, &state, shared.port);
    if reply.is(files::HTML) {
        reply.body = pages::inject_reload_script(reply.body.into(), &state.token).into();
    }
    reply.header(header::CACHE_CONTROL, "no-store");
    reply.header(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    if reply.is("image/svg+xml") {
        reply.header(header::CONTENT_SECURITY_POLICY, media::SVG_POLICY);
    }
    if files::FEEDS.iter().any(|feed| reply.is(feed)) {
        reply.header(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    }
    if reply.status == StatusCode::METHOD_NOT_ALLOWED {
        reply.header(header::ALLOW, "GET, HEAD");
    }
    reply.into_response(request.method())
}

/// The answer of a request whose handler died.
pub(super) fn failed() -> Response<Full<Bytes>> {
    text(
        StatusCode::INTERNAL_SERVER_ERROR,
        "the preview failed to answer\n",
    )
    .into_response(&Method::GET)
}

/// What a request is answered with, before the build's problems are considered.
enum Answer {
    /// A file of the build.
    File(PathBuf),
    /// The list of organizations.
    Orgs,
    /// Somewhere else: a folder's path with its `/`, an org's root to its changelog.
    Redirect(StatusCode, String),
    /// Nothing; the page says why.
    NotFound(String),
}

/// Picks the answer to a request.
fn route<B>(request: &Request<B>, state: &State, port: u16) -> Reply {
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        return text(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
    }
    let path = request.uri().path();
    if path == BUILD_TOKEN_PATH {
        return text(StatusCode::OK, state.token.clone());
    }
    let Some(segments) = files::segments(path) else {
        return text(StatusCode::BAD_REQUEST, "this path is not allowed\n");
    };
    // Without a good build, every request shows the problems of the last one.
    let Some(site) = &state.site else {
        return html(
            StatusCode::INTERNAL_SERVER_ERROR,
            pages::problems(&state.problems),
        );
    };
    let found = match org_of(request) {
        Some(org) => find(site, &org, &segments, request),
        None if segments.is_empty() => Answer::Orgs,
        None => Answer::NotFound(format!(
            "There is nothing at {path} here: each organization is served at its own host."
        )),
    };
    // While the build is broken, only files that are not pages are served from the last
    // good build; every page shows the problems instead of a stale page.
    if !state.problems.is_empty() && !matches!(&found, Answer::File(file) if !files::is_html(file))
    {
        return html(
            StatusCode::INTERNAL_SERVER_ERROR,
            pages::problems(&state.problems),
        );
    }
    match found {
        Answer::File(file) => match std::fs::read(&file) {
            Ok(bytes) => Reply::new(StatusCode::OK, files::content_type(&file), bytes),
            Err(_) => html(
                StatusCode::NOT_FOUND,
                pages::not_found(&format!("There is nothing at {path}."), port),
            ),
        },
        Answer::Orgs => html(StatusCode::OK, pages::orgs(&site.report.orgs, port)),
        Answer::Redirect(status, location) => redirect(status, location),
        Answer::NotFound(why) => html(StatusCode::NOT_FOUND, pages::not_found(&why, port)),
    }
}

/// Looks `segments` up in the folder of `org`.
fn find<B>(site: &Site, org: &str, segments: &[String], request: &Request<B>) -> Answer {
    let org_root = site.root.join(org);
    if !org_root.is_dir() {
        return Answer::NotFound(format!(
            "There is no organization `{org}` in the content folder."
        ));
    }
    let mut file = org_root;
    file.extend(segments);
    let path = request.uri().path();
    // `/feed.xml/` names a folder, which a file is not (nginx and CDNs answer 404 too).
    if file.is_file() && !path.ends_with('/') {
        return Answer::File(file);
    }
    if file.is_file() {
        return Answer::NotFound(format!("There is nothing at {path}."));
    }
    if !file.is_dir() {
        return Answer::NotFound(format!("There is nothing at {path}."));
    }
    if !path.ends_with('/') {
        let query = request
            .uri()
            .query()
            .map(|q| format!("?{q}"))
            .unwrap_or_default();
        return Answer::Redirect(StatusCode::MOVED_PERMANENTLY, format!("{path}/{query}"));
    }
    let index = file.join("index.html");
    if index.is_file() {
        Answer::File(index)
    } else if segments.is_empty() {
        Answer::Redirect(StatusCode::FOUND, "/changelog/".to_string())
    } else {
        Answer::NotFound(format!("There is nothing at {path}."))
    }
}

/// The organization a request is for: `<org>` of a `Host` (or absolute request target)
/// `<org>.localhost`, with any port.
fn org_of<B>(request: &Request<B>) -> Option<String> {
    let host = match request.uri().host() {
        Some(host) => host,
        None => request.headers().get(header::HOST)?.to_str().ok()?,
    };
    let name = host.rsplit_once(':').map_or(host, |(name, _)| name);
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    let org = name.strip_suffix(".localhost")?;
    slug::check_org(org).ok().map(|()| org.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn org(host: &str) -> Option<String> {
        org_of(
            &Request::builder()
                .uri("/changelog/")
                .header(header::HOST, host)
                .body(())
                .unwrap(),
        )
    }

    #[test]
    fn the_host_names_the_org() {
        assert_eq!(org("acme.localhost:8080").as_deref(), Some("acme"));
        assert_eq!(org("Acme.LOCALHOST.").as_deref(), Some("acme"));
        assert_eq!(org("my-org.localhost").as_deref(), Some("my-org"));
        for other in [
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "a.b.localhost",
            "-x.localhost",
            "acme.example.com",
            "localhost.localhost.evil",
        ] {
            assert_eq!(org(other), None, "{other}");
        }
        let absolute = Request::builder()
            .uri("http://globex.localhost:9/changelog/")
            .header(header::HOST, "acme.localhost")
            .body(())
            .unwrap();
        assert_eq!(org_of(&absolute).as_deref(), Some("globex"));
    }
}
