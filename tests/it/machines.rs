//! The example content (`content/`) as machines read it: the three feeds of every listing
//! parsed by feed-rs and compared, every page's link card read with an HTML parser, the
//! Markdown copies and `llms.txt` checked for absolute links.

use std::collections::BTreeSet;

use scraper::{Html, Selector};

use crate::support::Build;

/// The example site, built at a fixed time.
fn example() -> Build {
    Build::fixture("../..")
}

/// The folders of the output that hold feeds (an org's `changelog/`, each tag's).
fn feed_folders(build: &Build) -> Vec<String> {
    build
        .files()
        .into_iter()
        .filter_map(|file| file.strip_suffix("/feed.xml").map(str::to_string))
        .collect()
}

#[test]
fn atom_rss_and_json_feed_hold_the_same_items() {
    let build = example();
    let folders = feed_folders(&build);
    assert!(folders.len() > 10, "{folders:?}");
    let mut modified = 0;
    let mut pictures = 0;
    for folder in folders {
        let parse = |name: &str| {
            let text = build.read(&format!("{folder}/{name}"));
            feed_rs::parser::parse(text.as_bytes())
                .unwrap_or_else(|e| panic!("{folder}/{name}: {e}"))
        };
        let (rss, json, atom) = (parse("feed.xml"), parse("feed.json"), parse("atom.xml"));
        assert_eq!(atom.feed_type, feed_rs::model::FeedType::Atom);
        let items = |feed: &feed_rs::model::Feed| -> Vec<(String, String, String, Vec<String>)> {
            feed.entries
                .iter()
                .map(|entry| {
                    (
                        entry.links[0].href.clone(),
                        entry.title.as_ref().unwrap().content.clone(),
                        entry.published.unwrap().to_rfc3339(),
                        entry.categories.iter().map(|c| c.term.clone()).collect(),
                    )
                })
                .collect()
        };
        assert_eq!(items(&atom), items(&rss), "{folder}: Atom and RSS");
        assert_eq!(items(&atom), items(&json), "{folder}: Atom and JSON Feed");
        let json_feed = build.json(&format!("{folder}/feed.json"));
        for (entry, item) in atom
            .entries
            .iter()
            .zip(json_feed["items"].as_array().unwrap())
        {
            // The Atom id is the permalink, as the RSS guid is.
            assert_eq!(entry.id, item["url"].as_str().unwrap(), "{folder}");
            match item["date_modified"].as_str() {
                Some(modified_at) => {
                    modified += 1;
                    assert_eq!(entry.updated.unwrap().to_rfc3339(), rfc3339(modified_at));
                }
                None => assert_eq!(entry.updated, entry.published, "{folder}"),
            }
            pictures += usize::from(item["image"].is_string());
        }
        build.assert_json_feed_valid(&format!("{folder}/feed.json"));
        let self_link = atom.links.iter().find(|l| l.rel.as_deref() == Some("self"));
        let (org, path) = folder.split_once('/').unwrap();
        let self_url = format!("http://{org}.localhost:8080/{path}/atom.xml");
        assert!(
            self_link.is_some_and(|l| l.href == self_url),
            "{folder}: {:?}",
            atom.links
        );
    }
    assert!(modified > 0 && pictures > 0, "{modified} {pictures}");
}

/// `2026-11-16T14:00:00Z` as chrono writes a UTC time in RFC 3339.
fn rfc3339(text: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&chrono::Utc)
        .to_rfc3339()
}

