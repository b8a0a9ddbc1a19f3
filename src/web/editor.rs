//! The deck editor page at `urls.edit` (`/{username}/{slug}/edit`): a static page shell for
//! the owner that loads Lectern's editor script (`assets/editor/`, bundled by build.rs into
//! `/assets/editor.js`), and the little the script needs besides the REST API at the same
//! address + `.json`. The script talks to the REST API with the session cookie and the
//! session's CSRF token (`X-CSRF-Token`, see `http::extract::session_caller`), so every change passes the same operations, validation
//! and revision preconditions as any API client. No API key is ever in the page.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lectern_core::service::viewer::ViewedDeck;
use lectern_core::store::SessionInfo;

use lectern_core::deck::{ThemeColor, ThemeFont, Visibility};
use serde_json::json;

use crate::web::page::script_page_headers;

/// The page shell, the same for every deck (`assets/editor/editor.html`).
const SHELL: &str = include_str!("../../assets/editor/editor.html");

/// GET `urls.edit`: the editor's shell for the signed-in owner. Only Lectern's own script
/// runs (no inline script, no eval); slides shown in the preview frame are the viewer page,
/// under its own policy.
pub fn editor_page() -> Response {
    let mut response = (StatusCode::OK, SHELL).into_response();
    script_page_headers(
        response.headers_mut(),
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data: https: http:; font-src 'self'; connect-src 'self'; frame-src 'self'; \
         frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        "no-store",
    );
    response
        .headers_mut()
        .insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// GET `urls.edit` + `.json`: what the editor's script needs besides the REST API, for the
/// deck's signed-in owner: the deck's id, the session's CSRF token (readable by this site's
/// pages only: no CORS header lets another site read it), the deck's viewer address `base`,
/// and the values each deck setting may take.
pub fn editor_data(deck: &ViewedDeck, session: &SessionInfo, base: &str) -> Response {
    let body = json!({
        "deck_id": deck.deck.id,
        "csrf_token": session.csrf_token,
        "view_url": base,
        "choices": {
            "theme_color": ThemeColor::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            "theme_font": ThemeFont::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            "visibility": Visibility::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
        },
    });
    let mut response = (StatusCode::OK, axum::Json(body)).into_response();
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}
