//! The files an org folder may publish beside its entries, by type: an allow-list, so that
//! nothing a browser would run (HTML, XML, script) is ever served from the changelog's own
//! host. SVG is allowed, and every server of the tree sends it with [`SVG_POLICY`].

/// The `Content-Security-Policy` an SVG file is served with: it may draw and style itself,
/// but runs no script and loads nothing (a `sandbox`ed document, even opened directly).
pub const SVG_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/// The media type of each extension a published file may have (lowercase).
const TYPES: &[(&str, &str)] = &[
    // Images.
    ("apng", "image/apng"),
    ("avif", "image/avif"),
    ("bmp", "image/bmp"),
    ("gif", "image/gif"),
    ("ico", "image/x-icon"),
    ("jpeg", "image/jpeg"),
    ("jpg", "image/jpeg"),
    ("png", "image/png"),
    ("svg", "image/svg+xml"),
    ("webp", "image/webp"),
    // Video and audio.
    ("m4a", "audio/mp4"),
    ("mov", "video/quicktime"),
    ("mp3", "audio/mpeg"),
    ("mp4", "video/mp4"),
    ("oga", "audio/ogg"),
    ("ogg", "audio/ogg"),
    ("ogv", "video/ogg"),
    ("opus", "audio/ogg"),
    ("wav", "audio/wav"),
    ("webm", "video/webm"),
    // Documents, fonts and text.
    ("pdf", "application/pdf"),
    ("otf", "font/otf"),
    ("ttf", "font/ttf"),
    ("woff", "font/woff"),
    ("woff2", "font/woff2"),
    ("csv", "text/csv; charset=utf-8"),
    ("txt", "text/plain; charset=utf-8"),
    // Downloads, which a browser saves rather than shows.
    ("gz", "application/gzip"),
    ("tgz", "application/gzip"),
    ("zip", "application/zip"),
];

/// The media type of a file named `name` that may be published, or `None` for a type that
/// may not (or a name without an extension).
pub fn asset_type(name: &str) -> Option<&'static str> {
    let (_, extension) = name.rsplit_once('.')?;
    let extension = extension.to_ascii_lowercase();
    TYPES
        .iter()
        .find(|(known, _)| *known == extension)
        .map(|(_, media_type)| *media_type)
}

/// The extensions that may be published, for a message: `apng, avif, …`.
pub fn allowed_extensions() -> String {
    TYPES
        .iter()
        .map(|(extension, _)| *extension)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_passive_types_are_published() {
        assert_eq!(asset_type("shot.PNG"), Some("image/png"));
        assert_eq!(asset_type("logo.svg"), Some("image/svg+xml"));
        assert_eq!(asset_type("notes.tar.gz"), Some("application/gzip"));
        for refused in [
            "evil.html",
            "evil.htm",
            "evil.xhtml",
            "evil.xml",
            "evil.js",
            "evil.mjs",
            "evil.css",
            "evil.swf",
            "page.shtml",
            "evil.xsl",
            "README",
            "evil.svgz",
        ] {
            assert_eq!(asset_type(refused), None, "{refused}");
        }
    }
}
