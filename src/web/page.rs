//! HTML pages: escaping, the page frame (the site's stylesheet and header), and the security
//! headers every page carries (no framing, nothing loaded but the site's own stylesheet and
//! images, no script, no referrer, no caching).

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::http::session::{SESSION_COOKIE, cookie};
use crate::state::AppState;

pub use lectern_core::html::escape;

/// A hidden form field.
pub fn hidden(name: &str, value: &str) -> String {
    format!(
        "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
        escape(name),
        escape(value)
    )
}

/// A complete page with the security headers, in the site's layout (one stylesheet, a
/// header with the service's name).
pub fn page(status: StatusCode, title: &str, body: &str) -> Response {
    framed(status, title, body, None)
}

/// A page for a signed-in person: the header also names the account and offers the decks,
/// the API keys and signing out.
pub fn signed_in_page(
    status: StatusCode,
    title: &str,
    body: &str,
    session: &lectern_core::store::SessionInfo,
) -> Response {
    framed(status, title, body, Some(session))
}

fn framed(
    status: StatusCode,
    title: &str,
    body: &str,
    session: Option<&lectern_core::store::SessionInfo>,
) -> Response {
    let nav = match session {
        Some(s) => format!(
            "<nav aria-label=\"Account\"><a href=\"/\">Your decks</a><a href=\"/users/api\">API keys</a>\
             <a href=\"/v1/docs\">API reference</a><span class=\"muted\">Signed in as <strong>{}</strong></span>\
             <form method=\"post\" action=\"/logout\">{}<button type=\"submit\" class=\"secondary\">Sign out</button></form></nav>",
            escape(&s.username),
            hidden("csrf_token", &s.csrf_token)
        ),
        None => "<nav aria-label=\"Site\"><a href=\"/v1/docs\">API reference</a><a href=\"/login\">Sign in</a></nav>".to_string(),
    };
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · Lectern</title><link rel=\"stylesheet\" href=\"/assets/web/site.css\"></head><body>\
         <header class=\"site-header\"><a class=\"brand\" href=\"/\">Lectern</a>{nav}</header>\
         <main>\n<h1>{}</h1>\n{body}\n</main></body></html>\n",
        escape(title),
        escape(title)
    );
    let mut response = (status, html).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    secure_headers(headers);
    response
}

/// The headers that keep a page from being framed, from loading anything, and from leaking
/// its URL.
pub fn secure_headers(headers: &mut axum::http::HeaderMap) {
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; img-src 'self'; \
             style-src 'self'",
        ),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// The headers of an HTML document that runs Lectern's own scripts: its type, `csp`, no
/// referrer, no sniffing, and `cache` (deck pages may be revalidated, the editor never kept).
pub fn script_page_headers(h: &mut axum::http::HeaderMap, csp: &'static str, cache: &'static str) {
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(csp),
    );
    h.insert(
        header::X_FRAME_OPTIONS,
        HeaderValue::from_static("SAMEORIGIN"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
}

/// A 303 redirect to `location` with the security headers.
pub fn see_other(location: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    secure_headers(response.headers_mut());
    response
}

/// The page for a core error: its status and message (the REST API's), or, for a fault,
/// a generic page after logging it with `what` failed.
pub fn core_error_page(e: lectern_core::Error, what: &str) -> Response {
    match e {
        lectern_core::Error::Internal(_) => {
            tracing::error!(error = %e, "showing {what} failed");
            error_page(StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong.")
        }
        other => error_page(
            StatusCode::from_u16(other.status()).unwrap_or(StatusCode::UNPROCESSABLE_ENTITY),
            &other.to_string(),
        ),
    }
}

/// The answer to a signed-in form whose CSRF token is missing or wrong.
pub fn csrf_refused() -> Response {
    error_page(
        StatusCode::FORBIDDEN,
        "The form's CSRF token is missing or wrong; reload the page and try again.",
    )
}

/// An error page. It is drawn with the signed-out header; for a signed-in person,
/// [`account_header_on_errors`] draws it again with theirs.
pub fn error_page(status: StatusCode, message: &str) -> Response {
    let title = status.canonical_reason().unwrap_or("Error");
    let body = format!("<p>{}</p>", escape(message));
    let mut response = page(status, title, &body);
    response.extensions_mut().insert(ErrorPage { title, body });
    response
}

/// What an [`error_page`] shows, kept on its response to be drawn again.
#[derive(Clone)]
struct ErrorPage {
    title: &'static str,
    body: String,
}

/// Middleware of the web pages: an error page answered to a request with a live session
/// wears that account's header (its decks, its keys, signing out) rather than "Sign in".
/// Only error pages look the session up.
pub async fn account_header_on_errors(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let token = cookie(request.headers(), SESSION_COOKIE).map(str::to_string);
    let response = next.run(request).await;
    let (Some(token), Some(error)) = (token, response.extensions().get::<ErrorPage>().cloned())
    else {
        return response;
    };
    let session = match state.core.session(&token).await {
        Ok(Some(session)) => session,
        Ok(None) => return response,
        Err(e) => {
            tracing::error!(error = %e, "session lookup failed");
            return response;
        }
    };
    let (mut parts, _) = response.into_parts();
    let (_, body) = signed_in_page(parts.status, error.title, &error.body, &session).into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, body)
}
