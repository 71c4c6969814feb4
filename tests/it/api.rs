//! `shiplog-api` end to end: the real binary on an ephemeral port, real sockets, fixture
//! content under `tests/fixtures/api/`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::*;
use chrono::{SecondsFormat, Utc};
use serde_json::{json, Value};

const ACME: &str = "shl_test_acme_0123456789abcdef";
const GLOBEX: &str = "shl_test_globex_0123456789abcdef";
const QUIET: &str = "shl_test_quiet_0123456789abcdef";
const GHOST: &str = "shl_test_ghost_0123456789abcdef";
const LIMITED: &str = "shl_test_limited_0123456789abcdef";

const LISTING: &str = "/api/v1/changelogs";
/// The path of one entry as `openapi.yaml` names it.
const ENTRY: &str = "/api/v1/changelogs/{id}";

/// A temporary site: a content folder, a keys file and (maybe) a `shiplog.yaml`.
struct Site {
    dir: tempfile::TempDir,
}

impl Site {
    /// A copy of fixture `name` (or an empty content folder) with the standard keys.
    fn new(fixture_name: Option<&str>) -> Site {
        let dir = tempfile::tempdir().unwrap();
        let content = dir.path().join("content");
        match fixture_name {
            Some(name) => copy_tree(&fixture(&format!("api/{name}")), &content),
            None => std::fs::create_dir_all(&content).unwrap(),
        }
        let site = Site { dir };
        site.write_keys(&[
            TestKey {
                name: "acme-ci",
                org: "acme",
                key: ACME,
                rate: None,
            },
            TestKey {
                name: "globex-dashboard",
                org: "globex",
                key: GLOBEX,
                rate: None,
            },
            TestKey {
                name: "quiet-site",
                org: "quiet",
                key: QUIET,
                rate: None,
            },
            TestKey {
                name: "ghost",
                org: "ghost",
                key: GHOST,
                rate: None,
            },
            TestKey {
                name: "limited",
                org: "acme",
                key: LIMITED,
                rate: Some(3),
            },
        ]);
        site
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn content(&self) -> PathBuf {
        self.path().join("content")
    }

    fn keys(&self) -> PathBuf {
        self.path().join("api_keys.yaml")
    }

    fn write_keys(&self, keys: &[TestKey<'_>]) {
        std::fs::write(self.keys(), keys_yaml(keys)).unwrap();
    }

    fn args(&self) -> Vec<OsString> {
        vec![
            "--content".into(),
            self.content().into(),
            "--keys".into(),
            self.keys().into(),
        ]
    }

    fn start(&self) -> Server {
        Server::start(&self.args(), self.path())
    }
}

fn listing(query: &str) -> String {
    if query.is_empty() {
        LISTING.to_string()
    } else {
        format!("{LISTING}?{query}")
    }
}

/// Asserts the one error body and status, and returns the body.
fn assert_error(response: &Response, status: u16, code: &str) -> Value {
    assert_eq!(response.status, status, "{}", response.text());
    assert_eq!(response.header("content-type"), Some("application/json"));
    let body = response.json();
    assert_eq!(body["error"]["status"], status, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    body
}

fn assert_unauthorized(response: &Response, code: &str) {
    assert_error(response, 401, code);
    assert_eq!(response.header("www-authenticate"), Some("Bearer"));
}

/// The keys and their digests never reach the logs.
fn assert_logs_hold_no_key(server: &Server) {
    let logs = server.logs.lines().join("\n");
    for key in [ACME, GLOBEX, QUIET, GHOST, LIMITED] {
        assert!(!logs.contains(key), "a key was logged:\n{logs}");
        assert!(!logs.contains(&digest(key)), "a key's digest was logged");
        assert!(!logs.contains(&key[4..20]), "part of a key was logged");
    }
}

#[test]
fn health_and_routing_come_before_the_key() {
    let site = Site::new(Some("basic"));
    let server = site.start();

    let health = server.get("/healthz", None);
    assert_eq!(health.status, 200);
    assert_eq!(
        health.json(),
        json!({"status": "ok", "rate_limit": "local"})
    );
    let head = server.request("HEAD", "/healthz", &[]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());

    for (method, path) in [
        ("GET", "/"),
        ("GET", "/api/v1/changelog"),
        ("GET", "/api/v1/changelogs/"),
        ("GET", "/api/v1/changelogs/acme/launch"),
        ("GET", "/API/V1/CHANGELOGS"),
        ("POST", "/nowhere"),
        ("DELETE", "/healthz/x"),
    ] {
        let response = server.request(method, path, &[]);
        assert_error(&response, 404, "not_found");
    }
    // An unknown path is 404 whatever the key.
    let response = server.get("/api/v2/changelogs", Some(ACME));
    assert_error(&response, 404, "not_found");

    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        for path in [LISTING, "/healthz"] {
            for key in [None, Some(ACME), Some("wrong")] {
                let auth = key.map(|k| format!("Bearer {k}"));
                let headers: Vec<(&str, &str)> =
                    auth.iter().map(|a| ("Authorization", a.as_str())).collect();
                let response = server.request(method, &format!("{path}?page=0"), &headers);
                assert_error(&response, 405, "method_not_allowed");
                assert_eq!(
                    response.header("allow"),
                    Some("GET, HEAD"),
                    "{method} {path}"
                );
            }
        }
    }
    assert_logs_hold_no_key(&server);
}

#[test]
fn missing_malformed_and_unknown_keys_are_401() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let get = |headers: &[(&str, &str)]| server.request("GET", LISTING, headers);

    assert_unauthorized(&get(&[]), "missing_api_key");
    for value in [
        "",
        "Bearer",
        "Bearer ",
        "Basic YWxhZGRpbjpvcGVuc2VzYW1l",
        "Token shl_x",
        ACME,
        "Bearer shl_a shl_b",
    ] {
        assert_unauthorized(&get(&[("Authorization", value)]), "invalid_authorization");
    }
    let bearer = format!("Bearer {ACME}");
    assert_unauthorized(
        &get(&[("Authorization", &bearer), ("Authorization", &bearer)]),
        "invalid_authorization",
    );
    let almost = format!("Bearer {}x", &ACME[..ACME.len() - 1]);
    for value in [
        "Bearer shl_unknown",
        almost.as_str(),
        "Bearer shl_TEST_ACME_0123456789ABCDEF",
    ] {
        assert_unauthorized(&get(&[("Authorization", value)]), "invalid_api_key");
    }
    // The key is checked before the query, and the scheme's case does not matter.
    let response = server.get(&listing("page=0"), None);
    assert_unauthorized(&response, "missing_api_key");
    let response = server.get(&listing("page=0"), Some("nope"));
    assert_unauthorized(&response, "invalid_api_key");
    let lower = format!("bearer {ACME}");
    assert_eq!(get(&[("Authorization", &lower)]).status, 200);
    // HEAD gets the same headers without the body.
    let head = server.request("HEAD", LISTING, &[]);
    assert_eq!(head.status, 401);
    assert_eq!(head.header("www-authenticate"), Some("Bearer"));
    assert!(head.body.is_empty());
    assert_logs_hold_no_key(&server);
}

#[test]
fn bad_queries_are_400_naming_the_parameter() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    for (query, param) in [
        ("page=0", "page"),
        ("page=-1", "page"),
        ("page=1.0", "page"),
        ("page=abc", "page"),
        ("page=", "page"),
        ("page", "page"),
        ("page=%20", "page"),
        ("page=1&page=1", "page"),
        ("page=1&page=2", "page"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=-20", "limit"),
        ("limit=twenty", "limit"),
        ("limit=", "limit"),
        ("limit=10&limit=10", "limit"),
        ("limit=1e1", "limit"),
        ("page=2&limit=1000", "limit"),
    ] {
        let response = server.get(&listing(query), Some(ACME));
        let body = assert_error(&response, 400, "invalid_parameter");
        assert_eq!(body["error"]["param"], param, "{query}: {body}");
        let head = server.request(
            "HEAD",
            &listing(query),
            &[("Authorization", &format!("Bearer {ACME}"))],
        );
        assert_eq!(head.status, 400, "HEAD {query}");
    }
    // Other parameters are ignored; the edges of the ranges are fine.
    for query in [
        "limit=1",
        "limit=100",
        "page=1&limit=100",
        "foo=bar&page=1",
        "PAGE=0",
    ] {
        let response = server.get(&listing(query), Some(ACME));
        assert_eq!(response.status, 200, "{query}: {}", response.text());
    }
    let past = server.get(&listing("page=999"), Some(ACME));
    assert_eq!(past.status, 200);
    assert_eq!(past.json()["data"], json!([]));
    assert_eq!(past.json()["page"], 999);
    let far = server.get(&listing("page=99999999999999999999999999"), Some(ACME));
    assert_eq!(far.status, 200, "{}", far.text());
    assert_eq!(far.json()["data"], json!([]));
}

#[test]
fn listing_holds_the_keys_org_published_entries_in_order() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let response = server.get(LISTING, Some(ACME));
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.header("content-type"), Some("application/json"));
    let body = response.json();
    assert_eq!(
        body,
        json!({
            "data": [
                {
                    "id": "api-v2",
                    "url": "http://acme.localhost:8080/changelog/api-v2/",
                    "title": "API v2",
                    "content_html": "<p>Version 2 of the API, published at the same instant as the launch.</p>\n",
                    "date_published": "2026-01-10T09:00:00Z",
                    "tags": ["api"],
                    "summary": null
                },
                {
                    "id": "launch",
                    "url": "http://acme.localhost:8080/changelog/launch/",
                    "title": "Acme 2.0 is here",
                    "content_html": body["data"][1]["content_html"],
                    "date_published": "2026-01-10T09:00:00Z",
                    "tags": ["launch", "release"],
                    "summary": "The biggest release of the year."
                },
                {
                    "id": "fix",
                    "url": "http://acme.localhost:8080/changelog/fix/",
                    "title": "Fixed the export button",
                    "content_html": "<p>Exports no longer time out.</p>\n",
                    "date_published": "2025-12-01T00:00:00Z",
                    "tags": [],
                    "summary": null,
                    "date_modified": "2025-12-03T10:00:00Z"
                },
                {
                    "id": "dark-mode",
                    "url": "http://acme.localhost:8080/changelog/dark-mode/",
                    "title": "Dark mode",
                    "content_html": "<p>Dark mode follows your system setting.</p>\n",
                    "date_published": "2025-11-15T08:30:00Z",
                    "tags": [],
                    "summary": null,
                    "image": "https://cdn.example.com/dark-mode.png"
                }
            ],
            "page": 1, "limit": 20, "total": 4, "total_pages": 1, "has_more": false
        })
    );
    let launch_html = body["data"][1]["content_html"].as_str().unwrap();
    assert!(
        launch_html.contains("<strong>today</strong>"),
        "{launch_html}"
    );
    assert!(
        launch_html.contains("href=\"http://acme.localhost:8080/changelog/launch/notes/\""),
        "relative links are made absolute: {launch_html}"
    );
    assert!(
        launch_html.contains("src=\"http://acme.localhost:8080/changelog/launch/logo.png\""),
        "{launch_html}"
    );
    // Keys order exactly as the contract shows.
    let text = response.text();
    let order: Vec<usize> = [
        "\"data\"",
        "\"page\"",
        "\"limit\"",
        "\"total\"",
        "\"total_pages\"",
        "\"has_more\"",
    ]
    .iter()
    .map(|k| text.rfind(k).unwrap())
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert_eq!(
        response.links(),
        vec![
            (
                "first".to_string(),
                "http://localhost:8081/api/v1/changelogs?page=1&limit=20".to_string()
            ),
            (
                "last".to_string(),
                "http://localhost:8081/api/v1/changelogs?page=1&limit=20".to_string()
            ),
        ]
    );
    assert!(response.header("etag").is_some());
    let log = server
        .logs
        .wait_for(0, CHANGE_TIMEOUT, |l| {
            is_event(l, "request") && l.contains("\"status\":200") && l.contains("acme-ci")
        })
        .expect("a request log line");
    let log: Value = serde_json::from_str(&log).unwrap();
    assert_eq!(log["method"], "GET");
    assert_eq!(log["path"], LISTING);
    assert_eq!(log["key"], "acme-ci");
    assert!(log["duration_ms"].is_number());
    assert!(log["time"].is_string());
    assert_logs_hold_no_key(&server);
}

