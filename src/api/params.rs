//! The parameters many REST operations share, each declared once for the OpenAPI document
//! (an operation lists them: `params(DeckIdParam, IfMatchParam)`). The extractors in
//! `http::extract` read them.

#![allow(dead_code)] // the types exist for their OpenAPI declarations only

use utoipa::IntoParams;

/// `{deck_id}`: the deck of a slide, share, export or revision path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct DeckIdParam {
    /// The deck id (an integer; its decimal string is accepted too)
    #[param(minimum = 1)]
    deck_id: i64,
}

/// `{id}` on a deck's own paths (`/v1/decks/{id}`, its trash and recover).
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct DeckAsIdParam {
    /// The deck id (an integer; its decimal string is accepted too)
    #[param(minimum = 1)]
    id: i64,
}

/// `{slide_id}`: a slide of the deck.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct SlideIdParam {
    /// A slide id from list_slides (not the slide number)
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
