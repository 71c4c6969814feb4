//! `shiplog import` on the fixtures of `tests/fixtures/import` and on the feeds shiplog
//! itself writes for the example content (the round trip).

use std::path::Path;

use crate::support::{fixture, shiplog, NOW};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs `shiplog import ARGS --content CONTENT` in `dir`, asserting success; gives stderr.
fn import(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--content", "content"]);
    let output = shiplog(dir, &all);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    stderr(&output)
}

fn source(name: &str) -> String {
    fixture("import").join(name).to_string_lossy().into_owned()
}

fn read(dir: &Path, relative: &str) -> String {
    std::fs::read_to_string(dir.join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

fn generate(dir: &Path) {
    let output = shiplog(
        dir,
        &[
            "generate",
            "--content",
            "content",
            "--output",
            "public",
            "--now",
            NOW,
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
}

/// The text of some HTML: tags dropped, entities read, white space collapsed.
fn text_of(html: &str) -> String {
    let fragment = scraper::Html::parse_fragment(html);
    fragment
        .root_element()
        .text()
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_feeds_shiplog_writes_import_back_to_the_same_entries() {
    let dir = tempfile::tempdir().unwrap();
    let copy = |from: &Path, to: &Path| {
        for file in walkdir::WalkDir::new(from) {
            let file = file.unwrap();
            let target = to.join(file.path().strip_prefix(from).unwrap());
            if file.file_type().is_dir() {
                std::fs::create_dir_all(&target).unwrap();
            } else {
                std::fs::copy(file.path(), &target).unwrap();
            }
        }
    };
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("content"),
        &dir.path().join("content"),
    );
    generate(dir.path());
    let feeds = [
        ("feed.json", "copy-json"),
        ("feed.xml", "copy-rss"),
        ("atom.xml", "copy-atom"),
    ];
    for (feed, org) in feeds {
        let said = import(
            dir.path(),
            &[
                "feed",
                &format!("public/acme/changelog/{feed}"),
                "--org",
                org,
            ],
        );
        assert!(
            said.contains("10 added, 0 changed (0 updated, 0 kept), 0 unchanged, 0 skipped"),
            "{said}"
        );
    }
    generate(dir.path());
    let items = |org: &str| -> Vec<serde_json::Value> {
        let feed: serde_json::Value = serde_json::from_str(&read(
            dir.path(),
            &format!("public/{org}/changelog/feed.json"),
        ))
        .unwrap();
        feed["items"].as_array().unwrap().clone()
    };
    let id = |item: &serde_json::Value| {
        item["url"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .nth(1)
            .unwrap()
            .to_string()
    };
    let original = items("acme");
    assert_eq!(original.len(), 10);
    for (feed, org) in feeds {
        let copied = items(org);
        assert_eq!(
            copied.iter().map(id).collect::<Vec<_>>(),
            original.iter().map(id).collect::<Vec<_>>(),
            "{feed}"
        );
        for (was, now) in original.iter().zip(&copied) {
            for field in ["title", "date_published", "tags"] {
                assert_eq!(was[field], now[field], "{feed} {}: {field}", id(was));
            }
            assert_eq!(
                text_of(was["content_html"].as_str().unwrap()),
                text_of(now["content_html"].as_str().unwrap()),
                "{feed} {}",
                id(was)
            );
            // RSS 2.0 has no summary and no time of change; Atom and JSON Feed carry both.
            if feed != "feed.xml" {
                assert_eq!(was["summary"], now["summary"], "{feed} {}", id(was));
                assert_eq!(
                    was["date_modified"],
                    now["date_modified"],
                    "{feed} {}",
                    id(was)
                );
            }
        }
    }
    // Again: nothing new. A file edited by hand is kept, unless --update.
    let said = import(
        dir.path(),
        &[
            "feed",
            "public/acme/changelog/feed.json",
            "--org",
            "copy-json",
        ],
    );
    assert!(
        said.contains("0 added, 0 changed (0 updated, 0 kept), 10 unchanged"),
        "{said}"
    );
    let edited = "content/copy-json/2026-06-09-funnel-comparison.md";
    let by_hand =
        read(dir.path(), edited).replace("Compare funnels side by side", "Compare funnels");
    std::fs::write(dir.path().join(edited), &by_hand).unwrap();
    let said = import(
        dir.path(),
        &[
            "feed",
            "public/acme/changelog/feed.json",
            "--org",
            "copy-json",
            "--dry-run",
        ],
    );
    assert!(
        said.contains("dry run, nothing written: 0 added, 1 changed (0 updated, 1 kept)"),
        "{said}"
    );
    let said = import(
        dir.path(),
        &[
            "feed",
            "public/acme/changelog/feed.json",
            "--org",
            "copy-json",
        ],
    );
    assert!(
        said.contains(&format!(
            "kept, though the source now differs (--update overwrites it): {edited}"
        )),
        "{said}"
    );
    assert_eq!(read(dir.path(), edited), by_hand);
    let said = import(
        dir.path(),
        &[
            "feed",
            "public/acme/changelog/feed.json",
            "--org",
            "copy-json",
            "--update",
        ],
    );
    assert!(said.contains("1 changed (1 updated, 0 kept)"), "{said}");
    assert!(read(dir.path(), edited).contains("title: Compare funnels side by side"));
}

#[test]
fn a_keep_a_changelog_file_becomes_one_entry_per_version() {
    let dir = tempfile::tempdir().unwrap();
    let said = import(
        dir.path(),
        &["changelog", &source("keep-a-changelog.md"), "--org", "app"],
    );
    assert!(
        said.contains("5 added, 0 changed (0 updated, 0 kept), 0 unchanged, 2 skipped"),
        "{said}"
    );
    assert!(
        said.contains("keep-a-changelog.md:8:1: skipped `Unreleased`"),
        "{said}"
    );
    // A heading of the versions' level that names none is said to be skipped; headings in
    // a list or a quote are no versions.
    assert!(said.contains("keep-a-changelog.md:35:1: skipped the heading `Notes` and what it holds: it names no version"), "{said}");
    assert!(
        !dir.path().join("content/app/v6.6.6.md").exists()
            && !dir.path().join("content/app/v7.7.7.md").exists()
    );
    let entry = read(dir.path(), "content/app/v1.2.0.md");
    assert!(entry.starts_with("---\ntitle: Version 1.2.0\ndate: 2026-03-01\ntags:\n- feature\n- fix\n---\n### Added\n"), "{entry}");
    // Nested lists and code (with a heading-like line) kept, the empty `Removed` dropped,
    // the reference link it uses brought along, the compare links of other versions not.
    assert!(
        entry.contains("  - `alert.resolved`\n") && entry.contains("## 9.9.9 - 2026-01-01\n"),
        "{entry}"
    );
    assert!(
        !entry.contains("Removed") && !entry.contains("compare/"),
        "{entry}"
    );
    assert!(
        entry.ends_with("[export-docs]: https://acme.example/docs/export\n"),
        "{entry}"
    );
    assert!(read(dir.path(), "content/app/v1.1.0.md")
        .contains("date: 2026-02-01\ntags:\n- improvement\n- security\n"));
    assert!(read(dir.path(), "content/app/v1.0.1.md").contains("date: 2026-01-15\n"));
    assert!(read(dir.path(), "content/app/v1.0.0.md").contains("tags:\n- deprecation\n- yanked\n"));
    assert!(read(dir.path(), "content/app/v0.9.0.md")
        .ends_with("date: 2025-12-01\n---\nFirst public release.\n"));
    let said = import(
        dir.path(),
        &[
            "changelog",
            &source("keep-a-changelog.md"),
            "--org",
            "app",
            "--unreleased",
            "draft",
            "--title",
            "App {version}",
        ],
    );
    assert!(
        said.contains("1 added, 5 changed (0 updated, 5 kept)"),
        "{said}"
    );
    // Dated as the newest version, so that it is the same on every run.
    assert!(read(dir.path(), "content/app/unreleased.md")
        .contains("date: 2026-03-01\ntags:\n- feature\ndraft: true"));
    // Headings at level 1 (conventional-changelog) and 3.
    import(
        dir.path(),
        &["changelog", &source("level-1.md"), "--org", "one"],
    );
    assert!(read(dir.path(), "content/one/v2.0.0.md").contains("tags:\n- breaking\n- feature\n"));
    assert!(read(dir.path(), "content/one/v1.5.0.md").contains("tags:\n- fix\n"));
    import(
        dir.path(),
        &["changelog", &source("level-3.md"), "--org", "three"],
    );
    assert!(read(dir.path(), "content/three/v3.1.0.md")
        .contains("#### Added\n\n- Search in the widget."));
    let check = shiplog(dir.path(), &["check", "--content", "content"]);
    assert!(
        check.status.success() && stderr(&check).contains("no problems"),
        "{}",
        stderr(&check)
    );
}

#[test]
fn github_releases_keep_drafts_and_prereleases() {
    let dir = tempfile::tempdir().unwrap();
    let said = import(
        dir.path(),
        &["github-releases", &source("releases.json"), "--org", "app"],
    );
    assert!(said.contains("4 added"), "{said}");
    assert!(read(dir.path(), "content/app/v2.0.0-beta.1.md").contains("title: 2.0 beta\ndate: 2026-04-02T10:00:00Z\ntags:\n- prerelease\n---\nTry the **new** editor.\n\n- one\n"));
    assert!(read(dir.path(), "content/app/v2.0.0.md").contains("draft: true"));
    assert_eq!(
        read(dir.path(), "content/app/v1.1.0.md"),
        "---\ntitle: v1.1.0\ndate: 2026-03-01T12:00:00Z\n---\n"
    );
    assert!(read(dir.path(), "content/app/v1.0.0.md").contains("date: 2026-01-02T00:00:00+01:00"));
    // `gh release list --json …` from standard input.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_shiplog"))
        .current_dir(dir.path())
        .args([
            "import",
            "github-releases",
            "-",
            "--org",
            "listed",
            "--content",
            "content",
        ])
        .stdin(std::fs::File::open(source("gh-release-list.json")).unwrap())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(read(dir.path(), "content/listed/v2.0.0.md")
        .contains("date: 2026-05-01T09:00:00Z\ndraft: true"));
    let check = shiplog(dir.path(), &["check", "--content", "content"]);
    assert!(check.status.success(), "{}", stderr(&check));
}

#[test]
fn a_hosted_products_feed_keeps_its_html_and_links() {
    let dir = tempfile::tempdir().unwrap();
    let said = import(
        dir.path(),
        &["feed", &source("hosted.rss"), "--org", "hosted"],
    );
    assert!(
        said.contains("2 added, 0 changed (0 updated, 0 kept), 0 unchanged, 1 skipped"),
        "{said}"
    );
    assert!(said.contains("hosted.rss:24:33: skipped item 2 (`beamer-1042`): its id `beamer-1042` is the one of the item at line 10"), "{said}");
    let entry = read(dir.path(), "content/hosted/beamer-1042.md");
    for kept in [
        "title: Faster & smaller exports\n",
        "tags:\n- Improvement\n- Exports\n",
        "Exports are **3×** faster. See [the docs](https://acme.example/docs/export) and ![chart](https://acme.example/updates/img/chart.png).",
        "| 1 GB | 9 s    |",
        "```sh\nacme export --all\n```",
        "    -   nested",
        "<details><summary>More</summary>Hidden text.</details>",
    ] {
        assert!(entry.contains(kept), "{kept} not in\n{entry}");
    }
    assert!(
        !entry.contains("script") && !entry.contains("alert(1)"),
        "{entry}"
    );
    assert!(read(dir.path(), "content/hosted/welcome.md")
        .contains("date: 2026-02-01T08:00:00Z\n---\nPlain text, no guid.\n"));
}

#[test]
fn bad_sources_get_located_problems_and_write_nothing() {
    for (args, expected) in [
        (
            vec!["changelog", "no-version.md"],
            "no-version.md:1:1: no version heading found",
        ),
        (
            vec!["changelog", "version-twice.md"],
            "version-twice.md:7:1: version 1.1.0 is already at line 3",
        ),
        (
            vec!["changelog", "bad-date.md"],
            "bad-date.md:3:14: version 1.1.0: `2026-02-31` is not a date",
        ),
        (
            vec!["changelog", "bad-date.md"],
            "bad-date.md:7:1: version 1.0.0: the heading has no date",
        ),
        (
            vec!["github-releases", "not-json.json"],
            "not-json.json:3:1: not JSON",
        ),
        (
            vec!["github-releases", "release-without-date.json"],
            "release-without-date.json:3:17: release `v1.1.0` has neither",
        ),
        (
            vec!["feed", "not-a-feed.txt"],
            "not-a-feed.txt:1:1: not an RSS, Atom or JSON feed",
        ),
        (
            vec!["feed", "no-date.rss"],
            "no-date.rss:4:35: item 2 (`https://a.example/undated`) has no date",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let file = source(args[1]);
        let output = shiplog(
            dir.path(),
            &[
                "import",
                args[0],
                &file,
                "--org",
                "bad",
                "--content",
                "content",
            ],
        );
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&output).contains(expected),
            "{expected}\n{}",
            stderr(&output)
        );
        assert!(
            !dir.path().join("content").exists(),
            "{args:?} wrote something"
        );
    }
}

#[test]
fn a_feed_item_needs_an_id_or_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let output = shiplog(
        dir.path(),
        &[
            "import",
            "feed",
            &source("no-id.json"),
            "--org",
            "o",
            "--content",
            "content",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output)
            .contains("no-id.json:6:16: item 2 has neither an id (`guid`, `id`) nor a link"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.path().join("content").exists());
}

#[test]
fn what_only_shows_among_the_orgs_entries_is_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    // An entry of the org, in a sub-folder, already has the id a release makes.
    let old = dir.path().join("content/app/2026");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(
        old.join("first.md"),
        "---\ntitle: First\nid: v1.0.0\ndate: 2026-01-01\ntags: [x]\n---\nHi.\n",
    )
    .unwrap();
    let output = shiplog(
        dir.path(),
        &[
            "import",
            "github-releases",
            &source("releases.json"),
            "--org",
            "app",
            "--content",
            "content",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("after the import: duplicate id `v1.0.0`"),
        "{}",
        stderr(&output)
    );
    assert!(!stderr(&output).contains("/tmp"), "{}", stderr(&output));
    assert!(!dir.path().join("content/app/v1.1.0.md").exists());
    // A symbolic link is neither read nor written through.
    #[cfg(unix)]
    {
        std::fs::remove_dir_all(&old).unwrap();
        let outside = dir.path().join("outside.md");
        std::fs::write(&outside, "mine").unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join("content/app/v1.1.0.md")).unwrap();
        let output = shiplog(
            dir.path(),
            &[
                "import",
                "github-releases",
                &source("releases.json"),
                "--org",
                "app",
                "--content",
                "content",
                "--update",
            ],
        );
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("is a symbolic link"),
            "{}",
            stderr(&output)
        );
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine");
    }
}

/// A web server on a free port of loopback that answers each path of `files` with its media
/// type and bytes, and anything else with 404; it runs until the test ends.
fn serve(files: Vec<(&'static str, &'static str, Vec<u8>)>) -> u16 {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut request = String::new();
            let _ = reader.read_line(&mut request);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or_default();
            let (status, media, body) = match files.iter().find(|(p, _, _)| *p == path) {
                Some((_, media, body)) => ("200 OK", *media, body.as_slice()),
                None => ("404 Not Found", "text/plain", &b"no"[..]),
            };
            let mut stream = &stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-type: {media}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(body);
        }
    });
    port
}