#[test]
fn a_key_never_sees_another_org() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let globex = server.get(&listing("limit=100"), Some(GLOBEX));
    assert_eq!(globex.status, 200);
    assert_eq!(globex.ids(), vec!["hello", "pricing"]);
    let text = globex.text();
    assert!(!text.contains("acme"), "{text}");
    assert_eq!(
        globex.json()["data"][0]["url"],
        "http://globex.localhost:8080/changelog/hello/"
    );
    assert_eq!(
        globex.json()["data"][0]["summary"],
        "Our first changelog entry."
    );
    assert_eq!(globex.json()["data"][1]["summary"], Value::Null);

    let acme = server.get(&listing("limit=100"), Some(ACME));
    assert!(!acme.text().contains("globex"));
    assert!(!acme.ids().iter().any(|id| id == "hello"));

    // An org with nothing published, and a key for an org the content does not have.
    for key in [QUIET, GHOST] {
        let empty = server.get(LISTING, Some(key));
        assert_eq!(empty.status, 200);
        assert_eq!(
            empty.json(),
            json!({"data": [], "page": 1, "limit": 20, "total": 0, "total_pages": 0, "has_more": false})
        );
        let links = empty.links();
        assert_eq!(links.len(), 2, "{links:?}");
        assert!(links.iter().all(|(_, url)| url.contains("page=1&limit=20")));
        assert_eq!(links[0].0, "first");
        assert_eq!(links[1].0, "last");
    }
    let warning = server.logs.wait_for(0, CHANGE_TIMEOUT, |l| {
        is_event(l, "warning") && l.contains("ghost")
    });
    assert!(warning.is_some(), "a key for an unknown org is logged");
}

/// Writes `count` entries to org `org`: newest first they are `e{count-1}` ... `e0`, with
/// every three sharing a date (so ids break the ties).
fn many_entries(content: &Path, org: &str, count: usize) -> Vec<String> {
    let mut expected = Vec::new();
    for i in 0..count {
        let day = 1 + i / 3;
        let id = format!("e{i:03}");
        write_entry(
            &content.join(org).join(format!("{id}.md")),
            &format!(
                "title: Entry {i}\ndate: 2025-01-{:02}T10:00:00Z\n",
                day.min(28)
            ),
            "Text.\n",
        );
        expected.push((day.min(28), id));
    }
    expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    expected.into_iter().map(|(_, id)| id).collect()
}

#[test]
fn pagination_arithmetic_on_the_edges() {
    let site = Site::new(None);
    std::fs::write(
        site.path().join("shiplog.yaml"),
        "base_url: https://api.example.com/\n",
    )
    .unwrap();
    let expected = many_entries(&site.content(), "acme", 45);
    std::fs::create_dir_all(site.content().join("quiet")).unwrap();
    let server = site.start();
    let page = |query: &str| {
        let response = server.get(&listing(query), Some(ACME));
        assert_eq!(response.status, 200, "{query}: {}", response.text());
        response
    };
    let url =
        |p: u64, l: u64| format!("https://api.example.com/api/v1/changelogs?page={p}&limit={l}");

    /// One request and what it must answer.
    struct Case {
        query: &'static str,
        ids: std::ops::Range<usize>,
        page: u64,
        limit: u64,
        total_pages: u64,
        has_more: bool,
        /// `rel` and page number, in header order.
        links: &'static [(&'static str, u64)],
    }
    let case = |query, ids, page, limit, total_pages, has_more, links| Case {
        query,
        ids,
        page,
        limit,
        total_pages,
        has_more,
        links,
    };
    let cases = [
        case(
            "",
            0..20,
            1,
            20,
            3,
            true,
            &[("first", 1), ("next", 2), ("last", 3)],
        ),
        case(
            "page=2",
            20..40,
            2,
            20,
            3,
            true,
            &[("first", 1), ("prev", 1), ("next", 3), ("last", 3)],
        ),
        case(
            "page=3",
            40..45,
            3,
            20,
            3,
            false,
            &[("first", 1), ("prev", 2), ("last", 3)],
        ),
        case(
            "page=4",
            45..45,
            4,
            20,
            3,
            false,
            &[("first", 1), ("prev", 3), ("last", 3)],
        ),
        case(
            "page=50&limit=10",
            45..45,
            50,
            10,
            5,
            false,
            &[("first", 1), ("prev", 49), ("last", 5)],
        ),
        case(
            "limit=100",
            0..45,
            1,
            100,
            1,
            false,
            &[("first", 1), ("last", 1)],
        ),
        case(
            "limit=45",
            0..45,
            1,
            45,
            1,
            false,
            &[("first", 1), ("last", 1)],
        ),
        case(
            "limit=44",
            0..44,
            1,
            44,
            2,
            true,
            &[("first", 1), ("next", 2), ("last", 2)],
        ),
        case(
            "limit=44&page=2",
            44..45,
            2,
            44,
            2,
            false,
            &[("first", 1), ("prev", 1), ("last", 2)],
        ),
        case(
            "limit=15&page=3",
            30..45,
            3,
            15,
            3,
            false,
            &[("first", 1), ("prev", 2), ("last", 3)],
        ),
        case(
            "limit=1&page=45",
            44..45,
            45,
            1,
            45,
            false,
            &[("first", 1), ("prev", 44), ("last", 45)],
        ),
        case(
            "page=1&limit=1",
            0..1,
            1,
            1,
            45,
            true,
            &[("first", 1), ("next", 2), ("last", 45)],
        ),
    ];
    for case in cases {
        let query = case.query;
        let response = page(query);
        let body = response.json();
        assert_eq!(response.ids(), expected[case.ids].to_vec(), "{query}");
        assert_eq!(body["page"], case.page, "{query}");
        assert_eq!(body["limit"], case.limit, "{query}");
        assert_eq!(body["total"], 45, "{query}");
        assert_eq!(body["total_pages"], case.total_pages, "{query}");
        assert_eq!(body["has_more"], case.has_more, "{query}");
        let links: Vec<(String, String)> = case
            .links
            .iter()
            .map(|(rel, p)| (rel.to_string(), url(*p, case.limit)))
            .collect();
        assert_eq!(response.links(), links, "{query}");
    }

    // Following `next` from the first page visits every entry once, in order.
    let mut seen = Vec::new();
    let mut target = listing("limit=7");
    loop {
        let response = page(target.split_once('?').map_or("", |(_, q)| q));
        seen.extend(response.ids());
        match response.link("next") {
            Some(next) => target = next.replace("https://api.example.com", ""),
            None => break,
        }
    }
    assert_eq!(seen, expected);

    let empty = server.get(&listing("page=3&limit=7"), Some(QUIET));
    assert_eq!(empty.json()["total_pages"], 0);
    assert_eq!(
        empty.links(),
        vec![
            ("first".to_string(), url(1, 7)),
            ("prev".to_string(), url(2, 7)),
            ("last".to_string(), url(1, 7)),
        ]
    );
}

