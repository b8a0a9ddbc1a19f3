//! The rate limit ([`super::rate_limit`]) as a layer over the REST routes, and the count of
//! requests refused for want of a credential.

use std::convert::Infallible;
use std::net::IpAddr;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::response::Response;
use futures::future::{BoxFuture, Either};
use tower::{Layer, Service};

use crate::http::extract::{PreAuthenticated, authenticate};
use crate::http::rate_limit::{RateKey, client_address};
use crate::state::AppState;

/// For a request refused for want of a valid credential (e.g. on `/mcp`): counts it against
/// the client address; over the limit, the 429 to send instead of the 401.
pub fn over_limit_without_credential(state: &AppState, address: IpAddr) -> Option<Response> {
    let decision = state.rate_limits.check(&RateKey::Address(address))?;
    (!decision.allowed()).then(|| decision.too_many_requests())
}

/// The REST API's rate limit, as a layer over its routes ([`RateLimited`]).
#[derive(Clone)]
pub struct RateLimitLayer(pub AppState);

impl<S> Layer<S> for RateLimitLayer {
    type Service = RateLimited<S>;

    fn layer(&self, inner: S) -> RateLimited<S> {
        RateLimited {
            inner,
            state: self.0.clone(),
        }
    }
}

/// A REST route behind the rate limit: authenticates the caller once (the `Auth` extractor
/// reuses the result), counts the request, and answers 429 over the limit. With the limits
/// off the request goes straight to the route, its future unboxed.
#[derive(Clone)]
pub struct RateLimited<S> {
    inner: S,
    state: AppState,
}

impl<S> Service<Request> for RateLimited<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<S::Future, BoxFuture<'static, Result<Response, Infallible>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        if !self.state.rate_limits.enabled() {
            return Either::Left(self.inner.call(req));
        }
        // The route, made ready above, goes with the request; a clone stays for the next.
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        let state = self.state.clone();
        Either::Right(Box::pin(async move { Ok(limit(&state, req, inner).await) }))
    }
}

/// [`RateLimited`] with the limits on.
async fn limit<S>(state: &AppState, mut req: Request, mut route: S) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let mut key = RateKey::Address(client_address(&req));
    if let Ok(caller) = authenticate(req.headers(), state).await {
        key = RateKey::for_caller(&caller);
        req.extensions_mut().insert(PreAuthenticated(caller));
    }
    let run = |req| async move {
        match route.call(req).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    };
    let Some(decision) = state.rate_limits.check(&key) else {
        return run(req).await;
    };
    if !decision.allowed() {
        return decision.too_many_requests();
    }
    let mut response = run(req).await;
    decision.write_headers(response.headers_mut());
    response
}
