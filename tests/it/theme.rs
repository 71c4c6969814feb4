//! The page layer of `shiplog generate` on fixture content folders: tag pages and their
//! feeds, theme selection and fallback, the accent colour, and what the pages carry for
//! embedding (the optional inline script, scrollable wide blocks).

use std::path::Path;

use crate::support::{copy_tree, files_under, fixture, item_ids, shiplog, Build, NOW};

/// Runs `shiplog generate` in `dir` (which holds `content/`) and returns its output.
fn generate_in(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["generate", "--now", NOW];
    args.extend_from_slice(extra);
    shiplog(dir, &args)
}

#[test]
fn each_tag_gets_pages_and_both_feeds() {
    let build = Build::fixture("tags");
    let tag_files: Vec<String> = build
        .files()
        .into_iter()
        .filter(|f| f.starts_with("acme/changelog/tags/"))
        .collect();
    let mut expected = Vec::new();
    for (slug, pages) in [
        ("api", 2),
        ("c", 1),
        ("security", 3),
        ("security-privacy", 1),
        ("sécurité", 1),
    ] {
        let folder = format!("acme/changelog/tags/{slug}");
        expected.push(format!("{folder}/atom.xml"));
        expected.push(format!("{folder}/feed.json"));
        expected.push(format!("{folder}/feed.xml"));
        expected.push(format!("{folder}/index.html"));
        for n in 2..=pages {
            expected.push(format!("{folder}/page/{n}/index.html"));
        }
    }
    expected.sort();
    // No page for the draft's and the scheduled entry's own tags, nor for the emoji.
    assert_eq!(tag_files, expected);
}

#[test]
fn a_tag_feed_holds_only_its_entries_with_its_own_addresses() {
    let build = Build::fixture("tags");
    let base = "http://acme.localhost:8080/changelog/tags/security";
    let feed = build.json("acme/changelog/tags/security/feed.json");
    // `Security`, `security` and `SECURITY` share a page, named as the newest entry spells it;
    // feed_limit (2) applies; the draft and the scheduled entry stay out.
    assert_eq!(feed["title"], "Acme changelog — Security");
    assert_eq!(feed["home_page_url"], base);
    assert_eq!(feed["feed_url"], format!("{base}/feed.json"));
    assert_eq!(item_ids(&feed), ["alpha", "bravo"]);
    assert_eq!(
        feed["items"][0]["url"],
        "http://acme.localhost:8080/changelog/alpha/"
    );
    assert_eq!(
        item_ids(&build.json("acme/changelog/tags/api/feed.json")),
        ["alpha", "charlie"]
    );
    assert_eq!(
        item_ids(&build.json("acme/changelog/tags/c/feed.json")),
        ["bravo"]
    );
    let unicode = build.json("acme/changelog/tags/sécurité/feed.json");
    assert_eq!(
        unicode["feed_url"],
        "http://acme.localhost:8080/changelog/tags/s%C3%A9curit%C3%A9/feed.json"
    );

    let xml = build.read("acme/changelog/tags/security/feed.xml");
    for expected in [
        "<title>Acme changelog — Security</title>".to_string(),
        format!("<link>{base}</link>"),
        format!("<atom:link href=\"{base}/feed.xml\" rel=\"self\""),
        "<lastBuildDate>Tue, 3 Nov 2026 00:00:00 +0000</lastBuildDate>".to_string(),
    ] {
        assert!(xml.contains(&expected), "missing {expected}:\n{xml}");
    }
    let rss = feed_rs::parser::parse(xml.as_bytes()).expect("RSS parses");
    let links: Vec<&str> = rss
        .entries
        .iter()
        .map(|e| e.links[0].href.as_str())
        .collect();
    assert_eq!(
        links,
        [
            "http://acme.localhost:8080/changelog/alpha/",
            "http://acme.localhost:8080/changelog/bravo/"
        ]
    );
}

#[test]
fn tag_feeds_match_the_json_feed_1_1_schema() {
    let build = Build::fixture("tags");
    let feeds: Vec<String> = build
        .files()
        .into_iter()
        .filter(|f| f.contains("/tags/") && f.ends_with("feed.json"))
        .collect();
    assert_eq!(feeds.len(), 5);
    for file in feeds {
        build.assert_json_feed_valid(&file);
    }
}