#[test]
fn etag_and_if_none_match() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let auth = format!("Bearer {ACME}");
    let first = server.get(LISTING, Some(ACME));
    let etag = first.header("etag").expect("an ETag").to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    let again = server.get(LISTING, Some(ACME));
    assert_eq!(
        again.header("etag"),
        Some(etag.as_str()),
        "stable for the same content"
    );

    let weak = format!("W/{etag}");
    let listed = format!("\"nope\", {etag}");
    for value in [etag.as_str(), weak.as_str(), listed.as_str(), "*"] {
        for method in ["GET", "HEAD"] {
            let response = server.request(
                method,
                LISTING,
                &[("Authorization", &auth), ("If-None-Match", value)],
            );
            assert_eq!(response.status, 304, "{method} {value}");
            assert!(response.body.is_empty());
            assert_eq!(response.header("etag"), Some(etag.as_str()));
        }
    }
    let stale = server.request(
        "GET",
        LISTING,
        &[("Authorization", &auth), ("If-None-Match", "\"0123\"")],
    );
    assert_eq!(stale.status, 200);
    assert_eq!(stale.body, first.body);

    let other_page = server.get(&listing("limit=1"), Some(ACME));
    assert_ne!(other_page.header("etag"), Some(etag.as_str()));
    let other_org = server.get(LISTING, Some(GLOBEX));
    assert_ne!(other_org.header("etag"), Some(etag.as_str()));
    // The ETag of another key's page does not make this one 304.
    let cross = server.request(
        "GET",
        LISTING,
        &[
            ("Authorization", &format!("Bearer {GLOBEX}")),
            ("If-None-Match", &etag),
        ],
    );
    assert_eq!(cross.status, 200);
}

#[test]
fn one_entry_by_id_with_its_own_etag() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let auth = format!("Bearer {ACME}");
    let listed = server.get(LISTING, Some(ACME)).json();
    let path = format!("{LISTING}/launch");
    let one = server.get(&path, Some(ACME));
    assert_eq!(one.status, 200, "{}", one.text());
    assert_eq!(one.header("content-type"), Some("application/json"));
    assert_eq!(one.json(), json!({ "data": listed["data"][1] }));
    assert_eq!(
        server.get(&format!("{LISTING}/l%61unch"), Some(ACME)).body,
        one.body,
        "the id is percent-decoded"
    );

    let etag = one.header("etag").expect("an ETag").to_string();
    assert_ne!(
        Some(etag.as_str()),
        server.get(LISTING, Some(ACME)).header("etag")
    );
    for method in ["GET", "HEAD"] {
        let fresh = server.request(
            method,
            &path,
            &[("Authorization", &auth), ("If-None-Match", &etag)],
        );
        assert_eq!(fresh.status, 304, "{method}");
        assert!(fresh.body.is_empty());
    }
    let head = server.request("HEAD", &path, &[("Authorization", &auth)]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("content-length"), one.header("content-length"));
    assert_eq!(head.header("etag"), Some(etag.as_str()));

    // Scheduled, a draft, another org's, none: all the same 404.
    for id in ["far-future", "draft", "hello", "nope", "%FF"] {
        let response = server.get(&format!("{LISTING}/{id}"), Some(ACME));
        assert_error(&response, 404, "entry_not_found");
    }
    assert_eq!(
        server.get(&format!("{LISTING}/hello"), Some(GLOBEX)).status,
        200
    );
    assert_unauthorized(&server.get(&path, None), "missing_api_key");
    assert_error(
        &server.get(&format!("{path}/more"), Some(ACME)),
        404,
        "not_found",
    );
    assert_error(
        &server.get(&format!("{LISTING}/"), Some(ACME)),
        404,
        "not_found",
    );
    let post = server.request("POST", &path, &[("Authorization", &auth)]);
    assert_error(&post, 405, "method_not_allowed");
    assert_logs_hold_no_key(&server);
}

/// An org whose entries the filters tell apart, newest first: `csv`, `resume`, `webhooks`,
/// `chinese`, `dark`; `later` is scheduled and `hidden` a draft.
fn filter_site() -> Site {
    let site = Site::new(None);
    let acme = site.content().join("acme");
    std::fs::create_dir_all(&acme).unwrap();
    std::fs::write(acme.join("_org.yaml"), "title: Acme\n").unwrap();
    for (id, front, body) in [
        ("csv", "title: CSV export is faster\ndate: 2026-03-05T10:00:00Z\ntags: [Export, Performance]\n", "Ten times faster.\n"),
        ("resume", "title: Résumé builder\ndate: 2026-03-04T10:00:00Z\ntags: [feature]\n", "Write your résumé.\n"),
        ("webhooks", "title: Webhooks for exports\ndate: 2026-03-03T10:00:00Z\ntags: [api]\nsummary: Exports notify your servers.\n", "Signed.\n"),
        ("chinese", "title: 导出速度更快\ndate: 2026-03-02T10:00:00Z\ntags: [export]\n", "更快。\n"),
        ("dark", "title: Dark mode\ndate: 2026-03-01T10:00:00Z\ntags: [ui]\n", "Follows the system.\n"),
        ("later", "title: Export 2.0\ndate: 2999-01-01T00:00:00Z\ntags: [export]\n", "Soon.\n"),
        ("hidden", "title: Export secrets\ndate: 2026-03-05T11:00:00Z\ntags: [export]\ndraft: true\n", "No.\n"),
    ] {
        write_entry(&acme.join(format!("{id}.md")), front, body);
    }
    site
}

#[test]
fn filters_select_by_tag_time_and_words() {
    let site = filter_site();
    let server = site.start();
    let found = |query: &str| {
        let response = server.get(&listing(query), Some(ACME));
        assert_eq!(response.status, 200, "{}", response.text());
        response.ids()
    };
    assert_eq!(found(""), ["csv", "resume", "webhooks", "chinese", "dark"]);
    // A tag is compared by its page name; scheduled entries and drafts stay out.
    assert_eq!(found("tag=export"), ["csv", "chinese"]);
    assert_eq!(found("tag=EXPORT"), ["csv", "chinese"]);
    assert_eq!(found("tag=nope"), Vec::<String>::new());
    // `since`: published strictly after, in any offset, or a day.
    assert_eq!(found("since=2026-03-03T10:00:00Z"), ["csv", "resume"]);
    assert_eq!(
        found("since=2026-03-03T11:00:00%2B01:00"),
        ["csv", "resume"]
    );
    assert_eq!(found("since=2026-03-03"), ["csv", "resume", "webhooks"]);
    assert_eq!(found("since=2999-12-31T00:00:00Z"), Vec::<String>::new());
    // `q`: every word starts a word of the title, summary, tags or text; case and accents
    // do not matter; in Chinese a word may stand anywhere in a run.
    assert_eq!(found("q=export"), ["csv", "webhooks", "chinese"]);
    assert_eq!(found("q=CSV+fast"), ["csv"]);
    assert_eq!(found("q=resume"), ["resume"]);
    assert_eq!(found("q=R%C3%89SUM%C3%89"), ["resume"]);
    assert_eq!(found("q=notify+servers"), ["webhooks"]);
    assert_eq!(found("q=%E9%80%9F%E5%BA%A6"), ["chinese"]);
    assert_eq!(found("q=export+secrets"), Vec::<String>::new());
    assert_eq!(found("q=performance"), ["csv"]);
    // Together: all must hold.
    assert_eq!(found("q=export&tag=api"), ["webhooks"]);
    assert_eq!(found("tag=export&since=2026-03-02T10:00:00Z"), ["csv"]);

    // The envelope, the Link header and the ETag follow the filtered list.
    let page = server.get(&listing("q=export&limit=2&page=2"), Some(ACME));
    let body = page.json();
    assert_eq!(body["total"], 3);
    assert_eq!(body["total_pages"], 2);
    assert_eq!(body["has_more"], false);
    assert_eq!(page.ids(), ["chinese"]);
    let links = page.links();
    let prev = links.iter().find(|(rel, _)| rel == "prev").unwrap();
    assert_eq!(
        prev.1,
        "http://localhost:8081/api/v1/changelogs?q=export&page=1&limit=2"
    );
    let unfiltered = server.get(&listing("limit=2&page=2"), Some(ACME));
    assert_ne!(unfiltered.header("etag"), page.header("etag"));
    let spaced = server.get(&listing("tag=a%20b&q=x%26y"), Some(ACME));
    let first = &spaced.links()[0].1;
    assert!(first.contains("?tag=a+b&q=x%26y&page=1"), "{first}");

    for (query, param) in [
        ("tag=", "tag"),
        ("since=last+week", "since"),
        ("since=2026-03-01T10:00:00", "since"),
        ("q=", "q"),
        ("q=%21%21", "q"),
        ("q=export&q=csv", "q"),
        ("tag=a&tag=b", "tag"),
    ] {
        let body = assert_error(
            &server.get(&listing(query), Some(ACME)),
            400,
            "invalid_parameter",
        );
        assert_eq!(body["error"]["param"], param, "{query}");
    }
    let long = format!("q={}", "word+".repeat(60));
    assert_eq!(
        assert_error(
            &server.get(&listing(&long), Some(ACME)),
            400,
            "invalid_parameter"
        )["error"]["param"],
        "q"
    );
}