#[test]
fn download_images_brings_each_picture_into_the_entrys_folder() {
    let chart = crate::support::png_header(40, 30);
    let port = serve(vec![
        ("/feed.xml", "application/rss+xml", Vec::new()),
        ("/shots/chart.png", "image/png", chart.clone()),
        ("/shots/photo", "image/png", chart.clone()),
        ("/big.png", "image/png", vec![0; 11 << 20]),
        ("/page.html", "text/html", b"<p>hi</p>".to_vec()),
        // Judged by their bytes, not their names or claimed types.
        (
            "/fake.png",
            "image/png",
            b"<html>not a picture</html>".to_vec(),
        ),
        (
            "/evil.svg",
            "application/x-sh",
            b"#!/bin/sh\nrm -rf /".to_vec(),
        ),
        ("/x/_org.yaml", "image/png", chart.clone()),
    ]);
    let base = format!("http://127.0.0.1:{port}");
    let feed = format!(
        r#"<?xml version="1.0"?>
<rss version="2.0"><channel><title>t</title><link>{base}/</link><description>d</description>
<item><title>Pictures</title><guid>{base}/updates/pictures</guid><link>{base}/updates/pictures</link>
<pubDate>Sun, 01 Feb 2026 08:00:00 GMT</pubDate><category>x</category>
<description><![CDATA[<p><img src="/shots/chart.png" alt="chart"> <img src="{base}/shots/photo" alt="photo"> <img src="{base}/big.png" alt="big"> <img src="{base}/page.html" alt="page"> <img src="{base}/missing.png" alt="missing"> <img src="{base}/fake.png" alt="fake"> <img src="{base}/evil.svg" alt="evil"> <img alt="a ] ) [ b" src="/shots/chart.png"></p><details><summary>More</summary><img src="{base}/x/_org.yaml" alt="o"></details>]]></description>
</item></channel></rss>"#
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("feed.xml"), feed).unwrap();
    let said = import(
        dir.path(),
        &["feed", "feed.xml", "--org", "o", "--download-images"],
    );
    let entry = read(dir.path(), "content/o/pictures.md");
    assert!(
        entry.contains("![chart](chart.png) ![photo](photo.png)"),
        "{entry}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("content/o/pictures/chart.png")).unwrap(),
        chart
    );
    assert!(dir.path().join("content/o/pictures/photo.png").exists());
    // An image kept as HTML is downloaded too; a name starting with `_` (unpublished) is not
    // given to it.
    assert!(entry.contains("<img src=\"org.png\" alt=\"o\">"), "{entry}");
    assert!(dir.path().join("content/o/pictures/org.png").exists());
    assert!(
        entry.contains("](chart.png)") && !entry.contains("/shots/chart.png"),
        "{entry}"
    );
    for kept in [
        "big.png",
        "page.html",
        "missing.png",
        "fake.png",
        "evil.svg",
    ] {
        assert!(
            entry.contains(&format!("]({base}/{kept})")),
            "{kept}: {entry}"
        );
        assert!(
            said.contains(&format!("kept the image {base}/{kept} as an address")),
            "{kept}: {said}"
        );
    }
    assert!(said.contains("it is larger than 10485760 bytes"), "{said}");
    assert!(said.contains("it is not a picture (`text/html`)"), "{said}");
    assert!(
        said.contains("it is not a picture (`application/x-sh`)"),
        "{said}"
    );
    assert!(
        said.contains("fake.png as an address: it is not a picture (`image/png`)"),
        "{said}"
    );
    // The next run finds the same files; the build publishes them beside the entry.
    let said = import(
        dir.path(),
        &["feed", "feed.xml", "--org", "o", "--download-images"],
    );
    assert!(
        said.contains("0 added, 0 changed (0 updated, 0 kept), 4 unchanged"),
        "{said}"
    );
    generate(dir.path());
    assert!(dir
        .path()
        .join("public/o/changelog/pictures/chart.png")
        .exists());
    // The entry's folder may not lead elsewhere through a symbolic link.
    #[cfg(unix)]
    {
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::remove_dir_all(dir.path().join("content/o/pictures")).unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join("content/o/pictures")).unwrap();
        let output = shiplog(
            dir.path(),
            &[
                "import",
                "feed",
                "feed.xml",
                "--org",
                "o",
                "--download-images",
                "--content",
                "content",
            ],
        );
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("content/o/pictures:1:1: is a symbolic link"),
            "{}",
            stderr(&output)
        );
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    }
}