#[test]
fn tag_pages_link_relatively_and_paginate() {
    let build = Build::fixture("tags");
    let first = build.read("acme/changelog/tags/security/index.html");
    assert!(first.contains(
        "<link rel=\"canonical\" href=\"http://acme.localhost:8080/changelog/tags/security/\">"
    ));
    assert!(first.contains(
        "type=\"application/rss+xml\" title=\"Acme changelog — Security (RSS)\" href=\"feed.xml\""
    ));
    assert!(first.contains("<title>Security · Acme changelog</title>"));
    assert!(
        first.contains("<h2><a href=\"../../alpha/\">Alpha</a></h2>"),
        "{first}"
    );
    assert!(
        first.contains("<a href=\"../../tags/api/\">API</a>"),
        "{first}"
    );
    assert!(first.contains("href=\"page/2/\" rel=\"next\""));
    assert!(first.contains("<a href=\"../../\">All updates</a>"));

    let second = build.read("acme/changelog/tags/security/page/2/index.html");
    assert!(second.contains("title=\"Acme changelog — Security (Atom)\" href=\"../../atom.xml\""));
    assert!(second.contains("href=\"../../\" rel=\"prev\""));
    assert!(second.contains("href=\"../3/\" rel=\"next\""));
    assert!(second.contains("Page 2 of 3"));
    assert!(second.contains("<a href=\"../../../../bravo/\">Bravo</a>"));
    assert!(second.contains("<a href=\"../../../../tags/c/\">C++</a>"));
    assert!(!second.contains("Alpha"));
    let third = build.read("acme/changelog/tags/security/page/3/index.html");
    assert!(third.contains("Delta") && !third.contains("rel=\"next\""));
}

#[test]
fn an_entry_page_links_the_entries_published_next_to_it() {
    let build = Build::fixture("tags");
    let neighbors = |id: &str| {
        let page = build.read(&format!("acme/changelog/{id}/index.html"));
        let html = scraper::Html::parse_document(&page);
        let link = |rel: &str| {
            let selector = scraper::Selector::parse(&format!(".neighbors a[rel={rel}]")).unwrap();
            html.select(&selector).next().map(|a| {
                let text: String = a.text().collect();
                (a.value().attr("href").unwrap().to_string(), text)
            })
        };
        (link("prev"), link("next"))
    };
    // Newest first: alpha, bravo, charlie, delta; the draft and the scheduled entry are not
    // neighbours of anything.
    let (newer, older) = neighbors("alpha");
    assert_eq!(newer, None);
    assert_eq!(
        older,
        Some(("../bravo/".to_string(), "Older →Bravo".to_string()))
    );
    let (newer, older) = neighbors("bravo");
    assert_eq!(
        newer,
        Some(("../alpha/".to_string(), "← NewerAlpha".to_string()))
    );
    assert_eq!(older.unwrap().0, "../charlie/");
    let (newer, older) = neighbors("delta");
    assert_eq!(newer.unwrap().0, "../charlie/");
    assert_eq!(older, None);
}

#[test]
fn tag_chips_link_to_the_tag_pages() {
    let build = Build::fixture("tags");
    let changelog = build.read("acme/changelog/index.html");
    assert!(changelog.contains("<a href=\"tags/security/\">Security</a>"));
    assert!(changelog.contains("<a href=\"tags/api/\">API</a>"));
    let charlie = build.read("acme/changelog/charlie/index.html");
    assert!(charlie.contains("<a href=\"../tags/s%C3%A9curit%C3%A9/\">Sécurité</a>"));
    assert!(charlie.contains("<a href=\"../tags/security-privacy/\">Security &amp; Privacy</a>"));
    // A tag without letters or digits has no page: its chip is not a link.
    assert!(charlie.contains("<span>🚀</span>"), "{charlie}");
}

