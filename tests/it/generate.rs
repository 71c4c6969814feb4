//! `shiplog generate` on fixture content folders: outputs, order, states, pagination, links,
//! determinism and atomicity (SPEC sections 2 and 3).

use crate::support::{copy_tree, files_under, fixture, item_ids, shiplog, Build, NOW};

#[test]
fn entries_are_ordered_by_date_then_id_and_dates_are_utc() {
    let build = Build::fixture("states");
    let feed = build.json("acme/changelog/feed.json");
    assert_eq!(
        item_ids(&feed),
        ["alpha", "bravo", "delta-custom", "charlie"]
    );
    let dates: Vec<&str> = feed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["date_published"].as_str().unwrap())
        .collect();
    assert_eq!(
        dates,
        [
            "2026-11-01T09:00:00Z",
            "2026-11-01T09:00:00Z",
            "2026-10-21T04:30:00Z",
            "2026-10-15T00:00:00Z"
        ]
    );
}

#[test]
fn drafts_and_scheduled_entries_stay_out_until_due() {
    let build = Build::fixture("states");
    for hidden in ["draft", "later"] {
        assert!(
            !build.has(&format!("acme/changelog/{hidden}")),
            "{hidden} has a page"
        );
        assert!(!build.read("acme/changelog/feed.xml").contains(hidden));
        assert!(!build.read("acme/changelog/feed.json").contains(hidden));
        assert!(!build.read("acme/changelog/index.html").contains(hidden));
    }
    let after_christmas = Build::fixture_at("states", "2026-12-25T00:00:00Z");
    after_christmas.assert_success();
    let feed = after_christmas.json("acme/changelog/feed.json");
    assert_eq!(item_ids(&feed)[0], "later");
    assert!(after_christmas.has("acme/changelog/later/index.html"));
    assert!(!after_christmas.has("acme/changelog/draft"));
}

#[test]
fn json_feed_has_every_field_of_the_spec() {
    let build = Build::fixture("states");
    let feed = build.json("acme/changelog/feed.json");
    assert_eq!(feed["version"], "https://jsonfeed.org/version/1.1");
    assert_eq!(feed["title"], "Acme product updates");
    assert_eq!(
        feed["home_page_url"],
        "http://acme.localhost:8080/changelog"
    );
    assert_eq!(
        feed["feed_url"],
        "http://acme.localhost:8080/changelog/feed.json"
    );
    assert_eq!(feed["description"], "What changed in Acme this month.");
    assert_eq!(feed["language"], "en-GB");
    let alpha = &feed["items"][0];
    assert_eq!(alpha["url"], "http://acme.localhost:8080/changelog/alpha/");
    assert_eq!(alpha["title"], "Alpha");
    assert_eq!(alpha["tags"], serde_json::json!(["feature", "api"]));
    assert_eq!(alpha["summary"], "Alpha in short.");
    assert_eq!(alpha["content_html"], "<p>Alpha body.</p>\n");
    let bravo = &feed["items"][1];
    assert!(bravo.get("summary").is_none(), "summary only where given");
    assert_eq!(feed["items"][3]["tags"], serde_json::json!([]));
}

#[test]
fn json_feeds_match_the_json_feed_1_1_schema() {
    for case in ["states", "pagination", "empty", "links"] {
        let build = Build::fixture(case);
        for file in build.files().iter().filter(|f| f.ends_with("feed.json")) {
            build.assert_json_feed_valid(file);
        }
    }
}

#[test]
fn rss_feed_has_every_field_of_the_spec() {
    let build = Build::fixture("states");
    let xml = build.read("acme/changelog/feed.xml");
    for expected in [
        "<rss version=\"2.0\" xmlns:atom=\"http://www.w3.org/2005/Atom\">",
        "<link>http://acme.localhost:8080/changelog</link>",
        "<atom:link href=\"http://acme.localhost:8080/changelog/feed.xml\" rel=\"self\"",
        "<language>en-GB</language>",
        "<lastBuildDate>Sun, 1 Nov 2026 09:00:00 +0000</lastBuildDate>",
        "<guid>http://acme.localhost:8080/changelog/alpha/</guid>",
        "<category>feature</category>",
        "<category>api</category>",
    ] {
        assert!(xml.contains(expected), "missing {expected}:\n{xml}");
    }
}

