//! The pages behind `profile_url` and a team's `url`: `/{username}` lists the account's
//! public decks, `/teams/{team}` the team members' public decks (and, for a signed-in
//! member, the decks shown to the team). Newest first, paged with `?page=`; trashed decks
//! never appear. The core decides what is listed; this module only draws it.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use lectern_core::deck::Visibility;
use lectern_core::params::{PageMeta, Paging};

use crate::app::AppState;
use crate::http::extract::QueryParams;
use crate::web::page::{error_page, escape, page};
use crate::web::session::MaybeSession;

/// Decks per page.
const PER_PAGE: &str = "24";

/// One deck as a card: thumbnail, title (a link to the deck) and description.
fn card(url: &str, thumbnail: &str, title: &str, description: &str, extra: &str) -> String {
    let title = if title.is_empty() { "Untitled" } else { title };
    format!(
        "<li class=\"deck-card\"><a href=\"{url}\"><img src=\"{thumb}\" alt=\"\" width=\"320\" height=\"180\" loading=\"lazy\">\
         <strong>{title}</strong></a>{extra}<p>{description}</p></li>",
        url = escape(url),
        thumb = escape(thumbnail),
        title = escape(title),
        description = escape(description),
    )
}

/// The list of cards and links to the newer and older pages.
fn deck_list(cards: Vec<String>, meta: &PageMeta, empty: &str) -> String {
    if cards.is_empty() && meta.page == 1 {
        return format!("<p>{}</p>", escape(empty));
    }
    let mut html = format!("<ul class=\"deck-cards\">{}</ul>", cards.concat());
    let mut nav = Vec::new();
    if meta.page > 1 {
        nav.push(format!(
            "<a rel=\"prev\" href=\"?page={}\">Newer</a>",
            meta.page - 1
        ));
    }
    if (meta.page as i64) * (meta.per_page as i64) < meta.total {
        nav.push(format!(
            "<a rel=\"next\" href=\"?page={}\">Older</a>",
            meta.page + 1
        ));
    }
    if !nav.is_empty() {
        html.push_str(&format!("<nav class=\"pager\">{}</nav>", nav.join(" · ")));
    }
    html
}

fn paging(query: &QueryParams) -> Option<Paging> {
    Paging::parse(query.get("page"), Some(PER_PAGE), Paging::DECKS).ok()
}

fn failed(e: lectern_core::Error, what: &str) -> Response {
    match e {
        lectern_core::Error::NotFound(m) => error_page(StatusCode::NOT_FOUND, &m),
        e => {
            tracing::error!(error = %e, "showing {what} failed");
            error_page(StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong.")
        }
    }
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
        Err(e) => return failed(e, "a profile"),
    };
    let cards = profile
        .decks
        .items
        .iter()
        .map(|d| card(&d.url, &d.thumbnail_url, &d.title, &d.description, ""))
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
        Err(e) => return failed(e, "a team page"),
    };
    let cards = team
        .decks
        .items
        .iter()
        .map(|d| {
            let by = format!(
                "<span class=\"owner\">by {}{}</span>",
                escape(&d.owner.name),
                if d.visibility == Visibility::Team {
                    " · team only"
                } else {
                    ""
                }
            );
            card(&d.url, &d.thumbnail_url, &d.title, &d.description, &by)
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
        deck_list(cards, &team.decks.meta, "No decks to show yet.")
    );
    page(StatusCode::OK, &team.name, &body)
}
