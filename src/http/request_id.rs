//! Request ids: every request gets an `x-request-id` (the client's own when it sent one, else
//! a new one), runs inside a `request` span that carries it, so that every log line of the
//! request names it, and its answer carries the id back.
//!
//! New ids are a random prefix drawn once per process and a counter, so they stay unique
//! across processes and restarts without asking the operating system for randomness on
//! every request (a UUIDv4 per request costs a `getrandom` system call each).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;
use futures::future::BoxFuture;
use tower::{Layer, Service};
use tracing::Instrument;

/// The header that carries a request's id, both ways.
pub const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Makes `<12 random letters and digits>-<counter in hex>`.
#[derive(Clone)]
pub struct RequestIds {
    prefix: Arc<str>,
    next: Arc<AtomicU64>,
}

impl RequestIds {
    pub fn new() -> Self {
        RequestIds {
            prefix: lectern_core::secret::random_alphanumeric(12).into(),
            next: Arc::new(AtomicU64::new(1)),
        }
    }

    /// The next id.
    fn make(&self) -> HeaderValue {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n:x}", self.prefix))
            .expect("letters, digits and a dash make a valid header value")
    }
}

impl Default for RequestIds {
    fn default() -> Self {
        Self::new()
    }
}

/// Gives every request its id and span and its answer the `x-request-id` header, in one
/// layer (tower-http's `SetRequestId`, `Trace` and `PropagateRequestId` did it in three,
/// each with a future of its own, and wrote the id into the request's headers).
#[derive(Clone, Default)]
pub struct RequestIdLayer(RequestIds);

impl<S> Layer<S> for RequestIdLayer {
    type Service = WithRequestId<S>;

    fn layer(&self, inner: S) -> WithRequestId<S> {
        WithRequestId {
            inner,
            ids: self.0.clone(),
        }
    }
}

/// The service of [`RequestIdLayer`].
#[derive(Clone)]
pub struct WithRequestId<S> {
    inner: S,
    ids: RequestIds,
}

impl<S> Service<Request> for WithRequestId<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let id = match req.headers().get(X_REQUEST_ID) {
            Some(given) if is_usable_id(given) => given.clone(),
            _ => self.ids.make(),
        };
        let span = tracing::info_span!(
            "request",
            method = req.method().as_str(),
            path = req.uri().path(),
            request.id = id.to_str().unwrap_or("-"),
        );
        let answer = span.in_scope(|| self.inner.call(req));
        Box::pin(
            async move {
                let Ok(mut response) = answer.await;
                response.headers_mut().insert(X_REQUEST_ID, id);
                Ok(response)
            }
            .instrument(span),
        )
    }
}

/// Longest client request id kept (a longer one is replaced: ids go into every log line).
const MAX_GIVEN_ID: usize = 128;

/// Whether a client's `x-request-id` is kept: printable text of 1 to [`MAX_GIVEN_ID`] bytes.
fn is_usable_id(given: &HeaderValue) -> bool {
    given
        .to_str()
        .is_ok_and(|s| !s.is_empty() && s.len() <= MAX_GIVEN_ID)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_differ_within_a_process_and_between_processes() {
        let a = RequestIds::new();
        let first = a.make();
        let second = a.clone().make();
        assert_ne!(first, second);
        let other = RequestIds::new().make();
        assert_ne!(first, other);
    }

    #[test]
    fn a_client_id_is_kept_when_short_printable_text() {
        assert!(is_usable_id(&HeaderValue::from_static("client-7f3a")));
        assert!(is_usable_id(
            &HeaderValue::from_str(&"a".repeat(128)).unwrap()
        ));
        assert!(!is_usable_id(
            &HeaderValue::from_str(&"a".repeat(129)).unwrap()
        ));
        assert!(!is_usable_id(&HeaderValue::from_static("")));
        assert!(!is_usable_id(
            &HeaderValue::from_bytes(b"caf\xc3\xa9").unwrap()
        ));
    }
}
