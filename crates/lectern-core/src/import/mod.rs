//! Bringing existing presentations in: a reveal.js HTML document (`reveal.rs`) or a Markdown
//! file of reveal.js, Marp, Slidev or pandoc (`markdown.rs`) becomes the stacks of a new deck
//! (a stack of one slide is a horizontal slide; two or more form a vertical group) with the
//! settings the file gave (theme, size, transitions). Every slide passes the same HTML rules
//! as the API's; the first failure is reported with the slide or line where it happened.
//! What an import cannot keep (scripts, plugins, settings Lectern has no field for) is named
//! in [`ImportedDeck::dropped`], never dropped silently.

use serde_json::{Map, Value, json};

use crate::deck::{DeckLook, NewSlide};

mod markdown;
mod reveal;

pub use markdown::parse_markdown;
pub use reveal::parse_reveal_html;

/// A parsed presentation.
#[derive(Debug, Clone)]
pub struct ImportedDeck {
    /// The document's title (`<title>`, front matter or the first heading); may be empty.
    pub title: String,
    /// Horizontal positions in order, each one slide or a vertical group.
    pub stacks: Vec<Vec<NewSlide>>,
    /// Deck settings the file gave, as `create_deck` fields (`theme_color`, `width`, ...).
    pub settings: Map<String, Value>,
    /// What the import could not keep, one line each.
    pub dropped: Vec<String>,
}

impl ImportedDeck {
    /// The deck of `stacks` with `settings`; a setting a deck cannot have as given
    /// ([`DeckLook::with_setting`]) joins what was `dropped`.
    fn new(
        stacks: Vec<Vec<NewSlide>>,
        mut settings: Map<String, Value>,
        mut dropped: Vec<String>,
    ) -> Self {
        let title = match settings.remove("title") {
            Some(Value::String(t)) => t,
            _ => String::new(),
        };
        let look = DeckLook::default();
        settings.retain(|key, value| {
            let checked = look.with_setting(key, value);
            if let Err(e) = &checked {
                dropped.push(format!("the setting {key}: {value} ({e})"));
            }
            checked.is_ok()
        });
        ImportedDeck {
            title,
            stacks,
            settings,
            dropped,
        }
    }
}

/// Whether `text` looks like an HTML document rather than Markdown.
pub fn looks_like_html(text: &str) -> bool {
    let start = text.trim_start().to_ascii_lowercase();
    start.starts_with("<!doctype html") || start.starts_with("<html") || start.contains("<section")
}

/// Parses an imported file: a reveal.js HTML document or else Markdown.
pub fn parse_file(text: &str) -> crate::Result<ImportedDeck> {
    if looks_like_html(text) {
        parse_reveal_html(text)
    } else {
        parse_markdown(text)
    }
}

/// The presets nearest a reveal.js, Marp or Slidev theme `name` (as a `theme_color` and a
/// `theme_font`); nothing for a theme it does not know.
fn theme_settings(name: &str) -> Map<String, Value> {
    let (colour, font) = match name.trim().to_ascii_lowercase().as_str() {
        "black" | "black-contrast" => ("black-blue", "opensans"),
        "white" | "white-contrast" | "default" | "seriph" => ("white-blue", "opensans"),
        "league" => ("grey-blue", "league"),
        "beige" => ("beige-brown", "league"),
        "sky" => ("sky-blue", "quicksand"),
        "night" => ("black-orange", "montserrat"),
        "serif" => ("beige-brown", "palatino"),
        "simple" => ("white-blue", "news"),
        "solarized" => ("sand-blue", "league"),
        "blood" => ("black-orange", "opensans"),
        "moon" => ("cobalt-orange", "league"),
        "dracula" => ("asphalt-orange", "opensans"),
        "gaia" => ("sand-blue", "lato"),
        "uncover" => ("white-blue", "opensans"),
        _ => return Map::new(),
    };
    let font = if font == "lato" { "league" } else { font };
    let mut out = Map::new();
    out.insert("theme_color".into(), json!(colour));
    out.insert("theme_font".into(), json!(font));
    out
}

#[cfg(test)]
mod tests;
