//! The little CSS the reader needs: inline `style` declarations, colours (hex, `rgb()`,
//! `rgba()`, `hsl()` and common names), lengths in px / pt / em / rem / %, and the angle of
//! a `rotate()` transform.

use crate::model::Rgb;

/// A colour value: a colour, or explicitly none (`transparent`, `none`, zero alpha).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Paint {
    None,
    Colour(Rgb),
}

impl Paint {
    pub(crate) fn colour(self) -> Option<Rgb> {
        match self {
            Paint::None => None,
            Paint::Colour(c) => Some(c),
        }
    }
}

/// The colour a CSS colour value names: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`,
/// `rgb()`/`rgba()` (numbers or percentages, commas or spaces), `hsl()`/`hsla()`, and
/// the common named colours. `None` for `transparent`, `none`, fully transparent values
/// and anything not understood; partial transparency is ignored.
pub fn parse_colour(value: &str) -> Option<Rgb> {
    parse_paint(value).and_then(Paint::colour)
}

/// Like [`parse_colour`] but telling "no colour" (`transparent`) from "not a colour".
pub(crate) fn parse_paint(value: &str) -> Option<Paint> {
    let v = value.trim().trim_end_matches("!important").trim();
    let lower = v.to_ascii_lowercase();
    if lower == "transparent" || lower == "none" {
        return Some(Paint::None);
    }
    if let Some(hex) = lower.strip_prefix('#') {
        return parse_hex(hex);
    }
    if let Some((name, args)) = function(&lower) {
        return match name {
            "rgb" | "rgba" => parse_rgb(args),
            "hsl" | "hsla" => parse_hsl(args),
            _ => None,
        };
    }
    named(&lower).map(Paint::Colour)
}

fn parse_hex(hex: &str) -> Option<Paint> {
    if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let digit = |i: usize| u8::from_str_radix(&hex[i..=i], 16).ok();
    let pair = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    let (rgb, alpha) = match hex.len() {
        3 | 4 => (
            Rgb(digit(0)? * 17, digit(1)? * 17, digit(2)? * 17),
            if hex.len() == 4 { digit(3)? * 17 } else { 255 },
        ),
        6 | 8 => (
            Rgb(pair(0)?, pair(2)?, pair(4)?),
            if hex.len() == 8 { pair(6)? } else { 255 },
        ),
        _ => return None,
    };
    Some(if alpha == 0 {
        Paint::None
    } else {
        Paint::Colour(rgb)
    })
}

/// `name(args)` split into the name and the text between the parentheses.
fn function(value: &str) -> Option<(&str, &str)> {
    let open = value.find('(')?;
    let inner = value[open + 1..].strip_suffix(')')?;
    Some((value[..open].trim(), inner))
}

/// The arguments of a colour function: split on commas, spaces and the `/` before alpha.
fn arguments(args: &str) -> Vec<&str> {
    args.split(|c: char| c == ',' || c == '/' || c.is_whitespace())
        .filter(|a| !a.is_empty())
        .collect()
}

/// An alpha argument (number or percentage) is zero.
fn transparent(alpha: Option<&&str>) -> bool {
    alpha.is_some_and(|a| {
        let n = match a.strip_suffix('%') {
            Some(p) => p.parse::<f64>().map(|p| p / 100.0),
            None => a.parse::<f64>(),
        };
        n.is_ok_and(|n| n <= 0.0)
    })
}

fn parse_rgb(args: &str) -> Option<Paint> {
    let a = arguments(args);
    if a.len() < 3 {
        return None;
    }
    let channel = |s: &str| -> Option<u8> {
        let n = match s.strip_suffix('%') {
            Some(p) => p.parse::<f64>().ok()? * 255.0 / 100.0,
            None => s.parse::<f64>().ok()?,
        };
        Some(n.round().clamp(0.0, 255.0) as u8)
    };
    let rgb = Rgb(channel(a[0])?, channel(a[1])?, channel(a[2])?);
    Some(if transparent(a.get(3)) {
        Paint::None
    } else {
        Paint::Colour(rgb)
    })
}

fn parse_hsl(args: &str) -> Option<Paint> {
    let a = arguments(args);
    if a.len() < 3 {
        return None;
    }
    let hue = a[0].trim_end_matches("deg").parse::<f64>().ok()?;
    let percent = |s: &str| -> Option<f64> {
        Some((s.trim_end_matches('%').parse::<f64>().ok()? / 100.0).clamp(0.0, 1.0))
    };
    let (s, l) = (percent(a[1])?, percent(a[2])?);
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let h = hue.rem_euclid(360.0) / 60.0;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    let rgb = Rgb(to(r), to(g), to(b));
    Some(if transparent(a.get(3)) {
        Paint::None
    } else {
        Paint::Colour(rgb)
    })
}

