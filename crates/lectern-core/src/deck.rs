//! Decks: the closed value sets of interface 2.5 (themes, visibility, transitions), the
//! validated inputs of `create_deck` and `update_deck`, and slugs.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::html::{Notes, SlideHtml};
use crate::{Error, Result};

/// Declares an enum of fixed strings with `as_str`, `parse`, the list of all values, JSON
/// serialisation and an OpenAPI schema listing the values.
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                use utoipa::openapi::schema::{ObjectBuilder, Type};
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some([$($text),+]))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}

        impl $name {
            /// Every value, in the interface's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value as the interface spells it.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// The value spelled `text`, if there is one.
            pub fn parse(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }

            /// All values joined by ", ", for error messages.
            pub fn list() -> String {
                [$($text),+].join(", ")
            }
        }
    };
}

string_enum! {
    /// Who may see a deck (2.5.3).
    Visibility { All => "all", Private => "self", Team => "team" }
}

string_enum! {
    /// Color presets (2.5.1).
    ThemeColor {
        WhiteBlue => "white-blue", SandBlue => "sand-blue", BeigeBrown => "beige-brown",
        SilverGreen => "silver-green", SilverBlue => "silver-blue", SkyBlue => "sky-blue",
        BlueYellow => "blue-yellow", CobaltOrange => "cobalt-orange",
        AsphaltOrange => "asphalt-orange", ForestYellow => "forest-yellow",
        MintBeige => "mint-beige", SeaYellow => "sea-yellow", YellowBlack => "yellow-black",
        CoralBlue => "coral-blue", GreyBlue => "grey-blue", BlackBlue => "black-blue",
        BlackMint => "black-mint", BlackOrange => "black-orange",
    }
}

string_enum! {
    /// Font presets (2.5.2).
    ThemeFont {
        Montserrat => "montserrat", League => "league", Opensans => "opensans",
        Josefine => "josefine", Palatino => "palatino", News => "news",
        Helvetica => "helvetica", Merriweather => "merriweather", Asul => "asul",
        Sketch => "sketch", Quicksand => "quicksand", Overpass2 => "overpass2",
    }
}

string_enum! {
    /// Slide and background transitions: the reveal.js names.
    Transition {
        None => "none", Fade => "fade", Slide => "slide", Convex => "convex",
        Concave => "concave", Zoom => "zoom",
    }
}

/// Defaults on creation (interface 2.5 and docs/API-NOTES.md).
pub mod defaults {
    use super::*;
    pub const TITLE: &str = "Untitled deck";
    pub const WIDTH: i64 = 1280;
    pub const HEIGHT: i64 = 720;
    pub const MARGIN: f64 = 0.0;
    pub const THEME_COLOR: ThemeColor = ThemeColor::WhiteBlue;
    pub const THEME_FONT: ThemeFont = ThemeFont::Montserrat;
    pub const VISIBILITY: Visibility = Visibility::Private;
    /// reveal.js's own default slide transition.
    pub const TRANSITION: Transition = Transition::Slide;
    /// reveal.js's own default background transition.
    pub const BACKGROUND_TRANSITION: Transition = Transition::Fade;
    pub const LANGUAGE: &str = "en";
    /// No custom CSS, left-to-right, no looping: what a new deck has until a patch says
    /// otherwise.
    pub const CSS: &str = "";
    pub const RTL: bool = false;
    pub const LOOP: bool = false;
}

/// Longest title, in characters.
pub const MAX_TITLE_CHARS: usize = 255;
/// Longest description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 5_000;
/// Largest canvas side, in pixels (the interface only sets the minimum of 1).
pub const MAX_CANVAS_PX: i64 = i32::MAX as i64;

// The store keeps a look as one JSON value without looking inside, the deck's metadata shows
// its fields, the deck pages apply them (`render.rs`) and revisions record them. A new setting
// is a field here with its default; when `create_deck` and `update_deck` take it, a field of
// `DeckPatch` too (parsed in `Fields::deck_fields`, applied in `DeckLook::patched`).
/// How a deck presents: its canvas, transitions, direction, looping, theme and language.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct DeckLook {
    /// Canvas width in pixels.
    pub width: i64,
    /// Canvas height in pixels.
    pub height: i64,
    /// Viewport margin factor, 0..1.
    pub margin: f64,
    pub transition: Transition,
    pub background_transition: Transition,
    pub rtl: bool,
    #[serde(rename = "loop")]
    pub loop_: bool,
    pub theme_font: ThemeFont,
    pub theme_color: ThemeColor,
    pub language: String,
}

