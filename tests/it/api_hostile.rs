//! `shiplog-api` against hostile clients, over raw sockets: malformed request heads,
//! oversized heads, slow heads, thousands of idle connections, long and tricky query
//! strings, and API keys sent anywhere a client might put one (none may reach the logs).

use std::ffi::OsString;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::support::*;
use serde_json::Value;

const KEY: &str = "shl_hostile_acme_0123456789abcdef0123456789abcdef";
/// The key with its last character changed.
const NEAR_MISS: &str = "shl_hostile_acme_0123456789abcdef0123456789abcdee";
/// Unrelated to the key, of the same length.
const RANDOM: &str = "shl_9f3ac2e4b1d07a6658e2c1f40b9d3e7a25c8f1d6e0b4a9c7";

const LISTING: &str = "/api/v1/changelogs";

/// How long a raw exchange may take before the test gives up on the server.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);

/// A copy of the `basic` fixture with one key for `acme`.
struct Site {
    dir: tempfile::TempDir,
}

impl Site {
    fn new() -> Site {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&fixture("api/basic"), &dir.path().join("content"));
        let keys = keys_yaml(&[TestKey {
            name: "acme-hostile",
            org: "acme",
            key: KEY,
            rate: Some(1_000_000),
        }]);
        std::fs::write(dir.path().join("api_keys.yaml"), keys).unwrap();
        Site { dir }
    }

    fn keys(&self) -> PathBuf {
        self.dir.path().join("api_keys.yaml")
    }

    /// Starts the server with `extra` flags.
    fn start(&self, extra: &[&str]) -> Server {
        let mut args: Vec<OsString> = vec![
            "--content".into(),
            self.dir.path().join("content").into(),
            "--keys".into(),
            self.keys().into(),
        ];
        args.extend(extra.iter().map(OsString::from));
        Server::start(&args, self.dir.path())
    }
}

/// Sends `raw` on a new connection and reads until the server closes it (or the deadline).
fn exchange(addr: SocketAddr, raw: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(EXCHANGE_TIMEOUT)).unwrap();
    // The server may answer and close before it has read everything.
    let _ = stream.write_all(raw);
    let mut bytes = Vec::new();
    let started = Instant::now();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("no answer nor close in {:?}: {e}", started.elapsed()),
        }
    }
    bytes
}

/// The status of a raw response, or `None` when the server closed without one.
fn status_of(bytes: &[u8]) -> Option<u16> {
    let text = String::from_utf8_lossy(bytes);
    let line = text.lines().next()?;
    line.split(' ').nth(1)?.parse().ok()
}

/// `GET target` with the key, as one raw request that closes the connection.
fn get_with_key(server: &Server, target: &str) -> Response {
    server.request(
        "GET",
        target,
        &[("Authorization", &format!("Bearer {KEY}"))],
    )
}

/// The server is still up and answering.
fn assert_serving(server: &Server) {
    assert_eq!(server.get("/healthz", None).status, 200);
}

