//! The slide operations (interface 4.4).

use crate::api::bodies::{AddSlideBody, MoveSlidesBody, RemoveSlidesBody, UpdateSlideBody};
use crate::api::params::*;
use crate::api::responses::*;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use lectern_core::params::Paging;
use lectern_core::slide::{AddSlide, MoveSlides, RemoveSlides, UpdateSlide};
use lectern_core::views::{SlideCount, SlidePlace, SlideSummary, SlideView};

use crate::api::{Envelope, Tagged, data, page, tagged};
use crate::http::error::ApiError;
use crate::http::extract::{Auth, IdPath, IfMatch, JsonBody, Manage, QueryParams, SlideIdPath};
use crate::state::AppState;

/// `list_slides`: slide summaries in presentation order, paged (default 50, at most 200).
#[utoipa::path(get, path = "/v1/decks/{deck_id}/slides", operation_id = "list_slides", tag = "slides",
    params(DeckIdParam, SlidePageParams),
    responses((status = 200, description = "Success", body = Envelope<Vec<SlideSummary>>), Unauthorized,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn list_slides(
    State(state): State<AppState>,
    Auth(caller): Auth,
    IdPath(deck_id): IdPath,
    query: QueryParams,
) -> Result<Json<Envelope<Vec<SlideSummary>>>, ApiError> {
    let paging = Paging::parse(query.get("page"), query.get("per_page"), Paging::SLIDES)?;
    Ok(page(
        state.core.list_slides(&caller, deck_id, paging).await?,
    ))
}

/// `add_slide`: a new slide at the end, or before/after a reference slide.
#[utoipa::path(post, path = "/v1/decks/{deck_id}/slides", operation_id = "add_slide",
    request_body(content = Option<AddSlideBody>, content_type = "application/json"), tag = "slides",
    params(DeckIdParam, IfMatchParam),
    responses((status = 201, description = "Created", body = Envelope<SlidePlace>), Unauthorized, Forbidden,
        NotFound, PreconditionFailed, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn add_slide(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    IfMatch(precondition): IfMatch,
    JsonBody(body): JsonBody,
) -> Result<(StatusCode, Json<Envelope<SlidePlace>>), ApiError> {
    let input = lectern_core::cpu::parse_body(body, AddSlide::from_json).await?;
    let place = state
        .core
        .add_slide(&caller, deck_id, input, precondition)
        .await?;
    Ok((StatusCode::CREATED, data(place)))
}

/// `remove_slides`: removes slides and their notes.
#[utoipa::path(delete, path = "/v1/decks/{deck_id}/slides", operation_id = "remove_slides",
    request_body(content = RemoveSlidesBody, content_type = "application/json"), tag = "slides",
    params(DeckIdParam, IfMatchParam),
    responses((status = 200, description = "Success", body = Envelope<SlideCount>), Unauthorized, Forbidden,
        NotFound, PreconditionFailed, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn remove_slides(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    IfMatch(precondition): IfMatch,
    JsonBody(body): JsonBody,
) -> Result<Json<Envelope<SlideCount>>, ApiError> {
    let input = RemoveSlides::from_json(body)?;
    Ok(data(
        state
            .core
            .remove_slides(&caller, deck_id, input, precondition)
            .await?,
    ))
}

/// `get_slide`: one slide with its html and notes.
#[utoipa::path(get, path = "/v1/decks/{deck_id}/slides/{slide_id}", operation_id = "get_slide", tag = "slides",
    params(DeckIdParam, SlideIdParam),
    responses((status = 200, description = "Success", body = Envelope<SlideView>, headers(("ETag" = String, description = "The deck's revision as a strong entity tag, \"<deck id>-<revision>\", for If-Match"))), Unauthorized,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn get_slide(
    State(state): State<AppState>,
    Auth(caller): Auth,
    IdPath(deck_id): IdPath,
    SlideIdPath(slide_id): SlideIdPath,
) -> Result<Tagged<SlideView>, ApiError> {
    let slide = state.core.get_slide(&caller, deck_id, &slide_id).await?;
    Ok(tagged(slide.deck_id, slide.revision, slide))
}

/// `update_slide`: replaces the html and/or notes; the id stays.
#[utoipa::path(patch, path = "/v1/decks/{deck_id}/slides/{slide_id}", operation_id = "update_slide",
    request_body(content = UpdateSlideBody, content_type = "application/json"), tag = "slides",
    params(DeckIdParam, SlideIdParam, IfMatchParam),
    responses((status = 200, description = "Success", body = Envelope<SlidePlace>), Unauthorized, Forbidden,
        NotFound, PreconditionFailed, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn update_slide(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    SlideIdPath(slide_id): SlideIdPath,
    IfMatch(precondition): IfMatch,
    JsonBody(body): JsonBody,
) -> Result<Json<Envelope<SlidePlace>>, ApiError> {
    let input = lectern_core::cpu::parse_body(body, UpdateSlide::from_json).await?;
    Ok(data(
        state
            .core
            .update_slide(&caller, deck_id, &slide_id, input, precondition)
            .await?,
    ))
}

/// `group_slides` (an extension for the editor): puts slides directly below another in its
/// vertical group (starting a group under a horizontal slide), or out of their group right
/// after a stack; what `move_slides` cannot express. Recorded as a `move_slides` revision.
#[utoipa::path(patch, path = "/v1/decks/{deck_id}/slides/group", operation_id = "group_slides",
    request_body(content = crate::api::bodies::GroupSlidesBody, content_type = "application/json"), tag = "slides",
    params(DeckIdParam, IfMatchParam),
    responses((status = 200, description = "Success", body = Envelope<SlideCount>), Unauthorized, Forbidden,
        NotFound, PreconditionFailed, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn group_slides(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    IfMatch(precondition): IfMatch,
    JsonBody(body): JsonBody,
) -> Result<Json<Envelope<SlideCount>>, ApiError> {
    let input = lectern_core::slide::GroupSlides::from_json(body)?;
    Ok(data(
        state
            .core
            .group_slides(&caller, deck_id, input, precondition)
            .await?,
    ))
}

/// `move_slides`: moves slides, in the given order, before or after a target slide.
#[utoipa::path(patch, path = "/v1/decks/{deck_id}/slides/move", operation_id = "move_slides",
    request_body(content = MoveSlidesBody, content_type = "application/json"), tag = "slides",
    params(DeckIdParam, IfMatchParam),
    responses((status = 200, description = "Success", body = Envelope<SlideCount>), Unauthorized, Forbidden,
        NotFound, PreconditionFailed, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn move_slides(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    IfMatch(precondition): IfMatch,
    JsonBody(body): JsonBody,
) -> Result<Json<Envelope<SlideCount>>, ApiError> {
    let input = MoveSlides::from_json(body)?;
    Ok(data(
        state
            .core
            .move_slides(&caller, deck_id, input, precondition)
            .await?,
    ))
}
