//! Request ids for the `x-request-id` header: a random prefix drawn once per process and a
//! counter, so ids stay unique across processes and restarts without asking the operating
//! system for randomness on every request (a UUIDv4 per request costs a `getrandom` system
//! call each).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::http::{HeaderValue, Request};
use tower_http::request_id::{MakeRequestId, RequestId};

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
}

impl Default for RequestIds {
    fn default() -> Self {
        Self::new()
    }
}

impl MakeRequestId for RequestIds {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = format!("{}-{n:x}", self.prefix);
        HeaderValue::from_str(&id).ok().map(RequestId::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_differ_within_a_process_and_between_processes() {
        let req = Request::new(());
        let mut a = RequestIds::new();
        let first = a.make_request_id(&req).unwrap();
        let second = a.clone().make_request_id(&req).unwrap();
        assert_ne!(first.header_value(), second.header_value());
        let other = RequestIds::new().make_request_id(&req).unwrap();
        assert_ne!(first.header_value(), other.header_value());
    }
}
