//! The request bodies of the REST API as the OpenAPI description shows them.
//!
//! Handlers read bodies as JSON and hand them to the core's parsers (`NewDeck::from_json`,
//! `NewExport::from_json`, ...), which own the rules and their error messages; these types
//! only describe that wire format, field by field, with the interface's limits. Every body
//! rejects unknown keys (`additionalProperties: false`), as the parsers do; the tests in
//! `tests/api/openapi.rs` send each documented body and check that the parser accepts it.

use lectern_core::deck::{ThemeColor, ThemeFont, Visibility};
use serde::Serialize;
use utoipa::ToSchema;

/// One slide of a new deck.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSlideBody {
    /// One `<section>` element, no nested sections; omitted: a blank slide.
    #[schema(required = false, example = "<section><h2>Hello</h2></section>")]
    pub html: String,
    /// Speaker notes, up to 10,000 characters, or null.
    #[schema(max_length = 10000)]
    pub notes: Option<String>,
}

/// `create_deck` (4.3): every field optional.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateDeckBody {
    /// Up to 255 characters.
    #[schema(required = false, max_length = 255)]
    pub title: String,
    /// Up to 5,000 characters.
    #[schema(required = false, max_length = 5000)]
    pub description: String,
    /// Canvas width in pixels; default 1280.
    #[schema(required = false, minimum = 1, maximum = 2147483647)]
    pub width: i64,
    /// Canvas height in pixels; default 720.
    #[schema(required = false, minimum = 1, maximum = 2147483647)]
    pub height: i64,
    /// Space around the slide content, 0..1.
    #[schema(required = false, minimum = 0.0, maximum = 1.0)]
    pub margin: f64,
    #[schema(required = false)]
    pub theme_color: ThemeColor,
    #[schema(required = false)]
    pub theme_font: ThemeFont,
    /// Who can see the deck; default `self`.
    #[schema(required = false)]
    pub visibility: Visibility,
    /// The slides, at least one; omitted: one blank slide.
    #[schema(required = false, min_items = 1)]
    pub slides: Vec<NewSlideBody>,
}

/// `update_deck` (4.3): any of the deck fields; `slides` and read-only keys are rejected.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateDeckBody {
    #[schema(required = false, max_length = 255)]
    pub title: String,
    #[schema(required = false, max_length = 5000)]
    pub description: String,
    #[schema(required = false, minimum = 1, maximum = 2147483647)]
    pub width: i64,
    #[schema(required = false, minimum = 1, maximum = 2147483647)]
    pub height: i64,
    #[schema(required = false, minimum = 0.0, maximum = 1.0)]
    pub margin: f64,
    #[schema(required = false)]
    pub theme_color: ThemeColor,
    #[schema(required = false)]
    pub theme_font: ThemeFont,
    #[schema(required = false)]
    pub visibility: Visibility,
}

/// `add_slide` (4.4): every field optional; at most one insert field.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddSlideBody {
    /// One `<section>`, no nested sections; omitted: an empty section.
    #[schema(required = false)]
    pub html: String,
    /// Speaker notes, up to 10,000 characters, or null.
    #[schema(max_length = 10000)]
    pub notes: Option<String>,
    /// Insert before this slide (joins its vertical group).
    #[schema(required = false)]
    pub insert_before_slide_id: String,
    /// Insert after this slide (joins its vertical group).
    #[schema(required = false)]
    pub insert_after_slide_id: String,
}

/// `remove_slides` (4.4).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoveSlidesBody {
    /// 1..200 unique slide ids.
    #[schema(min_items = 1, max_items = 200)]
    pub slide_ids: Vec<String>,
}

/// `update_slide` (4.4): `html` and/or `notes`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSlideBody {
    /// The complete new `<section>`; omitted keeps the current one.
    #[schema(required = false)]
    pub html: String,
    /// New notes (up to 10,000 characters), or null to clear; omitted keeps them.
    #[schema(max_length = 10000)]
    pub notes: Option<String>,
}

/// `move_slides` (4.4): exactly one of the insert fields.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveSlidesBody {
    /// 1..200 unique slide ids; the order given is the resulting order.
    #[schema(min_items = 1, max_items = 200)]
    pub slide_ids: Vec<String>,
    /// Target slide (not moved).
    #[schema(required = false)]
    pub insert_before_slide_id: String,
    /// Target slide (not moved).
    #[schema(required = false)]
    pub insert_after_slide_id: String,
}