#[test]
fn both_feeds_round_trip_through_an_independent_parser() {
    let build = Build::fixture("states");
    let rss = feed_rs::parser::parse(build.read("acme/changelog/feed.xml").as_bytes())
        .expect("RSS parses");
    let json = feed_rs::parser::parse(build.read("acme/changelog/feed.json").as_bytes())
        .expect("JSON Feed parses");
    for feed in [&rss, &json] {
        assert_eq!(feed.title.as_ref().unwrap().content, "Acme product updates");
        assert_eq!(feed.entries.len(), 4);
        let first = &feed.entries[0];
        assert_eq!(first.title.as_ref().unwrap().content, "Alpha");
        assert_eq!(
            first.links[0].href,
            "http://acme.localhost:8080/changelog/alpha/"
        );
        assert_eq!(
            first.published.unwrap().to_rfc3339(),
            "2026-11-01T09:00:00+00:00"
        );
        let tags: Vec<&str> = first.categories.iter().map(|c| c.term.as_str()).collect();
        assert_eq!(tags, ["feature", "api"]);
    }
    assert_eq!(
        rss.entries[0].id,
        "http://acme.localhost:8080/changelog/alpha/"
    );
    assert_eq!(json.entries[0].id, "alpha");
    let links = |feed: &feed_rs::model::Feed| -> Vec<String> {
        feed.entries
            .iter()
            .map(|e| e.links[0].href.clone())
            .collect()
    };
    assert_eq!(links(&rss), links(&json), "both feeds hold the same items");
}

#[test]
fn pages_split_at_page_size_and_link_to_each_other() {
    let build = Build::fixture("pagination");
    assert!(build.has("exact/changelog/index.html"));
    assert!(
        !build.has("exact/changelog/page"),
        "exactly page_size entries fit on one page"
    );
    assert!(build.has("one-more/changelog/page/2/index.html"));
    assert!(!build.has("one-more/changelog/page/3"));
    let first = build.read("one-more/changelog/index.html");
    assert!(first.contains("href=\"page/2/\" rel=\"next\""), "{first}");
    assert!(!first.contains("rel=\"prev\""));
    let second = build.read("one-more/changelog/page/2/index.html");
    assert!(second.contains("href=\"../../\" rel=\"prev\""), "{second}");
    assert!(second.contains("More 1") && !second.contains("More 4"));
    assert!(
        second.contains("href=\"../../m1/\""),
        "entry links are relative: {second}"
    );
    assert!(!build.has("one-more/changelog/page/1"));
}

#[test]
fn org_overrides_feed_limit_and_page_size() {
    let build = Build::fixture("pagination");
    assert_eq!(
        item_ids(&build.json("limited/changelog/feed.json")),
        ["l7", "l6"]
    );
    let rss = feed_rs::parser::parse(build.read("limited/changelog/feed.xml").as_bytes()).unwrap();
    assert_eq!(rss.entries.len(), 2);
    assert!(build.has("limited/changelog/page/4/index.html"));
    assert!(!build.has("limited/changelog/page/5"));
    // Every published entry has its page, also those past the feed limit.
    for i in 1..=7 {
        assert!(build.has(&format!("limited/changelog/l{i}/index.html")));
    }
    // The site's org_url (with its trailing slash dropped) shapes every address.
    assert_eq!(
        build.json("exact/changelog/feed.json")["feed_url"],
        "https://exact.changes.example.com/changelog/feed.json"
    );
}

