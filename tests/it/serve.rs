//! `shiplog serve` end to end: the real binary on an ephemeral port, in a temporary folder
//! holding a copy of fixture content, and real sockets that name the host they want.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::Arc;

use crate::support::{
    copy_tree, files_under, fixture, poll_until, request, spawn_program, wait_with_deadline,
    write_entry, Logs, Response, CHANGE_TIMEOUT, START_TIMEOUT,
};

/// What the reload script asks for.
const BUILD_TOKEN: &str = "/_shiplog/build";

/// A running `shiplog serve` over a copy of `tests/fixtures/api/basic` (orgs `acme`,
/// `globex` and `quiet`).
struct Preview {
    child: Child,
    logs: Arc<Logs>,
    port: u16,
    dir: tempfile::TempDir,
}

impl Preview {
    /// Starts `shiplog serve --port 0` in a fresh folder whose `content/` is the fixture,
    /// after `prepare` has had its way with the folder; waits until it serves.
    fn start(prepare: impl FnOnce(&Path)) -> Preview {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&fixture("api/basic"), &dir.path().join("content"));
        prepare(dir.path());
        let args: Vec<OsString> = vec!["serve".into(), "--port".into(), "0".into()];
        let (mut child, logs) = spawn_program(env!("CARGO_BIN_EXE_shiplog"), &args, dir.path());
        let Some(line) = logs.wait_for(0, START_TIMEOUT, |l| l.starts_with("serving on ")) else {
            let _ = child.kill();
            panic!("shiplog serve did not start:\n{}", logs.lines().join("\n"));
        };
        let port = line
            .strip_prefix("serving on http://localhost:")
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("unexpected address line {line:?}"));
        Preview {
            child,
            logs,
            port,
            dir,
        }
    }

    fn content(&self) -> PathBuf {
        self.dir.path().join("content")
    }

    fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// The `Host` of organization `org`, or of the list of organizations when `org` is "".
    fn host(&self, org: &str) -> String {
        if org.is_empty() {
            format!("localhost:{}", self.port)
        } else {
            format!("{org}.localhost:{}", self.port)
        }
    }

    /// `method target` at the host of `org`.
    fn send(&self, method: &str, org: &str, target: &str) -> Response {
        request(self.addr(), method, target, &[("Host", &self.host(org))])
    }

    fn get(&self, org: &str, target: &str) -> Response {
        self.send("GET", org, target)
    }

    /// Polls `GET target` at the host of `org` until `check` holds, or panics at the deadline.
    fn poll(&self, org: &str, target: &str, check: impl Fn(&Response) -> bool) -> Response {
        poll_until(CHANGE_TIMEOUT, &self.logs, || self.get(org, target), check)
    }

    /// The token of the build being served.
    fn build_token(&self) -> String {
        self.get("", BUILD_TOKEN).text()
    }

    /// Sends `signal` (like `libc::SIGTERM`) to the server; whether it could be sent.
    fn signal(&self, signal: i32) -> bool {
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        unsafe { libc::kill(self.child.id() as i32, signal) == 0 }
    }

    /// Sends `signal` and waits for the exit status.
    fn stop(mut self, signal: i32) -> std::process::ExitStatus {
        assert!(self.signal(signal), "kill failed");
        wait_with_deadline(&mut self.child, START_TIMEOUT).expect("the server exits in time")
    }
}