fn gunzip(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(body), &mut out).unwrap();
    out
}

fn unbrotli(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut brotli::Decompressor::new(body, 4096), &mut out).unwrap();
    out
}

#[test]
fn compressed_answers_each_with_their_own_etag() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let auth = format!("Bearer {ACME}");
    for path in [
        LISTING.to_string(),
        listing("limit=2&q=api"),
        format!("{LISTING}/launch"),
    ] {
        let plain = server.request("GET", &path, &[("Authorization", &auth)]);
        assert_eq!(plain.status, 200, "{}", plain.text());
        assert_eq!(plain.header("content-encoding"), None);
        assert_eq!(plain.header("vary"), Some("Accept-Encoding, Authorization"));
        let tag = plain.header("etag").unwrap().to_string();
        for (accept, coding, decode) in [
            ("gzip", "gzip", gunzip as fn(&[u8]) -> Vec<u8>),
            ("gzip, deflate, br", "br", unbrotli),
            ("br;q=0.5, gzip", "gzip", gunzip),
            ("identity", "", <[u8]>::to_vec),
            ("br;q=0, gzip;q=0", "", <[u8]>::to_vec),
        ] {
            let headers = [
                ("Authorization", auth.as_str()),
                ("Accept-Encoding", accept),
            ];
            let got = server.request("GET", &path, &headers);
            assert_eq!(got.status, 200);
            assert_eq!(
                got.header("content-encoding").unwrap_or(""),
                coding,
                "{accept}"
            );
            assert_eq!(got.header("vary"), Some("Accept-Encoding, Authorization"));
            assert_eq!(decode(&got.body), plain.body, "{path} {accept}");
            let etag = got.header("etag").unwrap().to_string();
            let suffix = if coding.is_empty() {
                String::new()
            } else if coding == "br" {
                "-br".into()
            } else {
                "-gzip".into()
            };
            assert_eq!(etag, format!("{}{suffix}\"", &tag[..tag.len() - 1]));
            // The same bytes every time; HEAD tells their length.
            assert_eq!(server.request("GET", &path, &headers).body, got.body);
            let head = server.request("HEAD", &path, &headers);
            assert_eq!(
                head.header("content-length"),
                Some(got.body.len().to_string().as_str())
            );
            assert_eq!(
                head.header("content-encoding"),
                got.header("content-encoding")
            );
            assert!(head.body.is_empty());
            // Its own tag makes it 304; another encoding's does not.
            let mut conditional = headers.to_vec();
            conditional.push(("If-None-Match", &etag));
            let fresh = server.request("GET", &path, &conditional);
            assert_eq!(fresh.status, 304, "{accept}");
            assert_eq!(fresh.header("etag"), Some(etag.as_str()));
            if !coding.is_empty() {
                conditional.pop();
                conditional.push(("If-None-Match", &tag));
                assert_eq!(server.request("GET", &path, &conditional).status, 200);
            }
        }
    }
    // Errors are not compressed.
    let error = server.request(
        "GET",
        &listing("page=0"),
        &[("Authorization", &auth), ("Accept-Encoding", "gzip")],
    );
    assert_eq!(error.status, 400);
    assert_eq!(error.header("content-encoding"), None);
}

#[test]
fn head_is_get_without_the_body() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let auth = format!("Bearer {ACME}");
    for query in ["", "page=2&limit=1", "page=9"] {
        let get = server.request("GET", &listing(query), &[("Authorization", &auth)]);
        let head = server.request("HEAD", &listing(query), &[("Authorization", &auth)]);
        assert_eq!(head.status, 200);
        assert!(head.body.is_empty());
        for name in [
            "content-type",
            "content-length",
            "etag",
            "link",
            "cache-control",
        ] {
            assert_eq!(head.header(name), get.header(name), "{name} for {query:?}");
        }
        assert_eq!(
            head.header("content-length")
                .unwrap()
                .parse::<usize>()
                .unwrap(),
            get.body.len()
        );
    }
}

#[test]
fn rate_limit_per_key() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let auth = format!("Bearer {LIMITED}");
    assert_eq!(server.get(LISTING, Some(LIMITED)).status, 200);
    assert_eq!(
        server
            .request("HEAD", LISTING, &[("Authorization", &auth)])
            .status,
        200
    );
    // A bad query is answered before the rate is counted.
    assert_eq!(server.get(&listing("page=0"), Some(LIMITED)).status, 400);
    assert_eq!(server.get(&listing("limit=1"), Some(LIMITED)).status, 200);

    let limited = server.get(LISTING, Some(LIMITED));
    assert_error(&limited, 429, "rate_limited");
    let retry: u64 = limited
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("whole seconds");
    assert!((1..=20).contains(&retry), "{retry}");
    // Order of checks: the key, then the query, then the rate.
    assert_eq!(server.get(&listing("limit=0"), Some(LIMITED)).status, 400);
    assert_eq!(server.get(LISTING, Some("unknown")).status, 401);
    assert_eq!(
        server
            .request("POST", LISTING, &[("Authorization", &auth)])
            .status,
        405
    );
    let head = server.request("HEAD", LISTING, &[("Authorization", &auth)]);
    assert_eq!(head.status, 429);
    assert!(head.header("retry-after").is_some());
    // Another key, even for the same org, has its own count.
    for _ in 0..5 {
        assert_eq!(server.get(LISTING, Some(ACME)).status, 200);
    }
    let log = server
        .logs
        .wait_for(0, CHANGE_TIMEOUT, |l| l.contains("\"status\":429"))
        .unwrap();
    assert!(log.contains("\"key\":\"limited\""), "{log}");
    assert_logs_hold_no_key(&server);
}

/// Waits for the next log line of `event` after line `from`.
fn wait_event(server: &Server, from: usize, event: &str) -> Value {
    let line = server
        .logs
        .wait_for(from, CHANGE_TIMEOUT, |l| is_event(l, event))
        .unwrap_or_else(|| {
            panic!(
                "no `{event}` in the logs:\n{}",
                server.logs.lines().join("\n")
            )
        });
    serde_json::from_str(&line).unwrap()
}

#[test]
fn content_changes_are_served_without_a_restart() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let ids = |r: &Response| r.ids();
    let acme = site.content().join("acme");
    let before = server.get(LISTING, Some(ACME));
    let etag = before.header("etag").unwrap().to_string();

    // Added.
    write_entry(
        &acme.join("new/added.md"),
        "title: Added while running\ndate: 2026-03-01T00:00:00Z\n",
        "New.\n",
    );
    let added = server.poll(LISTING, Some(ACME), CHANGE_TIMEOUT, |r| {
        r.status == 200 && ids(r).first().map(String::as_str) == Some("added")
    });
    assert_eq!(added.json()["total"], 5);
    assert_ne!(added.header("etag"), Some(etag.as_str()));
    // A 304 no longer: the ETag follows the content.
    let revalidated = server.request(
        "GET",
        LISTING,
        &[
            ("Authorization", &format!("Bearer {ACME}")),
            ("If-None-Match", &etag),
        ],
    );
    assert_eq!(revalidated.status, 200);

    // Changed.
    write_entry(
        &acme.join("new/added.md"),
        "title: Renamed while running\ndate: 2026-03-01T00:00:00Z\n",
        "New.\n",
    );
    server.poll(LISTING, Some(ACME), CHANGE_TIMEOUT, |r| {
        r.json()["data"][0]["title"] == "Renamed while running"
    });

    // Removed.
    std::fs::remove_file(acme.join("launch.md")).unwrap();
    server.poll(LISTING, Some(ACME), CHANGE_TIMEOUT, |r| {
        !ids(r).iter().any(|id| id == "launch")
    });

    // A broken edit: the errors are logged with file and line, the last good index serves.
    let from = server.logs.len();
    std::fs::write(
        acme.join("fix.md"),
        "---\ntitle: Fixed the export button\ndate: 2025-12-01\ntagz: [oops]\n---\nBroken.\n",
    )
    .unwrap();
    let failed = server
        .logs
        .wait_for(from, CHANGE_TIMEOUT, |l| {
            is_event(l, "reload_failed") && l.contains("tagz")
        })
        .expect("the broken edit is logged");
    let failed: Value = serde_json::from_str(&failed).unwrap();
    assert_eq!(failed["level"], "error");
    let problems = failed["problems"].to_string();
    assert!(
        problems.contains("fix.md:4:1: unknown key `tagz`"),
        "{problems}"
    );
    let still = server.get(LISTING, Some(ACME));
    assert_eq!(still.status, 200);
    assert_eq!(still.ids(), vec!["added", "api-v2", "fix", "dark-mode"]);
    assert_eq!(
        still.json()["data"][2]["content_html"],
        "<p>Exports no longer time out.</p>\n"
    );

    // Fixed again.
    write_entry(
        &acme.join("fix.md"),
        "title: Fixed the export button for good\ndate: 2025-12-01\n",
        "Fixed.\n",
    );
    server.poll(LISTING, Some(ACME), CHANGE_TIMEOUT, |r| {
        r.json()["data"][2]["title"] == "Fixed the export button for good"
    });

    // A whole new org, and a key for it made while the server runs.
    write_entry(
        &site.content().join("initech/first.md"),
        "title: Initech joins\ndate: 2026-01-01\n",
        "Hi.\n",
    );
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_shiplog"))
        .args([
            "keys",
            "new",
            "--org",
            "initech",
            "--name",
            "initech-ci",
            "--keys",
        ])
        .arg(site.keys())
        .arg("--content")
        .arg(site.content())
        .output()
        .unwrap();
    // The org folder exists as soon as the entry is written.
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let key = String::from_utf8(output.stdout).unwrap().trim().to_string();
    server.poll(LISTING, Some(&key), CHANGE_TIMEOUT, |r| {
        r.status == 200 && r.ids() == vec!["first"]
    });
    let logs = server.logs.lines().join("\n");
    assert!(!logs.contains(&key) && !logs.contains(&digest(&key)));
    // The old keys still work.
    assert_eq!(server.get(LISTING, Some(GLOBEX)).status, 200);
}

