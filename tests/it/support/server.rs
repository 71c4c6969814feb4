//! Test harness for the servers (`shiplog-api`, `shiplog serve`): starts the real binary on
//! an ephemeral port, collects its log lines, and talks to it over real sockets with a small
//! HTTP/1.1 client.
//! Every wait has a deadline; nothing sleeps and hopes.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// How long the server may take to start.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a change may take to show.
pub const CHANGE_TIMEOUT: Duration = Duration::from_secs(20);

/// Lowercase hex SHA-256 of a key.
pub fn digest(key: &str) -> String {
    Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One key of a test keys file.
pub struct TestKey<'a> {
    pub name: &'a str,
    pub org: &'a str,
    pub key: &'a str,
    pub rate: Option<u32>,
}

/// The text of a keys file holding `keys`.
pub fn keys_yaml(keys: &[TestKey<'_>]) -> String {
    let mut text = String::from("keys:\n");
    for key in keys {
        text.push_str(&format!(
            "  - name: {}\n    org: {}\n    sha256: {}\n",
            key.name,
            key.org,
            digest(key.key)
        ));
        if let Some(rate) = key.rate {
            text.push_str(&format!("    rate_limit_per_minute: {rate}\n"));
        }
    }
    text
}

/// Writes an entry file.
pub fn write_entry(path: &Path, front_matter: &str, body: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, format!("---\n{front_matter}---\n{body}")).unwrap();
}

/// The server's standard error, line by line, as it comes.
#[derive(Default)]
pub struct Logs {
    state: Mutex<(Vec<String>, bool)>,
    changed: Condvar,
}

impl Logs {
    /// All lines so far.
    pub fn lines(&self) -> Vec<String> {
        self.state.lock().unwrap().0.clone()
    }

    /// Waits for a line that `matches`, from line `from` on; `None` when the deadline
    /// passes or the stream ends first.
    pub fn wait_for(
        &self,
        from: usize,
        timeout: Duration,
        matches: impl Fn(&str) -> bool,
    ) -> Option<String> {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock().unwrap();
        loop {
            if let Some(line) = state.0.iter().skip(from).find(|l| matches(l)) {
                return Some(line.clone());
            }
            let now = Instant::now();
            if state.1 || now >= deadline {
                return None;
            }
            state = self.changed.wait_timeout(state, deadline - now).unwrap().0;
        }
    }

    /// Number of lines so far.
    pub fn len(&self) -> usize {
        self.state.lock().unwrap().0.len()
    }

    fn push(&self, line: String) {
        self.state.lock().unwrap().0.push(line);
        self.changed.notify_all();
    }

    fn close(&self) {
        self.state.lock().unwrap().1 = true;
        self.changed.notify_all();
    }
}

/// A JSON log line of `event`?
pub fn is_event(line: &str, event: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line)
        .is_ok_and(|v| v["event"].as_str() == Some(event))
}

/// A running `shiplog-api`.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    pub logs: Arc<Logs>,
}

/// A `shiplog-api` that did not start.
#[derive(Debug)]
pub struct Failed {
    pub status: ExitStatus,
    pub stderr: String,
}

/// Starts `shiplog-api` with `args` (in `cwd`), reading its standard error as it comes.
fn spawn(args: &[OsString], cwd: &Path) -> (Child, Arc<Logs>) {
    spawn_program(env!("CARGO_BIN_EXE_shiplog-api"), args, cwd)
}

/// Starts `program` with `args` (in `cwd`), reading its standard error as it comes.
pub fn spawn_program(program: &str, args: &[OsString], cwd: &Path) -> (Child, Arc<Logs>) {
    spawn_program_in(Command::new(program).args(args).current_dir(cwd))
}

/// [`spawn_program`] of a command set up by the caller (its environment, say).
pub fn spawn_program_in(command: &mut Command) -> (Child, Arc<Logs>) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("shiplog-api starts");
    let logs = Arc::new(Logs::default());
    let stderr = child.stderr.take().unwrap();
    let sink = logs.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            match line {
                Ok(line) => sink.push(line),
                Err(_) => break,
            }
        }
        sink.close();
    });
    (child, logs)
}

impl Server {
    /// Starts the server with `--listen 127.0.0.1:0` and `args`; waits until it listens.
    pub fn start(args: &[OsString], cwd: &Path) -> Server {
        match Server::try_start(args, cwd) {
            Ok(server) => server,
            Err(failed) => panic!(
                "shiplog-api did not start ({}):\n{}",
                failed.status, failed.stderr
            ),
        }
    }