/// The CSS named colours decks use most.
fn named(name: &str) -> Option<Rgb> {
    Some(match name {
        "black" => Rgb(0, 0, 0),
        "white" => Rgb(255, 255, 255),
        "red" => Rgb(255, 0, 0),
        "green" => Rgb(0, 128, 0),
        "lime" => Rgb(0, 255, 0),
        "blue" => Rgb(0, 0, 255),
        "yellow" => Rgb(255, 255, 0),
        "orange" => Rgb(255, 165, 0),
        "purple" => Rgb(128, 0, 128),
        "gray" | "grey" => Rgb(128, 128, 128),
        "darkgray" | "darkgrey" => Rgb(169, 169, 169),
        "lightgray" | "lightgrey" => Rgb(211, 211, 211),
        "silver" => Rgb(192, 192, 192),
        "maroon" => Rgb(128, 0, 0),
        "navy" => Rgb(0, 0, 128),
        "teal" => Rgb(0, 128, 128),
        "olive" => Rgb(128, 128, 0),
        "aqua" | "cyan" => Rgb(0, 255, 255),
        "fuchsia" | "magenta" => Rgb(255, 0, 255),
        "pink" => Rgb(255, 192, 203),
        "brown" => Rgb(165, 42, 42),
        "gold" => Rgb(255, 215, 0),
        "crimson" => Rgb(220, 20, 60),
        "indigo" => Rgb(75, 0, 130),
        "violet" => Rgb(238, 130, 238),
        "coral" => Rgb(255, 127, 80),
        "tomato" => Rgb(255, 99, 71),
        "salmon" => Rgb(250, 128, 114),
        "beige" => Rgb(245, 245, 220),
        "ivory" => Rgb(255, 255, 240),
        "khaki" => Rgb(240, 230, 140),
        "turquoise" => Rgb(64, 224, 208),
        "skyblue" => Rgb(135, 206, 235),
        "steelblue" => Rgb(70, 130, 180),
        "royalblue" => Rgb(65, 105, 225),
        "darkblue" => Rgb(0, 0, 139),
        "darkgreen" => Rgb(0, 100, 0),
        "darkred" => Rgb(139, 0, 0),
        "whitesmoke" => Rgb(245, 245, 245),
        "rebeccapurple" => Rgb(102, 51, 153),
        _ => return None,
    })
}

/// The declarations of an inline style, property names lower-cased, values trimmed and
/// without `!important`; later declarations of a property come later (last one wins).
pub(crate) fn declarations(style: &str) -> impl Iterator<Item = (String, &str)> {
    style.split(';').filter_map(|d| {
        let (name, value) = d.split_once(':')?;
        let value = value.trim();
        let value = value
            .strip_suffix("!important")
            .map(str::trim)
            .unwrap_or(value);
        Some((name.trim().to_ascii_lowercase(), value))
    })
}

/// The last value of `property` in an inline style.
pub(crate) fn property<'a>(style: &'a str, property: &str) -> Option<&'a str> {
    declarations(style)
        .filter(|(name, _)| name == property)
        .map(|(_, value)| value)
        .last()
}

/// The base of `rem`: the browser's default root font size, which Lectern's viewer keeps.
const REM_PX: f64 = 16.0;

/// A length in px: `12px`, `12` (px), `9pt`, `1.5em` / `150%` (of `em`), `2rem`, `1in`.
pub(crate) fn length(value: &str, em: f64) -> Option<f64> {
    let v = value.trim().to_ascii_lowercase();
    let (number, factor) = if let Some(n) = v.strip_suffix("px") {
        (n, 1.0)
    } else if let Some(n) = v.strip_suffix("rem") {
        (n, REM_PX)
    } else if let Some(n) = v.strip_suffix("em") {
        (n, em)
    } else if let Some(n) = v.strip_suffix("pt") {
        (n, 4.0 / 3.0)
    } else if let Some(n) = v.strip_suffix('%') {
        (n, em / 100.0)
    } else if let Some(n) = v.strip_suffix("in") {
        (n, 96.0)
    } else {
        (v.as_str(), 1.0)
    };
    let n: f64 = number.trim().parse().ok()?;
    n.is_finite().then_some(n * factor)
}