#[test]
fn cached_pages_are_made_anew_after_a_reload() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let all = server.get(&listing("limit=100"), Some(ACME)).ids();
    let position = all
        .iter()
        .position(|id| id == "fix")
        .expect("fix is listed");
    let target = listing(&format!("limit=1&page={}", position + 1));

    // Asked twice: the same page, byte for byte (the second time from the cache).
    let first = server.get(&target, Some(ACME));
    let again = server.get(&target, Some(ACME));
    assert_eq!(first.ids(), vec!["fix"]);
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("etag"), first.header("etag"));
    let whole = server.get(&listing("limit=100"), Some(ACME));

    write_entry(
        &site.content().join("acme/fix.md"),
        "title: Fixed the export button, cached no more\ndate: 2025-12-01\n",
        "Exports no longer time out.\n",
    );
    let changed = server.poll(&target, Some(ACME), CHANGE_TIMEOUT, |r| {
        r.json()["data"][0]["title"] == "Fixed the export button, cached no more"
    });
    assert_ne!(changed.header("etag"), first.header("etag"));
    // Every page of the old generation is gone, not just the one asked for again.
    let whole_now = server.get(&listing("limit=100"), Some(ACME));
    assert_ne!(whole_now.header("etag"), whole.header("etag"));
    assert_eq!(
        whole_now.json()["data"][position]["title"],
        "Fixed the export button, cached no more"
    );
    let revalidated = server.request(
        "GET",
        &target,
        &[
            ("Authorization", &format!("Bearer {ACME}")),
            ("If-None-Match", first.header("etag").unwrap()),
        ],
    );
    assert_eq!(revalidated.status, 200);
}

#[test]
fn a_content_edit_reads_again_only_the_orgs_it_touched() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let acme_before = server.get(LISTING, Some(ACME));

    let from = server.logs.len();
    write_entry(
        &site.content().join("globex/hello.md"),
        "title: Globex says hello again\ndate: 2026-02-01T12:00:00Z\n",
        "Hello.\n",
    );
    let reloaded = wait_event(&server, from, "content_reloaded");
    assert_eq!(reloaded["orgs_read"], 1, "{reloaded}");
    assert_eq!(reloaded["orgs"], 3, "{reloaded}");
    server.poll(LISTING, Some(GLOBEX), CHANGE_TIMEOUT, |r| {
        r.json()["data"][0]["title"] == "Globex says hello again"
    });
    // The org that was not read again is served as it was.
    let acme_after = server.get(LISTING, Some(ACME));
    assert_eq!(acme_after.body, acme_before.body);

    // A new org folder is read; a removed one is gone.
    let from = server.logs.len();
    write_entry(
        &site.content().join("initech/first.md"),
        "title: Initech joins\ndate: 2026-01-01\n",
        "Hi.\n",
    );
    std::fs::remove_dir_all(site.content().join("globex")).unwrap();
    server
        .logs
        .wait_for(from, CHANGE_TIMEOUT, |l| {
            is_event(l, "content_reloaded") && l.contains("\"orgs\":3,")
        })
        .expect("a reload without globex, with initech");
    let globex = server.get(LISTING, Some(GLOBEX));
    assert_eq!(globex.json()["total"], 0);
    assert_eq!(server.get(LISTING, Some(ACME)).ids(), acme_before.ids());
    let reloads: Vec<Value> = server.logs.lines()[from..]
        .iter()
        .filter(|l| is_event(l, "content_reloaded"))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = reloads.last().expect("a reload");
    assert_eq!(last["orgs"], 3, "acme, initech, quiet: {last}");
    assert!(
        reloads
            .iter()
            .all(|r| r["orgs_read"].as_u64().unwrap() <= 1),
        "{reloads:?}"
    );
    assert_eq!(server.get(LISTING, Some(ACME)).body, acme_before.body);

    // SIGHUP reads everything.
    let from = server.logs.len();
    server.signal(libc::SIGHUP);
    let everything = wait_event(&server, from, "content_reloaded");
    assert_eq!(everything["orgs_read"], 3, "{everything}");
}

#[test]
fn a_thousand_keys_each_read_their_own_org() {
    let site = Site::new(Some("basic"));
    let secrets: Vec<String> = (0..1000)
        .map(|i| format!("shl_many_{i:04}_0123456789"))
        .collect();
    let keys: Vec<TestKey<'_>> = secrets
        .iter()
        .enumerate()
        .map(|(i, secret)| TestKey {
            name: "many",
            org: if i % 2 == 0 { "acme" } else { "globex" },
            key: secret,
            rate: None,
        })
        .collect();
    site.write_keys(&keys);
    let server = site.start();
    let listening = server
        .logs
        .wait_for(0, START_TIMEOUT, |l| is_event(l, "listening"))
        .unwrap();
    assert!(listening.contains("\"keys\":1000"), "{listening}");

    let acme = server.get(LISTING, Some(&secrets[0])).ids();
    let globex = server.get(LISTING, Some(&secrets[1])).ids();
    assert!(acme.contains(&"fix".to_string()), "{acme:?}");
    assert!(globex.contains(&"hello".to_string()), "{globex:?}");
    for i in [2, 499, 500, 998, 999] {
        let response = server.get(LISTING, Some(&secrets[i]));
        assert_eq!(response.status, 200, "key {i}");
        assert_eq!(
            &response.ids(),
            if i % 2 == 0 { &acme } else { &globex },
            "key {i}"
        );
    }
    // A key one character off the last one is no key.
    let near = format!("{}x", &secrets[999][..secrets[999].len() - 1]);
    assert_unauthorized(&server.get(LISTING, Some(&near)), "invalid_api_key");
}

#[test]
fn sighup_reloads_config_content_and_keys() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let before = server.get(LISTING, Some(ACME));
    assert!(before
        .link("first")
        .unwrap()
        .starts_with("http://localhost:8081/"));

    let from = server.logs.len();
    server.signal(libc::SIGHUP);
    let reloaded = wait_event(&server, from, "content_reloaded");
    assert_eq!(reloaded["trigger"], "SIGHUP");
    assert_eq!(reloaded["orgs"], 3);
    let keys = wait_event(&server, from, "keys_reloaded");
    assert_eq!(keys["trigger"], "SIGHUP");
    assert_eq!(server.get("/healthz", None).status, 200);

    // A new base_url, and one key fewer.
    std::fs::write(
        site.path().join("shiplog.yaml"),
        "base_url: https://changelog-api.example.com\n",
    )
    .unwrap();
    site.write_keys(&[TestKey {
        name: "acme-ci",
        org: "acme",
        key: ACME,
        rate: None,
    }]);
    server.signal(libc::SIGHUP);
    server.poll(LISTING, Some(ACME), CHANGE_TIMEOUT, |r| {
        r.link("first")
            .is_some_and(|l| l.starts_with("https://changelog-api.example.com/api/v1/changelogs?"))
    });
    server.poll(LISTING, Some(GLOBEX), CHANGE_TIMEOUT, |r| r.status == 401);

    // A broken keys file keeps the last good keys.
    let from = server.logs.len();
    std::fs::write(
        site.keys(),
        "keys:\n  - name: x\n    org: acme\n    sha256: nothex\n",
    )
    .unwrap();
    server.signal(libc::SIGHUP);
    let failed = server
        .logs
        .wait_for(from, CHANGE_TIMEOUT, |l| {
            is_event(l, "reload_failed") && l.contains("\"keys\"")
        })
        .expect("the broken keys file is logged");
    assert!(failed.contains("api_keys.yaml:4:13: `sha256`"), "{failed}");
    assert_eq!(server.get(LISTING, Some(ACME)).status, 200);

    // A keys file moved away revokes every key, and says so.
    let from = server.logs.len();
    std::fs::rename(site.keys(), site.path().join("api_keys.gone")).unwrap();
    server.poll(LISTING, Some(ACME), CHANGE_TIMEOUT, |r| r.status == 401);
    assert!(server
        .logs
        .wait_for(from, CHANGE_TIMEOUT, |l| {
            is_event(l, "warning") && l.contains("every key is refused")
        })
        .is_some());
    // A keys file back in place is read again.
    site.write_keys(&[TestKey {
        name: "acme-ci",
        org: "acme",
        key: ACME,
        rate: None,
    }]);
    server.poll(LISTING, Some(ACME), CHANGE_TIMEOUT, |r| r.status == 200);
}

