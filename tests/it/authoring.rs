//! The authoring workflow: `new`, `check`, entry bundles and their files, `_headers`, and
//! the CLI's manners (SPEC section 3 plus the authoring issue).

use std::io::Read;
use std::time::Duration;

use crate::support::{fixture, shiplog, wait_with_deadline, Build, NOW};

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_bundle_takes_its_folder_name_and_publishes_its_files_with_it() {
    let build = Build::fixture("authoring");
    assert!(build.has("acme/changelog/launch/index.html"));
    assert!(build.has("acme/changelog/launch/shot.svg"));
    assert!(build.has("acme/changelog/launch/img/detail.svg"));
    let feed = build.json("acme/changelog/feed.json");
    let launch = feed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["id"] == "launch")
        .expect("the bundle is an entry with its folder's name");
    let html = launch["content_html"].as_str().unwrap();
    assert!(html.contains("src=\"http://acme.localhost:8080/changelog/launch/shot.svg\""));
    // A draft bundle publishes nothing, not even its files.
    assert!(!build.has("acme/changelog/secret"), "{:?}", build.files());
}

#[test]
fn headers_file_gives_feed_types_cors_and_the_orgs_framing_rule() {
    let build = Build::fixture("authoring");
    let headers = build.read("_headers");
    for expected in [
        "/*\n  X-Content-Type-Options: nosniff\n  Cache-Control: public, max-age=300, must-revalidate\n",
        "/*feed.xml\n  Content-Type: application/rss+xml; charset=utf-8\n  Access-Control-Allow-Origin: *\n",
        "/*feed.json\n  Content-Type: application/feed+json; charset=utf-8\n  Access-Control-Allow-Origin: *\n",
        "/*/changelog/widget.js\n  Content-Type: text/javascript; charset=utf-8\n",
        "/acme/changelog/*\n  Content-Security-Policy: frame-ancestors https://www.acme.example 'self'\n",
    ] {
        assert!(headers.contains(expected), "missing {expected:?} in\n{headers}");
    }
    // An org that lets any site frame it needs no rule of its own.
    let any = Build::fixture("states").read("_headers");
    assert!(!any.contains("frame-ancestors"), "{any}");
}

