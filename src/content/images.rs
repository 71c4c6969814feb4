//! The pictures of an org folder: their sizes, read from each file's header, and written
//! into the `<img>` tags that show them so that a page does not jump as they load.

use std::path::Path;

use crate::media;

/// What the error of [`size`] says about a file that is no picture at all.
pub const NOT_A_PICTURE: &str = "is not a picture";

/// The widest and tallest picture that gets a size: what browsers draw at most (32,767
/// pixels, Chromium's and Firefox's limit for a canvas).
const MAX_SIDE: usize = 32_767;

/// The width and height of an image in pixels.
pub type Size = (usize, usize);

/// The size of the picture at `path`: `None` for a type whose size is not in a header of
/// fixed form (SVG). A file that is not a picture, or whose header is broken, is an error
/// saying so.
pub fn size(path: &Path) -> Result<Option<Size>, String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let media_type = media::asset_type(&name).unwrap_or_default();
    if media_type == "image/svg+xml" {
        return Ok(None);
    }
    if !media_type.starts_with("image/") {
        return Err(format!(
            "`{name}` {NOT_A_PICTURE} (types: apng, avif, bmp, gif, ico, jpeg, jpg, png, svg, webp)"
        ));
    }
    let read = crate::text::open_regular(path, false)
        .map_err(imagesize::ImageError::IoError)
        .and_then(|file| imagesize::reader_size(std::io::BufReader::new(file)));
    match read {
        // A size no browser draws is a header read wrong (a top-down BMP's negative height,
        // an OS/2 BMP, WebP's scale bits): the picture is shown without one.
        Ok(size) if size.width > MAX_SIDE || size.height > MAX_SIDE => Ok(None),
        Ok(size) if size.width > 0 && size.height > 0 => Ok(Some((size.width, size.height))),
        Ok(_) => Err(format!(
            "`{name}` is a picture of no pixels: its header is broken"
        )),
        Err(imagesize::ImageError::IoError(e)) if e.kind() != std::io::ErrorKind::UnexpectedEof => {
            Err(format!("`{name}` cannot be read: {e}"))
        }
        Err(_) => Err(format!(
            "`{name}` is not a readable {} picture: its header is broken or of another type",
            media_type.trim_start_matches("image/")
        )),
    }
}

/// `html` (an entry's sanitized HTML) with `width` and `height` on each `<img>` whose `src`
/// is one of `sized` (absolute URLs with their sizes) and that has neither already.
pub fn add_sizes(html: &str, sized: &[(String, Size)]) -> String {
    // The URLs as the HTML writes them in `src`, escaped once.
    let sized: Vec<(String, Size)> = sized
        .iter()
        .map(|(url, size)| (url.replace('&', "&amp;"), *size))
        .collect();
    let mut out = String::with_capacity(html.len() + sized.len() * 32);
    let mut copied = 0;
    for (at, _) in html.match_indices("<img ") {
        let tag_end = html[at..].find('>').map_or(html.len(), |end| at + end);
        let tag = &html[at..tag_end];
        if tag.contains(" width=") || tag.contains(" height=") {
            continue;
        }
        let Some(src) = attribute(tag, "src") else {
            continue;
        };
        let Some((_, (width, height))) = sized.iter().find(|(url, _)| src == url) else {
            continue;
        };
        let insert = at + "<img".len();
        out.push_str(&html[copied..insert]);
        out.push_str(&format!(" width=\"{width}\" height=\"{height}\""));
        copied = insert;
    }
    out.push_str(&html[copied..]);
    out
}

/// The value of the double-quoted attribute `name` of `tag`, as written.
fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = tag[start..].find('"')?;
    Some(&tag[start..start + end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_go_on_the_pictures_that_are_files() {
        let html = "<p><img src=\"https://a.io/c/x.png?a=1&amp;b=2\" alt=\"x\"> \
                    <img src=\"https://b.io/y.png\" alt=\"y\"> \
                    <img width=\"5\" src=\"https://a.io/c/x.png?a=1&amp;b=2\"></p>";
        let sized = [("https://a.io/c/x.png?a=1&b=2".to_string(), (640, 480))];
        assert_eq!(
            add_sizes(html, &sized),
            "<p><img width=\"640\" height=\"480\" src=\"https://a.io/c/x.png?a=1&amp;b=2\" alt=\"x\"> \
             <img src=\"https://b.io/y.png\" alt=\"y\"> \
             <img width=\"5\" src=\"https://a.io/c/x.png?a=1&amp;b=2\"></p>"
        );
    }

    #[test]
    fn only_readable_pictures_have_a_size() {
        let folder = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = folder.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        // A PNG header: signature, then the IHDR chunk with width 3 and height 2.
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&[0, 0, 0, 3, 0, 0, 0, 2, 8, 6, 0, 0, 0]);
        assert_eq!(size(&write("a.png", &png)), Ok(Some((3, 2))));
        assert_eq!(size(&write("a.svg", b"<svg/>")), Ok(None));
        // A top-down BMP (negative height), which the header reader takes as 2^32 - 9 rows:
        // shown without a size rather than with a wrong one.
        let mut bmp = b"BM".to_vec();
        bmp.extend_from_slice(&[0; 12]);
        bmp.extend_from_slice(&40u32.to_le_bytes());
        bmp.extend_from_slice(&6i32.to_le_bytes());
        bmp.extend_from_slice(&(-9i32).to_le_bytes());
        bmp.extend_from_slice(&[1, 0, 24, 0]);
        assert_eq!(size(&write("top-down.bmp", &bmp)), Ok(None));
        assert!(size(&write("b.png", b"not a picture"))
            .unwrap_err()
            .contains("not a readable png picture"));
        assert!(size(&write("c.pdf", b"%PDF"))
            .unwrap_err()
            .contains("not a picture"));
    }
}
