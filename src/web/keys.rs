//! `/users/api`: the signed-in account's API keys: list (label, prefix, created, last used),
//! create (the key is shown once) and revoke.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lectern_core::store::SessionInfo;

use crate::http::session::{MaybeSession, csrf_matches};
use crate::state::AppState;
use crate::web::page::csrf_refused;
use crate::web::page::{error_page, escape, hidden, see_other, signed_in_page};

async fn keys_page(state: &AppState, session: &SessionInfo, new_key: Option<&str>) -> Response {
    let keys = match state.core.list_api_keys(session).await {
        Ok(keys) => keys,
        Err(e) => {
            tracing::error!(error = %e, "listing API keys failed");
            return error_page(StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong.");
        }
    };
    let csrf = hidden("csrf_token", &session.csrf_token);
    // The header names the account and offers signing out.
    let mut body = String::new();
    if let Some(key) = new_key {
        body.push_str(&format!(
            "<p role=\"status\">Your new API key (shown only now; copy it):</p><p><code id=\"new-key\">{}</code></p>",
            escape(key)
        ));
    }
    body.push_str("<table><thead><tr><th>Label</th><th>Prefix</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>");
    for k in &keys {
        body.push_str(&format!(
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td><form method=\"post\" action=\"/users/api/{}/revoke\">{csrf}<button type=\"submit\" class=\"danger\">Revoke</button></form></td></tr>",
            escape(&k.label),
            escape(&k.lookup),
            k.created_at.to_rfc3339(),
            k.last_used_at.map_or("never".to_string(), |t| t.to_rfc3339()),
            k.id
        ));
    }
    body.push_str("</tbody></table>");
    body.push_str(&format!(
        "<h2>New key</h2><form method=\"post\" action=\"/users/api\">{csrf}<p><label>Label <input name=\"label\" maxlength=\"100\"></label> <button type=\"submit\">Create key</button></p></form>"
    ));
    signed_in_page(StatusCode::OK, "API keys", &body, session)
}

/// GET `/users/api`.
pub async fn api_keys(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
) -> Response {
    match session {
        Some((_, info)) => keys_page(&state, &info, None).await,
        None => see_other("/login?next=/users/api"),
    }
}

/// POST `/users/api`: creates a key and shows it once.
pub async fn create_api_key(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    let Some((_, info)) = session else {
        return see_other("/login?next=/users/api");
    };
    if !csrf_matches(&info, form.get("csrf_token").map(String::as_str)) {
        return csrf_refused();
    }
    let label = form.get("label").map(String::as_str).unwrap_or("");
    match state.core.create_api_key_for(&info, label).await {
        Ok(key) => keys_page(&state, &info, Some(key.expose())).await,
        Err(lectern_core::Error::Invalid(m)) => error_page(StatusCode::UNPROCESSABLE_ENTITY, &m),
        Err(e) => {
            tracing::error!(error = %e, "creating an API key failed");
            error_page(StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong.")
        }
    }
}

/// POST `/users/api/{id}/revoke`.
pub async fn revoke_api_key(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    Path(id): Path<String>,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    let Some((_, info)) = session else {
        return see_other("/login?next=/users/api");
    };
    if !csrf_matches(&info, form.get("csrf_token").map(String::as_str)) {
        return csrf_refused();
    }
    let Ok(id) = id.parse::<i64>() else {
        return error_page(StatusCode::NOT_FOUND, "No such API key.");
    };
    match state.core.revoke_api_key(&info, id).await {
        Ok(()) => see_other("/users/api"),
        Err(lectern_core::Error::NotFound(m)) => error_page(StatusCode::NOT_FOUND, &m),
        Err(e) => {
            tracing::error!(error = %e, "revoking an API key failed");
            error_page(StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong.")
        }
    }
}
