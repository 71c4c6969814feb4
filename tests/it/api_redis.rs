//! `shiplog-api --redis`: copies of the real binary sharing rate limits through a real
//! `redis-server` on a loopback port, and what they do when it dies or hangs.

use std::ffi::OsString;
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;

const KEY: &str = "shl_test_redis_0123456789abcdef";
const LISTING: &str = "/api/v1/changelogs";

/// A `redis-server` of its own, on a free loopback port, saving nothing; killed when dropped.
struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
    /// Starts one, or `None` when `redis-server` is not installed and this is not CI (where
    /// it must be: `.ci/run` installs it).
    fn start() -> Option<Redis> {
        if Command::new("redis-server")
            .arg("--version")
            .output()
            .is_err()
        {
            assert!(
                std::env::var_os("CI").is_none(),
                "redis-server is needed: apt-get install redis-server"
            );
            eprintln!("skipped: redis-server is not installed (apt-get install redis-server)");
            return None;
        }
        Some(Redis::on(free_port(), &[]))
    }

    /// Starts one on `port`, with `extra` settings, and waits until it answers `PING`.
    fn on(port: u16, extra: &[&str]) -> Redis {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let redis = Redis { child, port };
        let deadline = Instant::now() + START_TIMEOUT;
        while !redis.answers() {
            assert!(Instant::now() < deadline, "redis-server did not answer");
            std::thread::sleep(Duration::from_millis(10));
        }
        redis
    }

    fn answers(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        use std::io::{Read, Write};
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        let mut reply = [0; 7];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut reply).is_ok()
            && &reply == b"+PONG\r\n"
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, signal) }, 0);
    }

    /// Kills it at once (SIGKILL), as a crash would.
    fn kill(mut self) -> u16 {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.port
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            // A stopped process does not die of SIGKILL until it runs again.
            self.signal(libc::SIGCONT);
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A loopback port no one listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The `basic` API fixture with one key allowed `rate` requests a minute.
fn site(rate: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("api/basic"), &dir.path().join("content"));
    let keys = [TestKey {
        name: "shared",
        org: "acme",
        key: KEY,
        rate: Some(rate),
    }];
    std::fs::write(dir.path().join("api_keys.yaml"), keys_yaml(&keys)).unwrap();
    dir
}

fn start(dir: &Path, redis: &str) -> Server {
    let args: Vec<OsString> = vec![
        "--content".into(),
        dir.join("content").into(),
        "--keys".into(),
        dir.join("api_keys.yaml").into(),
        "--redis".into(),
        redis.into(),
    ];
    Server::start(&args, dir)
}

/// What `/healthz` says rate limits are counted by.
fn counting(server: &Server) -> String {
    let health = server.get("/healthz", None).json();
    health["rate_limit"].as_str().unwrap().to_string()
}

fn wait_counting(server: &Server, mode: &str, timeout: Duration) -> Duration {
    let started = Instant::now();
    server.poll("/healthz", None, timeout, |r| {
        r.json()["rate_limit"] == mode
    });
    started.elapsed()
}

#[test]
fn three_copies_behind_one_redis_share_a_keys_limit() {
    let Some(redis) = Redis::start() else { return };
    let dir = site(30);
    let copies: Vec<Server> = (0..3).map(|_| start(dir.path(), &redis.url())).collect();
    for copy in &copies {
        wait_counting(copy, "redis", CHANGE_TIMEOUT);
    }
    let mut ok = [0; 3];
    for round in 0..30 {
        for (n, copy) in copies.iter().enumerate() {
            let status = copy.get(LISTING, Some(KEY)).status;
            assert!(status == 200 || status == 429, "round {round}: {status}");
            ok[n] += usize::from(status == 200);
        }
    }
    let total: usize = ok.iter().sum();
    // The bucket refills at half a request a second while the 90 requests are made.
    assert!(
        (30..=31).contains(&total),
        "{ok:?}: {total} of 90 let through"
    );
    assert!(ok.iter().all(|&n| n > 0), "{ok:?}");
    let refused = copies[0].get(LISTING, Some(KEY));
    assert_eq!(refused.status, 429);
    assert!(refused.header("retry-after").is_some());
}

/// Server-side durations of the key's requests logged on `lines`, in ms, sorted.
fn durations(server: &Server, lines: std::ops::Range<usize>) -> Vec<f64> {
    let mut all: Vec<f64> = server.logs.lines()[lines]
        .iter()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|event| event["event"] == "request" && event["path"] == LISTING)
        .map(|event| event["duration_ms"].as_f64().unwrap())
        .collect();
    all.sort_by(f64::total_cmp);
    all
}

fn p99(sorted: &[f64]) -> f64 {
    sorted[(sorted.len() * 99 / 100).min(sorted.len() - 1)]
}