#[test]
fn every_page_has_its_link_card() {
    let build = example();
    let pages: Vec<String> = build
        .files()
        .into_iter()
        .filter(|file| file.ends_with("index.html"))
        .collect();
    assert!(pages.len() > 40, "{pages:?}");
    let meta = |html: &Html, attribute: &str, name: &str| -> Option<String> {
        let selector = Selector::parse(&format!("meta[{attribute}=\"{name}\"]")).unwrap();
        let found: Vec<_> = html.select(&selector).collect();
        assert!(found.len() <= 1, "{name} twice");
        found
            .first()
            .map(|m| m.value().attr("content").unwrap().to_string())
    };
    let link = |html: &Html, rel: &str, kind: &str| -> Option<String> {
        let selector = Selector::parse(&format!("link[rel=\"{rel}\"]{kind}")).unwrap();
        html.select(&selector)
            .next()
            .map(|l| l.value().attr("href").unwrap().to_string())
    };
    for page in pages {
        let html = Html::parse_document(&build.read(&page));
        let og = |name: &str| meta(&html, "property", name);
        let twitter = |name: &str| meta(&html, "name", name);
        let canonical = link(&html, "canonical", "").unwrap();
        let is_entry = html
            .select(&Selector::parse("article.entry h1").unwrap())
            .next()
            .is_some();
        assert_eq!(og("og:url").as_deref(), Some(canonical.as_str()), "{page}");
        for name in ["og:title", "og:description", "og:site_name", "og:locale"] {
            assert!(og(name).is_some_and(|v| !v.is_empty()), "{page}: {name}");
        }
        assert_eq!(
            meta(&html, "name", "description"),
            og("og:description"),
            "{page}"
        );
        let org = page.split('/').next().unwrap();
        // acme has a logo; any page of it, and an entry with a picture anywhere, has an image.
        let has_logo = org == "acme";
        let image = og("og:image");
        if is_entry {
            assert_eq!(og("og:type").as_deref(), Some("article"), "{page}");
            assert!(og("article:published_time").is_some(), "{page}");
            let title = html
                .select(&Selector::parse("article.entry h1").unwrap())
                .next()
                .unwrap()
                .text()
                .collect::<String>();
            assert_eq!(og("og:title"), Some(title), "{page}");
            let cover = html
                .select(&Selector::parse("img.cover").unwrap())
                .next()
                .map(|img| img.value().attr("src").unwrap().to_string());
            if let Some(cover) = &cover {
                assert_eq!(
                    image.as_ref(),
                    Some(cover),
                    "{page}: og:image is the picture"
                );
                assert_eq!(
                    twitter("twitter:card").as_deref(),
                    Some("summary_large_image")
                );
            }
            assert_eq!(image.is_some(), has_logo || cover.is_some(), "{page}");
        } else {
            assert_eq!(og("og:type").as_deref(), Some("website"), "{page}");
            assert!(og("article:published_time").is_none(), "{page}");
            assert_eq!(image.is_some(), has_logo, "{page}");
        }
        let feeds: BTreeSet<_> = [
            "application/rss+xml",
            "application/atom+xml",
            "application/feed+json",
        ]
        .into_iter()
        .filter(|kind| link(&html, "alternate", &format!("[type=\"{kind}\"]")).is_some())
        .collect();
        assert_eq!(feeds.len(), 3, "{page}: {feeds:?}");
        let icon = link(&html, "icon", "").unwrap();
        let expected = if has_logo {
            "/changelog/logo.png"
        } else {
            "/favicon.ico"
        };
        assert!(icon.ends_with(expected), "{page}: {icon}");
        let path = icon.split_once(".localhost:8080/").unwrap().1;
        assert!(build.has(&format!("{org}/{path}")), "{page}: {icon}");
    }
}

#[test]
fn entries_as_markdown_link_absolutely_and_llms_txt_lists_them() {
    let build = example();
    for org in ["acme", "globex-cloud", "northwind"] {
        let llms = build.read(&format!("{org}/changelog/llms.txt"));
        let feed = build.json(&format!("{org}/changelog/feed.json"));
        assert!(llms.starts_with(&format!("# {}\n\n> ", feed["title"].as_str().unwrap())));
        let home = feed["home_page_url"].as_str().unwrap();
        let listed: Vec<&str> = llms
            .lines()
            .filter_map(|line| {
                line.strip_prefix("- [")?
                    .split_once("](")?
                    .1
                    .split_once(')')
            })
            .map(|(url, _)| url)
            .filter(|url| url.ends_with("/index.md"))
            .collect();
        let published = build
            .files()
            .into_iter()
            .filter(|f| f.starts_with(&format!("{org}/changelog/")) && f.ends_with("/index.md"));
        let published: Vec<String> = published.collect();
        assert_eq!(listed.len(), published.len(), "{org}");
        for url in listed {
            let file = format!("{org}/changelog{}", url.strip_prefix(home).unwrap());
            let markdown = build.read(&file);
            assert!(markdown.starts_with("# "), "{file}");
            for destination in destinations(&markdown) {
                assert!(
                    ["http://", "https://", "mailto:", "#"]
                        .iter()
                        .any(|scheme| destination.starts_with(scheme)),
                    "{file}: `{destination}` is relative"
                );
            }
        }
    }
    // The example's root-relative links go to each org's website, not the changelog host.
    let query = build.read("acme/changelog/2026-08-04-query-api-v2/index.md");
    assert!(
        query.contains("](https://www.acme-analytics.example/docs/api/query)"),
        "{query}"
    );
    let page = build.read("acme/changelog/2026-08-04-query-api-v2/index.html");
    assert!(page.contains("href=\"https://www.acme-analytics.example/docs/api/query\""));
}

/// The destinations of a Markdown text's inline links and images (`](url`) and reference
/// definitions (`[x]: url`), outside code.
fn destinations(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if in_fence {
            continue;
        }
        let without_code: String = line.split('`').step_by(2).collect();
        for (i, _) in without_code.match_indices("](") {
            let rest = without_code[i + 2..].trim_start_matches('<');
            found.push(rest.split([')', ' ', '>']).next().unwrap().to_string());
        }
        if let Some((_, url)) = without_code
            .trim_start()
            .strip_prefix('[')
            .and_then(|rest| rest.split_once("]: "))
        {
            found.push(url.split(' ').next().unwrap().to_string());
        }
    }
    found
}
