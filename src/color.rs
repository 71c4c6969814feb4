//! sRGB colours as settings give them (`#rgb` or `#rrggbb`), with the WCAG 2 contrast math
//! the themes use to keep an organization's accent colour readable in light and dark mode.

use std::fmt;

/// An opaque sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Color {
    /// Red, 0–255.
    pub r: u8,
    /// Green, 0–255.
    pub g: u8,
    /// Blue, 0–255.
    pub b: u8,
}

impl Color {
    /// Pure white.
    pub const WHITE: Color = Color::rgb(0xff, 0xff, 0xff);
    /// Pure black.
    pub const BLACK: Color = Color::rgb(0, 0, 0);

    /// The colour with these channel values.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Color {
        Color { r, g, b }
    }

    /// Parses `#rgb` or `#rrggbb` (either case); anything else is `None`, so a colour can
    /// never carry other CSS with it.
    pub fn parse_hex(text: &str) -> Option<Color> {
        let digits = text.strip_prefix('#')?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let channel = |i: usize, len: usize| {
            let value = u8::from_str_radix(&digits[i * len..(i + 1) * len], 16).ok()?;
            Some(if len == 1 { value * 17 } else { value })
        };
        let len = match digits.len() {
            3 => 1,
            6 => 2,
            _ => return None,
        };
        Some(Color::rgb(
            channel(0, len)?,
            channel(1, len)?,
            channel(2, len)?,
        ))
    }

    /// This colour with `amount` (0 to 1) of `other` mixed in.
    pub fn mix(self, other: Color, amount: f64) -> Color {
        let blend = |a: u8, b: u8| {
            (f64::from(a) * (1.0 - amount) + f64::from(b) * amount)
                .round()
                .clamp(0.0, 255.0) as u8
        };
        Color::rgb(
            blend(self.r, other.r),
            blend(self.g, other.g),
            blend(self.b, other.b),
        )
    }

    /// The WCAG 2 contrast ratio of two colours, from 1 to 21.
    pub fn contrast(self, other: Color) -> f64 {
        let (a, b) = (self.luminance(), other.luminance());
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    /// This colour, moved step by step toward `toward` until its contrast with each of
    /// `backgrounds` reaches `ratio` (`toward` itself if no step gets there).
    pub fn readable_on(self, backgrounds: &[Color], toward: Color, ratio: f64) -> Color {
        (0..=20)
            .map(|step| self.mix(toward, f64::from(step) / 20.0))
            .find(|c| backgrounds.iter().all(|bg| c.contrast(*bg) >= ratio))
            .unwrap_or(toward)
    }

    /// WCAG 2 relative luminance.
    fn luminance(self) -> f64 {
        let linear = |channel: u8| {
            let c = f64::from(channel) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * linear(self.r) + 0.7152 * linear(self.g) + 0.0722 * linear(self.b)
    }
}

/// Writes `#rrggbb` in lowercase.
impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_short_and_long_hex_only() {
        assert_eq!(
            Color::parse_hex("#E5484D"),
            Some(Color::rgb(0xe5, 0x48, 0x4d))
        );
        assert_eq!(Color::parse_hex("#0af"), Some(Color::rgb(0, 0xaa, 0xff)));
        assert_eq!(Color::parse_hex("#0af").unwrap().to_string(), "#00aaff");
        for bad in [
            "",
            "#",
            "0af",
            "#0afe",
            "#12345g",
            "red",
            "#fff;}",
            "#+1+2+3",
            "#ｆｆｆ",
        ] {
            assert_eq!(Color::parse_hex(bad), None, "{bad}");
        }
    }

    #[test]
    fn contrast_follows_wcag() {
        assert!((Color::WHITE.contrast(Color::BLACK) - 21.0).abs() < 1e-9);
        let grey = Color::parse_hex("#767676").unwrap();
        assert!((grey.contrast(Color::WHITE) - 4.54).abs() < 0.01);
    }

    #[test]
    fn readable_on_darkens_or_lightens_until_the_ratio_is_met() {
        let yellow = Color::parse_hex("#ffd60a").unwrap();
        let on_white = yellow.readable_on(&[Color::WHITE], Color::BLACK, 4.5);
        assert!(on_white.contrast(Color::WHITE) >= 4.5, "{on_white}");
        let navy = Color::parse_hex("#1b1f5e").unwrap();
        let dark = Color::parse_hex("#0f1117").unwrap();
        let on_dark = navy.readable_on(&[dark], Color::WHITE, 4.5);
        assert!(on_dark.contrast(dark) >= 4.5, "{on_dark}");
        assert_eq!(
            Color::BLACK.readable_on(&[Color::WHITE], Color::BLACK, 4.5),
            Color::BLACK,
            "a colour that already passes is kept"
        );
    }
}