#[test]
fn an_org_with_nothing_published_still_gets_feeds_and_a_page() {
    let build = Build::fixture("empty");
    for org in ["my-org", "drafts-only"] {
        let feed = build.json(&format!("{org}/changelog/feed.json"));
        assert_eq!(feed["items"], serde_json::json!([]));
        let rss =
            feed_rs::parser::parse(build.read(&format!("{org}/changelog/feed.xml")).as_bytes())
                .unwrap();
        assert!(rss.entries.is_empty());
        let page = build.read(&format!("{org}/changelog/index.html"));
        assert!(
            page.contains("Nothing has been published here yet"),
            "{page}"
        );
    }
    assert_eq!(
        build.json("my-org/changelog/feed.json")["title"],
        "My Org changelog"
    );
    assert!(!build
        .read("my-org/changelog/feed.xml")
        .contains("lastBuildDate"));
    assert_eq!(
        build.files(),
        [
            "_headers",
            "drafts-only/changelog/atom.xml",
            "drafts-only/changelog/feed.json",
            "drafts-only/changelog/feed.xml",
            "drafts-only/changelog/index.html",
            "drafts-only/changelog/llms.txt",
            "drafts-only/changelog/search.js",
            "drafts-only/changelog/search.json",
            "drafts-only/changelog/widget.js",
            "drafts-only/favicon.ico",
            "drafts-only/robots.txt",
            "drafts-only/sitemap.xml",
            "my-org/changelog/atom.xml",
            "my-org/changelog/feed.json",
            "my-org/changelog/feed.xml",
            "my-org/changelog/index.html",
            "my-org/changelog/llms.txt",
            "my-org/changelog/search.js",
            "my-org/changelog/search.json",
            "my-org/changelog/widget.js",
            "my-org/favicon.ico",
            "my-org/robots.txt",
            "my-org/sitemap.xml",
        ]
    );
}

#[test]
fn relative_links_become_absolute_and_html_is_sanitized() {
    let build = Build::fixture("links");
    let feed = build.json("acme/changelog/feed.json");
    let html = feed["items"][0]["content_html"].as_str().unwrap();
    let base = "http://acme.localhost:8080";
    for expected in [
        format!("href=\"{base}/docs/webhooks\""),
        format!("href=\"{base}/changelog/older/\""),
        format!("href=\"{base}/changelog/links/shots/\""),
        format!("href=\"{base}/changelog/links/#details\""),
        "href=\"https://example.org/x\"".to_string(),
        format!("src=\"{base}/changelog/links/shots/screen.svg\""),
        format!("src=\"{base}/changelog/links/x.png\""),
    ] {
        assert!(html.contains(&expected), "missing {expected} in {html}");
    }
    for forbidden in ["<script", "onerror", "javascript:", "<iframe", "data:text"] {
        assert!(!html.contains(forbidden), "{forbidden} survived: {html}");
    }
    for file in [
        "acme/changelog/index.html",
        "acme/changelog/links/index.html",
    ] {
        let page = build.read(file);
        // The theme's own scripts are the only ones (inline, and the search's on a page of
        // the changelog); the entry's are gone.
        let theirs = if file.ends_with("changelog/index.html") {
            2
        } else {
            1
        };
        assert_eq!(page.matches("<script").count(), theirs, "{file}");
        assert!(
            !page.contains("alert(") && !page.contains("onerror"),
            "{file}"
        );
    }
}

#[test]
fn files_beside_entries_are_published_at_the_same_place() {
    let build = Build::fixture("links");
    let source = std::fs::read(fixture("links/content/acme/shots/screen.svg")).unwrap();
    assert_eq!(
        std::fs::read(build.public().join("acme/changelog/shots/screen.svg")).unwrap(),
        source
    );
}

#[test]
fn pages_are_self_contained_and_link_to_both_feeds() {
    let build = Build::fixture("states");
    for file in [
        "acme/changelog/index.html",
        "acme/changelog/alpha/index.html",
    ] {
        let page = build.read(file);
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("<html lang=\"en-GB\" dir=\"ltr\">"));
        assert!(page.contains("<style>") && page.contains("prefers-color-scheme:dark"));
        // The feeds of the changelog, from page 1 and from an entry's page.
        let feeds = if file.ends_with("alpha/index.html") {
            "../"
        } else {
            ""
        };
        for (kind, name) in [
            ("application/rss+xml", "feed.xml"),
            ("application/atom+xml", "atom.xml"),
            ("application/feed+json", "feed.json"),
        ] {
            assert!(
                page.contains(&format!("rel=\"alternate\" type=\"{kind}\"")),
                "{file}: {kind}"
            );
            assert!(
                page.contains(&format!("href=\"{feeds}{name}\">")),
                "{file}: {name}"
            );
        }
        // Inline CSS, an inline script and the changelog's own search script: nothing else
        // is loaded.
        let search = "<script src=\"./search.js\" defer></script>";
        let search_script = usize::from(!file.ends_with("alpha/index.html"));
        assert_eq!(page.matches("<script src").count(), search_script, "{file}");
        assert_eq!(page.matches(search).count(), search_script, "{file}");
        assert!(!page.contains("rel=\"stylesheet\""), "{file}");
        assert!(
            !page.contains("@import") && !page.contains("url("),
            "{file}"
        );
        assert!(!page.contains(" src=\"http"), "no external request: {file}");
    }
    let entry = build.read("acme/changelog/alpha/index.html");
    assert!(entry
        .contains("<link rel=\"canonical\" href=\"http://acme.localhost:8080/changelog/alpha/\">"));
    assert!(entry.contains("<time datetime=\"2026-11-01T09:00:00Z\">November 1, 2026</time>"));
}