impl Drop for Preview {
    /// Stops the server as a user would (so it removes its temporary folder), or kills it.
    fn drop(&mut self) {
        let running = self.child.try_wait().ok().flatten().is_none();
        if running
            && !(self.signal(libc::SIGTERM)
                && wait_with_deadline(&mut self.child, START_TIMEOUT).is_some())
        {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn has_reload_script(response: &Response) -> bool {
    response.text().contains(BUILD_TOKEN)
}

/// HTML as the browser reads it: the entities the pages use for text turned back.
fn unescape(html: &str) -> String {
    html.replace("&#x2F;", "/")
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[test]
fn each_org_is_served_at_its_own_host() {
    let preview = Preview::start(|dir| {
        let folder = dir.join("content/acme/launch");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("logo.svg"),
            "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        )
        .unwrap();
        std::fs::write(folder.join("logo.png"), crate::support::png_header(40, 20)).unwrap();
    });
    let port = preview.port;

    // The org's output is the host's root: /changelog/ is page 1, with the addresses of the
    // preview itself.
    let page = preview.get("acme", "/changelog/");
    assert_eq!(page.status, 200, "{}", page.text());
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(page.header("cache-control"), Some("no-store"));
    let html = page.text();
    assert!(html.contains("Acme 2.0 is here"));
    assert!(!html.contains("Secret project") && !html.contains("Time travel"));
    assert!(html.contains(&format!(
        "<link rel=\"canonical\" href=\"http://acme.localhost:{port}/changelog/\">"
    )));
    // The reload script comes last in the body.
    let script = html.find(BUILD_TOKEN).expect("the reload script");
    assert!(script > html.find("Acme 2.0 is here").unwrap());
    assert!(html[script..].contains("</body>"));
    assert!(!html[..script].contains("</body>"));

    let entry = preview.get("acme", "/changelog/launch/");
    assert_eq!(entry.status, 200);
    assert!(entry.text().contains("Acme 2.0 is here") && has_reload_script(&entry));
    assert_eq!(preview.get("globex", "/changelog/").status, 200);
    assert!(preview
        .get("globex", "/changelog/")
        .text()
        .contains("Globex says hello"));

    // Folders without their `/` are redirected; the org's root leads to its changelog.
    let bare = preview.get("acme", "/changelog");
    assert_eq!(bare.status, 301);
    assert_eq!(bare.header("location"), Some("/changelog/"));
    let bare = preview.get("acme", "/changelog/launch?theme=dark");
    assert_eq!(bare.status, 301);
    assert_eq!(
        bare.header("location"),
        Some("/changelog/launch/?theme=dark")
    );
    let root = preview.get("acme", "/");
    assert_eq!(root.status, 302);
    assert_eq!(root.header("location"), Some("/changelog/"));

    // Feeds and files keep their types and get no script.
    let rss = preview.get("acme", "/changelog/feed.xml");
    assert_eq!(rss.status, 200);
    assert_eq!(
        rss.header("content-type"),
        Some("application/rss+xml; charset=utf-8")
    );
    assert!(rss.text().starts_with("<?xml") && !has_reload_script(&rss));
    let json = preview.get("acme", "/changelog/feed.json");
    assert_eq!(json.status, 200);
    assert_eq!(
        json.header("content-type"),
        Some("application/feed+json; charset=utf-8")
    );
    assert!(!has_reload_script(&json));
    let feed = json.json();
    assert_eq!(
        feed["home_page_url"],
        format!("http://acme.localhost:{port}/changelog")
    );
    let ids: Vec<&str> = feed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["api-v2", "launch", "fix", "dark-mode"]);
    let svg = preview.get("acme", "/changelog/launch/logo.svg");
    assert_eq!(
        (svg.status, svg.header("content-type")),
        (200, Some("image/svg+xml"))
    );
    assert!(!has_reload_script(&svg));
    let png = preview.get("acme", "/changelog/launch/logo.png");
    assert_eq!(
        (png.status, png.header("content-type")),
        (200, Some("image/png"))
    );
    assert_eq!(png.body, crate::support::png_header(40, 20));

    // HEAD is GET without the body; other methods are refused.
    let head = preview.send("HEAD", "acme", "/changelog/");
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-length"), page.header("content-length"));
    assert!(head.body.is_empty());
    let post = preview.send("POST", "acme", "/changelog/");
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));

    // Anything else is a 404 page, which reloads too (so it shows the page once it exists).
    for (org, target) in [
        ("acme", "/changelog/nope/"),
        ("acme", "/changelog/nope.png"),
        ("acme", "/changelog/page/2/"),
        ("ghost", "/changelog/"),
        ("", "/changelog/"),
    ] {
        let missing = preview.get(org, target);
        assert_eq!(missing.status, 404, "{org} {target}");
        assert_eq!(
            missing.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        assert!(has_reload_script(&missing), "{org} {target}");
    }
    assert!(unescape(&preview.get("ghost", "/changelog/").text())
        .contains("There is no organization `ghost`"));
}

#[test]
fn other_hosts_get_the_list_of_orgs() {
    let preview = Preview::start(|_| {});
    let port = preview.port;
    let list = preview.get("", "/");
    assert_eq!(list.status, 200);
    assert_eq!(
        list.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let html = list.text();
    for org in ["acme", "globex", "quiet"] {
        assert!(
            html.contains(&format!(
                "href=\"http://{org}.localhost:{port}/changelog/\""
            )),
            "{org}: {html}"
        );
    }
    assert!(html.contains("Acme product updates"));
    assert!(has_reload_script(&list));
    for host in [format!("127.0.0.1:{port}"), "example.com".to_string()] {
        let other = request(preview.addr(), "GET", "/", &[("Host", &host)]);
        assert_eq!(other.text(), html, "{host}");
    }
    // The build token is plain text, on every host.
    let token = preview.build_token();
    assert!(!token.is_empty() && !token.contains('<'));
    let on_org = preview.get("acme", BUILD_TOKEN);
    assert_eq!(
        on_org.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(on_org.text(), token);
}

#[test]
fn paths_that_leave_the_build_are_refused() {
    let preview = Preview::start(|_| {});
    for target in [
        "/../../../../../../etc/passwd",
        "/changelog/../../../../etc/passwd",
        "/changelog/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/%2E%2E/%2E%2E/%2E%2E/etc/passwd",
        "/changelog/..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "/%2Fetc%2Fpasswd",
        "/changelog/..%5C..%5C..%5Cetc%5Cpasswd",
        "/./changelog/",
        "//acme/../../etc/passwd",
    ] {
        for org in ["acme", ""] {
            let response = preview.get(org, target);
            assert_eq!(response.status, 400, "{org} {target}: {}", response.text());
            assert!(!response.text().contains("root:"), "{target}");
        }
    }
    // An absolute request target: its path is checked the same way.
    let absolute = request(
        preview.addr(),
        "GET",
        &format!(
            "http://acme.localhost:{}/changelog/../../etc/passwd",
            preview.port
        ),
        &[("Host", &preview.host("acme"))],
    );
    assert_eq!(absolute.status, 400);
    // A request target that is not a path at all.
    let star = preview.get("acme", "*");
    assert!(star.status == 400 || star.status == 404, "{}", star.status);
    // The org's own files are still there.
    assert_eq!(preview.get("acme", "/changelog/").status, 200);
}

#[test]
fn edits_rebuild_and_reload() {
    let preview = Preview::start(|_| {});
    let first_token = preview.build_token();
    let from = preview.logs.len();

    write_entry(
        &preview.content().join("acme/fix.md"),
        "title: Fixed the export button for good\ndate: 2025-12-01\n",
        "Fixed.\n",
    );
    let page = preview.poll("acme", "/changelog/", |r| {
        r.text().contains("Fixed the export button for good")
    });
    assert!(has_reload_script(&page));
    // A new build, a new token: served once the build's files are in place, so a page
    // may show the new entry a moment before the token changes.
    preview.poll("", BUILD_TOKEN, |r| r.text() != first_token);
    assert!(preview
        .logs
        .wait_for(from, CHANGE_TIMEOUT, |l| l.starts_with("rebuilt "))
        .is_some());

    // The config file is watched too.
    std::fs::write(preview.dir.path().join("shiplog.yaml"), "page_size: 1\n").unwrap();
    preview.poll("acme", "/changelog/page/4/", |r| r.status == 200);

    // And the themes folder, even one that did not exist when the server started.
    let token = preview.build_token();
    let theme = preview.dir.path().join("themes/unused");
    std::fs::create_dir_all(&theme).unwrap();
    std::fs::write(theme.join("notes.txt"), "not used by any org\n").unwrap();
    preview.poll("", BUILD_TOKEN, |r| r.text() != token);
}

#[test]
fn a_broken_edit_shows_the_problems_until_it_is_fixed() {
    let preview = Preview::start(|_| {});
    let from = preview.logs.len();
    std::fs::write(
        preview.content().join("acme/fix.md"),
        "---\ntitle: Fixed the export button\ndate: 2025-12-01\ntagz: [oops]\n---\nBroken.\n",
    )
    .unwrap();
    let broken = preview.poll("acme", "/changelog/", |r| r.status == 500);
    assert_eq!(
        broken.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let text = unescape(&broken.text());
    assert!(
        text.contains("content/acme/fix.md:4:1: unknown key `tagz`"),
        "{text}"
    );
    assert!(
        has_reload_script(&broken),
        "the problems page recovers by itself"
    );
    assert!(preview
        .logs
        .wait_for(from, CHANGE_TIMEOUT, |l| l
            .contains("fix.md:4:1: unknown key `tagz`"))
        .is_some());
    // Every page shows the problems, on every host; files that are not pages still come
    // from the last good build.
    for (org, target) in [
        ("globex", "/changelog/"),
        ("", "/"),
        ("acme", "/changelog/nope/"),
    ] {
        let page = preview.get(org, target);
        assert_eq!(page.status, 500, "{org} {target}");
        assert!(unescape(&page.text()).contains("unknown key `tagz`"));
    }
    assert_eq!(preview.get("acme", "/changelog/feed.json").status, 200);

    // A markup-looking message is shown as text.
    std::fs::write(
        preview.content().join("acme/<b>.md"),
        "---\ntitle: x\n---\n",
    )
    .unwrap();
    let escaped = preview.poll("acme", "/changelog/", |r| r.text().contains("&lt;b&gt;.md"));
    assert!(!escaped.text().contains("<b>"));
    std::fs::remove_file(preview.content().join("acme/<b>.md")).unwrap();

    write_entry(
        &preview.content().join("acme/fix.md"),
        "title: Fixed once more\ndate: 2025-12-01\n",
        "Fixed.\n",
    );
    let fixed = preview.poll("acme", "/changelog/", |r| r.status == 200);
    assert!(fixed.text().contains("Fixed once more"));
    assert_eq!(preview.get("", "/").status, 200);
}

#[test]
fn broken_content_at_start_is_shown_then_fixed() {
    let preview = Preview::start(|dir| {
        std::fs::write(dir.join("content/acme/bad.md"), "---\ntitle: [\n---\n").unwrap();
    });
    let broken = preview.get("acme", "/changelog/");
    assert_eq!(broken.status, 500);
    assert!(unescape(&broken.text()).contains("content/acme/bad.md:"));
    // There is no good build yet: feeds show the problems too.
    assert_eq!(preview.get("acme", "/changelog/feed.xml").status, 500);
    std::fs::remove_file(preview.content().join("acme/bad.md")).unwrap();
    preview.poll("acme", "/changelog/feed.xml", |r| r.status == 200);
}

#[test]
fn sigterm_and_ctrl_c_exit_0() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let preview = Preview::start(|_| {});
        assert_eq!(preview.get("acme", "/changelog/").status, 200);
        let status = preview.stop(signal);
        assert_eq!(status.code(), Some(0), "signal {signal}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("content")).unwrap();
    for args in [
        vec!["serve", "--port", "0", "--content", "missing"],
        vec!["serve", "--port", "0", "--config", "missing.yaml"],
        vec!["serve", "--bind", "not-an-address"],
    ] {
        let args: Vec<OsString> = args.into_iter().map(OsString::from).collect();
        let (mut child, logs) = spawn_program(env!("CARGO_BIN_EXE_shiplog"), &args, dir.path());
        let status = wait_with_deadline(&mut child, START_TIMEOUT).unwrap_or_else(|| {
            let _ = child.kill();
            panic!("shiplog serve kept running")
        });
        assert_eq!(status.code(), Some(2), "{args:?}: {:?}", logs.lines());
    }
}

#[test]
fn an_edit_rebuilds_only_its_org() {
    // 97 orgs more than the fixture's three: 100 in all.
    let preview = Preview::start(|dir| {
        for n in 0..97 {
            write_entry(
                &dir.join(format!("content/org-{n:03}/launch.md")),
                "title: Launch\ndate: 2025-11-01\ntags: [news]\n",
                "We launched.\n",
            );
        }
    });
    assert!(preview
        .logs
        .wait_for(0, START_TIMEOUT, |l| l
            .starts_with("built 100 organizations,"))
        .is_some());
    let from = preview.logs.len();
    write_entry(
        &preview.content().join("org-042/launch.md"),
        "title: Launch, edited\ndate: 2025-11-01\ntags: [news]\n",
        "We launched.\n",
    );
    let rebuilt = preview
        .logs
        .wait_for(from, CHANGE_TIMEOUT, |l| l.starts_with("rebuilt "))
        .unwrap_or_else(|| panic!("no rebuild:\n{}", preview.logs.lines().join("\n")));
    assert!(
        rebuilt.starts_with("rebuilt 100 organizations (99 unchanged),"),
        "{rebuilt}"
    );
    preview.poll("org-042", "/changelog/", |r| {
        r.text().contains("Launch, edited")
    });
    // The preview builds elsewhere: the site folder holds only what the test wrote.
    let written: Vec<String> = files_under(preview.dir.path())
        .into_iter()
        .filter(|file| !file.starts_with("content/"))
        .collect();
    assert!(written.is_empty(), "{written:?}");
}

#[test]
fn an_svg_is_served_with_a_policy_under_which_no_script_runs() {
    let preview = Preview::start(|dir| {
        std::fs::write(
            dir.join("content/acme/logo.svg"),
            "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"><circle r=\"4\"/></svg>\n",
        )
        .unwrap();
    });
    let svg = preview.get("acme", "/changelog/logo.svg");
    assert_eq!(svg.status, 200);
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    assert_eq!(
        svg.header("content-security-policy"),
        Some("default-src 'none'; style-src 'unsafe-inline'; sandbox")
    );
    let page = preview.get("acme", "/changelog/");
    assert_eq!(page.header("content-security-policy"), None);
}

#[test]
fn the_feeds_may_be_read_from_any_origin_and_the_widget_is_a_script() {
    let preview = Preview::start(|_| {});
    for (feed, kind) in [
        ("/changelog/feed.json", "application/feed+json"),
        ("/changelog/feed.xml", "application/rss+xml"),
        ("/changelog/atom.xml", "application/atom+xml"),
    ] {
        let response = preview.get("acme", feed);
        assert_eq!(response.status, 200, "{feed}");
        assert_eq!(
            response.header("content-type"),
            Some(format!("{kind}; charset=utf-8").as_str())
        );
        assert_eq!(
            response.header("access-control-allow-origin"),
            Some("*"),
            "{feed}"
        );
    }
    // What search engines and language models read, at the org's root and beside the feeds.
    for (path, kind) in [
        ("/sitemap.xml", "application/xml; charset=utf-8"),
        ("/robots.txt", "text/plain; charset=utf-8"),
        ("/changelog/llms.txt", "text/plain; charset=utf-8"),
        ("/changelog/launch/index.md", "text/markdown; charset=utf-8"),
    ] {
        let response = preview.get("acme", path);
        assert_eq!(
            (response.status, response.header("content-type")),
            (200, Some(kind)),
            "{path}"
        );
    }
    // A file's name with a `/` after it names a folder: nothing (as nginx answers).
    assert_eq!(preview.get("acme", "/changelog/feed.json/").status, 404);
    let widget = preview.get("acme", "/changelog/widget.js");
    assert_eq!(widget.status, 200);
    assert_eq!(
        widget.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    let script = String::from_utf8_lossy(&widget.body);
    assert!(
        script.contains("\"feed\":\"http://acme.localhost:"),
        "{script}"
    );
    // Pages and scripts stay same-origin only.
    for path in ["/changelog/", "/changelog/widget.js"] {
        let response = preview.get("acme", path);
        assert_eq!(
            response.header("access-control-allow-origin"),
            None,
            "{path}"
        );
    }
}

#[test]
fn stopping_during_a_rebuild_leaves_no_temporary_folder() {
    let dir = tempfile::tempdir().unwrap();
    let temp = dir.path().join("tmp");
    std::fs::create_dir_all(&temp).unwrap();
    // Enough entries that a rebuild of the org takes a while in a debug build.
    for n in 0..1500 {
        write_entry(
            &dir.path().join(format!("content/big/e{n:04}.md")),
            &format!(
                "title: Entry {n}\ndate: 2025-11-01\ntags: [news, t{}]\n",
                n % 40
            ),
            "Some text with a [link](https://example.com).\n",
        );
    }
    // The signal lands before, during or after the rebuild: whichever, nothing is left.
    for delay_ms in [0, 200, 600] {
        let (mut child, logs) = crate::support::spawn_program_in(
            std::process::Command::new(env!("CARGO_BIN_EXE_shiplog"))
                .args(["serve", "--port", "0"])
                .current_dir(dir.path())
                .env("TMPDIR", &temp),
        );
        assert!(logs
            .wait_for(0, START_TIMEOUT, |l| l.starts_with("serving on "))
            .is_some());
        write_entry(
            &dir.path().join("content/big/e0000.md"),
            &format!("title: Edited {delay_ms}\ndate: 2025-11-01\ntags: [news]\n"),
            "Edited.\n",
        );
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
        let status = wait_with_deadline(&mut child, START_TIMEOUT).expect("it stops");
        assert!(status.success(), "{status}");
        let left: Vec<_> = std::fs::read_dir(&temp).unwrap().collect();
        assert!(left.is_empty(), "after {delay_ms} ms: {left:?}");
    }
}