impl Default for DeckLook {
    /// A new deck's look.
    fn default() -> Self {
        DeckLook {
            width: defaults::WIDTH,
            height: defaults::HEIGHT,
            margin: defaults::MARGIN,
            transition: defaults::TRANSITION,
            background_transition: defaults::BACKGROUND_TRANSITION,
            rtl: defaults::RTL,
            loop_: defaults::LOOP,
            theme_font: defaults::THEME_FONT,
            theme_color: defaults::THEME_COLOR,
            language: defaults::LANGUAGE.to_string(),
        }
    }
}

impl DeckLook {
    /// This look with the settings `patch` changes.
    pub fn patched(&self, patch: &DeckPatch) -> DeckLook {
        DeckLook {
            width: patch.width.unwrap_or(self.width),
            height: patch.height.unwrap_or(self.height),
            margin: patch.margin.unwrap_or(self.margin),
            theme_color: patch.theme_color.unwrap_or(self.theme_color),
            theme_font: patch.theme_font.unwrap_or(self.theme_font),
            ..self.clone()
        }
    }

    /// The stored form (a JSON object).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a look is plain data and always serialises")
    }

    /// Reads the stored form back; a setting it lacks (stored before the setting existed)
    /// takes its default.
    pub fn from_json(text: &str) -> Result<DeckLook> {
        over_default_look(text)
    }

    /// This look with one setting changed, checked as `update_deck` checks the settings it
    /// takes; the others (`transition`, `rtl`, ... which only imports set) by their type.
    pub fn with_setting(&self, key: &str, value: &Value) -> Result<DeckLook> {
        if DECK_FIELDS.contains(&key) {
            return Ok(self.patched(&DeckPatch::from_json(Some(
                serde_json::json!({ key: value.clone() }),
            ))?));
        }
        if !DeckLook::has(key) {
            return Err(Error::invalid(format!("'{key}' is not a deck setting")));
        }
        let invalid = |e: serde_json::Error| Error::invalid(format!("'{key}': {e}"));
        let mut look = serde_json::to_value(self).map_err(invalid)?;
        look[key] = value.clone();
        serde_json::from_value(look).map_err(invalid)
    }

    /// Whether `key` names one of the settings.
    fn has(key: &str) -> bool {
        static KEYS: std::sync::LazyLock<Vec<String>> =
            std::sync::LazyLock::new(|| match serde_json::to_value(DeckLook::default()) {
                Ok(Value::Object(map)) => map.into_iter().map(|(k, _)| k).collect(),
                _ => Vec::new(),
            });
        KEYS.iter().any(|k| k == key)
    }
}

/// Reads `text`, a stored JSON object holding a [`DeckLook`]'s fields (and maybe others), as a
/// `T`: fields of the look it lacks take their defaults.
pub(crate) fn over_default_look<T: DeserializeOwned>(text: &str) -> Result<T> {
    let stored = |e: serde_json::Error| Error::internal(format!("stored deck settings: {e}"));
    let Value::Object(mut map) = serde_json::to_value(DeckLook::default()).map_err(stored)? else {
        unreachable!("a struct serialises as an object");
    };
    match serde_json::from_str(text).map_err(stored)? {
        Value::Object(read) => map.extend(read),
        other => return Err(Error::internal(format!("stored deck settings: {other}"))),
    }
    serde_json::from_value(Value::Object(map)).map_err(stored)
}

/// One slide of a `create_deck` request.
#[derive(Debug, Clone, PartialEq)]
pub struct NewSlide {
    pub html: SlideHtml,
    pub notes: Option<Notes>,
}

/// A validated `create_deck` body with every default filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDeck {
    pub title: String,
    pub description: String,
    pub visibility: Visibility,
    pub look: DeckLook,
    /// The deck's CSS (read-only in the interface: only an import gives one), cleaned.
    pub css: String,
    pub slides: Vec<NewSlide>,
}

/// A validated `update_deck` body: the fields to change.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeckPatch {
    pub title: Option<String>,
    pub description: Option<String>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub margin: Option<f64>,
    pub theme_color: Option<ThemeColor>,
    pub theme_font: Option<ThemeFont>,
    pub visibility: Option<Visibility>,
}