#[test]
fn the_same_content_and_now_give_byte_identical_output() {
    let first = Build::fixture("states");
    let second = Build::fixture("states");
    let files = first.files();
    assert_eq!(files, second.files());
    for file in &files {
        let a = std::fs::read(first.public().join(file)).unwrap();
        let b = std::fs::read(second.public().join(file)).unwrap();
        assert!(a == b, "{file} differs between two builds");
    }
}

#[test]
fn a_rebuild_removes_the_files_of_deleted_entries() {
    let work = tempfile::tempdir().unwrap();
    copy_tree(&fixture("states/content"), &work.path().join("content"));
    let build = |now: &str| shiplog(work.path(), &["generate", "--now", now]);
    assert!(build(NOW).status.success());
    assert!(work
        .path()
        .join("public/acme/changelog/bravo/index.html")
        .exists());
    std::fs::remove_file(work.path().join("content/acme/bravo.md")).unwrap();
    assert!(build(NOW).status.success());
    assert!(!work.path().join("public/acme/changelog/bravo").exists());
    let leftovers: Vec<_> = std::fs::read_dir(work.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("shiplog-new") || name.contains("shiplog-old"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "staging folders left behind: {leftovers:?}"
    );
}

#[test]
fn every_problem_is_reported_with_its_position_and_nothing_is_written() {
    let work = tempfile::tempdir().unwrap();
    let public = work.path().join("public");
    std::fs::create_dir_all(public.join("acme")).unwrap();
    std::fs::write(public.join("acme/keep.txt"), "previous build").unwrap();
    let before = files_under(&public);

    let output = shiplog(
        &fixture("invalid"),
        &[
            "generate",
            "--content",
            "content",
            "--output",
            public.to_str().unwrap(),
            "--now",
            NOW,
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    let expected = std::fs::read_to_string(fixture("invalid/expected.txt")).unwrap();
    let reported: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("error:"))
        .collect();
    let expected: Vec<&str> = expected.lines().collect();
    assert_eq!(reported, expected);
    assert!(stderr.ends_with(&format!(
        "error: {} problems found; nothing was written\n",
        expected.len()
    )));
    assert_eq!(files_under(&public), before);
    assert_eq!(
        std::fs::read_to_string(public.join("acme/keep.txt")).unwrap(),
        "previous build"
    );
}

#[test]
fn usage_errors_exit_2() {
    let states = fixture("states");
    let out = tempfile::tempdir().unwrap();
    let public = out.path().join("public");
    let public = public.to_str().unwrap();
    let cases: [&[&str]; 4] = [
        &["generate", "--output", public, "--config", "missing.yaml"],
        &["generate", "--output", public, "--now", "next tuesday"],
        &[
            "generate",
            "--output",
            public,
            "--content",
            "no-such-folder",
        ],
        &["generate", "--bogus-flag"],
    ];
    for args in cases {
        let output = shiplog(&states, args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!out.path().join("public").exists(), "{args:?} wrote output");
    }
}

#[test]
fn the_output_folder_may_not_overlap_the_sources() {
    let work = tempfile::tempdir().unwrap();
    let site = work.path().join("site");
    copy_tree(&fixture("states/content"), &site.join("content"));
    std::fs::write(site.join("shiplog.yaml"), "page_size: 5\n").unwrap();
    copy_tree(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("themes"),
        &site.join("themes"),
    );
    // A settings file elsewhere than the content, which the output may not hold either.
    let other = work.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(site.join("shiplog.yaml"), other.join("shiplog.yaml")).unwrap();
    let before = files_under(work.path());
    let (usual, elsewhere) = ("site/shiplog.yaml", "other/shiplog.yaml");
    for (config, output, what) in [
        (usual, ".", "is or holds the content folder"),
        (usual, "site", "is or holds the content folder"),
        (usual, "site/content", "is or holds the content folder"),
        (usual, "site/content/acme", "lies inside the content folder"),
        (
            usual,
            "site/content/acme/public",
            "lies inside the content folder",
        ),
        (
            usual,
            "site/themes/default",
            "lies inside the themes folder",
        ),
        (usual, "site/themes", "is or holds the themes folder"),
        (usual, "missing/../site/content/acme", "`..`"),
        (elsewhere, "other", "is or holds the settings file"),
    ] {
        let result = shiplog(
            work.path(),
            &[
                "generate",
                "--content",
                "site/content",
                "--config",
                config,
                "--output",
                output,
                "--now",
                NOW,
            ],
        );
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(2), "{output}: {stderr}");
        assert!(stderr.contains(what), "{output}: {stderr}");
        assert_eq!(
            files_under(work.path()),
            before,
            "{output} changed the sources"
        );
    }
    // The settings file's folder may hold the output, as `public/` beside `shiplog.yaml`.
    let result = shiplog(&site, &["generate", "--output", "public", "--now", NOW]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
}

#[test]
fn the_example_content_builds() {
    let out = tempfile::tempdir().unwrap();
    let public = out.path().join("public");
    let output = shiplog(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "generate",
            "--output",
            public.to_str().unwrap(),
            "--now",
            NOW,
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let orgs = std::fs::read_dir(&public).unwrap().count();
    assert!(
        orgs >= 3,
        "the example content has at least three organizations"
    );
}

#[test]
fn byte_order_marks_and_crlf_line_endings_work() {
    let work = tempfile::tempdir().unwrap();
    let org = work.path().join("content/acme");
    std::fs::create_dir_all(&org).unwrap();
    std::fs::write(
        org.join("windows.md"),
        "\u{feff}---\r\ntitle: Saved on Windows\r\ndate: 2026-11-02\r\ntags:\r\n  - fix\r\n---\r\nLine one\r\n\r\n- item\r\n",
    )
    .unwrap();
    std::fs::write(org.join("_org.yaml"), "\u{feff}title: Acme\r\n").unwrap();
    let output = shiplog(work.path(), &["generate", "--now", NOW]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let feed: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(work.path().join("public/acme/changelog/feed.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(feed["title"], "Acme");
    assert_eq!(feed["items"][0]["title"], "Saved on Windows");
    assert_eq!(feed["items"][0]["tags"], serde_json::json!(["fix"]));
    let html = feed["items"][0]["content_html"].as_str().unwrap();
    assert!(
        html.contains("<p>Line one</p>") && html.contains("<li>item</li>"),
        "{html}"
    );
}

#[test]
fn an_output_path_that_is_a_file_is_refused_and_kept() {
    let work = tempfile::tempdir().unwrap();
    copy_tree(&fixture("states/content"), &work.path().join("content"));
    std::fs::write(work.path().join("afile"), "keep").unwrap();
    let output = shiplog(
        work.path(),
        &["generate", "--output", "afile", "--now", NOW],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(work.path().join("afile")).unwrap(),
        "keep"
    );
    let names: Vec<String> = std::fs::read_dir(work.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("shiplog")), "{names:?}");
}

#[test]
fn what_killed_builds_left_beside_the_output_is_removed() {
    let work = tempfile::tempdir().unwrap();
    copy_tree(&fixture("states/content"), &work.path().join("content"));
    // Process ids no process has (beyond Linux's largest), and this test's own: a build
    // holds the lock of the output's folder, so none is running to use them.
    let left = [
        ".public.shiplog-new-4194399".to_string(),
        ".public.shiplog-old-4194398".to_string(),
        format!(".public.shiplog-new-{}", std::process::id()),
    ];
    for folder in &left {
        std::fs::create_dir_all(work.path().join(folder).join("acme")).unwrap();
        std::fs::write(work.path().join(folder).join("acme/x.html"), "left").unwrap();
    }
    let output = shiplog(work.path(), &["generate", "--now", NOW]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for folder in &left {
        assert!(!work.path().join(folder).exists(), "{folder} was left");
    }
}
