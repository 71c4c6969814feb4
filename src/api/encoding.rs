//! Compressed answers (SPEC section 8): the coding a request's `Accept-Encoding` allows,
//! and each body compressed once, when first asked for, then shared by every request for it.

use std::io::Write as _;
use std::sync::OnceLock;

use hyper::body::Bytes;
use hyper::header::HeaderValue;

/// How a body is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// As it is.
    Identity,
    /// `Content-Encoding: br`.
    Brotli,
    /// `Content-Encoding: gzip`.
    Gzip,
}

/// Brotli's quality: 5 compresses a page of 100 items in about a millisecond to within a
/// few per cent of the best; the result is kept, so only the first request waits for it.
const BROTLI_QUALITY: u32 = 5;
/// Brotli's window: 4 MB, more than a page holds.
const BROTLI_WINDOW: u32 = 22;

impl Encoding {
    /// The `Content-Encoding` value, none for [`Encoding::Identity`].
    pub fn header(self) -> Option<HeaderValue> {
        match self {
            Encoding::Identity => None,
            Encoding::Brotli => Some(HeaderValue::from_static("br")),
            Encoding::Gzip => Some(HeaderValue::from_static("gzip")),
        }
    }

    /// What the entity tag of a body so encoded ends with: each encoding is its own
    /// representation, with its own tag (RFC 9110 section 8.8.3).
    fn tag_suffix(self) -> &'static str {
        match self {
            Encoding::Identity => "",
            Encoding::Brotli => "-br",
            Encoding::Gzip => "-gzip",
        }
    }

    /// `body` in this encoding.
    fn encode(self, body: &[u8]) -> Vec<u8> {
        match self {
            Encoding::Identity => body.to_vec(),
            Encoding::Brotli => {
                let mut out = Vec::with_capacity(body.len() / 4);
                {
                    let mut writer = brotli::CompressorWriter::new(
                        &mut out,
                        64 << 10,
                        BROTLI_QUALITY,
                        BROTLI_WINDOW,
                    );
                    writer
                        .write_all(body)
                        .expect("writing to memory cannot fail");
                }
                out
            }
            Encoding::Gzip => {
                let mut encoder = flate2::write::GzEncoder::new(
                    Vec::with_capacity(body.len() / 4),
                    flate2::Compression::default(),
                );
                encoder
                    .write_all(body)
                    .expect("writing to memory cannot fail");
                encoder.finish().expect("writing to memory cannot fail")
            }
        }
    }
}

/// The encoding to answer with, by the request's `Accept-Encoding` values (RFC 9110 section
/// 12.5.3): the one of `br` and `gzip` with the higher weight, `br` on a tie; neither
/// (or weight 0) is [`Encoding::Identity`]. `*` allows gzip when gzip is not named (never
/// brotli, which a client must name); a coding named twice counts at its first mention.
pub fn negotiate<'a>(values: impl IntoIterator<Item = &'a str>) -> Encoding {
    let (mut brotli, mut gzip, mut any) = (None, None, None);
    for item in values.into_iter().flat_map(|value| value.split(',')) {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or_default().trim();
        let weight = parts
            .filter_map(|param| param.trim().split_once('='))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case("q"))
            .map_or(Some(1000), |(_, value)| weight(value.trim()));
        let Some(weight) = weight else { continue };
        let slot = if coding.eq_ignore_ascii_case("br") {
            &mut brotli
        } else if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
            &mut gzip
        } else if coding == "*" {
            &mut any
        } else {
            continue;
        };
        // A coding named twice is read at its first mention, as a client lists its wishes.
        slot.get_or_insert(weight);
    }
    // `*` stands for gzip only: a client that names no coding may not read brotli (Python's
    // requests, say), and every HTTP client reads gzip.
    let brotli = brotli.unwrap_or(0);
    let gzip = gzip.or(any).unwrap_or(0);
    match (brotli, gzip) {
        (0, 0) => Encoding::Identity,
        (b, g) if b >= g => Encoding::Brotli,
        _ => Encoding::Gzip,
    }
}

