//! `_headers`: the response headers of the static tree, in the format Netlify and
//! Cloudflare Pages read, so a CDN serves the feeds with their types and the pages with the
//! framing each org allows. `examples/nginx.conf` gives the same headers.

use std::fmt::Write;

use crate::content::Index;

/// The `_headers` file for every org of `index`.
pub fn render(index: &Index) -> Vec<u8> {
    let mut out = String::from(
        "# Written by shiplog generate: response headers for Netlify, Cloudflare Pages and the like.\n",
    );
    for org in index.orgs() {
        let ancestors = if org.settings.embed_origins.is_empty() {
            "*".to_string()
        } else {
            org.settings.embed_origins.join(" ")
        };
        let slug = &org.slug;
        // Writing to a String cannot fail.
        let _ = write!(
            out,
            "\n/{slug}/changelog/*\n  X-Content-Type-Options: nosniff\n  Content-Security-Policy: frame-ancestors {ancestors}\n  Cache-Control: public, max-age=300, must-revalidate\n\
             /{slug}/changelog/*feed.xml\n  Content-Type: application/rss+xml; charset=utf-8\n\
             /{slug}/changelog/*feed.json\n  Content-Type: application/feed+json; charset=utf-8\n"
        );
    }
    out.into_bytes()
}
