//! reveal.js's themes as an import keeps them: the nearest `theme_color`/`theme_font`
//! presets, and the theme's own colours, fonts and heading style as deck CSS over them
//! (the values of reveal.js 6's `dist/theme/*.css`).

use serde_json::{Map, Value, json};

/// One reveal.js theme's look.
struct RevealTheme {
    names: &'static [&'static str],
    colour: &'static str,
    font: &'static str,
    background: &'static str,
    text: &'static str,
    heading: &'static str,
    link: &'static str,
    body_font: &'static str,
    heading_font: &'static str,
    /// `text-transform`, `font-weight`, `letter-spacing` and `text-shadow` of headings.
    heading_style: (&'static str, &'static str, &'static str, &'static str),
}

const SOURCE_SANS: &str = "\"Source Sans Pro\", \"Open Sans\", Helvetica, sans-serif";
const LATO: &str = "Lato, sans-serif";
const LEAGUE_GOTHIC: &str = "\"League Gothic\", Impact, sans-serif";
const UPPER_600: (&str, &str, &str, &str) = ("uppercase", "600", "normal", "none");
const UPPER_NORMAL: (&str, &str, &str, &str) = ("uppercase", "normal", "normal", "none");

const THEMES: &[RevealTheme] = &[
    RevealTheme {
        names: &["black", "default"],
        colour: "black-blue",
        font: "opensans",
        background: "#191919",
        text: "#fff",
        heading: "#fff",
        link: "#42affa",
        body_font: SOURCE_SANS,
        heading_font: SOURCE_SANS,
        heading_style: UPPER_600,
    },
    RevealTheme {
        names: &["black-contrast"],
        colour: "black-blue",
        font: "opensans",
        background: "#000",
        text: "#fff",
        heading: "#fff",
        link: "#42affa",
        body_font: SOURCE_SANS,
        heading_font: SOURCE_SANS,
        heading_style: UPPER_600,
    },
    RevealTheme {
        names: &["white", "seriph"],
        colour: "white-blue",
        font: "opensans",
        background: "#fff",
        text: "#222",
        heading: "#222",
        link: "#2a76dd",
        body_font: SOURCE_SANS,
        heading_font: SOURCE_SANS,
        heading_style: UPPER_600,
    },
    RevealTheme {
        names: &["white-contrast"],
        colour: "white-blue",
        font: "opensans",
        background: "#fff",
        text: "#000",
        heading: "#000",
        link: "#2a76dd",
        body_font: SOURCE_SANS,
        heading_font: SOURCE_SANS,
        heading_style: UPPER_600,
    },
    RevealTheme {
        names: &["league"],
        colour: "grey-blue",
        font: "league",
        background: "#1c1e20",
        text: "#eee",
        heading: "#eee",
        link: "#13daec",
        body_font: LATO,
        heading_font: LEAGUE_GOTHIC,
        heading_style: ("uppercase", "normal", "normal", "0px 0px 6px #0003"),
    },
    RevealTheme {
        names: &["beige"],
        colour: "beige-brown",
        font: "league",
        background: "#f7f3de",
        text: "#333",
        heading: "#333",
        link: "#8b743d",
        body_font: SOURCE_SANS,
        heading_font: SOURCE_SANS,
        heading_style: UPPER_600,
    },
    RevealTheme {
        names: &["sky"],
        colour: "sky-blue",
        font: "quicksand",
        background: "#f7fbfc",
        text: "#333",
        heading: "#333",
        link: "#2a76dd",
        body_font: "\"Open Sans\", sans-serif",
        heading_font: "Quicksand, sans-serif",
        heading_style: ("uppercase", "normal", "-.05em", "none"),
    },
    RevealTheme {
        names: &["night"],
        colour: "black-orange",
        font: "montserrat",
        background: "#111",
        text: "#fff",
        heading: "#fff",
        link: "#e7ad52",
        body_font: "\"Open Sans\", sans-serif",
        heading_font: "Montserrat, Impact, sans-serif",
        heading_style: ("none", "normal", "-.03em", "none"),
    },
    RevealTheme {
        names: &["serif"],
        colour: "beige-brown",
        font: "palatino",
        background: "#f0f1eb",
        text: "#000",
        heading: "#383d3d",
        link: "#51483d",
        body_font: "\"Palatino Linotype\", \"Book Antiqua\", Palatino, FreeSerif, serif",
        heading_font: "\"Palatino Linotype\", \"Book Antiqua\", Palatino, FreeSerif, serif",
        heading_style: ("none", "600", "normal", "none"),
    },
    RevealTheme {
        names: &["simple"],
        colour: "white-blue",
        font: "news",
        background: "#fff",
        text: "#000",
        heading: "#000",
        link: "#00008b",
        body_font: LATO,
        heading_font: "\"News Cycle\", Impact, sans-serif",
        heading_style: UPPER_600,
    },
    RevealTheme {
        names: &["solarized"],
        colour: "sand-blue",
        font: "league",
        background: "#fdf6e3",
        text: "#657b83",
        heading: "#586e75",
        link: "#268bd2",
        body_font: LATO,
        heading_font: LEAGUE_GOTHIC,
        heading_style: UPPER_NORMAL,
    },
    RevealTheme {
        names: &["blood"],
        colour: "black-orange",
        font: "opensans",
        background: "#222",
        text: "#eee",
        heading: "#eee",
        link: "#a23",
        body_font: "Ubuntu, \"Open Sans\", sans-serif",
        heading_font: "Ubuntu, \"Open Sans\", sans-serif",
        heading_style: ("uppercase", "normal", "normal", "2px 2px 2px #222"),
    },
    RevealTheme {
        names: &["moon"],
        colour: "cobalt-orange",
        font: "league",
        background: "#002b36",
        text: "#93a1a1",
        heading: "#eee8d5",
        link: "#268bd2",
        body_font: LATO,
        heading_font: LEAGUE_GOTHIC,
        heading_style: UPPER_NORMAL,
    },
    RevealTheme {
        names: &["dracula"],
        colour: "asphalt-orange",
        font: "opensans",
        background: "#191919",
        text: "#f8f8f2",
        heading: "#bd93f9",
        link: "#ff79c6",
        body_font: "\"Open Sans\", Cantarell, Ubuntu, Roboto, Arial, sans-serif",
        heading_font: "\"Open Sans\", Cantarell, Ubuntu, Roboto, Arial, sans-serif",
        heading_style: ("none", "600", "normal", "none"),
    },
];