/// A `qvalue` in thousandths (`0.5` is 500); one that is not a qvalue is none.
fn weight(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = format!("{fraction:0<3}").parse::<u16>().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// A body and its compressed forms, each made when first asked for.
#[derive(Debug)]
pub struct Encoded {
    body: Bytes,
    etag: HeaderValue,
    brotli: OnceLock<(Bytes, HeaderValue)>,
    gzip: OnceLock<(Bytes, HeaderValue)>,
}

impl Encoded {
    /// `body`, whose entity tag (quoted) is `etag`.
    pub fn new(etag: HeaderValue, body: Bytes) -> Self {
        Encoded {
            body,
            etag,
            brotli: OnceLock::new(),
            gzip: OnceLock::new(),
        }
    }

    /// The body as it is.
    pub fn identity(&self) -> &Bytes {
        &self.body
    }

    /// The body's entity tag, as it is.
    pub fn etag(&self) -> &HeaderValue {
        &self.etag
    }

    /// What holding it costs, roughly: the body and its tag, and as much again for the
    /// compressed forms it may come to hold (each far smaller than the body).
    pub fn weight(&self) -> usize {
        2 * (self.body.len() + self.etag.len())
    }

    /// The body in `encoding` and its entity tag; cloning them copies no bytes.
    pub fn get(&self, encoding: Encoding) -> (Bytes, HeaderValue) {
        let slot = match encoding {
            Encoding::Identity => return (self.body.clone(), self.etag.clone()),
            Encoding::Brotli => &self.brotli,
            Encoding::Gzip => &self.gzip,
        };
        slot.get_or_init(|| {
            let tag = self.etag.to_str().unwrap_or("\"\"");
            let tag = format!("{}{}\"", &tag[..tag.len() - 1], encoding.tag_suffix());
            (
                Bytes::from(encoding.encode(&self.body)),
                HeaderValue::from_str(&tag).expect("a tag with a suffix stays a header value"),
            )
        })
        .clone()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::*;

    #[test]
    fn weights_and_ties_pick_the_encoding() {
        let pick = |value: &str| negotiate([value]);
        assert_eq!(pick(""), Encoding::Identity);
        assert_eq!(pick("gzip, deflate, br, zstd"), Encoding::Brotli);
        assert_eq!(pick("gzip"), Encoding::Gzip);
        assert_eq!(pick("GZIP;Q=0.5"), Encoding::Gzip);
        assert_eq!(pick("br;q=0.5, gzip;q=0.8"), Encoding::Gzip);
        assert_eq!(pick("br;q=0, gzip;q=0"), Encoding::Identity);
        assert_eq!(pick("*"), Encoding::Gzip);
        assert_eq!(pick("br, *"), Encoding::Brotli);
        assert_eq!(pick("*;q=0.1, br;q=0"), Encoding::Gzip);
        assert_eq!(pick("identity"), Encoding::Identity);
        assert_eq!(pick("br;q=2, gzip;q=0.x"), Encoding::Identity);
        assert_eq!(pick("br;q=1.000"), Encoding::Brotli);
        assert_eq!(negotiate(["deflate", "x-gzip"]), Encoding::Gzip);
        assert_eq!(pick("gzip, gzip;q=0"), Encoding::Gzip);
        assert_eq!(pick("gzip;q=0, gzip"), Encoding::Identity);
        assert_eq!(negotiate(["br;q=0", "br"]), Encoding::Identity);
    }

    #[test]
    fn each_encoding_is_made_once_with_its_own_tag_and_decodes_to_the_body() {
        let body = Bytes::from("{\"data\":[]} ".repeat(200));
        let encoded = Encoded::new(HeaderValue::from_static("\"abc\""), body.clone());
        let (gzip, gzip_tag) = encoded.get(Encoding::Gzip);
        let (brotli, brotli_tag) = encoded.get(Encoding::Brotli);
        assert_eq!(gzip_tag, "\"abc-gzip\"");
        assert_eq!(brotli_tag, "\"abc-br\"");
        assert_eq!(encoded.get(Encoding::Identity).1, "\"abc\"");
        assert_eq!(encoded.get(Encoding::Gzip).0.as_ptr(), gzip.as_ptr());
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&gzip[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, body);
        let mut out = Vec::new();
        brotli::Decompressor::new(&brotli[..], 4096)
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, body);
        assert!(brotli.len() < body.len() / 10 && gzip.len() < body.len() / 10);
    }
}
