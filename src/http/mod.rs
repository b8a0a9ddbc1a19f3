//! Shared HTTP plumbing: the error boundary, extractors, and the middleware every route gets
//! (request ids, tracing, panics, timeouts, JSON bodies on every error answer).

pub mod error;
pub mod extract;
pub mod metrics;
pub mod rate_limit;
pub mod request_id;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use error::ApiError;

/// Unknown routes: 404 with a JSON body.
pub async fn not_found(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!("no route for {} {}", req.method(), req.uri().path()),
    )
}

/// A known route with another method: 405 with a JSON body.
pub async fn method_not_allowed(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "method {} is not allowed on {}",
            req.method(),
            req.uri().path()
        ),
    )
}

/// Answers for a handler that panicked: 500 with a JSON body (the panic is logged).
pub fn panic_response(err: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let detail = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| err.downcast_ref::<&str>().copied())
        .unwrap_or("unknown panic");
    tracing::error!(panic = detail, "request handler panicked");
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error").into_response()
}

/// What every request passes on its way in and out, in one middleware (each layer of its
/// own would box the request's future and clone the routes once more): it is counted and
/// timed (`/metrics`), it runs in a cache scope of its own, so that its reads wait for at
/// most one cache fence (see `lectern_core::store::cache`), and an error answer without a
/// JSON body gets one ([`json_error_body`]).
pub async fn edge(req: Request, next: Next) -> Response {
    let timer = metrics::RequestTimer::start(&req);
    let response = lectern_core::store::cache::request_scope(next.run(req)).await;
    let response = json_error_body(response);
    timer.finish(response.status());
    response
}

/// Gives every error answer that lacks one a JSON body `{"error": ...}` (e.g. a timeout from
/// a tower layer), so clients can always parse errors the same way.
fn json_error_body(response: Response) -> Response {
    let status = response.status();
    // Bodies without a type or in plain text come from tower layers and axum's own
    // rejections; JSON and HTML pages are already what they should be.
    let plain = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_none_or(|v| v.as_bytes().starts_with(b"text/plain"));
    if !(status.is_client_error() || status.is_server_error()) || !plain {
        return response;
    }
    let reason = status.canonical_reason().unwrap_or("error").to_lowercase();
    let (mut parts, _) = response.into_parts();
    let body = serde_json::json!({ "error": reason }).to_string();
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}