#[test]
fn a_scheduled_entry_appears_when_its_date_passes() {
    let site = Site::new(Some("basic"));
    // Whole seconds: dates are stored (and publication judged) in whole seconds.
    let due = chrono::DateTime::from_timestamp(
        (Utc::now() + chrono::Duration::seconds(4)).timestamp(),
        0,
    )
    .unwrap();
    write_entry(
        &site.content().join("acme/soon.md"),
        &format!(
            "title: Coming soon\ndate: {}\n",
            due.to_rfc3339_opts(SecondsFormat::Secs, true)
        ),
        "Soon.\n",
    );
    let server = site.start();
    let asked = Utc::now();
    let early = server.get(LISTING, Some(ACME));
    if Utc::now() < due {
        assert!(
            !early.ids().contains(&"soon".to_string()),
            "shown before {due} (asked {asked})"
        );
        assert_eq!(early.json()["total"], 4);
    }
    let later = server.poll(LISTING, Some(ACME), Duration::from_secs(30), |r| {
        r.ids().first().map(String::as_str) == Some("soon")
    });
    assert!(Utc::now() >= due);
    assert_eq!(later.json()["total"], 5);
    assert_eq!(
        later.json()["data"][0]["date_published"],
        due.to_rfc3339_opts(SecondsFormat::Secs, true)
    );
    // No reload was needed for it.
    assert!(!server
        .logs
        .lines()
        .iter()
        .any(|l| is_event(l, "content_reloaded")));
}

#[test]
fn sigterm_finishes_the_request_in_flight_then_exits_0() {
    use std::io::{Read, Write};
    // 100 entries of ~100 KB: a 10 MB page, far more than the socket buffers hold, so
    // the response is still being written while the client holds back.
    let site = Site::new(None);
    let paragraph = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(16) + "\n\n";
    let body = paragraph.repeat(110);
    for i in 0..100 {
        write_entry(
            &site.content().join(format!("acme/e{i:03}.md")),
            &format!(
                "title: Entry {i}\ndate: 2025-06-01T00:{:02}:{:02}Z\n",
                i / 60,
                i % 60
            ),
            &body,
        );
    }
    let mut server = site.start();

    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.connect(&server.addr.into()).unwrap();
    let mut stream: std::net::TcpStream = socket.into();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "GET {LISTING}?limit=100 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ACME}\r\n\r\n"
    )
    .unwrap();
    // Read a little: the response has started.
    let mut start = [0u8; 1024];
    let mut got = 0;
    while got < start.len() {
        let n = stream.read(&mut start[got..]).unwrap();
        assert!(n > 0, "the server closed early");
        got += n;
    }
    assert!(start.starts_with(b"HTTP/1.1 200 OK\r\n"));

    let from = server.logs.len();
    server.signal(libc::SIGTERM);
    wait_event(&server, from, "shutting_down");
    // No new connections once shutting down...
    let deadline = Instant::now() + CHANGE_TIMEOUT;
    while std::net::TcpStream::connect(server.addr).is_ok() {
        assert!(Instant::now() < deadline, "still accepting connections");
        std::thread::sleep(Duration::from_millis(20));
    }
    // ...but the request in flight is not cut short.
    assert!(server.is_running(), "exited with a request in flight");
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).unwrap();
    let mut all = start[..got].to_vec();
    all.extend(rest);
    let response = parse_response(&all, false);
    assert_eq!(response.status, 200);
    let listing = response.json();
    assert_eq!(listing["data"].as_array().unwrap().len(), 100);
    assert!(response.body.len() > 8_000_000, "{}", response.body.len());

    let status = server.wait_exit(CHANGE_TIMEOUT);
    assert_eq!(status.code(), Some(0), "{status}");
    let stopped = wait_event(&server, from, "stopped");
    assert_eq!(stopped["drained"], true);
}

#[test]
fn ctrl_c_stops_the_server_with_status_0() {
    let site = Site::new(Some("basic"));
    let mut server = site.start();
    assert_eq!(server.get("/healthz", None).status, 200);
    server.signal(libc::SIGINT);
    assert_eq!(server.wait_exit(CHANGE_TIMEOUT).code(), Some(0));
}

#[test]
fn slow_clients_are_cut_off() {
    use std::io::{Read, Write};
    let site = Site::new(Some("basic"));
    let mut args = site.args();
    args.extend(["--header-read-timeout".into(), "1".into()]);
    let server = Server::start(&args, site.path());
    let mut slow = std::net::TcpStream::connect(server.addr).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    // Others are served meanwhile.
    assert_eq!(server.get("/healthz", None).status, 200);
    let started = Instant::now();
    let mut buffer = Vec::new();
    let read = slow.read_to_end(&mut buffer);
    // Closed by the server (end of stream or reset), long before our own 30 s timeout.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the connection was held open: {read:?}"
    );
    assert!(
        !String::from_utf8_lossy(&buffer).contains("200 OK"),
        "{buffer:?}"
    );
    // An idle connection is closed too.
    let mut idle = std::net::TcpStream::connect(server.addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let started = Instant::now();
    let mut one = [0u8; 1];
    let read = idle.read(&mut one);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "idle connection kept: {read:?}"
    );
    assert_eq!(server.get("/healthz", None).status, 200);
}

#[test]
fn bad_content_or_keys_stop_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys.yaml");
    std::fs::write(
        &keys,
        keys_yaml(&[TestKey {
            name: "a",
            org: "acme",
            key: ACME,
            rate: None,
        }]),
    )
    .unwrap();
    let with = |content: &Path, keys: &Path| -> Vec<OsString> {
        vec![
            "--content".into(),
            content.into(),
            "--keys".into(),
            keys.into(),
            "--listen".into(),
            "127.0.0.1:0".into(),
        ]
    };

    let failed = run_api_expecting_exit(&with(&fixture("api/broken"), &keys), dir.path());
    assert_eq!(failed.status.code(), Some(1), "{}", failed.stderr);
    assert!(
        failed
            .stderr
            .contains("acme/bad.md:2:1: unknown key `titel`"),
        "{}",
        failed.stderr
    );
    assert!(
        failed
            .stderr
            .contains("acme/no-date.md:2:1: missing required key `date`"),
        "{}",
        failed.stderr
    );
    assert!(!failed.stderr.contains("listening"));

    let bad_keys = dir.path().join("bad-keys.yaml");
    std::fs::write(
        &bad_keys,
        "keys:\n  - name: a\n    org: acme\n    sha256: abcd\n    rate_limit_per_minute: 0\n",
    )
    .unwrap();
    let failed = run_api_expecting_exit(&with(&fixture("api/basic"), &bad_keys), dir.path());
    assert_eq!(failed.status.code(), Some(1), "{}", failed.stderr);
    assert!(
        failed.stderr.contains("bad-keys.yaml:4:13: `sha256`"),
        "{}",
        failed.stderr
    );

    for args in [
        with(&fixture("api/basic"), &dir.path().join("missing.yaml")),
        with(&dir.path().join("no-content"), &keys),
        vec![
            "--content".into(),
            fixture("api/basic").into(),
            "--keys".into(),
            keys.clone().into(),
            "--listen".into(),
            "not-an-address".into(),
        ],
        vec![
            "--content".into(),
            fixture("api/basic").into(),
            "--config".into(),
            dir.path().join("missing-config.yaml").into(),
            "--listen".into(),
            "127.0.0.1:0".into(),
        ],
        vec!["--no-such-flag".into()],
    ] {
        let failed = run_api_expecting_exit(&args, dir.path());
        assert_eq!(failed.status.code(), Some(2), "{args:?}: {}", failed.stderr);
    }

    // The default keys file may be missing: the server starts, and every key is unknown.
    let server = Server::start(
        &["--content".into(), fixture("api/basic").into()],
        dir.path(),
    );
    assert_eq!(server.get("/healthz", None).status, 200);
    assert_eq!(server.get(LISTING, Some(ACME)).status, 401);
}

