//! The pages behind `profile_url` and a team's `url`: `/{username}` lists the account's
//! public decks, `/teams/{team}` the team members' public decks (and, for a signed-in
//! member, the decks shown to the team). Newest first, paged with `?page=`; trashed decks
//! never appear. The core decides what is listed; this module only draws it.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use lectern_core::deck::Visibility;
use lectern_core::params::Paging;

use crate::http::extract::QueryParams;
use crate::http::session::MaybeSession;
use crate::state::AppState;
use crate::web::cards::{Card, deck_list};
use crate::web::page::{core_error_page, error_page, escape, page};

/// Decks per page.
const PER_PAGE: &str = "24";

fn paging(query: &QueryParams) -> Option<Paging> {
    Paging::parse(query.get("page"), Some(PER_PAGE), Paging::DECKS).ok()
}

/// GET `/{username}`: the account's public decks. A segment that cannot be an account
/// name is an unknown route (JSON 404, as for every path the service does not serve).
pub async fn profile_page(
    State(state): State<AppState>,
    Path(username): Path<String>,
    query: QueryParams,
) -> Response {
    if !lectern_core::service::is_username_shaped(&username) {
        return crate::http::error::ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no route for GET /{username}"),
        )
        .into_response();
    }
    let Some(paging) = paging(&query) else {
        return error_page(StatusCode::NOT_FOUND, "There is no such page.");
    };
    let profile = match state.core.profile(&username, paging).await {
        Ok(p) => p,
        Err(e) => return core_error_page(e, "a profile"),
    };
    let cards = profile
        .decks
        .items
        .iter()
        .map(|d| {
            Card {
                url: &d.url,
                thumbnail: &d.thumbnail_url,
                title: &d.title,
                description: &d.description,
                ..Card::default()
            }
            .html()
        })
        .collect();
    let name = if profile.name.is_empty() {
        &profile.username
    } else {
        &profile.name
    };
    let mut body = format!("<p class=\"byline\">@{}</p>", escape(&profile.username));
    if !profile.description.is_empty() {
        body.push_str(&format!("<p>{}</p>", escape(&profile.description)));
    }
    body.push_str("<h2>Public decks</h2>");
    body.push_str(&deck_list(
        cards,
        &profile.decks.meta,
        "",
        "No public decks yet.",
    ));
    page(StatusCode::OK, name, &body)
}

/// GET `/teams/{team}`: the team's public decks, and its `team` decks for a signed-in member.
pub async fn team_page(
    State(state): State<AppState>,
    session: MaybeSession,
    Path(team): Path<String>,
    query: QueryParams,
) -> Response {
    let Some(paging) = paging(&query) else {
        return error_page(StatusCode::NOT_FOUND, "There is no such page.");
    };
    let visitor = session.0.as_ref().map(|(_, info)| info);
    let team = match state.core.team_profile(visitor, &team, paging).await {
        Ok(t) => t,
        Err(e) => return core_error_page(e, "a team page"),
    };
    let cards = team
        .decks
        .items
        .iter()
        .map(|d| {
            let facts = format!(
                "<span class=\"owner\">by {}{}</span>",
                escape(&d.owner.name),
                if d.visibility == Visibility::Team {
                    " · team only"
                } else {
                    ""
                }
            );
            Card {
                url: &d.url,
                thumbnail: &d.thumbnail_url,
                title: &d.title,
                description: &d.description,
                facts,
                ..Card::default()
            }
            .html()
        })
        .collect();
    let heading = if team.member {
        "The team's decks"
    } else {
        "Public decks"
    };
    let body = format!(
        "<p class=\"byline\">Team {}</p><h2>{heading}</h2>{}",
        escape(&team.slug),
        deck_list(cards, &team.decks.meta, "", "No decks to show yet.")
    );
    page(StatusCode::OK, &team.name, &body)
}
