//! `_headers`: the response headers of the static tree, in the format Netlify and
//! Cloudflare Pages read, so a CDN serves the feeds with their types and the pages with the
//! framing each org allows. `examples/nginx.conf` gives the same headers.
//!
//! The rules are few and generic (those hosts cap the number of rules), plus one block per
//! org that restricts who may frame it; an org without `embed_origins` may be framed by any
//! site, so it needs no `frame-ancestors` rule.

use std::fmt::Write;

use crate::content::OrgSettings;

/// Its name, at the root of the output folder.
pub const FILE: &str = "_headers";

const GENERIC_RULES: &str = "\
# Written by shiplog generate: response headers for Netlify, Cloudflare Pages and the like.
/*
  X-Content-Type-Options: nosniff
  Cache-Control: public, max-age=300, must-revalidate
/*feed.xml
  Content-Type: application/rss+xml; charset=utf-8
  Access-Control-Allow-Origin: *
/*feed.json
  Content-Type: application/feed+json; charset=utf-8
  Access-Control-Allow-Origin: *
/*atom.xml
  Content-Type: application/atom+xml; charset=utf-8
  Access-Control-Allow-Origin: *
/*/index.md
  Content-Type: text/markdown; charset=utf-8
/*/changelog/widget.js
  Content-Type: text/javascript; charset=utf-8
/*.svg
  Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; sandbox
";

/// The `_headers` file for the orgs given as slug and settings, in slug order.
pub fn render<'a>(orgs: impl IntoIterator<Item = (&'a str, &'a OrgSettings)>) -> Vec<u8> {
    let mut out = String::from(GENERIC_RULES);
    for (slug, settings) in orgs {
        if settings.embed_origins.is_empty() {
            continue;
        }
        // Writing to a String cannot fail.
        let _ = write!(
            out,
            "/{slug}/changelog/*\n  Content-Security-Policy: frame-ancestors {}\n",
            settings.embed_origins.join(" ")
        );
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_files_get_the_policy_every_server_sends() {
        let rules = String::from_utf8(render([])).unwrap();
        assert!(rules.contains("/*atom.xml\n  Content-Type: application/atom+xml; charset=utf-8\n  Access-Control-Allow-Origin: *\n"));
        assert!(rules.contains(&format!(
            "/*.svg\n  Content-Security-Policy: {}\n",
            crate::media::SVG_POLICY
        )));
    }
}