#[test]
fn keys_new_prints_a_key_once_and_stores_its_digest() {
    let site = Site::new(Some("basic"));
    let keys = site.path().join("made.yaml");
    let keys_new = |org: &str, name: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_shiplog"))
            .args(["keys", "new", "--org", org, "--name", name, "--keys"])
            .arg(&keys)
            .arg("--content")
            .arg(site.content())
            .output()
            .unwrap()
    };
    let first = keys_new("acme", "first");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let stdout = String::from_utf8(first.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let key = stdout.trim().to_string();
    let random = key.strip_prefix("shl_").expect("the shl_ prefix");
    assert!(
        random.len() >= 64 && random.bytes().all(|b| b.is_ascii_hexdigit()),
        "{key}"
    );

    let second = keys_new("globex", "second");
    assert!(second.status.success());
    let second_key = String::from_utf8(second.stdout).unwrap().trim().to_string();
    assert_ne!(key, second_key);

    let text = std::fs::read_to_string(&keys).unwrap();
    assert!(
        text.contains(&digest(&key)) && text.contains(&digest(&second_key)),
        "{text}"
    );
    assert!(
        !text.contains(random) && !text.contains(&second_key),
        "the key itself is stored"
    );

    let refused = keys_new("nope", "third");
    assert_eq!(refused.status.code(), Some(2));
    assert!(refused.stdout.is_empty());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("nope"));
    assert_eq!(
        std::fs::read_to_string(&keys).unwrap(),
        text,
        "nothing added"
    );
    let nothing = site.path().join("never.yaml");
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_shiplog"))
        .args(["keys", "new", "--org", "nope", "--name", "x", "--keys"])
        .arg(&nothing)
        .arg("--content")
        .arg(site.content())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(!nothing.exists());

    let server = Server::start(
        &[
            "--content".into(),
            site.content().into(),
            "--keys".into(),
            keys.clone().into(),
        ],
        site.path(),
    );
    assert_eq!(server.get(LISTING, Some(&key)).ids()[0], "api-v2");
    assert_eq!(server.get(LISTING, Some(&second_key)).ids()[0], "hello");
    let logs = server.logs.lines().join("\n");
    assert!(!logs.contains(&key) && !logs.contains(&second_key));
}

/// The OpenAPI document as JSON.
fn openapi() -> Value {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi.yaml"))
        .unwrap();
    serde_yaml::from_str(&text).expect("openapi.yaml is YAML")
}

/// The value at JSON pointer `pointer`, following `$ref`s of the object found.
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let pointer = reference.strip_prefix('#').expect("a local $ref");
            resolve(
                doc,
                doc.pointer(pointer)
                    .unwrap_or_else(|| panic!("{reference} exists")),
            )
        }
        None => value,
    }
}