impl DeckPatch {
    /// Whether the patch changes nothing.
    pub fn is_empty(&self) -> bool {
        *self == DeckPatch::default()
    }
}

/// Keys both create and update accept.
const DECK_FIELDS: &[&str] = &[
    "title",
    "description",
    "width",
    "height",
    "margin",
    "theme_color",
    "theme_font",
    "visibility",
];

/// Deck fields the API returns but never takes (besides the [`DeckLook`] settings that
/// [`DECK_FIELDS`] does not name).
const READ_ONLY_FIELDS: &[&str] = &[
    "id",
    "url",
    "urls",
    "slug",
    "slide_count",
    "css",
    "thumbnail_url",
    "created_at",
    "updated_at",
    "trashed_at",
    "deck_html",
    "slide_ids",
    "owner",
];

impl NewDeck {
    /// Validates a `create_deck` body (absent, `null` or an object).
    pub fn from_json(body: Option<Value>) -> Result<Self> {
        let mut fields = Fields::new(body, "request body")?;
        fields.reject_unknown(|k| DECK_FIELDS.contains(&k) || k == "slides")?;
        let common = fields.deck_fields()?;
        let slides = match fields.take("slides") {
            None | Some(Value::Null) => vec![NewSlide {
                html: SlideHtml::blank(),
                notes: None,
            }],
            Some(Value::Array(items)) if items.is_empty() => {
                return Err(Error::invalid("slides must contain at least one slide"));
            }
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(i, item)| parse_new_slide(i, item))
                .collect::<Result<_>>()?,
            Some(_) => return Err(Error::invalid("slides must be an array of slide objects")),
        };
        Ok(NewDeck {
            look: DeckLook::default().patched(&common),
            title: common.title.unwrap_or_else(|| defaults::TITLE.to_string()),
            description: common.description.unwrap_or_default(),
            visibility: common.visibility.unwrap_or(defaults::VISIBILITY),
            css: defaults::CSS.to_string(),
            slides,
        })
    }
}

impl DeckPatch {
    /// Validates an `update_deck` body. Read-only and unknown keys answer 422.
    pub fn from_json(body: Option<Value>) -> Result<Self> {
        let mut fields = Fields::new(body, "request body")?;
        fields.reject_unknown(|k| DECK_FIELDS.contains(&k))?;
        fields.deck_fields()
    }
}

fn parse_new_slide(index: usize, item: Value) -> Result<NewSlide> {
    let mut fields = Fields::new(Some(item), &format!("slides[{index}]"))?;
    fields.reject_unknown(|k| k == "html" || k == "notes")?;
    let html = match fields.take("html") {
        None | Some(Value::Null) => SlideHtml::blank(),
        Some(Value::String(s)) => SlideHtml::parse(&s)
            .map_err(|e| Error::invalid(format!("slides[{index}].html: {e}")))?,
        Some(_) => {
            return Err(Error::invalid(format!(
                "slides[{index}].html must be a string"
            )));
        }
    };
    let notes = parse_notes(&format!("slides[{index}].notes"), fields.take("notes"))?;
    Ok(NewSlide { html, notes })
}

/// Parses an optional `notes` value: a string up to 10,000 characters, or null.
pub fn parse_notes(name: &str, value: Option<Value>) -> Result<Option<Notes>> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Notes::parse(s)
            .map(Some)
            .map_err(|e| Error::invalid(format!("{name}: {e}"))),
        Some(_) => Err(Error::invalid(format!("{name} must be a string or null"))),
    }
}

/// A JSON object being taken apart field by field, with messages that name the field.
pub struct Fields {
    map: Map<String, Value>,
    context: String,
}

impl Fields {
    /// Starts from an optional body: absent and `null` are an empty object; anything but an
    /// object answers 422.
    pub fn new(body: Option<Value>, context: &str) -> Result<Self> {
        let map = match body {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(Error::invalid(format!("{context} must be a JSON object"))),
        };
        Ok(Fields {
            map,
            context: context.to_string(),
        })
    }

