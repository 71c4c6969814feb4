//! For search engines, at the root of an org's host: `sitemap.xml` (every page, with the
//! time it last changed) and `robots.txt` naming it; for an org with `noindex: true`, a
//! `robots.txt` that turns every crawler away and no sitemap.

use std::fmt::Write;

use chrono::{DateTime, SecondsFormat, Utc};

use super::Listing;
use crate::content::{Entry, Org};
use crate::html::escape;

/// The most URLs one sitemap file may list (sitemaps.org); an org with more gets a
/// sitemap index, `sitemap.xml`, over `sitemap-<n>.xml` files.
const MAX_URLS: usize = 50_000;

/// `robots.txt` and the sitemap files of `org`, whose pages are those of `listings` (the
/// changelog first, whose entries have pages of their own): `(name, bytes)`.
pub fn render(org: &Org, listings: &[Listing<'_>]) -> Vec<(String, Vec<u8>)> {
    if org.settings.noindex {
        return vec![(
            "robots.txt".to_string(),
            b"User-agent: *\nDisallow: /\n".to_vec(),
        )];
    }
    let robots = format!(
        "User-agent: *\nAllow: /\n\nSitemap: {}/sitemap.xml\n",
        org.url
    );
    let mut files = vec![("robots.txt".to_string(), robots.into_bytes())];
    files.extend(sitemaps(&org.url, &page_urls(org, listings), MAX_URLS));
    files
}

/// A page's address and the time it last changed.
type PageUrl = (String, Option<DateTime<Utc>>);

/// The sitemap files listing `urls`: `sitemap.xml` alone when they are at most `max`, else
/// `sitemap.xml` as an index over `sitemap-<n>.xml` files of `max` each (the org's
/// address is `org_url`).
fn sitemaps(org_url: &str, urls: &[PageUrl], max: usize) -> Vec<(String, Vec<u8>)> {
    if urls.len() <= max {
        return vec![("sitemap.xml".to_string(), url_set(urls))];
    }
    let mut files = Vec::new();
    let mut index = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (i, chunk) in urls.chunks(max).enumerate() {
        let name = format!("sitemap-{}.xml", i + 1);
        let _ = write!(
            index,
            "  <sitemap>\n    <loc>{}</loc>\n",
            escape(&format!("{org_url}/{name}"))
        );
        if let Some(newest) = chunk.iter().filter_map(|(_, date)| *date).max() {
            let _ = writeln!(index, "    <lastmod>{}</lastmod>", w3c(newest));
        }
        index.push_str("  </sitemap>\n");
        files.push((name, url_set(chunk)));
    }
    index.push_str("</sitemapindex>\n");
    files.push(("sitemap.xml".to_string(), index.into_bytes()));
    files
}

/// Every page of the org with the time it last changed: each page of each listing (the
/// latest change of an entry it shows; none for an empty page), then each entry's page.
fn page_urls(org: &Org, listings: &[Listing<'_>]) -> Vec<PageUrl> {
    let page_size = org.settings.page_size;
    let mut urls = Vec::new();
    for listing in listings {
        let home = &listing.feed.home_page_url;
        let mut chunks = listing.entries.chunks(page_size);
        urls.push((
            format!("{home}/"),
            latest(chunks.next().unwrap_or_default()),
        ));
        for (i, chunk) in chunks.enumerate() {
            urls.push((format!("{home}/page/{}/", i + 2), latest(chunk)));
        }
    }
    if let Some(changelog) = listings.first() {
        urls.extend(
            changelog
                .entries
                .iter()
                .map(|entry| (entry.url.clone(), Some(entry.last_changed()))),
        );
    }
    urls
}

fn latest(entries: &[&Entry]) -> Option<DateTime<Utc>> {
    entries.iter().map(|entry| entry.last_changed()).max()
}

/// A `<urlset>` of `urls`.
fn url_set(urls: &[PageUrl]) -> Vec<u8> {
    let mut out = String::with_capacity(urls.len() * 128 + 256);
    out.push_str(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (url, date) in urls {
        let _ = write!(out, "  <url>\n    <loc>{}</loc>\n", escape(url));
        if let Some(date) = date {
            let _ = writeln!(out, "    <lastmod>{}</lastmod>", w3c(*date));
        }
        out.push_str("  </url>\n");
    }
    out.push_str("</urlset>\n");
    out.into_bytes()
}

/// A time as the W3C Datetime form sitemaps use.
fn w3c(date: DateTime<Utc>) -> String {
    date.to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_pages_than_a_sitemap_holds_get_an_index() {
        let day = |d: u32| {
            chrono::NaiveDate::from_ymd_opt(2026, 11, d)
                .and_then(|date| date.and_hms_opt(0, 0, 0))
                .map(|date| date.and_utc())
        };
        let urls: Vec<PageUrl> = (1..=5)
            .map(|i| (format!("https://a.io/changelog/{i}/?a&b"), day(i)))
            .collect();
        let files = sitemaps("https://a.io", &urls, 2);
        let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "sitemap-1.xml",
                "sitemap-2.xml",
                "sitemap-3.xml",
                "sitemap.xml"
            ]
        );
        let index = String::from_utf8(files[3].1.clone()).unwrap();
        assert!(index.contains("<loc>https://a.io/sitemap-2.xml</loc>\n    <lastmod>2026-11-04T00:00:00Z</lastmod>"), "{index}");
        let last = String::from_utf8(files[2].1.clone()).unwrap();
        assert!(
            last.contains("<loc>https://a.io/changelog/5/?a&amp;b</loc>"),
            "{last}"
        );
        assert_eq!(sitemaps("https://a.io", &urls, 5).len(), 1);
    }
}
