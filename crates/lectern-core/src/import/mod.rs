//! Bringing existing presentations in: a reveal.js HTML document (`reveal.rs`) or a Markdown
//! file of reveal.js, Marp, Slidev or pandoc (`markdown.rs`) becomes the stacks of a new deck
//! (a stack of one slide is a horizontal slide; two or more form a vertical group) with the
//! settings the file gave (theme, size, transitions). Every slide passes the same HTML rules
//! as the API's; the first failure is reported with the slide or line where it happened.
//! What an import cannot keep (scripts, plugins, settings Lectern has no field for) is named
//! in [`ImportedDeck::dropped`], never dropped silently.

use serde_json::{Map, Value};

use crate::deck::{DeckLook, NewSlide};

pub mod archive;
mod markdown;
mod reveal;
pub mod templates;
mod themes;

pub use markdown::parse_markdown;
pub use reveal::parse_reveal_html;
use themes::{theme_css, theme_settings};

/// A parsed presentation.
#[derive(Debug, Clone)]
pub struct ImportedDeck {
    /// The document's title (`<title>`, front matter or the first heading); may be empty.
    pub title: String,
    /// Horizontal positions in order, each one slide or a vertical group.
    pub stacks: Vec<Vec<NewSlide>>,
    /// Deck settings the file gave, as `create_deck` fields (`theme_color`, `width`, ...).
    pub settings: Map<String, Value>,
    /// The deck's CSS: the source theme's look and the document's own `<style>`, cleaned
    /// ([`crate::css::clean`]).
    pub css: String,
    /// What the import could not keep, one line each.
    pub dropped: Vec<String>,
}

impl ImportedDeck {
    /// The deck of `stacks` with `settings`; a setting a deck cannot have as given
    /// ([`DeckLook::with_setting`]) joins what was `dropped`.
    fn new(
        stacks: Vec<Vec<NewSlide>>,
        mut settings: Map<String, Value>,
        css: String,
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
            css,
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

#[cfg(test)]
mod tests;
