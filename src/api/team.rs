//! The team operations (interface 4.7).

use axum::Json;
use axum::extract::State;
use lectern_core::params::{Paging, parse_bool};
use lectern_core::views::{TeamDeckSummary, TeamDeckView};

use crate::api::params::*;
use crate::api::responses::*;
use crate::api::{Envelope, Tagged, page, tagged};
use crate::http::error::ApiError;
use crate::http::extract::{Auth, IdPath, QueryParams};
use crate::state::AppState;

/// `list_team_decks`: the team's `team` and `all` decks, newest first.
#[utoipa::path(get, path = "/v1/team/decks", operation_id = "list_team_decks", tag = "team",
    params(PageParams),
    responses((status = 200, description = "Success", body = Envelope<Vec<TeamDeckSummary>>), Unauthorized,
        Forbidden, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn list_team_decks(
    State(state): State<AppState>,
    Auth(caller): Auth,
    query: QueryParams,
) -> Result<Json<Envelope<Vec<TeamDeckSummary>>>, ApiError> {
    let paging = Paging::parse(query.get("page"), query.get("per_page"), Paging::DECKS)?;
    Ok(page(state.core.list_team_decks(&caller, paging).await?))
}

/// `get_team_deck`: one team deck, with `deck_html` when `include_deck_html=true`.
#[utoipa::path(get, path = "/v1/team/decks/{id}", operation_id = "get_team_deck", tag = "team",
    params(("id" = i64, Path, minimum = 1, description = "The deck id, from list_team_decks (an integer; its decimal string is accepted too)"), IncludeHtmlParam),
    responses((status = 200, description = "Success", body = Envelope<TeamDeckView>, headers(("ETag" = String, description = "The deck's revision as a strong entity tag, \"<deck id>-<revision>\", for If-Match"))), Unauthorized,
        Forbidden, NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn get_team_deck(
    State(state): State<AppState>,
    Auth(caller): Auth,
    IdPath(id): IdPath,
    query: QueryParams,
) -> Result<Tagged<TeamDeckView>, ApiError> {
    let include = parse_bool("include_deck_html", query.get("include_deck_html"))?;
    let deck = state.core.get_team_deck(&caller, id, include).await?;
    Ok(tagged(deck.deck.meta.id, deck.deck.meta.revision, deck))
}
