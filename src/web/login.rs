//! `/login` and `/logout`: the sign-in form (fields `username`, `password`), CSRF-protected
//! by a double-submit cookie before sign-in and by the session's token after it.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use lectern_core::oauth::SignInError;
use lectern_core::secret::{self, Secret};

use crate::http::extract::ClientAddress;
use crate::http::session::{
    LOGIN_CSRF_COOKIE, MaybeSession, SESSION_COOKIE, cookie, safe_next, set_cookie,
};
use crate::state::AppState;
use crate::web::page::{error_page, escape, hidden, page, see_other};

/// The sign-in form; `username` is filled in again after a failed try.
fn login_form(
    state: &AppState,
    next: &str,
    username: &str,
    message: Option<&str>,
    status: StatusCode,
) -> Response {
    let csrf = secret::random_alphanumeric(32);
    let note = message.map_or(String::new(), |m| {
        format!("<p role=\"alert\">{}</p>", escape(m))
    });
    let body = format!(
        "{note}<form method=\"post\" action=\"/login\">{}{}\
         <p><label>Username <input name=\"username\" autocomplete=\"username\" value=\"{}\" required></label></p>\
         <p><label>Password <input name=\"password\" type=\"password\" autocomplete=\"current-password\" required{}></label></p>\
         <p><button type=\"submit\">Sign in</button></p></form>",
        hidden("csrf_token", &csrf),
        hidden("next", next),
        escape(username),
        // After a failed try the password field is where the person goes on.
        if username.is_empty() {
            ""
        } else {
            " autofocus"
        },
    );
    let mut response = page(status, "Sign in", &body);
    response.headers_mut().append(
        header::SET_COOKIE,
        set_cookie(state, LOGIN_CSRF_COOKIE, &csrf, 3600),
    );
    response
}

/// GET `/login`: the form (or straight on when already signed in).
pub async fn login_page(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let next = safe_next(query.get("next").map(String::as_str));
    if session.is_some() {
        return see_other(next);
    }
    login_form(&state, next, "", None, StatusCode::OK)
}

/// POST `/login`: checks the CSRF token, then the credentials (tries limited per client
/// address and per account at that address: `Lectern::sign_in`).
pub async fn login(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    let next = safe_next(form.get("next").map(String::as_str)).to_string();
    let sent = form.get("csrf_token").map(String::as_str).unwrap_or("");
    let expected = cookie(&headers, LOGIN_CSRF_COOKIE).unwrap_or("");
    if sent.is_empty() || !secret::constant_time_eq(sent, expected) {
        return error_page(
            StatusCode::FORBIDDEN,
            "The form's CSRF token is missing or wrong; reload the page and try again.",
        );
    }
    let username = form.get("username").map(String::as_str).unwrap_or("");
    let password = Secret::new(form.get("password").cloned().unwrap_or_default());
    match state.core.sign_in(username, &password, address).await {
        Ok(session) => {
            let mut response = see_other(&next);
            let headers = response.headers_mut();
            headers.append(
                header::SET_COOKIE,
                set_cookie(
                    &state,
                    SESSION_COOKIE,
                    session.token.expose(),
                    lectern_core::oauth::SESSION_SECONDS,
                ),
            );
            headers.append(
                header::SET_COOKIE,
                set_cookie(&state, LOGIN_CSRF_COOKIE, "", 0),
            );
            response
        }
        Err(SignInError::Invalid) => login_form(
            &state,
            &next,
            username,
            Some("Wrong username or password."),
            StatusCode::UNAUTHORIZED,
        ),
        Err(SignInError::Throttled { retry_after }) => {
            let mut response = login_form(
                &state,
                &next,
                username,
                Some(&format!(
                    "Too many failed sign-ins; try again in {retry_after} seconds."
                )),
                StatusCode::TOO_MANY_REQUESTS,
            );
            if let Ok(v) = HeaderValue::from_str(&retry_after.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, v);
            }
            response
        }
        Err(SignInError::Fault(e)) => {
            tracing::error!(error = %e, "sign-in failed");
            error_page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong; try again.",
            )
        }
    }
}

/// POST `/logout`: ends the session (CSRF-checked).
pub async fn logout(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    let Some((token, info)) = session else {
        return see_other("/login");
    };
    if !crate::http::session::csrf_matches(&info, form.get("csrf_token").map(String::as_str)) {
        return crate::web::page::csrf_refused();
    }
    if let Err(e) = state.core.sign_out(&token).await {
        tracing::error!(error = %e, "sign-out failed");
    }
    let mut response = see_other("/login");
    response.headers_mut().append(
        header::SET_COOKIE,
        set_cookie(&state, SESSION_COOKIE, "", 0),
    );
    response
}
