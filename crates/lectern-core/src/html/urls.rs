//! The URLs that reveal.js itself loads from `data-*` attributes, which an HTML sanitizer
//! passes as plain data: background images, videos and frames, lazily loaded sources,
//! preview overlays and external Markdown. A slide may name only what cannot run script
//! there: `http(s)` or relative URLs, and inline `data:` pictures (or sound and video) where
//! a picture is what is drawn.

/// What an attribute's URL may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Loads {
    /// Drawn as a picture (a CSS background or preview image): `data:image/*` too.
    Picture,
    /// Loaded by an element that may be a frame as well as a medium: `data:` pictures other
    /// than SVG (a document when framed), sound and video.
    Media,
    /// Opened as a document in a frame: `http(s)` or relative only.
    Document,
}

fn loads(name: &str) -> Option<Loads> {
    match name {
        "data-background" | "data-background-image" | "data-preview-image" => Some(Loads::Picture),
        "data-background-video" | "data-preview-video" | "data-src" => Some(Loads::Media),
        "data-background-iframe"
        | "data-preview-link"
        | "data-preview-iframe"
        | "data-markdown" => Some(Loads::Document),
        _ => None,
    }
}

/// Why the value of attribute `name` may not be stored, if it is a URL reveal.js loads and
/// is neither `http(s)`, relative nor an allowed `data:` URL.
pub fn loaded_url_problem(name: &str, value: &str) -> Option<String> {
    let kind = loads(&name.to_ascii_lowercase())?;
    // reveal.js splits background image and video lists on commas; check each part, and
    // the whole value as a browser would read it.
    let whole = std::iter::once(value);
    let parts = value.split(',');
    for candidate in whole.chain(parts) {
        if let Some(scheme) = scheme_of(candidate)
            && !allowed(kind, &scheme, candidate)
        {
            return Some(format!(
                "attribute '{name}' must be an http(s) or relative URL{}; found a {scheme}: URL",
                match kind {
                    Loads::Document => "",
                    Loads::Picture => " or a data:image/ picture",
                    Loads::Media => " or a data: picture, sound or video",
                }
            ));
        }
    }
    None
}

fn allowed(kind: Loads, scheme: &str, value: &str) -> bool {
    if matches!(scheme, "http" | "https") {
        return true;
    }
    if scheme != "data" || kind == Loads::Document {
        return false;
    }
    let media_type = normalized(value)["data:".len()..]
        .split([';', ','])
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    match kind {
        Loads::Picture => media_type.starts_with("image/"),
        Loads::Media => {
            (media_type.starts_with("image/") && !media_type.starts_with("image/svg"))
                || media_type.starts_with("video/")
                || media_type.starts_with("audio/")
        }
        Loads::Document => false,
    }
}

/// The value as the URL parser reads it: surrounding spaces and controls gone, tabs and
/// line breaks removed everywhere, lower case.
fn normalized(value: &str) -> String {
    value
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect::<String>()
        .to_ascii_lowercase()
}

/// The URL's scheme, if it has one (`javascript` for ` java\tscript:x`).
fn scheme_of(value: &str) -> Option<String> {
    let value = normalized(value);
    let (scheme, _) = value.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| scheme.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_urls_are_refused_in_every_attribute_reveal_loads() {
        for name in [
            "data-background",
            "data-background-image",
            "data-background-video",
            "data-background-iframe",
            "data-src",
            "data-preview-link",
            "data-preview-image",
            "data-preview-video",
            "data-markdown",
            "DATA-BACKGROUND-IFRAME",
        ] {
            for value in [
                "javascript:alert(1)",
                " JavaScript:while(1){}",
                "java\tscript:alert(1)",
                "\u{1}javascript:x",
                "data:text/html,<script>alert(1)</script>",
                "vbscript:x",
                "a.png,javascript:alert(1)",
                "file:///etc/passwd",
            ] {
                assert!(
                    loaded_url_problem(name, value).is_some(),
                    "{name}={value:?} passed"
                );
            }
        }
    }

    #[test]
    fn web_relative_and_picture_urls_pass() {
        for (name, value) in [
            ("data-background-iframe", "https://example.com/embed"),
            ("data-background-iframe", "/media/x"),
            ("data-background-image", "data:image/svg+xml;utf8,<svg/>"),
            ("data-background-image", "data:image/png;base64,AAAA"),
            ("data-background", "#ff0000"),
            ("data-background", "rgb(0, 0, 0)"),
            ("data-background", "linear-gradient(red, blue)"),
            ("data-background-video", "a.mp4,b.webm"),
            ("data-src", "data:image/png;base64,AAAA"),
            ("data-preview-link", ""),
            ("data-background-color", "javascript:alert(1)"),
            ("data-notes", "Note: javascript: is fine as text"),
        ] {
            assert_eq!(loaded_url_problem(name, value), None, "{name}={value:?}");
        }
        // An SVG may run script when framed; as a background it is only a picture.
        assert!(loaded_url_problem("data-src", "data:image/svg+xml,<svg/>").is_some());
        assert!(loaded_url_problem("data-background-iframe", "data:image/png,x").is_some());
    }
}
