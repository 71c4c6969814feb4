//! The preview's own pages (the list of organizations, the build's problems, not found) and
//! the script that reloads a page when the build changes.

use super::BUILD_TOKEN_PATH;
use crate::build::OrgReport;
use crate::html::escape;

/// The address of an organization's changelog in the preview.
pub(super) fn changelog_url(slug: &str, port: u16) -> String {
    format!("http://{slug}.localhost:{port}/changelog/")
}

/// Puts the reload script for the build `token` before the last `</body>` of an HTML
/// document (at its end when it has none).
pub(super) fn inject_reload_script(mut html: Vec<u8>, token: &str) -> Vec<u8> {
    let script = reload_script(token);
    let at = html
        .windows(b"</body".len())
        .rposition(|w| w.eq_ignore_ascii_case(b"</body"))
        .unwrap_or(html.len());
    html.splice(at..at, script.bytes());
    html
}

/// A script that asks for the current build's token every half second and reloads the
/// page once it is not `token` any more (after a rebuild, or a restart of the server).
fn reload_script(token: &str) -> String {
    format!(
        r#"<script>
(function () {{
  var build = "{token}";
  function check() {{
    fetch("{BUILD_TOKEN_PATH}", {{ cache: "no-store" }})
      .then(function (response) {{ return response.ok ? response.text() : build; }})
      .then(function (now) {{
        if (now !== build) {{ location.reload(); }} else {{ setTimeout(check, 500); }}
      }}, function () {{ setTimeout(check, 1000); }});
  }}
  setTimeout(check, 500);
}})();
</script>
"#
    )
}

/// The list of organizations, each linking to its changelog.
pub(super) fn orgs(orgs: &[OrgReport], port: u16) -> String {
    let mut main = String::from("<h1>shiplog preview</h1>\n");
    if orgs.is_empty() {
        main.push_str(
            "<p>The content folder has no organization yet: add a folder like <code>content/my-org/</code> with an entry in it.</p>\n",
        );
    } else {
        main.push_str(&format!(
            "<p>Each organization is served at its own host, <code>http://&lt;org&gt;.localhost:{port}/</code>. The pages rebuild and reload as you edit.</p>\n<ul>\n"
        ));
        for org in orgs {
            let plural = if org.published == 1 { "y" } else { "ies" };
            main.push_str(&format!(
                "<li><a href=\"{url}\">{title}</a> <span>{slug} &middot; {count} published entr{plural}</span></li>\n",
                url = changelog_url(&org.slug, port),
                title = escape(&org.title),
                slug = org.slug,
                count = org.published,
            ));
        }
        main.push_str("</ul>\n");
    }
    document("shiplog preview", &main)
}

/// The problems of a failed build, one `path:line:column: message` each.
pub(super) fn problems(problems: &[String]) -> String {
    let plural = if problems.len() == 1 { "" } else { "s" };
    let mut main = format!(
        "<h1>The build failed</h1>\n<p>{} problem{plural} found. This page reloads by itself once the build succeeds.</p>\n<ol class=\"problems\">\n",
        problems.len()
    );
    for problem in problems {
        main.push_str(&format!("<li><code>{}</code></li>\n", escape(problem)));
    }
    main.push_str("</ol>\n");
    document("The build failed \u{2014} shiplog preview", &main)
}

/// A page for a path with nothing behind it, saying `why`.
pub(super) fn not_found(why: &str, port: u16) -> String {
    document(
        "Not found \u{2014} shiplog preview",
        &format!(
            "<h1>Not found</h1>\n<p>{}</p>\n<p><a href=\"http://localhost:{port}/\">All organizations</a></p>\n",
            escape(why)
        ),
    )
}

/// A whole page around `main`.
fn document(title: &str, main: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{title}</title>
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 2rem 1rem; }}
main {{ max-width: 48rem; margin: 0 auto; }}
li {{ margin: .5rem 0; }}
li span {{ opacity: .7; margin-left: .5rem; }}
.problems code {{ white-space: pre-wrap; overflow-wrap: anywhere; }}
</style>
</head>
<body>
<main>
{main}</main>
</body>
</html>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_goes_before_the_last_body_end() {
        let html = inject_reload_script(b"<body><p>x</p></BODY></html>".to_vec(), "a-1");
        let html = String::from_utf8(html).unwrap();
        let script = html.find("<script>").unwrap();
        assert!(script > html.find("<p>x</p>").unwrap());
        assert!(html[script..].contains("var build = \"a-1\";"));
        assert!(html.ends_with("</script>\n</BODY></html>"));
        let bare = String::from_utf8(inject_reload_script(b"<p>x</p>".to_vec(), "a-1")).unwrap();
        assert!(bare.starts_with("<p>x</p><script>"));
    }

    #[test]
    fn problems_are_escaped() {
        let page = problems(&["a.md:1:2: <script>alert(1)</script> & more".to_string()]);
        assert!(page.contains("a.md:1:2: &lt;script&gt;alert(1)&lt;/script&gt; &amp; more"));
        assert!(!page.contains("<script>alert"));
    }
}