#[test]
fn themes_fall_back_to_the_default_template_by_template() {
    let build = Build::fixture("themes");
    // The site's theme `plain` replaces only entry.html.
    let entry = build.read("site-theme/changelog/hello/index.html");
    assert!(
        entry.contains("<article class=\"plain\">Hello</article>"),
        "{entry}"
    );
    assert!(
        entry.contains("<style>"),
        "base.html comes from the default theme"
    );
    let list = build.read("site-theme/changelog/index.html");
    assert!(list.contains("<article class=\"entry\" id=\"hello\">"));
    // An org's own theme wins over the site's.
    let builtin = build.read("builtin/changelog/hello/index.html");
    assert!(!builtin.contains("class=\"plain\""));
    let branded = build.read("org-theme/changelog/hello/index.html");
    assert!(!branded.contains("class=\"plain\""));
    // `brand` overrides style.css and builds on the default one through `default/style.css`.
    assert!(branded.contains(".brand-marker{color:#"));
    assert!(branded.contains("prefers-color-scheme:dark"));
    // `brand` also overrides article.html, which both page templates include with `entry`
    // and `level` set.
    assert!(branded.contains("<article class=\"brand-card\" data-level=\"1\">Hello</article>"));
    let branded_list = build.read("org-theme/changelog/index.html");
    assert!(
        branded_list.contains("<article class=\"brand-card\" data-level=\"2\">Hello</article>"),
        "{branded_list}"
    );
}

#[test]
fn the_accent_colour_is_normalized_and_kept_readable() {
    let build = Build::fixture("themes");
    let branded = build.read("org-theme/changelog/index.html");
    assert!(branded.contains("--brand:#e5484d"), "{branded}");
    // #e5484d reads at only 3.9:1 on white: links and tags get a darker shade.
    assert!(!branded.contains("--accent:#e5484d"));
    let plain = build.read("builtin/changelog/index.html");
    assert!(plain.contains("--brand:#2563eb"), "the default accent");
}

#[test]
fn pages_carry_an_optional_inline_script_and_scrollable_wide_blocks() {
    let build = Build::fixture("tags");
    let page = build.read("acme/changelog/index.html");
    assert_eq!(page.matches("<script>").count(), 1);
    // Beside the inline script, only the changelog's own search.
    assert_eq!(page.matches("<script src").count(), 1);
    assert!(page.contains("<script src=\"./search.js\" defer></script>"));
    assert!(page.contains("shiplog:height") && page.contains("theme=(light|dark)"));
    assert!(page.contains("<div class=\"scroll\" tabindex=\"0\"><table>"));
    // The feeds keep the entry's HTML as written.
    let feed = build.json("acme/changelog/feed.json");
    let html = feed["items"][0]["content_html"].as_str().unwrap();
    assert!(
        html.contains("<table>") && !html.contains("tabindex"),
        "{html}"
    );
}