/// The clockwise angle in degrees of the (first) `rotate()` / `rotateZ()` in a transform:
/// `deg`, `rad`, `grad` or `turn`.
pub(crate) fn rotation(transform: &str) -> Option<f64> {
    let lower = transform.to_ascii_lowercase();
    let start = lower
        .find("rotate(")
        .map(|i| i + "rotate(".len())
        .or_else(|| lower.find("rotatez(").map(|i| i + "rotatez(".len()))?;
    let rest = &lower[start..];
    let angle = rest[..rest.find(')')?].trim();
    let (number, factor) = if let Some(n) = angle.strip_suffix("deg") {
        (n, 1.0)
    } else if let Some(n) = angle.strip_suffix("grad") {
        (n, 0.9)
    } else if let Some(n) = angle.strip_suffix("rad") {
        (n, 180.0 / std::f64::consts::PI)
    } else if let Some(n) = angle.strip_suffix("turn") {
        (n, 360.0)
    } else {
        (angle, 1.0)
    };
    let n: f64 = number.trim().parse().ok()?;
    n.is_finite().then_some(n * factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_colours() {
        assert_eq!(parse_colour("#112233"), Some(Rgb(0x11, 0x22, 0x33)));
        assert_eq!(parse_colour("#ABCDEF"), Some(Rgb(0xAB, 0xCD, 0xEF)));
        assert_eq!(parse_colour("#f00"), Some(Rgb(255, 0, 0)));
        assert_eq!(parse_colour(" #0f08 "), Some(Rgb(0, 255, 0)));
        assert_eq!(parse_colour("#11223380"), Some(Rgb(0x11, 0x22, 0x33)));
        assert_eq!(parse_colour("#1122330"), None);
        assert_eq!(parse_colour("#12345"), None);
        assert_eq!(parse_colour("#ggg"), None);
        assert_eq!(parse_colour("#"), None);
        assert_eq!(parse_paint("#00000000"), Some(Paint::None));
    }

    #[test]
    fn functional_colours() {
        assert_eq!(parse_colour("rgb(1, 2, 3)"), Some(Rgb(1, 2, 3)));
        assert_eq!(parse_colour("RGB(255,0,128)"), Some(Rgb(255, 0, 128)));
        assert_eq!(parse_colour("rgb(300 -5 10.4)"), Some(Rgb(255, 0, 10)));
        assert_eq!(parse_colour("rgb(100%, 50%, 0%)"), Some(Rgb(255, 128, 0)));
        assert_eq!(parse_colour("rgba(1, 2, 3, 0.5)"), Some(Rgb(1, 2, 3)));
        assert_eq!(parse_colour("rgb(1 2 3 / 50%)"), Some(Rgb(1, 2, 3)));
        assert_eq!(parse_paint("rgba(1, 2, 3, 0)"), Some(Paint::None));
        assert_eq!(parse_colour("rgb(1, 2)"), None);
        assert_eq!(parse_colour("rgb(a, b, c)"), None);
        assert_eq!(parse_colour("hsl(0, 100%, 50%)"), Some(Rgb(255, 0, 0)));
        assert_eq!(parse_colour("hsl(120deg 100% 25%)"), Some(Rgb(0, 128, 0)));
        assert_eq!(parse_colour("hsl(240, 100%, 50%)"), Some(Rgb(0, 0, 255)));
    }

    #[test]
    fn named_colours() {
        assert_eq!(parse_colour("red"), Some(Rgb(255, 0, 0)));
        assert_eq!(parse_colour("White"), Some(Rgb(255, 255, 255)));
        assert_eq!(parse_colour("grey"), Some(Rgb(128, 128, 128)));
        assert_eq!(parse_colour("transparent"), None);
        assert_eq!(parse_paint("transparent"), Some(Paint::None));
        assert_eq!(parse_paint("none"), Some(Paint::None));
        assert_eq!(parse_colour("notacolour"), None);
        assert_eq!(parse_paint("notacolour"), None);
        assert_eq!(parse_colour("red !important"), Some(Rgb(255, 0, 0)));
    }

    #[test]
    fn style_declarations() {
        let style = "left: 80px; TOP:60px;;width: 1px !important; top: 70px; bogus";
        assert_eq!(property(style, "left"), Some("80px"));
        assert_eq!(property(style, "top"), Some("70px"));
        assert_eq!(property(style, "width"), Some("1px"));
        assert_eq!(property(style, "height"), None);
    }

    #[test]
    fn lengths() {
        assert_eq!(length("80px", 40.0), Some(80.0));
        assert_eq!(length(" 12.5PX ", 40.0), Some(12.5));
        assert_eq!(length("7", 40.0), Some(7.0));
        assert_eq!(length("1.5em", 40.0), Some(60.0));
        assert_eq!(length("2rem", 40.0), Some(32.0));
        assert_eq!(length("150%", 20.0), Some(30.0));
        assert_eq!(length("24pt", 40.0), Some(32.0));
        assert_eq!(length("1in", 40.0), Some(96.0));
        assert_eq!(length("auto", 40.0), None);
        assert_eq!(length("NaNpx", 40.0), None);
    }

    #[test]
    fn rotations() {
        assert_eq!(rotation("rotate(15deg)"), Some(15.0));
        assert_eq!(rotation("translate(1px, 2px) rotate(-30deg)"), Some(-30.0));
        assert_eq!(rotation("rotate(0.25turn)"), Some(90.0));
        assert_eq!(rotation("rotateZ(100grad)"), Some(90.0));
        let rad = rotation("rotate(3.14159265rad)").expect("radians parse");
        assert!((rad - 180.0).abs() < 1e-6);
        assert_eq!(rotation("scale(2)"), None);
        assert_eq!(rotation("rotate(x)"), None);
    }
}