    /// Like [`Server::start`], but a server that exits is returned as [`Failed`].
    pub fn try_start(args: &[OsString], cwd: &Path) -> Result<Server, Failed> {
        let mut all: Vec<OsString> = vec!["--listen".into(), "127.0.0.1:0".into()];
        all.extend(args.iter().cloned());
        let (mut child, logs) = spawn(&all, cwd);
        let listening = logs.wait_for(0, START_TIMEOUT, |l| is_event(l, "listening"));
        match listening {
            Some(line) => {
                let value: serde_json::Value = serde_json::from_str(&line).unwrap();
                let addr = value["addr"].as_str().unwrap().parse().unwrap();
                Ok(Server { child, addr, logs })
            }
            None => {
                let status = wait_with_deadline(&mut child, START_TIMEOUT).unwrap_or_else(|| {
                    let _ = child.kill();
                    child.wait().unwrap()
                });
                // The reader thread finishes once the pipe closes.
                logs.wait_for(usize::MAX, START_TIMEOUT, |_| false);
                Err(Failed {
                    status,
                    stderr: logs.lines().join("\n"),
                })
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Sends `signal` (like `libc::SIGTERM`) to the server.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        let result = unsafe { libc::kill(self.pid(), signal) };
        assert_eq!(result, 0, "kill failed");
    }

    /// Waits for the server to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        wait_with_deadline(&mut self.child, timeout).expect("the server exits in time")
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// `GET target` with the key, if any.
    pub fn get(&self, target: &str, key: Option<&str>) -> Response {
        let auth = key.map(|k| format!("Bearer {k}"));
        let headers: Vec<(&str, &str)> = auth
            .as_deref()
            .map(|a| vec![("Authorization", a)])
            .unwrap_or_default();
        self.request("GET", target, &headers)
    }

    /// Any request, with `Connection: close`.
    pub fn request(&self, method: &str, target: &str, headers: &[(&str, &str)]) -> Response {
        request(self.addr, method, target, headers)
    }

    /// Polls `GET target` until `check` holds on the response, or panics at the deadline.
    pub fn poll(
        &self,
        target: &str,
        key: Option<&str>,
        timeout: Duration,
        check: impl Fn(&Response) -> bool,
    ) -> Response {
        poll_until(timeout, &self.logs, || self.get(target, key), check)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Waits for `child` to exit, polling until the deadline.
/// Calls `fetch` until `check` holds on its response, or panics at the deadline with the
/// last response and the server's logs: a condition polled until a deadline, not a guess.
pub fn poll_until(
    timeout: Duration,
    logs: &Logs,
    fetch: impl Fn() -> Response,
    check: impl Fn(&Response) -> bool,
) -> Response {
    let deadline = Instant::now() + timeout;
    loop {
        let response = fetch();
        if check(&response) {
            return response;
        }
        assert!(
            Instant::now() < deadline,
            "condition not met in {timeout:?}; last response {} {}\nlogs:\n{}",
            response.status,
            response.text(),
            logs.lines().join("\n")
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

pub fn wait_with_deadline(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `shiplog-api` with `args` until it exits (it should fail to start).
pub fn run_api_expecting_exit(args: &[OsString], cwd: &Path) -> Failed {
    let (mut child, logs) = spawn(args, cwd);
    let status = wait_with_deadline(&mut child, START_TIMEOUT).unwrap_or_else(|| {
        let _ = child.kill();
        panic!("shiplog-api kept running:\n{}", logs.lines().join("\n"));
    });
    logs.wait_for(usize::MAX, START_TIMEOUT, |_| false);
    Failed {
        status,
        stderr: logs.lines().join("\n"),
    }
}

/// An HTTP response as read off the wire.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    /// Names in lowercase, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// The first value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {} {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The ids of the listing's `data`.
    pub fn ids(&self) -> Vec<String> {
        self.json()["data"]
            .as_array()
            .expect("data is a list")
            .iter()
            .map(|item| item["id"].as_str().unwrap().to_string())
            .collect()
    }

    /// The `Link` header as `rel -> URL`.
    pub fn links(&self) -> Vec<(String, String)> {
        parse_links(self.header("link").unwrap_or_default())
    }

    /// The URL of the link `rel`.
    pub fn link(&self, rel: &str) -> Option<String> {
        self.links()
            .into_iter()
            .find(|(r, _)| r == rel)
            .map(|(_, url)| url)
    }
}

/// Parses an RFC 8288 `Link` header of the simple form the server writes.
pub fn parse_links(header: &str) -> Vec<(String, String)> {
    header
        .split(", <")
        .filter(|part| !part.is_empty())
        .map(|part| {
            let part = part.trim_start_matches('<');
            let (url, params) = part.split_once('>').expect("a <URL>");
            let rel = params
                .split(';')
                .map(str::trim)
                .find_map(|p| p.strip_prefix("rel="))
                .expect("a rel")
                .trim_matches('"');
            (rel.to_string(), url.to_string())
        })
        .collect()
}

/// Sends one request over a new connection and reads the whole response. The `Host` is
/// `addr` unless `headers` hold one.
pub fn request(addr: SocketAddr, method: &str, target: &str, headers: &[(&str, &str)]) -> Response {
    let mut raw = format!("{method} {target} HTTP/1.1\r\nConnection: close\r\n");
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        raw.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        raw.push_str(&format!("{name}: {value}\r\n"));
    }
    raw.push_str("\r\n");
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(raw.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).expect("reads the response");
    parse_response(&bytes, method == "HEAD")
}

/// Parses a whole HTTP/1.1 response (one, with `Content-Length` or none).
pub fn parse_response(bytes: &[u8], head: bool) -> Response {
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(bytes)));
    let head_text = std::str::from_utf8(&bytes[..split]).expect("an ASCII head");
    let mut lines = head_text.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let headers: Vec<(String, String)> = lines
        .map(|line| {
            let (name, value) = line.split_once(':').expect("a header line");
            (name.trim().to_ascii_lowercase(), value.trim().to_string())
        })
        .collect();
    let body = bytes[split + 4..].to_vec();
    let response = Response {
        status,
        headers,
        body,
    };
    if head || status == 304 {
        assert!(response.body.is_empty(), "a body where none belongs");
    } else if let Some(length) = response.header("content-length") {
        assert_eq!(
            length.parse::<usize>().unwrap(),
            response.body.len(),
            "Content-Length matches the body"
        );
    }
    response
}