#[test]
fn redis_killed_mid_load_refuses_nothing_and_is_used_again_when_back() {
    let Some(redis) = Redis::start() else { return };
    let dir = site(1_000_000);
    let server = start(dir.path(), &redis.url());
    wait_counting(&server, "redis", CHANGE_TIMEOUT);
    let load = |count: usize| {
        for _ in 0..count {
            let response = server.get(LISTING, Some(KEY));
            assert_eq!(response.status, 200, "{}", response.text());
        }
    };
    let before = server.logs.len();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let during = std::thread::scope(|scope| {
        let loading = scope.spawn(|| {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                load(1);
            }
        });
        // Killed while the requests go on: after 300 have been answered, and the load
        // goes on for 300 more.
        let answered = |from: usize, count: usize| {
            let deadline = Instant::now() + CHANGE_TIMEOUT;
            while durations(&server, from..server.logs.len()).len() < count {
                assert!(
                    Instant::now() < deadline,
                    "{count} requests were not answered"
                );
                server
                    .logs
                    .wait_for(server.logs.len(), CHANGE_TIMEOUT, |_| true);
            }
        };
        answered(before, 300);
        let killed_at = server.logs.len();
        let port = redis.kill();
        answered(killed_at, 300);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        loading.join().unwrap();
        (killed_at, port)
    });
    let (killed_at, port) = during;
    let shared = durations(&server, before..killed_at);
    let alone = durations(&server, killed_at..server.logs.len());
    assert_eq!(counting(&server), "local");
    // No request waits for the dead Redis: the ones after the kill are answered as fast.
    assert!(
        p99(&alone) <= p99(&shared) + 1.0,
        "p99 {:.3} ms without Redis, {:.3} ms with it",
        p99(&alone),
        p99(&shared)
    );
    let warnings = server
        .logs
        .lines()
        .iter()
        .filter(|l| is_event(l, "rate_limit") && l.contains("\"counting\":\"local\""))
        .count();
    assert_eq!(warnings, 1, "one warning, not one per request");

    let _back = Redis::on(port, &[]);
    let took = wait_counting(&server, "redis", Duration::from_secs(5));
    eprintln!(
        "counted across copies again {} ms after Redis came back",
        took.as_millis()
    );
    load(10);
    let logs = server.logs.lines().join("\n");
    assert!(
        !logs.contains(KEY) && !logs.contains(&digest(KEY)),
        "{logs}"
    );
}

#[test]
fn a_redis_that_never_answers_holds_no_request() {
    let Some(redis) = Redis::start() else { return };
    let dir = site(1_000_000);
    let server = start(dir.path(), &redis.url());
    wait_counting(&server, "redis", CHANGE_TIMEOUT);
    // Stopped, it keeps its connections open and the kernel accepts new ones, but nothing
    // answers.
    redis.signal(libc::SIGSTOP);
    let started = Instant::now();
    let response = server.get(LISTING, Some(KEY));
    assert_eq!(response.status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(counting(&server), "local");
    let started = Instant::now();
    for _ in 0..20 {
        assert_eq!(server.get(LISTING, Some(KEY)).status, 200);
    }
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );

    // A copy started while it hangs serves at once, counting locally.
    let late = start(dir.path(), &redis.url());
    assert_eq!(late.get(LISTING, Some(KEY)).status, 200);
    assert_eq!(counting(&late), "local");

    redis.signal(libc::SIGCONT);
    wait_counting(&server, "redis", Duration::from_secs(5));
    wait_counting(&late, "redis", Duration::from_secs(5));
}

#[test]
fn a_bad_redis_url_stops_the_start_without_showing_it() {
    let dir = site(10);
    let args: Vec<OsString> = vec![
        "--content".into(),
        dir.path().join("content").into(),
        "--keys".into(),
        dir.path().join("api_keys.yaml").into(),
        "--redis".into(),
        "http://user:hunter2@example.com".into(),
    ];
    let failed = run_api_expecting_exit(&args, dir.path());
    assert_eq!(failed.status.code(), Some(2), "{}", failed.stderr);
    assert!(failed.stderr.contains("--redis"), "{}", failed.stderr);
    assert!(!failed.stderr.contains("hunter2"), "{}", failed.stderr);
}

/// VmHWM of process `pid`, in kB.
fn peak_memory_kb(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_server_at_the_redis_address_that_streams_cannot_fill_the_memory() {
    // Whatever stands at the address answers each connection with a 2 GB bulk string and
    // streams it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                use std::io::{Read, Write};
                let mut question = [0; 4096];
                let _ = stream.read(&mut question);
                let _ = stream.write_all(b"$2147483000\r\n");
                let chunk = vec![b'A'; 64 << 10];
                while stream.write_all(&chunk).is_ok() {}
            });
        }
    });
    let dir = site(1_000_000);
    let server = start(dir.path(), &format!("redis://127.0.0.1:{port}"));
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        assert_eq!(server.get(LISTING, Some(KEY)).status, 200);
        assert_eq!(counting(&server), "local");
    }
    let peak = peak_memory_kb(server.pid());
    assert!(peak < 200_000, "the server's peak memory reached {peak} kB");
}

#[test]
fn a_redis_that_cannot_run_the_script_is_never_reported_as_shared() {
    let Some(primary) = Redis::start() else {
        return;
    };
    // A read-only replica answers PING but refuses the script's write.
    let primary_port = primary.port.to_string();
    let replica = Redis::on(free_port(), &["--replicaof", "127.0.0.1", &primary_port]);
    let dir = site(1_000_000);
    let server = start(dir.path(), &replica.url());
    // Three probes' worth of time.
    let deadline = Instant::now() + Duration::from_millis(3500);
    while Instant::now() < deadline {
        assert_eq!(server.get(LISTING, Some(KEY)).status, 200);
        assert_eq!(counting(&server), "local");
        std::thread::sleep(Duration::from_millis(50));
    }
    let said: Vec<String> = server
        .logs
        .lines()
        .into_iter()
        .filter(|l| is_event(l, "rate_limit"))
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("\"counting\":\"local\""), "{said:?}");
}
