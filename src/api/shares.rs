//! The share link operations (interface 4.5).

use crate::api::bodies::CreateShareBody;
use crate::api::params::*;
use crate::api::responses::*;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use lectern_core::service::shares::{NewShare, ShareView};
use serde::Serialize;

use crate::api::{Envelope, data};
use crate::http::error::ApiError;
use crate::http::extract::{Auth, IdPath, JsonBody, Manage, ShareIdPath};
use crate::state::AppState;

/// `meta` of the share list: the number of links.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TotalMeta {
    pub total: usize,
}

/// `list_deck_shares`: the deck's private share links, newest first.
#[utoipa::path(get, path = "/v1/decks/{deck_id}/share", operation_id = "list_deck_shares", tag = "sharing",
    params(DeckIdParam),
    responses((status = 200, description = "Success", body = Envelope<Vec<ShareView>, TotalMeta>), Unauthorized,
        Forbidden, NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn list_deck_shares(
    State(state): State<AppState>,
    Auth(caller): Auth,
    IdPath(deck_id): IdPath,
) -> Result<Json<Envelope<Vec<ShareView>, TotalMeta>>, ApiError> {
    let links = state.core.list_deck_shares(&caller, deck_id).await?;
    Ok(Json(Envelope {
        meta: Some(TotalMeta { total: links.len() }),
        data: links,
    }))
}

/// `create_deck_share`: a new private link to a `self` or `team` deck.
#[utoipa::path(post, path = "/v1/decks/{deck_id}/share", operation_id = "create_deck_share",
    request_body(content = Option<CreateShareBody>, content_type = "application/json"), tag = "sharing",
    params(DeckIdParam),
    responses((status = 201, description = "Created", body = Envelope<ShareView>), Unauthorized,
        Forbidden, NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn create_deck_share(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<(StatusCode, Json<Envelope<ShareView>>), ApiError> {
    let new = NewShare::from_json(body)?;
    let link = state.core.create_deck_share(&caller, deck_id, new).await?;
    Ok((StatusCode::CREATED, data(link)))
}

/// `revoke_deck_share`: removes a link; 204.
#[utoipa::path(delete, path = "/v1/decks/{deck_id}/share/{id}", operation_id = "revoke_deck_share", tag = "sharing",
    params(DeckIdParam, ("id" = i64, Path, minimum = 1, description = "The share link id, from list_deck_shares (an integer; its decimal string is accepted too)")),
    responses((status = 204, description = "Done; no body"), Unauthorized, Forbidden,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn revoke_deck_share(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    ShareIdPath(share_id): ShareIdPath,
) -> Result<StatusCode, ApiError> {
    state
        .core
        .revoke_deck_share(&caller, deck_id, share_id)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