/// Validates `instance` against the schema at JSON pointer `pointer` of the document.
fn validate(doc: &Value, pointer: &str, instance: &Value) -> Result<(), String> {
    let mut schema = doc.clone();
    schema
        .as_object_mut()
        .unwrap()
        .insert("$ref".into(), Value::String(format!("#{pointer}")));
    let validator =
        jsonschema::draft202012::new(&schema).map_err(|e| format!("bad schema: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Checks a real response against what openapi.yaml says of `method path`.
fn check_openapi(doc: &Value, method: &str, path: &str, response: &Response) {
    let operation_pointer = format!("/paths/{}/{}", escape(path), method.to_lowercase());
    let operation = doc
        .pointer(&operation_pointer)
        .unwrap_or_else(|| panic!("{method} {path} is documented"));
    let status = response.status.to_string();
    let documented = operation["responses"]
        .get(&status)
        .unwrap_or_else(|| panic!("{method} {path} {status} is documented"));
    // Follow the response's $ref to a pointer the validator can use.
    let mut response_pointer = format!("{operation_pointer}/responses/{status}");
    if let Some(reference) = documented.get("$ref").and_then(Value::as_str) {
        response_pointer = reference.trim_start_matches('#').to_string();
    }
    let documented = resolve(doc, documented);
    if let Some(headers) = documented.get("headers").and_then(Value::as_object) {
        for (name, header) in headers {
            let header = resolve(doc, header);
            let value = response.header(name);
            if header["required"] == true {
                assert!(
                    value.is_some(),
                    "{method} {path} {status}: header {name} is required"
                );
            }
            if let (Some(value), Some(schema)) = (value, header.get("schema")) {
                let instance = if schema["type"] == "integer" {
                    json!(value
                        .parse::<i64>()
                        .unwrap_or_else(|_| panic!("{name}: {value} is an integer")))
                } else {
                    json!(value)
                };
                let _ = schema;
                let pointer = match headers[name].get("$ref").and_then(Value::as_str) {
                    Some(r) => format!("{}/schema", r.trim_start_matches('#')),
                    None => format!("{response_pointer}/headers/{}/schema", escape(name)),
                };
                validate(doc, &pointer, &instance).unwrap_or_else(|e| {
                    panic!("{method} {path} {status}: header {name}: {value}: {e}")
                });
            }
        }
    }
    match documented.get("content").and_then(Value::as_object) {
        Some(content) if method != "HEAD" => {
            let content_type = response.header("content-type").expect("a Content-Type");
            assert!(
                content.contains_key(content_type),
                "{status}: {content_type} is documented"
            );
            let pointer = format!("{response_pointer}/content/{}/schema", escape(content_type));
            let body = match response.header("content-encoding") {
                Some("gzip") => gunzip(&response.body),
                Some("br") => unbrotli(&response.body),
                _ => response.body.clone(),
            };
            let body: Value = serde_json::from_slice(&body).expect("a JSON body");
            validate(doc, &pointer, &body)
                .unwrap_or_else(|e| panic!("{method} {path} {status}: body {body}: {e}"));
        }
        Some(_) => assert!(response.body.is_empty()),
        None => assert!(response.body.is_empty(), "{status}: undocumented body"),
    }
}

#[test]
fn responses_match_openapi_yaml() {
    let doc = openapi();
    assert_eq!(doc["openapi"], "3.1.0");
    let site = Site::new(Some("basic"));
    let server = site.start();
    let auth = format!("Bearer {ACME}");
    let limited = format!("Bearer {LIMITED}");

    let ok = server.get(&listing("limit=2"), Some(ACME));
    let etag = ok.header("etag").unwrap().to_string();
    let mut checked = vec![
        ("GET", LISTING, ok),
        ("GET", LISTING, server.get(&listing("page=7"), Some(QUIET))),
        (
            "HEAD",
            LISTING,
            server.request("HEAD", LISTING, &[("Authorization", &auth)]),
        ),
        (
            "GET",
            LISTING,
            server.request(
                "GET",
                &listing("limit=2"),
                &[("Authorization", &auth), ("If-None-Match", &etag)],
            ),
        ),
        (
            "HEAD",
            LISTING,
            server.request(
                "HEAD",
                &listing("limit=2"),
                &[("Authorization", &auth), ("If-None-Match", &etag)],
            ),
        ),
        (
            "GET",
            LISTING,
            server.get(&listing("limit=500"), Some(ACME)),
        ),
        (
            "HEAD",
            LISTING,
            server.request("HEAD", &listing("page=x"), &[("Authorization", &auth)]),
        ),
        ("GET", LISTING, server.get(LISTING, None)),
        ("GET", LISTING, server.get(LISTING, Some("wrong"))),
        (
            "GET",
            LISTING,
            server.request("GET", LISTING, &[("Authorization", "Basic x")]),
        ),
        ("GET", LISTING, server.request("DELETE", LISTING, &[])),
        ("GET", "/healthz", server.get("/healthz", None)),
        ("GET", "/healthz", server.request("POST", "/healthz", &[])),
        ("GET", LISTING, server.get("/elsewhere", None)),
        (
            "GET",
            LISTING,
            server.request(
                "GET",
                &listing("tag=launch&since=2026-01-01&q=acme+today"),
                &[("Authorization", &auth), ("Accept-Encoding", "gzip")],
            ),
        ),
        (
            "GET",
            LISTING,
            server.get(&listing("since=last+week"), Some(ACME)),
        ),
        (
            "GET",
            ENTRY,
            server.request(
                "GET",
                &format!("{LISTING}/fix"),
                &[("Authorization", &auth), ("Accept-Encoding", "br")],
            ),
        ),
        (
            "GET",
            ENTRY,
            server.get(&format!("{LISTING}/dark-mode"), Some(ACME)),
        ),
        (
            "HEAD",
            ENTRY,
            server.request(
                "HEAD",
                &format!("{LISTING}/nope"),
                &[("Authorization", &auth)],
            ),
        ),
        (
            "GET",
            ENTRY,
            server.request(
                "PUT",
                &format!("{LISTING}/fix"),
                &[("Authorization", &auth)],
            ),
        ),
    ];
    let entry_etag = server.get(&format!("{LISTING}/fix"), Some(ACME));
    let entry_etag = entry_etag.header("etag").unwrap();
    checked.push((
        "GET",
        ENTRY,
        server.request(
            "GET",
            &format!("{LISTING}/fix"),
            &[("Authorization", &auth), ("If-None-Match", entry_etag)],
        ),
    ));
    for _ in 0..3 {
        assert_eq!(
            server
                .request("GET", LISTING, &[("Authorization", &limited)])
                .status,
            200
        );
    }
    checked.push((
        "GET",
        LISTING,
        server.request("GET", LISTING, &[("Authorization", &limited)]),
    ));
    checked.push((
        "HEAD",
        LISTING,
        server.request("HEAD", LISTING, &[("Authorization", &limited)]),
    ));
    let statuses: std::collections::BTreeSet<u16> =
        checked.iter().map(|(_, _, r)| r.status).collect();
    assert_eq!(
        statuses.into_iter().collect::<Vec<_>>(),
        vec![200, 304, 400, 401, 404, 405, 429]
    );
    for (method, path, response) in &checked {
        check_openapi(&doc, method, path, response);
    }

    // The documented parameter ranges are the ones the server enforces.
    for (param, value, accepted) in [
        ("page", "1", true),
        ("page", "12", true),
        ("page", "0", false),
        ("page", "-3", false),
        ("page", "1.5", false),
        ("page", "x", false),
        ("page", "", false),
        ("limit", "1", true),
        ("limit", "100", true),
        ("limit", "0", false),
        ("limit", "101", false),
        ("limit", "2.0", false),
        ("limit", "ten", false),
    ] {
        let response = server.get(&listing(&format!("{param}={value}")), Some(ACME));
        assert_eq!(
            response.status == 200,
            accepted,
            "{param}={value}: {}",
            response.status
        );
        // A query value is an integer when it is written as one (as OpenAPI serializes it).
        let instance: Value = value
            .parse::<i64>()
            .map_or_else(|_| json!(value), |n| json!(n));
        let schema_ok = validate(
            &doc,
            &format!("/components/parameters/{param}/schema"),
            &instance,
        )
        .is_ok();
        assert_eq!(
            schema_ok, accepted,
            "openapi.yaml disagrees on {param}={value}"
        );
    }
}

#[test]
fn a_link_out_of_the_content_folder_is_reported_never_walked() {
    let site = Site::new(Some("basic"));
    let server = site.start();
    let from = server.logs.len();
    let started = Instant::now();
    std::os::unix::fs::symlink("/", site.content().join("acme/link")).unwrap();
    let failed = wait_event(&server, from, "reload_failed");
    // One located problem, at once: nothing under `/` was walked, read or named.
    assert!(started.elapsed() < Duration::from_secs(10));
    let problems = failed["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{failed}");
    assert!(problems[0]
        .as_str()
        .unwrap()
        .ends_with("acme/link:1:1: symbolic link leads outside the content folder"));
    // The last good content goes on being served, and keys still reload by themselves.
    assert_eq!(server.get(LISTING, Some(ACME)).status, 200);
    site.write_keys(&[]);
    server.poll(LISTING, Some(ACME), CHANGE_TIMEOUT, |r| r.status == 401);
}

#[test]
fn keys_made_at_once_are_all_kept_and_the_file_keeps_its_link_and_mode() {
    use std::os::unix::fs::PermissionsExt;
    let site = Site::new(Some("basic"));
    // The keys file is a link into a folder of its own, with a mode of its own.
    let real = site.path().join("secrets/keys.yaml");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, "keys: []\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = site.path().join("api_keys.yaml");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let runs: Vec<_> = (0..20)
        .map(|i| {
            std::process::Command::new(env!("CARGO_BIN_EXE_shiplog"))
                .args([
                    "keys",
                    "new",
                    "--org",
                    "acme",
                    "--name",
                    &format!("k{i}"),
                    "--keys",
                ])
                .arg(&link)
                .arg("--content")
                .arg(site.content())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let printed: Vec<String> = runs
        .into_iter()
        .map(|run| {
            let output = run.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            String::from_utf8(output.stdout).unwrap().trim().to_string()
        })
        .collect();
    assert!(link.is_symlink(), "the link was replaced by a file");
    let stored = std::fs::read_to_string(&real).unwrap();
    for key in &printed {
        assert!(
            stored.contains(&digest(key)),
            "a printed key was lost:\n{stored}"
        );
    }
    let mode = std::fs::metadata(&real).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
}

#[test]
fn a_revocation_does_not_wait_for_a_content_reload() {
    let site = Site::new(Some("basic"));
    // An org large enough that reading it again takes a while.
    for n in 0..3000 {
        write_entry(
            &site.content().join(format!("acme/bulk/e{n:04}.md")),
            &format!("title: Entry {n}\ndate: 2025-11-01\ntags: [bulk]\n"),
            "Some text with a [link](https://example.com) and **bold** words.\n",
        );
    }
    let server = site.start();
    assert_eq!(server.get(LISTING, Some(ACME)).status, 200);
    let from = server.logs.len();
    // A change to acme's content, and at once acme's key revoked: whether the watch hands
    // both over in one batch or in two, the keys are read first.
    write_entry(
        &site.content().join("acme/bulk/e0000.md"),
        "title: Edited\ndate: 2025-11-01\ntags: [bulk]\n",
        "Edited.\n",
    );
    site.write_keys(&[TestKey {
        name: "globex-ci",
        org: "globex",
        key: GLOBEX,
        rate: None,
    }]);
    server.poll(LISTING, Some(ACME), CHANGE_TIMEOUT, |r| r.status == 401);
    wait_event(&server, from, "content_reloaded");
    let lines = server.logs.lines()[from..].to_vec();
    let keys_at = lines
        .iter()
        .position(|l| is_event(l, "keys_reloaded"))
        .unwrap();
    let content_at = lines
        .iter()
        .position(|l| is_event(l, "content_reloaded"))
        .unwrap();
    assert!(
        keys_at < content_at,
        "the keys waited for the content:\n{}",
        lines.join("\n")
    );
}

#[test]
fn a_keys_file_that_is_a_link_is_watched_where_it_leads() {
    let site = Site::new(Some("basic"));
    let real = site.path().join("secrets/keys.yaml");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::rename(site.keys(), &real).unwrap();
    std::os::unix::fs::symlink(&real, site.keys()).unwrap();
    let server = site.start();
    assert_eq!(server.get(LISTING, Some(ACME)).status, 200);
    // An edit of the file the link leads to, with no signal: acme's key is revoked.
    std::fs::write(
        &real,
        keys_yaml(&[TestKey {
            name: "globex-ci",
            org: "globex",
            key: GLOBEX,
            rate: None,
        }]),
    )
    .unwrap();
    server.poll(LISTING, Some(ACME), CHANGE_TIMEOUT, |r| r.status == 401);
    assert_eq!(server.get(LISTING, Some(GLOBEX)).status, 200);
}

#[test]
fn keys_list_and_revoke_reach_a_running_server_within_a_second() {
    let site = Site::new(Some("basic"));
    // A comment and a second key of the same name, which `revoke` must tell apart.
    let mut text = String::from("# our keys\n");
    text.push_str(&keys_yaml(&[
        TestKey {
            name: "acme-ci",
            org: "acme",
            key: ACME,
            rate: Some(30),
        },
        TestKey {
            name: "dash",
            org: "globex",
            key: GLOBEX,
            rate: None,
        },
        TestKey {
            name: "dash",
            org: "quiet",
            key: QUIET,
            rate: None,
        },
    ]));
    std::fs::write(site.keys(), &text).unwrap();
    let keys = site.keys();
    let keys = keys.to_str().unwrap();

    let listed = shiplog(site.path(), &["keys", "list", "--keys", keys]);
    assert!(listed.status.success(), "{listed:?}");
    let table = String::from_utf8(listed.stdout).unwrap();
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["NAME", "ORG", "PER", "MINUTE", "SHA-256"]);
    assert_eq!(rows[1][..3], ["acme-ci", "acme", "30"]);
    assert_eq!(rows[2][..3], ["dash", "globex", "2000"]);
    for key in [ACME, GLOBEX, QUIET] {
        let full = digest(key);
        assert!(!table.contains(&full), "a whole digest is listed:\n{table}");
        assert!(table.contains(&format!("{}…", &full[..8])), "{table}");
    }

    let server = site.start();
    assert_eq!(server.get(LISTING, Some(ACME)).status, 200);
    // Two keys named `dash`: the name alone is refused, naming the digests to choose from.
    let ambiguous = shiplog(site.path(), &["keys", "revoke", "dash", "--keys", keys]);
    assert_eq!(ambiguous.status.code(), Some(2));
    let message = String::from_utf8_lossy(&ambiguous.stderr);
    assert!(message.contains(&digest(QUIET)[..8]), "{message}");
    let unknown = shiplog(site.path(), &["keys", "revoke", "nobody", "--keys", keys]);
    assert_eq!(unknown.status.code(), Some(2));

    let revoked = shiplog(site.path(), &["keys", "revoke", "acme-ci", "--keys", keys]);
    assert!(revoked.status.success(), "{revoked:?}");
    let started = Instant::now();
    server.poll(LISTING, Some(ACME), Duration::from_secs(1), |r| {
        r.status == 401
    });
    eprintln!(
        "refused {} ms after the revoke",
        started.elapsed().as_millis()
    );
    let quiet_digest = digest(QUIET);
    let by_digest = shiplog(
        site.path(),
        &[
            "keys",
            "revoke",
            "dash",
            "--digest",
            &quiet_digest[..8],
            "--keys",
            keys,
        ],
    );
    assert!(by_digest.status.success(), "{by_digest:?}");
    server.poll(LISTING, Some(QUIET), Duration::from_secs(1), |r| {
        r.status == 401
    });
    assert_eq!(server.get(LISTING, Some(GLOBEX)).status, 200);
    // The rest of the file is as it was: its comment, the other key.
    let left = std::fs::read_to_string(site.keys()).unwrap();
    assert!(left.starts_with("# our keys\n"), "{left}");
    assert!(
        left.contains(&digest(GLOBEX)) && !left.contains(&digest(ACME)),
        "{left}"
    );
}
