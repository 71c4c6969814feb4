//! `shiplog import feed --download-images`: the pictures an item shows, fetched so that the
//! entry keeps them when the product it came from is gone. A picture is judged by its bytes,
//! never by its name or the type its server claims; one that cannot be had keeps its address.

use std::cell::Cell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use url::Url;

use super::{id_of, Asset};

/// The most one image may weigh.
pub const MAX_IMAGE_BYTES: u64 = 10 * 1024 * 1024;

/// The most all images of one run may weigh together: they are held until the import is
/// checked and written.
pub const MAX_IMAGES_BYTES: u64 = 256 * 1024 * 1024;

/// How long one run may spend downloading, so that a feed of unanswered addresses ends.
pub const MAX_IMAGES_TIME: Duration = Duration::from_secs(600);

/// How long one image may take.
const IMAGE_TIMEOUT: Duration = Duration::from_secs(30);

/// The images of one run and what is left of its budgets.
pub struct Images {
    agent: ureq::Agent,
    bytes_left: Cell<u64>,
    deadline: Instant,
}

impl Default for Images {
    fn default() -> Self {
        Images {
            agent: super::feed::agent(IMAGE_TIMEOUT),
            bytes_left: Cell::new(MAX_IMAGES_BYTES),
            deadline: Instant::now() + MAX_IMAGES_TIME,
        }
    }
}

/// What [`Images::fetch`] got for one entry: the name each address now has, the files, and
/// a line for each address kept.
#[derive(Default)]
pub struct Fetched {
    /// Each downloaded address (as written) and its file's name.
    pub names: HashMap<String, String>,
    /// The files, for the entry's folder.
    pub files: Vec<Asset>,
    /// Why an address was kept.
    pub notes: Vec<String>,
}

impl Images {
    /// Downloads each of `sources` (an `<img>`'s `src` as written, resolved against `base`).
    pub fn fetch(&self, sources: &[String], base: Option<&Url>) -> Fetched {
        let mut fetched = Fetched::default();
        for source in sources {
            if fetched.names.contains_key(source) {
                continue;
            }
            let url = match base {
                Some(base) => base.join(source),
                None => Url::parse(source),
            };
            let url = match url {
                Ok(url) if matches!(url.scheme(), "http" | "https") => url,
                _ => {
                    if !source.is_empty() {
                        fetched.notes.push(format!(
                            "kept the image {source} as written: not a web address"
                        ));
                    }
                    continue;
                }
            };
            match self.picture(&url) {
                Ok((stem, extension, bytes)) => {
                    let mut name = format!("{stem}.{extension}");
                    let mut n = 2;
                    while fetched.files.iter().any(|(taken, _)| *taken == name) {
                        name = format!("{stem}-{n}.{extension}");
                        n += 1;
                    }
                    fetched.names.insert(source.clone(), name.clone());
                    fetched.files.push((name, bytes));
                }
                Err(why) => fetched
                    .notes
                    .push(format!("kept the image {url} as an address: {why}")),
            }
        }
        fetched
    }

    /// The picture at `url`: a name for it, its extension (from its bytes) and its bytes.
    fn picture(&self, url: &Url) -> Result<(String, &'static str, Vec<u8>), String> {
        if Instant::now() >= self.deadline {
            return Err(format!(
                "the run's {} s for downloads are spent",
                MAX_IMAGES_TIME.as_secs()
            ));
        }
        let limit = MAX_IMAGE_BYTES.min(self.bytes_left.get());
        if limit == 0 {
            return Err(format!(
                "the run's {MAX_IMAGES_BYTES} bytes for images are spent"
            ));
        }
        let mut response = self
            .agent
            .get(url.as_str())
            .call()
            .map_err(|e| e.to_string())?;
        let media_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let bytes = response
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => {
                    format!("it is larger than {limit} bytes")
                }
                other => other.to_string(),
            })?;
        let extension = picture_extension(&bytes, &media_type)
            .ok_or_else(|| format!("it is not a picture (`{media_type}`)"))?;
        self.bytes_left
            .set(self.bytes_left.get().saturating_sub(bytes.len() as u64));
        let last = super::feed::last_segment(url).unwrap_or_default();
        let stem = last
            .rsplit_once('.')
            .map_or(last.as_str(), |(stem, _)| stem);
        // `_` starts the name of a file the build does not publish (`_org.yaml`).
        let stem = id_of(stem).trim_start_matches(['_', '-', '.']).to_string();
        let stem = if stem.is_empty() {
            "image".to_string()
        } else {
            stem
        };
        Ok((stem, extension, bytes))
    }
}

/// The extension a picture's bytes call for, or `None` when they are no picture a page
/// shows: read from the header (and a header of no pixels refused), or for SVG, which has
/// none, from its media type and an `<svg` element near the start.
fn picture_extension(bytes: &[u8], media_type: &str) -> Option<&'static str> {
    use imagesize::ImageType;
    if media_type == "image/svg+xml" {
        let start = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).to_ascii_lowercase();
        return start.contains("<svg").then_some("svg");
    }
    let extension = match imagesize::image_type(bytes).ok()? {
        ImageType::Png => "png",
        ImageType::Jpeg => "jpg",
        ImageType::Gif => "gif",
        ImageType::Webp => "webp",
        ImageType::Bmp => "bmp",
        ImageType::Ico => "ico",
        // HEIF holds AVIF (AV1) and HEIC; browsers show only the first.
        ImageType::Heif(compression) if format!("{compression:?}") == "Av1" => "avif",
        _ => return None,
    };
    let size = imagesize::blob_size(bytes).ok()?;
    (size.width > 0 && size.height > 0).then_some(extension)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_is_judged_by_its_bytes() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 3, 8, 6, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(picture_extension(&png, "image/svg+xml"), None);
        assert_eq!(picture_extension(&png, "text/html"), Some("png"));
        assert_eq!(picture_extension(b"<html>", "image/png"), None);
        assert_eq!(picture_extension(b"#!/bin/sh\nrm -rf /", "image/png"), None);
        assert_eq!(
            picture_extension(
                b"<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>",
                "image/svg+xml"
            ),
            Some("svg")
        );
        assert_eq!(picture_extension(b"#!/bin/sh", "image/svg+xml"), None);
    }
}