/// `group_slides` (an extension): exactly one of the two target fields.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GroupSlidesBody {
    /// 1..200 unique slide ids; the order given is the resulting order.
    #[schema(min_items = 1, max_items = 200)]
    pub slide_ids: Vec<String>,
    /// The slides go directly below this one, in its vertical group (made when it has none).
    #[schema(required = false)]
    pub below_slide_id: String,
    /// The slides go right after this slide's stack (it and its vertical group), each as a
    /// horizontal slide.
    #[schema(required = false)]
    pub after_stack_of_slide_id: String,
}

/// `create_deck_share` (4.5): every field optional.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateShareBody {
    #[schema(required = false, max_length = 255)]
    pub name: String,
    /// Recipients enter it before viewing; never returned.
    #[schema(required = false, max_length = 255)]
    pub password: String,
    /// ISO 8601 date-time after which the link expires, or null.
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
    /// E-mail the owner on the first view through the link.
    #[schema(required = false)]
    pub notify_on_view: bool,
}

/// The file an export produces: `pptx` (PowerPoint) is an extension of the interface.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Pdf,
    Zip,
    Pptx,
}

/// `create_deck_export` (4.6): the PDF options are rejected with `zip` and `pptx`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateExportBody {
    pub format: ExportFormat,
    /// PDF only: page margin, 0..0.2.
    #[schema(required = false, minimum = 0.0, maximum = 0.2)]
    pub margin: f64,
    /// PDF only: print slide numbers.
    #[schema(required = false)]
    pub slide_number: bool,
    /// PDF only: print speaker notes.
    #[schema(required = false)]
    pub slide_notes: bool,
    /// PDF only: one page per fragment step.
    #[schema(required = false)]
    pub separate_fragments: bool,
}

#[cfg(test)]
mod tests {
    use lectern_core::service::shares as share;
    use lectern_core::{deck, html, slide};
    use serde_json::Value;

    /// The limits written in the body schemas above are the core's constants: utoipa takes
    /// only literals, so this test is what keeps the two one fact.
    #[test]
    fn body_limits_are_the_cores_constants() {
        let doc = serde_json::to_value(crate::api::openapi::api_doc()).unwrap();
        let field =
            |body: &str, name: &str| doc["components"]["schemas"][body]["properties"][name].clone();
        let max_len = |v: Value| v["maxLength"].as_u64().unwrap() as usize;
        for body in ["CreateDeckBody", "UpdateDeckBody"] {
            assert_eq!(
                max_len(field(body, "title")),
                deck::MAX_TITLE_CHARS,
                "{body}"
            );
            assert_eq!(
                max_len(field(body, "description")),
                deck::MAX_DESCRIPTION_CHARS,
                "{body}"
            );
            for side in ["width", "height"] {
                assert_eq!(
                    field(body, side)["maximum"].as_i64(),
                    Some(deck::MAX_CANVAS_PX),
                    "{body}"
                );
            }
        }
        for body in ["NewSlideBody", "AddSlideBody", "UpdateSlideBody"] {
            // The HTML limit (`html::MAX_SLIDE_HTML_BYTES`) counts bytes, which a JSON Schema
            // `maxLength` (characters) cannot say; documenting it made the fuzzer send bodies
            // over the 10 MiB request limit.
            assert!(field(body, "html")["maxLength"].is_null(), "{body}");
            assert_eq!(
                max_len(field(body, "notes")),
                html::MAX_NOTES_CHARS,
                "{body}"
            );
        }
        for body in ["RemoveSlidesBody", "MoveSlidesBody"] {
            let ids = field(body, "slide_ids");
            assert_eq!(
                ids["maxItems"].as_u64().unwrap() as usize,
                slide::MAX_SLIDE_IDS,
                "{body}"
            );
        }
        for name in ["name", "password"] {
            assert_eq!(
                max_len(field("CreateShareBody", name)),
                share::MAX_SHARE_TEXT
            );
        }
    }
}

/// `upload_media` as `multipart/form-data`.
#[derive(Serialize, ToSchema)]
pub struct MediaUploadForm {
    /// The image: PNG, JPEG, GIF, WebP or SVG, at most 20 MiB.
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
    /// The file's name (else the file part's own file name); reduced to a safe file name.
    #[schema(required = false)]
    pub name: String,
}
