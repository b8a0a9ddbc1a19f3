//! HTML pages: escaping, the page frame, and the security headers every page carries (no
//! framing, nothing loaded from anywhere, no referrer, no caching).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

pub use lectern_core::html::escape;

/// A hidden form field.
pub fn hidden(name: &str, value: &str) -> String {
    format!(
        "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
        escape(name),
        escape(value)
    )
}

/// A complete page with the security headers.
pub fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · Lectern</title></head><body><main>\n<h1>{}</h1>\n{body}\n</main></body></html>\n",
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
            "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; img-src 'self'",
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

/// A 303 redirect to `location` with the security headers.
pub fn see_other(location: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    secure_headers(response.headers_mut());
    response
}

/// An error page.
pub fn error_page(status: StatusCode, message: &str) -> Response {
    page(
        status,
        status.canonical_reason().unwrap_or("Error"),
        &format!("<p>{}</p>", escape(message)),
    )
}
