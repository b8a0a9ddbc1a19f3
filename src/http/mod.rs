//! Shared HTTP plumbing: the error boundary, extractors, and the middleware every route gets
//! (request ids, tracing, panics, timeouts, JSON bodies on every error answer).

pub mod error;
pub mod extract;
pub mod limit_layer;
pub mod metrics;
pub mod rate_limit;
pub mod request_id;
pub mod session;

use std::convert::Infallible;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::future::BoxFuture;
use tower::{Layer, Service};

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

/// What every request passes on its way in and out, in one layer: it is counted and timed
/// (`/metrics`), answered 408 past its time limit ([`within_time_limit`]), run in a
/// cache scope of its own, so that its reads wait for at most one cache fence (see
/// `lectern_core::store::cache`), and an error answer without a JSON body gets one
/// ([`json_error_body`]). A `tower` service of its own rather than `middleware::from_fn`,
/// which clones the routes behind it and boxes them once more for every request.
#[derive(Clone, Copy)]
pub struct EdgeLayer {
    /// A request's time limit (`Timeouts::request`).
    pub time_limit: Duration,
}

impl<S> Layer<S> for EdgeLayer {
    type Service = Edge<S>;

    fn layer(&self, inner: S) -> Edge<S> {
        Edge(inner, self.time_limit)
    }
}

/// The service of [`EdgeLayer`] around a route.
#[derive(Clone)]
pub struct Edge<S>(S, Duration);

impl<S> Service<Request> for Edge<S>
where
    S: Service<Request, Error = Infallible>,
    S::Response: IntoResponse,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let timer = metrics::RequestTimer::start(&req);
        let request = self.0.call(req);
        let time_limit = self.1;
        Box::pin(async move {
            let request = async move {
                match request.await {
                    Ok(response) => response.into_response(),
                    Err(never) => match never {},
                }
            };
            let response =
                lectern_core::store::cache::request_scope(within_time_limit(request, time_limit))
                    .await;
            let response = json_error_body(response);
            timer.finish(response.status());
            Ok(response)
        })
    }
}

/// Runs a request until `time_limit` after it began; past it, the answer is 408 (and
/// the request's future is dropped: its write, if any, rolls back). Many requests are
/// answered in their first poll (a read from the cache), and for those no timer is set at
/// all: a timer costs each request an insertion into the runtime's timer wheel and a
/// removal, a measurable share of a cached read's cost.
async fn within_time_limit(
    request: impl Future<Output = Response>,
    time_limit: Duration,
) -> Response {
    let deadline = tokio::time::Instant::now() + time_limit;
    let mut request = pin!(request);
    let first = poll_fn(|cx| Poll::Ready(request.as_mut().poll(cx))).await;
    if let Poll::Ready(response) = first {
        return response;
    }
    match tokio::time::timeout_at(deadline, request).await {
        Ok(response) => response,
        // No body: `json_error_body` gives it the JSON one.
        Err(_) => StatusCode::REQUEST_TIMEOUT.into_response(),
    }
}

/// Gives every error answer that lacks one a JSON body `{"error": ...}` (the 408 of the time
/// limit, a tower layer's or axum's own rejections), so clients can always parse errors the
/// same way.
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