fn find(name: &str) -> Option<&'static RevealTheme> {
    let name = name.trim().to_ascii_lowercase();
    THEMES.iter().find(|t| t.names.contains(&name.as_str()))
}

/// The presets nearest a reveal.js, Marp or Slidev theme `name` (as a `theme_color` and a
/// `theme_font`); nothing for a theme it does not know.
pub(super) fn theme_settings(name: &str) -> Map<String, Value> {
    let (colour, font) = match (find(name), name.trim().to_ascii_lowercase().as_str()) {
        (Some(t), _) => (t.colour, t.font),
        (None, "gaia") => ("sand-blue", "league"),
        (None, "uncover") => ("white-blue", "opensans"),
        _ => return Map::new(),
    };
    let mut out = Map::new();
    out.insert("theme_color".into(), json!(colour));
    out.insert("theme_font".into(), json!(font));
    out
}

/// A reveal.js theme's own look as deck CSS: its colours and fonts over the presets'
/// variables (on the deck page's body, and on a `.reveal` wherever one is drawn), and its
/// heading style.
pub(super) fn theme_css(name: &str) -> Option<String> {
    let t = find(name)?;
    let (transform, weight, spacing, shadow) = t.heading_style;
    Some(format!(
        "/* reveal.js theme \"{}\" */\n\
         :root body, .reveal {{ --lectern-bg: {}; --lectern-fg: {}; --lectern-heading: {}; \
         --lectern-link: {}; --lectern-font: {}; --lectern-heading-font: {}; }}\n\
         .reveal h1, .reveal h2, .reveal h3, .reveal h4, .reveal h5, .reveal h6 {{ \
         text-transform: {transform}; font-weight: {weight}; letter-spacing: {spacing}; \
         text-shadow: {shadow}; }}\n",
        t.names[0], t.background, t.text, t.heading, t.link, t.body_font, t.heading_font
    ))
}