    /// Fails on the first key `allowed` refuses, saying whether it is read-only or unknown.
    pub fn reject_unknown(&self, allowed: impl Fn(&str) -> bool) -> Result<()> {
        let mut bad: Vec<&String> = self.map.keys().filter(|k| !allowed(k)).collect();
        bad.sort();
        match bad.first() {
            None => Ok(()),
            Some(k)
                if (READ_ONLY_FIELDS.contains(&k.as_str()) || DeckLook::has(k))
                    && self.context == "request body" =>
            {
                Err(Error::invalid(format!("field '{k}' is read-only")))
            }
            Some(k) if k.as_str() == "slides" => Err(Error::invalid(
                "field 'slides' is not accepted here; use the slide operations",
            )),
            Some(k) => Err(Error::invalid(format!(
                "unknown field '{k}' in {}",
                self.context
            ))),
        }
    }

    /// Removes and returns a field.
    pub fn take(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key)
    }

    fn string(&mut self, key: &str, max_chars: usize) -> Result<Option<String>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) if s.chars().count() <= max_chars => Ok(Some(s)),
            Some(Value::String(_)) => Err(Error::invalid(format!(
                "{key} must be at most {max_chars} characters"
            ))),
            Some(_) => Err(Error::invalid(format!("{key} must be a string"))),
        }
    }

    fn canvas_side(&mut self, key: &str) -> Result<Option<i64>> {
        let msg = || Error::invalid(format!("{key} must be an integer >= 1"));
        match self.take(key) {
            None => Ok(None),
            Some(Value::Number(n)) => {
                let v = n.as_i64().ok_or_else(msg)?;
                if v < 1 {
                    return Err(msg());
                }
                if v > MAX_CANVAS_PX {
                    return Err(Error::invalid(format!(
                        "{key} must be at most {MAX_CANVAS_PX}"
                    )));
                }
                Ok(Some(v))
            }
            Some(_) => Err(msg()),
        }
    }

    fn fraction(&mut self, key: &str, max: f64) -> Result<Option<f64>> {
        let msg = || Error::invalid(format!("{key} must be a number from 0 to {max}"));
        match self.take(key) {
            None => Ok(None),
            Some(Value::Number(n)) => {
                let v = n.as_f64().ok_or_else(msg)?;
                if !(0.0..=max).contains(&v) {
                    return Err(msg());
                }
                Ok(Some(v))
            }
            Some(_) => Err(msg()),
        }
    }

    fn one_of<T>(
        &mut self,
        key: &str,
        parse: fn(&str) -> Option<T>,
        list: fn() -> String,
    ) -> Result<Option<T>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => parse(&s)
                .map(Some)
                .ok_or_else(|| Error::invalid(format!("{key} must be one of: {}", list()))),
            Some(_) => Err(Error::invalid(format!(
                "{key} must be a string, one of: {}",
                list()
            ))),
        }
    }

    /// The deck fields shared by create and update.
    fn deck_fields(&mut self) -> Result<DeckPatch> {
        Ok(DeckPatch {
            title: self.string("title", MAX_TITLE_CHARS)?,
            description: self.string("description", MAX_DESCRIPTION_CHARS)?,
            width: self.canvas_side("width")?,
            height: self.canvas_side("height")?,
            margin: self.fraction("margin", 1.0)?,
            theme_color: self.one_of("theme_color", ThemeColor::parse, ThemeColor::list)?,
            theme_font: self.one_of("theme_font", ThemeFont::parse, ThemeFont::list)?,
            visibility: self.one_of("visibility", Visibility::parse, Visibility::list)?,
        })
    }
}

/// Longest slug, in characters.
const MAX_SLUG_CHARS: usize = 60;

/// The URL-safe base slug of a title: lowercase ASCII letters and digits joined by single
/// hyphens; `deck` when nothing is left.
pub fn slugify(title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            if slug.len() >= MAX_SLUG_CHARS {
                break;
            }
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "deck".to_string()
    } else {
        slug.to_string()
    }
}

/// The slug rule: a deck's slug is `base` (its title's) when the owner has no deck with it,
/// else `base-n` for the owner's next number of that base (2, 3, ...; the store keeps the
/// counter, so a new deck never scans the others), skipping slugs taken meanwhile (a deck
/// titled "Intro 2" holds `intro-2`). This is the candidate for number `n`.
pub fn numbered_slug(base: &str, n: i64) -> String {
    format!("{base}-{n}")
}

#[cfg(test)]
mod tests;