#[test]
fn a_theme_is_looked_up_beside_the_config_file() {
    let work = tempfile::tempdir().unwrap();
    copy_tree(&fixture("themes/content"), &work.path().join("content"));
    copy_tree(&fixture("themes/themes"), &work.path().join("site/themes"));
    std::fs::write(work.path().join("site/shiplog.yaml"), "theme: plain\n").unwrap();
    let output = generate_in(work.path(), &["--config", "site/shiplog.yaml"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let entry = std::fs::read_to_string(
        work.path()
            .join("public/site-theme/changelog/hello/index.html"),
    )
    .unwrap();
    assert!(entry.contains("class=\"plain\""));
}

#[test]
fn unknown_themes_and_bad_colours_are_located_and_nothing_is_written() {
    let work = tempfile::tempdir().unwrap();
    copy_tree(&fixture("themes/content"), &work.path().join("content"));
    std::fs::write(
        work.path().join("content/org-theme/_org.yaml"),
        "theme: fancy\naccent_color: \"#12345\"\n",
    )
    .unwrap();
    std::fs::write(
        work.path().join("content/builtin/_org.yaml"),
        "accent_color: #ff0000\n",
    )
    .unwrap();
    let output = generate_in(work.path(), &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    for expected in [
        "content/builtin/_org.yaml:1:15: `accent_color` is empty: put the colour in quotes, like `accent_color: \"#6e56cf\"` (an unquoted # starts a YAML comment)",
        "content/org-theme/_org.yaml:1:8: unknown theme `fancy`: there is no folder themes/fancy (the built-in theme is `default`)",
        "content/org-theme/_org.yaml:2:15: `accent_color` must be a colour like \"#6e56cf\" or \"#f60\"",
    ] {
        assert!(stderr.contains(expected), "missing {expected}:\n{stderr}");
    }
    assert!(!work.path().join("public").exists());

    std::fs::remove_dir_all(work.path().join("content/builtin")).unwrap();
    std::fs::remove_dir_all(work.path().join("content/org-theme")).unwrap();
    std::fs::write(work.path().join("shiplog.yaml"), "theme: ../plain\n").unwrap();
    let output = generate_in(work.path(), &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("shiplog.yaml:1:8: `../plain` is not a theme name"),
        "{stderr}"
    );
}

#[test]
fn a_broken_theme_template_fails_the_build_and_nothing_is_written() {
    let work = tempfile::tempdir().unwrap();
    copy_tree(&fixture("themes/content"), &work.path().join("content"));
    copy_tree(&fixture("themes/themes"), &work.path().join("themes"));
    std::fs::write(
        work.path().join("themes/plain/entry.html"),
        "{% extends \"base.html\" %}\n{% block main %}{{ entry.title {% endblock main %}\n",
    )
    .unwrap();
    std::fs::write(work.path().join("shiplog.yaml"), "theme: plain\n").unwrap();
    let output = generate_in(work.path(), &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("theme template `themes/plain` failed") && stderr.contains("entry.html"),
        "{stderr}"
    );
    assert!(files_under(work.path())
        .iter()
        .all(|f| !f.starts_with("public")));
}

#[test]
fn fenced_code_is_highlighted_on_pages_and_plain_in_feeds() {
    let work = tempfile::tempdir().unwrap();
    let org = work.path().join("content/acme");
    std::fs::create_dir_all(&org).unwrap();
    // `rust,ignore`: the language is the info string's first word, up to a comma.
    let body = "```rust,ignore\nfn main() { let n = 42; }\n```\n\n\
                ```json\n{\"retry\": true, \"attempts\": 3}\n```\n\n\
                ```sh\necho \"hello\" # greet\n```\n\n\
                ```ts\nconst greet = (name: string): string => `Hi, ${name}`;\n```\n\n\
                ```klingon\nQapla' <b>\n```\n";
    std::fs::write(
        org.join("code.md"),
        format!("---\ntitle: Code\ndate: 2026-11-01\n---\n{body}"),
    )
    .unwrap();
    std::fs::write(
        org.join("prose.md"),
        "---\ntitle: Prose\ndate: 2026-10-01\n---\nNo code.\n",
    )
    .unwrap();
    let output = generate_in(work.path(), &[]);
    assert!(output.status.success(), "{output:?}");
    let read = |path: &str| {
        std::fs::read_to_string(work.path().join("public/acme/changelog").join(path)).unwrap()
    };
    let page = read("code/index.html");
    let block = |language: &str| {
        let start = page
            .find(&format!("<code class=\"language-{language}\">"))
            .unwrap();
        let end = start + page[start..].find("</code>").unwrap();
        page[start..end].to_string()
    };
    for (language, tokens) in [
        (
            "rust",
            &[
                "<span class=\"hl-k\">fn</span>",
                "<span class=\"hl-n\">42</span>",
            ][..],
        ),
        (
            "json",
            &[
                "<span class=\"hl-n\">3</span>",
                "<span class=\"hl-s\">&quot;retry&quot;</span>",
            ],
        ),
        (
            "sh",
            &[
                "<span class=\"hl-f\">echo</span>",
                "<span class=\"hl-c\"># greet</span>",
            ],
        ),
        (
            "ts",
            &[
                "<span class=\"hl-k\">const</span>",
                "<span class=\"hl-t\">string</span>",
            ],
        ),
    ] {
        let block = block(language);
        for token in tokens {
            assert!(block.contains(token), "{language}: {token} not in {block}");
        }
    }
    // An unknown language is plain code, escaped as before.
    assert_eq!(
        block("klingon"),
        "<code class=\"language-klingon\">Qapla' &lt;b&gt;\n"
    );
    // The token colours come with the pages that have tokens, for light and dark.
    assert!(page.contains(".hl-k{color:light-dark("), "the colours");
    assert!(read("index.html").contains(".hl-k{"));
    assert!(!read("prose/index.html").contains(".hl-k{"));
    // Feeds carry the code plain.
    for feed in ["feed.json", "feed.xml", "atom.xml"] {
        assert!(!read(feed).contains("hl-"), "{feed}");
    }
}
