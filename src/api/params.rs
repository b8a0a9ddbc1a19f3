//! The parameters many REST operations share, each declared once for the OpenAPI document
//! (an operation lists them: `params(DeckIdParam, IfMatchParam)`). The extractors in
//! `http::extract` read them.

#![allow(dead_code)] // the types exist for their OpenAPI declarations only

use utoipa::IntoParams;

/// `{deck_id}`: the deck of a slide, share, export or revision path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct DeckIdParam {
    /// The deck id, from list_decks or create_deck (an integer; its decimal string is accepted too)
    #[param(minimum = 1)]
    deck_id: i64,
}

/// `{id}` on a deck's own paths (`/v1/decks/{id}`, its trash and recover).
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct DeckAsIdParam {
    /// The deck id, from list_decks or create_deck (an integer; its decimal string is accepted too)
    #[param(minimum = 1)]
    id: i64,
}

/// `{slide_id}`: a slide of the deck.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct SlideIdParam {
    /// A slide id from list_slides or add_slide (opaque text, not the slide number)
    #[param(min_length = 1)]
    slide_id: String,
}

/// `If-Match`: the precondition of a write.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IfMatchParam {
    /// Only write when the deck is still at this entity tag ("<deck id>-<revision>", from ETag) or *
    #[param(rename = "If-Match")]
    if_match: Option<String>,
}

/// `page` and `per_page` of the deck-like lists (decks, trash, team, revisions, media).
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Page number, from 1
    #[param(minimum = 1, default = 1)]
    page: Option<u32>,
    /// Items per page, 1 to 100
    #[param(minimum = 1, maximum = 100, default = 20)]
    per_page: Option<u32>,
}

/// `page` and `per_page` of `list_slides`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SlidePageParams {
    /// Page number, from 1
    #[param(minimum = 1, default = 1)]
    page: Option<u32>,
    /// Items per page, 1 to 200
    #[param(minimum = 1, maximum = 200, default = 50)]
    per_page: Option<u32>,
}

/// `include_deck_html` of `get_deck` and `get_team_deck`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct IncludeHtmlParam {
    /// Also return deck_html: every slide's <section> in presentation order (vertical groups wrapped in an outer <section>)
    #[param(default = false)]
    include_deck_html: Option<bool>,
}
