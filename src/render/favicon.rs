//! `favicon.ico` at the root of each org's host: a rounded square of the org's accent
//! colour with three lines, so that every page has an icon and a browser never asks the
//! host for a missing `/favicon.ico`. An ICO file holding one 32×32 PNG (as browsers have
//! read since 2007), made here in a few hundred bytes: no picture of the org is needed.

use std::io::Write;

use flate2::write::ZlibEncoder;
use flate2::{Compression, Crc};

use crate::color::Color;

/// Its name, at the root of the org's folder.
pub const FILE: &str = "favicon.ico";

/// The icon's width and height in pixels.
const SIZE: u32 = 32;

/// The icon of an org whose accent colour is `accent`.
pub fn render(accent: Color) -> Vec<u8> {
    let png = png(accent);
    let mut ico = Vec::with_capacity(22 + png.len());
    // ICONDIR: reserved, type 1 (icon), one image.
    ico.extend_from_slice(&[0, 0, 1, 0, 1, 0]);
    // ICONDIRENTRY: width, height, no palette, reserved, 1 plane, 32 bits per pixel, the
    // image's length and where it starts (right after this entry).
    ico.extend_from_slice(&[SIZE as u8, SIZE as u8, 0, 0, 1, 0, 32, 0]);
    ico.extend_from_slice(&(png.len() as u32).to_le_bytes());
    ico.extend_from_slice(&22u32.to_le_bytes());
    ico.extend_from_slice(&png);
    ico
}

/// The picture as an RGBA PNG.
fn png(accent: Color) -> Vec<u8> {
    let mut rows = Vec::with_capacity((SIZE * (SIZE * 4 + 1)) as usize);
    for y in 0..SIZE {
        // Each row starts with its filter type: none.
        rows.push(0);
        for x in 0..SIZE {
            rows.extend_from_slice(&pixel(accent, x, y));
        }
    }
    let mut zlib = ZlibEncoder::new(Vec::new(), Compression::best());
    zlib.write_all(&rows).expect("compressing into memory");
    let data = zlib.finish().expect("compressing into memory");
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&SIZE.to_be_bytes());
    header.extend_from_slice(&SIZE.to_be_bytes());
    // 8 bits per channel, RGBA, deflate, no filter choice, not interlaced.
    header.extend_from_slice(&[8, 6, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, body) in [(b"IHDR", &header), (b"IDAT", &data), (b"IEND", &Vec::new())] {
        png.extend_from_slice(&(body.len() as u32).to_be_bytes());
        png.extend_from_slice(kind);
        png.extend_from_slice(body);
        let mut crc = Crc::new();
        crc.update(kind);
        crc.update(body);
        png.extend_from_slice(&crc.sum().to_be_bytes());
    }
    png
}

/// The colour of pixel (`x`, `y`): transparent outside the rounded corners, white on the
/// three lines (two long, one short), the accent elsewhere.
fn pixel(accent: Color, x: u32, y: u32) -> [u8; 4] {
    const RADIUS: u32 = 7;
    let corner = |at: u32| {
        if at < RADIUS {
            Some(RADIUS - at)
        } else if at >= SIZE - RADIUS {
            Some(at + 1 + RADIUS - SIZE)
        } else {
            None
        }
    };
    if let (Some(dx), Some(dy)) = (corner(x), corner(y)) {
        if dx * dx + dy * dy > RADIUS * RADIUS {
            return [0, 0, 0, 0];
        }
    }
    let on_line = [(10, 23), (15, 23), (20, 18)]
        .iter()
        .any(|&(top, end)| (top..top + 3).contains(&y) && (9..end).contains(&x));
    if on_line {
        [0xff, 0xff, 0xff, 0xff]
    } else {
        [accent.r, accent.g, accent.b, 0xff]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_icon_is_an_ico_holding_a_png_of_32_pixels() {
        let ico = render(Color::rgb(0x6e, 0x56, 0xcf));
        assert_eq!(&ico[..6], &[0, 0, 1, 0, 1, 0]);
        let png = &ico[22..];
        assert_eq!(
            u32::from_le_bytes(ico[14..18].try_into().unwrap()) as usize,
            png.len()
        );
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        assert_eq!(&png[16..24], &[0, 0, 0, 32, 0, 0, 0, 32]);
        assert!(ico.len() < 1024, "{} bytes", ico.len());
    }
}