#[test]
fn check_reports_warnings_with_positions_and_strict_fails_on_them() {
    let dir = fixture("authoring");
    let output = shiplog(&dir, &["check"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = [
        "content/acme/linked.md:2:1: warning: the entry has no tags; tags let readers follow only what matters to them",
        "content/acme/linked.md:2:8: warning: the title is longer than 100 characters; put the details in the text",
        "content/acme/linked.md:5:70: warning: a root-relative link resolves to `http://acme.localhost:8080/docs/x`, on the changelog's own host; set `website` in _org.yaml to the org's main site (like `website: https://www.example.com`)",
        "content/acme/linked.md:9:9: warning: `missing.png` leads to `http://acme.localhost:8080/changelog/linked/missing.png`, which is not published: no file or entry of the org folder is there",
        "content/acme/linked.md:9:37: warning: `../secret/` links to a draft (`http://acme.localhost:8080/changelog/secret/`), which is not published",
        // A page the entries do not fill, a tag no entry has; not the widget, the search
        // script or a tag's page, which the build writes.
        "content/acme/linked.md:10:9: warning: `../page/9/` leads to `http://acme.localhost:8080/changelog/page/9/`, which is not published: no file or entry of the org folder is there",
        "content/acme/linked.md:10:31: warning: `../tags/nothing/` leads to `http://acme.localhost:8080/changelog/tags/nothing/`, which is not published: no file or entry of the org folder is there",
        "checked 1 organization and 2 entries: no problems, 7 warnings",
    ];
    assert_eq!(stderr(&output).lines().collect::<Vec<_>>(), expected);
    assert!(stdout(&output).is_empty());
    let strict = shiplog(&dir, &["check", "--strict"]);
    assert_eq!(strict.status.code(), Some(1));
    // Its last line says why it failed.
    assert_eq!(
        stderr(&strict).lines().last(),
        Some("error: checked 1 organization and 2 entries: no problems, 7 warnings; --strict fails on warnings")
    );
}

#[test]
fn check_shows_errors_and_warnings_together_and_counts_both() {
    let work = tempfile::tempdir().unwrap();
    let acme = work.path().join("content/acme");
    std::fs::create_dir_all(&acme).unwrap();
    // One broken entry, one with a warning, in two orgs' worth of files.
    std::fs::write(
        acme.join("bad.md"),
        "---\ntitle: Bad\ndate: 2026-02-30\ntags: [x]\n---\nText.\n",
    )
    .unwrap();
    std::fs::write(
        acme.join("untagged.md"),
        "---\ntitle: Untagged\ndate: 2026-02-01\n---\nText.\n",
    )
    .unwrap();
    let globex = work.path().join("content/globex");
    std::fs::create_dir_all(&globex).unwrap();
    std::fs::write(
        globex.join("fine.md"),
        "---\ntitle: Fine but untagged\ndate: 2026-02-01\n---\nText.\n",
    )
    .unwrap();
    let output = shiplog(work.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    let expected = [
        "content/acme/bad.md:3:7: `2026-02-30` is not a valid date: use an RFC 3339 date-time like `2026-11-01T09:00:00+02:00`, or `2026-11-01`",
        "content/acme/untagged.md:2:1: warning: the entry has no tags; tags let readers follow only what matters to them",
        "content/globex/fine.md:2:1: warning: the entry has no tags; tags let readers follow only what matters to them",
        "error: 1 problem and 2 warnings found; the content does not build",
    ];
    assert_eq!(stderr(&output).lines().collect::<Vec<_>>(), expected);
    let github = shiplog(work.path(), &["check", "--format", "github"]);
    let annotations = stdout(&github);
    assert!(
        annotations.contains("::error file=content/acme/bad.md,line=3,col=7::"),
        "{annotations}"
    );
    assert_eq!(
        annotations.matches("::warning file=").count(),
        2,
        "{annotations}"
    );
}

#[test]
fn check_speaks_github_annotations() {
    let output = shiplog(&fixture("authoring"), &["check", "--format", "github"]);
    let first = stdout(&output)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        first,
        "::warning file=content/acme/linked.md,line=2,col=1::the entry has no tags; tags let readers follow only what matters to them"
    );
    let invalid = shiplog(&fixture("invalid"), &["check", "--format", "github"]);
    assert_eq!(invalid.status.code(), Some(1));
    let annotations = stdout(&invalid);
    assert!(annotations.contains(
        "::error file=content/acme/bad-date.md,line=3,col=7::`2026-02-30` is not a valid date"
    ));
    // Every problem is an error annotation; the warnings found beside them come too.
    assert_eq!(
        annotations
            .lines()
            .filter(|l| l.starts_with("::error "))
            .count(),
        std::fs::read_to_string(fixture("invalid/expected.txt"))
            .unwrap()
            .lines()
            .count()
    );
}

#[test]
fn check_writes_nothing() {
    let work = tempfile::tempdir().unwrap();
    crate::support::copy_tree(&fixture("states/content"), &work.path().join("content"));
    let output = shiplog(work.path(), &["check"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let names: Vec<_> = std::fs::read_dir(work.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["content"]);
}

#[test]
fn new_creates_the_entry_and_the_org_and_never_overwrites() {
    let work = tempfile::tempdir().unwrap();
    let output = shiplog(
        work.path(),
        &[
            "new",
            "fresh-org",
            "Faster CSV exports!",
            "--tags",
            "feature, exports",
            "--date",
            "2026-11-02",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "content/fresh-org/faster-csv-exports.md\n");
    let entry =
        std::fs::read_to_string(work.path().join("content/fresh-org/faster-csv-exports.md"))
            .unwrap();
    assert!(
        entry.starts_with(
            "---\ntitle: Faster CSV exports!\ndate: 2026-11-02\ntags:\n- feature\n- exports\n---\n"
        ),
        "{entry}"
    );
    let org = std::fs::read_to_string(work.path().join("content/fresh-org/_org.yaml")).unwrap();
    assert!(org.contains("title: Fresh Org changelog"), "{org}");

    let again = shiplog(work.path(), &["new", "fresh-org", "Faster CSV exports!"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("refusing to overwrite"),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("content/fresh-org/faster-csv-exports.md"))
            .unwrap(),
        entry
    );

    let bundle = shiplog(
        work.path(),
        &[
            "new",
            "fresh-org",
            "New dashboard",
            "--bundle",
            "--date",
            "2026-11-03",
        ],
    );
    assert_eq!(
        stdout(&bundle),
        "content/fresh-org/new-dashboard/index.md\n"
    );
    assert_eq!(
        shiplog(work.path(), &["new", "Bad_Org", "x"]).status.code(),
        Some(2)
    );

    // What `new` writes builds.
    let build = shiplog(work.path(), &["generate", "--now", NOW]);
    assert!(build.status.success(), "{}", stderr(&build));
    assert!(work
        .path()
        .join("public/fresh-org/changelog/new-dashboard/index.html")
        .exists());
}

#[test]
fn check_warns_while_an_entry_holds_the_placeholder_new_wrote() {
    let work = tempfile::tempdir().unwrap();
    let made = shiplog(
        work.path(),
        &[
            "new",
            "acme",
            "Faster exports",
            "--tags",
            "feature",
            "--date",
            "2026-11-02",
        ],
    );
    assert!(made.status.success(), "{}", stderr(&made));
    let check = shiplog(work.path(), &["check"]);
    assert!(check.status.success(), "{}", stderr(&check));
    let said = stderr(&check);
    assert!(
        said.contains(
            "content/acme/faster-exports.md:7:1: warning: the entry still holds the placeholder"
        ),
        "{said}"
    );
    let strict = shiplog(work.path(), &["check", "--strict"]);
    assert!(!strict.status.success(), "{}", stderr(&strict));
    // Written over, the warning is gone; a draft may keep it.
    let path = work.path().join("content/acme/faster-exports.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let head = &text[..text.rfind("---\n").unwrap() + 4];
    std::fs::write(&path, format!("{head}Exports finish in seconds.\n")).unwrap();
    assert!(shiplog(work.path(), &["check", "--strict"])
        .status
        .success());
    let draft = shiplog(
        work.path(),
        &["new", "acme", "Later", "--tags", "x", "--draft"],
    );
    assert!(draft.status.success());
    let strict = shiplog(work.path(), &["check", "--strict"]);
    assert!(strict.status.success(), "{}", stderr(&strict));
}

#[test]
fn the_cli_has_version_help_completions_and_a_man_page() {
    let here = fixture("states");
    let version = shiplog(&here, &["--version"]);
    assert_eq!(
        stdout(&version),
        format!("shiplog {}\n", env!("CARGO_PKG_VERSION"))
    );
    let help = stdout(&shiplog(&here, &["--help"]));
    assert!(
        help.contains("Examples:") && help.contains("shiplog new acme"),
        "{help}"
    );
    for shell in ["bash", "zsh", "fish"] {
        let script = shiplog(&here, &["completions", shell]);
        assert!(
            script.status.success() && stdout(&script).contains("generate"),
            "{shell}"
        );
    }
    let man = stdout(&shiplog(&here, &["man"]));
    assert!(man.contains(".TH shiplog 1"), "{man}");
    let failed = shiplog(
        &fixture("invalid"),
        &["generate", "--output", "/nonexistent-dir/x"],
    );
    assert!(
        !stderr(&failed).contains('\u{1b}'),
        "no colour when stderr is not a terminal"
    );
}

#[test]
fn a_settings_file_that_is_not_a_small_regular_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let content = fixture("states/content");
    let content = content.to_str().unwrap();
    let fifo = dir.path().join("fifo.yaml");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let big = dir.path().join("big.yaml");
    std::fs::write(&big, format!("# {}\n", "x".repeat(2 << 20))).unwrap();
    for (config, why) in [
        ("/dev/zero", "it is not a regular file"),
        (fifo.to_str().unwrap(), "it is not a regular file"),
        (big.to_str().unwrap(), "it is larger than 1048576 bytes"),
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_shiplog"))
            .current_dir(dir.path())
            .args(["check", "--content", content, "--config", config])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let status = wait_with_deadline(&mut child, Duration::from_secs(20));
        if status.is_none() {
            child.kill().unwrap();
        }
        let mut errors = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut errors)
            .unwrap();
        assert_eq!(status.and_then(|s| s.code()), Some(1), "{config}: {errors}");
        assert!(errors.contains(why), "{config}: {errors}");
    }
}

#[test]
fn check_warns_when_yaml_swallows_part_of_a_title_or_summary() {
    let work = tempfile::tempdir().unwrap();
    let acme = work.path().join("content/acme");
    std::fs::create_dir_all(&acme).unwrap();
    std::fs::write(
        acme.join("e.md"),
        "---\ntitle: Fix #123 crash\ndate: 2026-01-01\ntags: [x]\nsummary: &co rocks\n---\nBody.\n",
    )
    .unwrap();
    let output = shiplog(work.path(), &["check"]);
    assert_eq!(output.status.code(), Some(0));
    let expected = [
        "content/acme/e.md:2:12: warning: ` #` starts a YAML comment, so the title ends before it and the rest is lost; quote the value: `title: \"Fix #123 crash\"`",
        "content/acme/e.md:5:10: warning: a leading `&` makes a YAML anchor, so its first word is lost; quote the value: `summary: \"&co rocks\"`",
        "checked 1 organization and 1 entry: no problems, 2 warnings",
    ];
    assert_eq!(stderr(&output).lines().collect::<Vec<_>>(), expected);
}

#[test]
fn an_error_in_an_entry_hides_neither_its_other_problems_nor_its_warnings() {
    let work = tempfile::tempdir().unwrap();
    let acme = work.path().join("content/acme");
    std::fs::create_dir_all(&acme).unwrap();
    std::fs::write(
        acme.join("c.md"),
        "---\ntitle: Fix #1\ndate: 2026-02-01\nupdated: 2025-01-01\nimage: nope.png\n---\n![x](missing.png)\n",
    )
    .unwrap();
    std::fs::write(
        acme.join("d.md"),
        "---\ntitle: D\ndate: 2026-02-01\ntagz: [x]\n---\n[gone](../nowhere/)\n",
    )
    .unwrap();
    let output = shiplog(work.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    let said = stderr(&output);
    for expected in [
        "content/acme/c.md:2:12: warning: ` #` starts a YAML comment",
        "content/acme/c.md:4:10: `updated` (2025-01-01T00:00:00Z) is before `date`",
        "content/acme/c.md:7:1: warning: `missing.png` leads to",
        "content/acme/d.md:4:1: unknown key `tagz`",
        "content/acme/d.md:6:1: warning: `../nowhere/` leads to",
        "error: 2 problems and 3 warnings found; the content does not build",
    ] {
        assert!(said.contains(expected), "{expected} not in\n{said}");
    }
}
