//! The deck operations (interface 4.3).

use crate::api::bodies::{CreateDeckBody, UpdateDeckBody};
use crate::api::params::*;
use crate::api::responses::*;
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::IntoResponse;
use lectern_core::deck::{DeckPatch, NewDeck};
use lectern_core::params::{Paging, parse_bool};
use lectern_core::views::{CreatedDeck, DeckMeta, DeckSummary, DeckView, TrashedDeckSummary};

use crate::api::{Envelope, data, page};
use crate::http::error::ApiError;
use crate::http::extract::{Auth, IdPath, IfMatch, JsonBody, Manage, QueryParams};
use crate::state::AppState;

fn paging(query: &QueryParams) -> Result<Paging, ApiError> {
    Ok(Paging::parse(
        query.get("page"),
        query.get("per_page"),
        Paging::DECKS,
    )?)
}

/// `list_decks`: the caller's decks outside the trash, newest first.
#[utoipa::path(get, path = "/v1/decks", operation_id = "list_decks", tag = "decks",
    params(PageParams),
    responses((status = 200, description = "Success", body = Envelope<Vec<DeckSummary>>), Unauthorized, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn list_decks(
    State(state): State<AppState>,
    Auth(caller): Auth,
    query: QueryParams,
) -> Result<Json<Envelope<Vec<DeckSummary>>>, ApiError> {
    Ok(page(state.core.list_decks(&caller, paging(&query)?).await?))
}

/// `create_deck`: a new deck with the given (or one blank) slide.
#[utoipa::path(post, path = "/v1/decks", operation_id = "create_deck",
    request_body(content = Option<CreateDeckBody>, content_type = "application/json"), tag = "decks",
    responses((status = 201, description = "Created", body = Envelope<CreatedDeck>), Unauthorized,
        Forbidden, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn create_deck(
    State(state): State<AppState>,
    Manage(caller): Manage,
    JsonBody(body): JsonBody,
) -> Result<(StatusCode, Json<Envelope<CreatedDeck>>), ApiError> {
    let new = lectern_core::cpu::parse_body(body, NewDeck::from_json).await?;
    Ok((
        StatusCode::CREATED,
        data(state.core.create_deck(&caller, new).await?),
    ))
}

/// `list_trashed_decks`: the caller's trashed decks, most recently trashed first.
#[utoipa::path(get, path = "/v1/decks/trashed", operation_id = "list_trashed_decks", tag = "decks",
    params(PageParams),
    responses((status = 200, description = "Success", body = Envelope<Vec<TrashedDeckSummary>>), Unauthorized, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn list_trashed_decks(
    State(state): State<AppState>,
    Auth(caller): Auth,
    query: QueryParams,
) -> Result<Json<Envelope<Vec<TrashedDeckSummary>>>, ApiError> {
    Ok(page(
        state
            .core
            .list_trashed_decks(&caller, paging(&query)?)
            .await?,
    ))
}

/// `get_deck`: one deck, with `deck_html` when `include_deck_html=true`.
#[utoipa::path(get, path = "/v1/decks/{id}", operation_id = "get_deck", tag = "decks",
    params(DeckAsIdParam, IncludeHtmlParam),
    responses((status = 200, description = "Success", body = Envelope<DeckView>, headers(("ETag" = String, description = "The deck's revision as a strong entity tag, \"<deck id>-<revision>\", for If-Match"))), Unauthorized,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn get_deck(
    State(state): State<AppState>,
    Auth(caller): Auth,
    IdPath(id): IdPath,
    query: QueryParams,
) -> Result<impl IntoResponse, ApiError> {
    let include = parse_bool("include_deck_html", query.get("include_deck_html"))?;
    let deck = state.core.readable_deck(&caller, id).await?;
    let etag = lectern_core::revision::etag(deck.id, deck.revision);
    let body = if include {
        serialized(&state.core.deck_view(&deck, true).await?)
    } else if let Some(kept) = state.deck_bodies.get(&deck) {
        kept
    } else {
        let body = serialized(&state.core.deck_view(&deck, false).await?);
        state.deck_bodies.keep(deck, body.clone());
        body
    };
    let json = HeaderValue::from_static("application/json");
    Ok(([(header::ETAG, etag)], [(header::CONTENT_TYPE, json)], body))
}

/// `get_deck`'s body, `{"data": view}`.
fn serialized(view: &DeckView) -> Bytes {
    Bytes::from(
        serde_json::to_vec(&Envelope {
            data: view,
            meta: None::<()>,
        })
        .expect("a deck view serializes"),
    )
}

/// `update_deck`: changes the given deck fields.
#[utoipa::path(patch, path = "/v1/decks/{id}", operation_id = "update_deck",
    request_body(content = Option<UpdateDeckBody>, content_type = "application/json"), tag = "decks",
    params(DeckAsIdParam, IfMatchParam),
    responses((status = 200, description = "Success", body = Envelope<DeckMeta>), Unauthorized,
        Forbidden, NotFound, PreconditionFailed, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn update_deck(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(id): IdPath,
    IfMatch(precondition): IfMatch,
    JsonBody(body): JsonBody,
) -> Result<Json<Envelope<DeckMeta>>, ApiError> {
    let patch = DeckPatch::from_json(body)?;
    Ok(data(
        state
            .core
            .update_deck(&caller, id, patch, precondition)
            .await?,
    ))
}

/// `trash_deck`: moves the deck to the trash; 204.
#[utoipa::path(post, path = "/v1/decks/{id}/trash", operation_id = "trash_deck", tag = "decks",
    params(DeckAsIdParam),
    responses((status = 204, description = "Done; no body"), Unauthorized, Forbidden,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn trash_deck(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(id): IdPath,
) -> Result<StatusCode, ApiError> {
    state.core.trash_deck(&caller, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `recover_deck`: brings the deck back from the trash; 204.
#[utoipa::path(post, path = "/v1/decks/{id}/recover", operation_id = "recover_deck", tag = "decks",
    params(DeckAsIdParam),
    responses((status = 204, description = "Done; no body"), Unauthorized, Forbidden,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn recover_deck(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(id): IdPath,
) -> Result<StatusCode, ApiError> {
    state.core.recover_deck(&caller, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
