//! Share link pages: `/s/{id}?token=...` and `/s/{id}/fullscreen?token=...` present the deck
//! to anyone holding the link. A password link first shows a password form and sends no slide
//! before the right password; a signed HttpOnly cookie then keeps the visitor in. Each visitor
//! session counts one view.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use lectern_core::secret::Secret;
use lectern_core::service::shares::{SHARE_PASS_SECONDS, ShareProblem};
use lectern_core::store::ShareAccess;

use crate::http::extract::ClientAddress;
use crate::http::session::{cookie, set_cookie};
use crate::render::Mode;
use crate::state::AppState;
use crate::web::page::{error_page, hidden, page, see_other};
use crate::web::viewer::render;

fn pass_cookie(id: i64) -> String {
    format!("lectern_share_{id}")
}

fn viewed_cookie(id: i64) -> String {
    format!("lectern_viewed_{id}")
}

fn problem_page(problem: ShareProblem) -> Response {
    match problem {
        ShareProblem::NotFound => {
            error_page(StatusCode::NOT_FOUND, "There is no presentation here.")
        }
        ShareProblem::Revoked => error_page(
            StatusCode::GONE,
            "This share link was revoked by its owner.",
        ),
        ShareProblem::Expired => error_page(StatusCode::GONE, "This share link has expired."),
    }
}

fn password_form(token: &str, action: &str, wrong: bool, status: StatusCode) -> Response {
    let note = if wrong {
        "<p role=\"alert\">Wrong password.</p>"
    } else {
        ""
    };
    page(
        status,
        "Password required",
        &format!(
            "{note}<form method=\"post\" action=\"{action}\">{}\
             <p><label>Password <input name=\"password\" type=\"password\" required autofocus></label></p>\
             <p><button type=\"submit\">View presentation</button></p></form>",
            hidden("token", token)
        ),
    )
}

async fn open(state: &AppState, id: &str, token: &str) -> Result<ShareAccess, Response> {
    let share_id = lectern_core::ids::ShareId::parse("id", id).ok();
    match state.core.open_share(share_id, token).await {
        Ok(Ok(access)) => Ok(access),
        Ok(Err(problem)) => Err(problem_page(problem)),
        Err(e) => {
            tracing::error!(error = %e, "opening a share link failed");
            Err(error_page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong.",
            ))
        }
    }
}

/// Whether the visitor may see the link's deck: it has no password, or this browser gave it.
fn unlocked(state: &AppState, headers: &HeaderMap, access: &ShareAccess) -> bool {
    access.password_hash.is_none()
        || cookie(headers, &pass_cookie(access.id))
            .is_some_and(|c| state.core.share_pass_ok(access, c))
}

async fn show(
    state: &AppState,
    headers: &HeaderMap,
    id: &str,
    token: &str,
    mode: Mode,
) -> Response {
    let access = match open(state, id, token).await {
        Ok(a) => a,
        Err(page) => return page,
    };
    let action = match mode {
        Mode::Fullscreen => format!("/s/{}/fullscreen", access.id),
        _ => format!("/s/{}", access.id),
    };
    if !unlocked(state, headers, &access) {
        return password_form(token, &action, false, StatusCode::OK);
    }
    let viewed = match state.core.shared_deck(&access).await {
        Ok(v) => v,
        Err(_) => return problem_page(ShareProblem::NotFound),
    };
    let first_in_session = cookie(headers, &viewed_cookie(access.id)).is_none();
    if first_in_session && let Err(e) = state.core.record_share_view(&access).await {
        tracing::error!(error = %e, "counting a share view failed");
    }
    let links = [(
        "Fullscreen",
        format!("/s/{}/fullscreen?token={token}", access.id),
    )];
    let live = serde_json::json!({ "follow": format!("/s/{}/follow?token={token}", access.id) });
    let mut response = render(&viewed, mode, &links, live);
    if first_in_session {
        // A session cookie: the next visit in a new browser session counts again.
        let value = format!(
            "{}=1; Path=/s/{}; HttpOnly; SameSite=Lax",
            viewed_cookie(access.id),
            access.id
        );
        if let Ok(v) = value.parse() {
            response.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    response
}

/// GET `/s/{id}/follow?token=...`: where the presenter is, for the share page (the password
/// given on it, when the link has one).
pub async fn share_follow(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let token = q.get("token").map(String::as_str).unwrap_or("");
    let access = match open(&state, &id, token).await {
        Ok(a) => a,
        Err(page) => return page,
    };
    if !unlocked(&state, &headers, &access) {
        return problem_page(ShareProblem::NotFound);
    }
    match state.core.shared_deck(&access).await {
        Ok(viewed) => crate::api::events::presenter_stream(&state, viewed.deck.id),
        Err(_) => problem_page(ShareProblem::NotFound),
    }
}

/// GET `/s/{id}?token=...`.
pub async fn share_page(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let token = q.get("token").map(String::as_str).unwrap_or("");
    show(&state, &headers, &id, token, Mode::Default).await
}

/// GET `/s/{id}/fullscreen?token=...`.
pub async fn share_page_fullscreen(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let token = q.get("token").map(String::as_str).unwrap_or("");
    show(&state, &headers, &id, token, Mode::Fullscreen).await
}

async fn unlock(
    state: &AppState,
    address: std::net::IpAddr,
    id: &str,
    form: &HashMap<String, String>,
    fullscreen: bool,
) -> Response {
    let token = form.get("token").map(String::as_str).unwrap_or("");
    let access = match open(state, id, token).await {
        Ok(a) => a,
        Err(page) => return page,
    };
    let suffix = if fullscreen { "/fullscreen" } else { "" };
    let back = format!("/s/{}{suffix}?token={token}", access.id);
    let password = Secret::new(form.get("password").cloned().unwrap_or_default());
    let action = format!("/s/{}{suffix}", access.id);
    match state
        .core
        .try_share_password(&access, &password, address)
        .await
    {
        Ok(Ok(true)) => {}
        Ok(Ok(false)) => return password_form(token, &action, true, StatusCode::UNAUTHORIZED),
        Ok(Err(refused)) => {
            let mut response = error_page(
                StatusCode::TOO_MANY_REQUESTS,
                &format!(
                    "Too many password tries; try again in {} seconds.",
                    refused.retry_after
                ),
            );
            response.headers_mut().insert(
                header::RETRY_AFTER,
                header::HeaderValue::from(refused.retry_after),
            );
            return response;
        }
        Err(e) => {
            tracing::error!(error = %e, "checking a share password failed");
            return error_page(StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong.");
        }
    }
    let Some(pass) = state.core.share_pass(&access) else {
        return see_other(&back);
    };
    let mut response = see_other(&back);
    response.headers_mut().append(
        header::SET_COOKIE,
        set_cookie(state, &pass_cookie(access.id), &pass, SHARE_PASS_SECONDS),
    );
    response
}

/// POST `/s/{id}`: the password form.
pub async fn share_unlock(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    Path(id): Path<String>,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    unlock(&state, address, &id, &form, false).await
}

/// POST `/s/{id}/fullscreen`: the password form of the fullscreen page.
pub async fn share_unlock_fullscreen(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    Path(id): Path<String>,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    unlock(&state, address, &id, &form, true).await
}