#[test]
fn malformed_request_heads_get_a_4xx_and_the_server_goes_on() {
    let site = Site::new();
    let server = site.start(&[]);
    let long_uri = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000));
    let cases: Vec<(&str, Vec<u8>, Option<u16>)> = vec![
        (
            "TLS hello",
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n".to_vec(),
            Some(400),
        ),
        ("garbage", b"hello there\r\n\r\n".to_vec(), Some(400)),
        (
            "missing version",
            b"GET /healthz\r\nHost: x\r\n\r\n".to_vec(),
            Some(400),
        ),
        ("HTTP/0.9", b"GET /\r\n\r\n".to_vec(), Some(400)),
        (
            "HTTP/2.0 line",
            b"GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "HTTP/3.0 line",
            b"GET /healthz HTTP/3.0\r\nHost: x\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "version junk",
            b"GET /healthz HTTQ/1.1\r\nHost: x\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "bad method chars",
            b"G(T /healthz HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "empty method",
            b" /healthz HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "two spaces",
            b"GET  /healthz HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "NUL in target",
            b"GET /heal\x00thz HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "NUL in header",
            b"GET /healthz HTTP/1.1\r\nHost: x\x00y\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "space before colon",
            b"GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "header without colon",
            b"GET /healthz HTTP/1.1\r\nHost x\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "bad Content-Length",
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n".to_vec(),
            Some(400),
        ),
        (
            "two Content-Lengths",
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"
                .to_vec(),
            Some(400),
        ),
        (
            "control char in target",
            b"GET /\x7fhealthz HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            Some(400),
        ),
        ("URI over the head limit", long_uri.into_bytes(), Some(431)),
        // An HTTP/2 preface on an HTTP/1 server: closed without an answer.
        (
            "HTTP/2 preface",
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec(),
            None,
        ),
    ];
    for (name, raw, expected) in cases {
        let answer = exchange(server.addr, &raw);
        assert_eq!(
            status_of(&answer),
            expected,
            "{name}: {}",
            String::from_utf8_lossy(&answer)
        );
        assert_serving(&server);
    }
    // Requests that are odd but valid HTTP get the API's own answers.
    for (raw, expected) in [
        (&b"GET /healthz HTTP/1.0\r\n\r\n"[..], 200),
        (b"GET /healthz HTTP/1.1\nHost: x\nConnection: close\n\n", 200),
        (b"GET http://elsewhere.example/healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200),
        (b"OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404),
        (b"SHL_KEY /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405),
        (b"GET /api/v1/changelogs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 401),
    ] {
        let answer = exchange(server.addr, raw);
        let response = parse_response(&answer, false);
        assert_eq!(response.status, expected, "{}", String::from_utf8_lossy(raw));
        assert_eq!(response.header("content-type"), Some("application/json"));
        response.json();
    }
    assert_no_error_lines(&server);
}

/// No log line is at level `error` (a 5xx would be).
fn assert_no_error_lines(server: &Server) {
    for line in server.logs.lines() {
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_ne!(value["level"], "error", "{line}");
    }
}

#[test]
fn heads_over_32_kib_are_431_and_under_it_are_served() {
    let site = Site::new();
    let server = site.start(&[]);
    let head = |extra: &str| {
        format!("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{extra}\r\n").into_bytes()
    };
    let one_big = format!("X-Big: {}\r\n", "a".repeat(40 * 1024));
    let many_small: String = (0..150).map(|i| format!("X-H{i}: 1\r\n")).collect();
    let many_medium: String = (0..90)
        .map(|i| format!("X-H{i}: {}\r\n", "b".repeat(400)))
        .collect();
    for (name, extra) in [
        ("one 40 KiB header", one_big),
        ("150 headers (over hyper's 100)", many_small),
        ("90 headers of 400 bytes", many_medium),
    ] {
        let answer = exchange(server.addr, &head(&extra));
        assert_eq!(status_of(&answer), Some(431), "{name}");
        assert_serving(&server);
    }
    // Just under the limit is an ordinary request.
    let near = format!("X-Near: {}\r\n", "c".repeat(31 * 1024));
    let answer = exchange(server.addr, &head(&near));
    assert_eq!(status_of(&answer), Some(200));
    assert_serving(&server);
}

#[test]
fn a_head_sent_byte_by_byte_is_dropped_at_the_header_timeout() {
    let site = Site::new();
    let server = site.start(&["--header-read-timeout", "2"]);
    let mut slow = TcpStream::connect(server.addr).unwrap();
    slow.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let started = Instant::now();
    // One byte every 200 ms: the connection is never idle, yet the head never ends.
    let trickle = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "
        .iter()
        .chain([b'a'; 200].iter());
    let mut closed_after = None;
    for byte in trickle {
        if slow.write_all(&[*byte]).is_err() {
            closed_after = Some(started.elapsed());
            break;
        }
        let mut one = [0u8; 256];
        match slow.read(&mut one) {
            Ok(0) => {
                closed_after = Some(started.elapsed());
                break;
            }
            Ok(n) => panic!(
                "an answer to half a head: {}",
                String::from_utf8_lossy(&one[..n])
            ),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                closed_after = Some(started.elapsed());
                break;
            }
            Err(_) => {} // the 200 ms read timeout: still open
        }
        assert!(started.elapsed() < EXCHANGE_TIMEOUT, "never dropped");
    }
    let closed_after = closed_after.expect("the server closed the slow connection");
    assert!(
        closed_after >= Duration::from_millis(1800) && closed_after < Duration::from_secs(10),
        "closed after {closed_after:?}, the header timeout is 2 s"
    );
    assert_serving(&server);
}

/// The server's open sockets (the listener included), from /proc.
fn open_sockets(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter(|target| target.to_string_lossy().starts_with("socket:"))
        .count()
}

/// The server's resident memory in KiB, from /proc.
fn resident_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

/// Raises this process's open-file limit (the server inherits it) to hold `needed`.
fn allow_open_files(needed: u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        if limit.rlim_cur < needed as libc::rlim_t {
            assert!(
                limit.rlim_max >= needed as libc::rlim_t,
                "this test needs {needed} open files; the hard limit is {}",
                limit.rlim_max
            );
            limit.rlim_cur = needed as libc::rlim_t;
            assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn two_thousand_idle_connections_hold_at_most_the_connection_limit() {
    const IDLE: usize = 2000;
    const LIMIT: usize = 1024; // the default
    allow_open_files(4 * IDLE as u64);
    let site = Site::new();
    // A long header timeout, so that the idle connections stay for the whole test.
    let server = site.start(&["--header-read-timeout", "120"]);
    let pid = server.pid();
    let sockets_before = open_sockets(pid);
    let memory_before = resident_kib(pid);
    let mut idle = Vec::with_capacity(IDLE);
    for i in 0..IDLE {
        let mut stream = TcpStream::connect_timeout(&server.addr, Duration::from_secs(5))
            .unwrap_or_else(|e| panic!("connection {i}: {e}; server holds {}", open_sockets(pid)));
        // Half of them start a head and stop: slow clients, not just silent ones.
        if i % 2 == 0 {
            stream
                .write_all(b"GET /api/v1/changelogs HTTP/1.1\r\nHost: x\r\n")
                .unwrap();
        }
        idle.push(stream);
    }
    // The server takes connections up to the limit, and no more.
    let deadline = Instant::now() + CHANGE_TIMEOUT;
    while open_sockets(pid) < sockets_before + LIMIT {
        assert!(
            Instant::now() < deadline,
            "the server took only {} connections",
            open_sockets(pid) - sockets_before
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let memory_full = resident_kib(pid);
    // Held a little longer: still no more than the limit.
    let settle = Instant::now();
    while settle.elapsed() < Duration::from_millis(500) {
        assert!(open_sockets(pid) <= sockets_before + LIMIT);
        std::thread::sleep(Duration::from_millis(50));
    }
    // Each slot may hold a head of up to 32 KiB plus its task and buffers: 48 KiB a slot.
    let grown = memory_full.saturating_sub(memory_before);
    assert!(
        grown <= (LIMIT as u64) * 48,
        "resident memory grew by {grown} KiB for {LIMIT} connections"
    );
    // A new client waits in the backlog; it is served once the idle clients leave.
    let addr = server.addr;
    let waiting = std::thread::spawn(move || request(addr, "GET", "/healthz", &[]));
    drop(idle);
    let response = waiting.join().unwrap();
    assert_eq!(response.status, 200);
    let deadline = Instant::now() + CHANGE_TIMEOUT;
    while open_sockets(pid) > sockets_before {
        assert!(Instant::now() < deadline, "closed connections were kept");
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!("VmRSS: {memory_before} KiB before, {memory_full} KiB with {LIMIT} connections held");
}

#[test]
fn a_smaller_connection_limit_queues_the_rest() {
    let site = Site::new();
    let server = site.start(&["--max-connections", "2", "--header-read-timeout", "120"]);
    let first = TcpStream::connect(server.addr).unwrap();
    let second = TcpStream::connect(server.addr).unwrap();
    let addr = server.addr;
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(request(addr, "GET", "/healthz", &[]));
    });
    // Both slots are held: the third client gets no answer while they are.
    assert!(
        receiver.recv_timeout(Duration::from_millis(700)).is_err(),
        "a third connection was served past a limit of 2"
    );
    drop(first);
    let response = receiver
        .recv_timeout(CHANGE_TIMEOUT)
        .expect("served once a slot freed");
    assert_eq!(response.status, 200);
    drop(second);
}

#[test]
fn long_query_strings() {
    let site = Site::new();
    let server = site.start(&[]);
    // 25 KiB of parameters the listing ignores.
    let ignored: String = (0..2500).map(|i| format!("x{i:04}=1&")).collect();
    let response = get_with_key(&server, &format!("{LISTING}?{ignored}page=1&limit=2"));
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.json()["limit"], 2);
    // A page number of 20,000 digits is a page past the end.
    let digits = "9".repeat(20_000);
    let response = get_with_key(&server, &format!("{LISTING}?page={digits}"));
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.json()["data"], serde_json::json!([]));
    // A limit of 20,000 digits is out of range; the message quotes it shortened.
    let response = get_with_key(&server, &format!("{LISTING}?limit={digits}"));
    let body = assert_json_error(&response, 400, "invalid_parameter");
    assert_eq!(body["error"]["param"], "limit");
    assert!(response.body.len() < 1024, "the whole value was echoed");
    // 40 KiB of query is over the head limit.
    let answer = exchange(
        server.addr,
        format!(
            "GET {LISTING}?{} HTTP/1.1\r\nHost: x\r\n\r\n",
            "y=1&".repeat(10_000)
        )
        .as_bytes(),
    );
    assert_eq!(status_of(&answer), Some(431));
    assert_serving(&server);
}

/// Asserts the one error body of the SPEC and returns it.
fn assert_json_error(response: &Response, status: u16, code: &str) -> Value {
    assert_eq!(response.status, status, "{}", response.text());
    assert_eq!(response.header("content-type"), Some("application/json"));
    let body = response.json();
    assert_eq!(body["error"]["status"], status, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    body
}

#[test]
fn percent_encoding_tricks_in_page_and_limit() {
    let site = Site::new();
    let server = site.start(&[]);
    // Each query with the page and limit it means, or the parameter it gets a 400 for.
    enum Expect {
        Page(u64, u64),
        Bad(&'static str),
    }
    use Expect::{Bad, Page};
    let cases = [
        ("page=%31", Page(1, 20)),          // "1", percent-encoded
        ("page=%32&limit=%32", Page(2, 2)), // both encoded
        ("pa%67e=2&limit=1", Page(2, 1)),   // the name encoded
        ("page=01&limit=05", Page(1, 5)),   // leading zeros
        ("limit=0100", Page(1, 100)),       // leading zeros, at the top of the range
        ("page[]=5", Page(1, 20)),          // another parameter: ignored
        ("page%5B%5D=5", Page(1, 20)),      // the same, encoded
        ("Page=5&LIMIT=0", Page(1, 20)),    // names are case-sensitive
        ("&&page=1&&", Page(1, 20)),        // empty pairs
        ("page=+1", Bad("page")),           // `+` is a space
        ("page=%2B1", Bad("page")),         // a real plus sign
        ("page=1+", Bad("page")),
        ("page=%201", Bad("page")),
        ("page=1%00", Bad("page")), // NUL after the digits
        ("page=%00", Bad("page")),
        ("page=-0", Bad("page")),
        ("page=-1", Bad("page")),
        ("page=0x10", Bad("page")),
        ("page=1e3", Bad("page")),
        ("page=1.", Bad("page")),
        ("page=%ef%bc%91", Bad("page")), // a fullwidth digit one
        ("page=%d9%a1", Bad("page")),    // an Arabic-Indic digit one
        ("page=%ff", Bad("page")),       // not UTF-8
        ("page=%", Bad("page")),         // a broken escape
        ("page=%3", Bad("page")),
        ("page=1%26limit%3D5", Bad("page")), // an encoded `&`: one value
        ("page=1;limit=5", Bad("page")),
        ("page=1&page=1", Bad("page")),   // repeated
        ("page=1&pa%67e=1", Bad("page")), // repeated, one encoded
        ("page=1&page", Bad("page")),
        ("page=99999999999999999999&limit=1", Page(u64::MAX, 1)), // past the end
        ("limit=%31%30%31", Bad("limit")),                        // 101
        ("limit=18446744073709551617", Bad("limit")),
        ("limit=-0", Bad("limit")),
        ("limit=%ff", Bad("limit")),
        ("limit=1&limit=1", Bad("limit")),
        ("limit=1e2", Bad("limit")),
    ];
    for (query, expect) in cases {
        let response = get_with_key(&server, &format!("{LISTING}?{query}"));
        match expect {
            Page(page, limit) => {
                assert_eq!(response.status, 200, "{query}: {}", response.text());
                let body = response.json();
                assert_eq!(body["page"], page, "{query}");
                assert_eq!(body["limit"], limit, "{query}");
            }
            Bad(param) => {
                let body = assert_json_error(&response, 400, "invalid_parameter");
                assert_eq!(body["error"]["param"], param, "{query}: {body}");
                assert_eq!(response.header("www-authenticate"), None);
            }
        }
    }
    // The key is checked before the query: a bad query without a key is 401.
    let response = server.get(&format!("{LISTING}?page=%ff"), None);
    assert_json_error(&response, 401, "missing_api_key");
}

#[test]
fn no_key_material_reaches_a_log_line() {
    let site = Site::new();
    let mut server = site.start(&[]);
    let secrets = [KEY, NEAR_MISS, RANDOM];
    for secret in secrets {
        let bearer = format!("Bearer {secret}");
        let basic = format!("Basic {secret}");
        let lower = format!("bearer {secret}");
        let cookie = format!("session={secret}");
        let tab = format!("Bearer\t{secret}");
        let with_key_in_query = format!("{LISTING}?api_key={secret}&key={secret}");
        let header_sets: Vec<Vec<(&str, &str)>> = vec![
            vec![("Authorization", &bearer)],
            vec![("Authorization", &lower)],
            vec![("Authorization", &basic)],
            vec![("Authorization", &tab)],
            vec![("Authorization", secret)],
            vec![("Authorization", &bearer), ("Authorization", &bearer)],
            vec![("X-Api-Key", secret)],
            vec![("Api-Key", secret)],
            vec![("Cookie", &cookie)],
            vec![("Proxy-Authorization", &bearer)],
            vec![("User-Agent", secret)],
            vec![("Referer", secret)],
            vec![(secret, "1")],
        ];
        for headers in &header_sets {
            for target in [LISTING, with_key_in_query.as_str(), "/healthz"] {
                let response = server.request("GET", target, headers);
                assert!(response.status < 500, "{target}: {}", response.status);
            }
        }
        for target in [
            format!("{LISTING}?access_token={secret}"),
            format!("{LISTING}?page={secret}"),
            format!("{LISTING}/{secret}"),
            format!("/{secret}"),
            format!("/api/v1/changelogs;{secret}"),
        ] {
            let response = server.request("GET", &target, &[("Authorization", &bearer)]);
            assert!(response.status < 500, "{target}: {}", response.status);
        }
        // The key as the method, and in heads the server cannot even parse.
        let raw = format!("{secret} {LISTING} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(status_of(&exchange(server.addr, raw.as_bytes())).is_some());
        let raw = format!("GET /{secret}\x00 HTTP/1.1\r\nAuthorization: {bearer}\r\n\r\n");
        assert_eq!(status_of(&exchange(server.addr, raw.as_bytes())), Some(400));
        let raw = format!(
            "GET {LISTING} HTTP/1.1\r\nAuthorization: {bearer}\r\nX: {}\r\n\r\n",
            "z".repeat(40_000)
        );
        assert_eq!(status_of(&exchange(server.addr, raw.as_bytes())), Some(431));
    }
    // The valid key was recognized (so the requests above did reach the server's logging).
    assert!(get_with_key(&server, LISTING).status == 200);
    // Reloading the keys file logs too.
    let from = server.logs.len();
    let keys = std::fs::read_to_string(site.keys()).unwrap();
    std::fs::write(site.keys(), format!("{keys}\n")).unwrap();
    server.signal(libc::SIGHUP);
    server
        .logs
        .wait_for(from, CHANGE_TIMEOUT, |l| is_event(l, "keys_reloaded"))
        .expect("the keys were reloaded");
    server.signal(libc::SIGTERM);
    assert!(server.wait_exit(CHANGE_TIMEOUT).success());
    let logs = server.logs.lines();
    assert!(logs.len() > 100, "too few log lines: {}", logs.len());
    assert!(
        logs.iter().any(|l| l.contains("\"key\":\"acme-hostile\"")),
        "the key's name is logged"
    );
    let all = logs.join("\n");
    for secret in secrets {
        let digest = digest(secret);
        // The key, its random part, any 12 characters of it, and its digest in hex.
        let random_part = &secret[4..];
        for start in 0..=random_part.len() - 12 {
            let piece = &random_part[start..start + 12];
            assert!(
                !all.contains(piece),
                "`{piece}` of a key was logged:\n{all}"
            );
        }
        assert!(!all.contains(&digest[..16]), "a key's digest was logged");
        assert!(!all.to_lowercase().contains(&digest[..16]));
    }
}

#[test]
fn clients_that_pipeline_and_never_read_lose_their_slots() {
    const SLOTS: usize = 4;
    let site = Site::new();
    let server = site.start(&["--max-connections", "4", "--header-read-timeout", "2"]);
    // Every slot taken by a client that sends 20,000 requests at once and reads nothing:
    // the answers pile up until the server's writes block.
    let requests = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".repeat(20_000);
    let mut attackers = Vec::new();
    for _ in 0..SLOTS {
        let socket =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        socket.connect(&server.addr.into()).unwrap();
        let stream: TcpStream = socket.into();
        let mut writer = stream.try_clone().unwrap();
        let requests = requests.clone();
        // Writes as much as the server takes in, in the background; never reads.
        std::thread::spawn(move || {
            let _ = writer.write_all(requests.as_bytes());
        });
        attackers.push(stream);
    }
    // A new client is answered once the stalled writes time out (2 s), well within the
    // deadline; before, it waited for as long as the attackers wished.
    let started = Instant::now();
    let response = request(server.addr, "GET", "/healthz", &[]);
    assert_eq!(response.status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "served after {:?}",
        started.elapsed()
    );
    drop(attackers);
}
