//! The deck history (an extension of the interface): a deck's revisions and a slide's, the
//! deck as it was after one, and restoring it.

use axum::Json;
use axum::extract::State;
use lectern_core::params::Paging;
use lectern_core::views::{DeckMeta, RevisionDetailView, RevisionView};

use crate::api::params::*;
use crate::api::responses::*;
use crate::api::{Envelope, data, page};
use crate::http::error::{ApiError, ErrorBody};
use crate::http::extract::{Auth, IdPath, IfMatch, Manage, QueryParams, RevisionPath, SlideIdPath};
use crate::state::AppState;

/// `list_revisions`: the deck's revisions, newest first, paged (default 20, at most 100).
#[utoipa::path(get, path = "/v1/decks/{deck_id}/revisions", operation_id = "list_revisions", tag = "revisions",
    params(DeckIdParam, PageParams),
    responses((status = 200, description = "Success", body = Envelope<Vec<RevisionView>>), Unauthorized,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn list_revisions(
    State(state): State<AppState>,
    Auth(caller): Auth,
    IdPath(deck_id): IdPath,
    query: QueryParams,
) -> Result<Json<Envelope<Vec<RevisionView>>>, ApiError> {
    let paging = Paging::parse(query.get("page"), query.get("per_page"), Paging::DECKS)?;
    Ok(page(
        state.core.list_revisions(&caller, deck_id, paging).await?,
    ))
}

/// `get_revision`: the deck's settings and slides right after one revision.
#[utoipa::path(get, path = "/v1/decks/{deck_id}/revisions/{revision}", operation_id = "get_revision", tag = "revisions",
    params(DeckIdParam, ("revision" = i64, Path, minimum = 1, description = "A revision number from list_revisions")),
    responses((status = 200, description = "Success", body = Envelope<RevisionDetailView>), Unauthorized,
        (status = 404, description = "Not found (also a revision never made or no longer kept)", body = ErrorBody), Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn get_revision(
    State(state): State<AppState>,
    Auth(caller): Auth,
    IdPath(deck_id): IdPath,
    RevisionPath(revision): RevisionPath,
) -> Result<Json<Envelope<RevisionDetailView>>, ApiError> {
    Ok(data(
        state.core.get_revision(&caller, deck_id, revision).await?,
    ))
}

/// `restore`: makes the deck's settings and slides what they were after a revision, as one
/// new revision; answers the deck.
#[utoipa::path(post, path = "/v1/decks/{deck_id}/revisions/{revision}/restore", operation_id = "restore", tag = "revisions",
    params(DeckIdParam, ("revision" = i64, Path, minimum = 1, description = "The revision to bring back"),
        ("If-Match" = Option<String>, Header, description = "Only restore when the deck is still at this entity tag (\"<deck id>-<revision>\", from ETag) or *")),
    responses((status = 200, description = "Success", body = Envelope<DeckMeta>), Unauthorized, Forbidden,
        NotFound, PreconditionFailed, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn restore(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    RevisionPath(revision): RevisionPath,
    IfMatch(precondition): IfMatch,
) -> Result<Json<Envelope<DeckMeta>>, ApiError> {
    Ok(data(
        state
            .core
            .restore_revision(&caller, deck_id, revision, precondition)
            .await?,
    ))
}

/// `list_slide_revisions`: the revisions that added, changed, moved or removed one slide,
/// newest first, paged (default 20, at most 100).
#[utoipa::path(get, path = "/v1/decks/{deck_id}/slides/{slide_id}/revisions", operation_id = "list_slide_revisions", tag = "revisions",
    params(DeckIdParam, ("slide_id" = String, Path, description = "A slide id (also of a slide removed since)"), PageParams),
    responses((status = 200, description = "Success", body = Envelope<Vec<RevisionView>>), Unauthorized,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn list_slide_revisions(
    State(state): State<AppState>,
    Auth(caller): Auth,
    IdPath(deck_id): IdPath,
    SlideIdPath(slide_id): SlideIdPath,
    query: QueryParams,
) -> Result<Json<Envelope<Vec<RevisionView>>>, ApiError> {
    let paging = Paging::parse(query.get("page"), query.get("per_page"), Paging::DECKS)?;
    Ok(page(
        state
            .core
            .list_slide_revisions(&caller, deck_id, &slide_id, paging)
            .await?,
    ))
}
