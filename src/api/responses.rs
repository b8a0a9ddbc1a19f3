//! The error answers the REST operations share, each declared once for the OpenAPI document
//! (an operation lists the ones it can give: `responses((status = 200, ...), Unauthorized,
//! NotFound, RateLimited)`). Their body is the interface's `{"error": ...}`.

#![allow(dead_code)] // the types exist for their OpenAPI declarations only

use utoipa::IntoResponses;

use crate::http::error::ErrorBody;

#[derive(IntoResponses)]
#[response(
    status = 401,
    description = "A valid API key or OAuth access token is required"
)]
pub struct Unauthorized(ErrorBody);

#[derive(IntoResponses)]
#[response(
    status = 403,
    description = "The credential or account cannot perform this operation"
)]
pub struct Forbidden(ErrorBody);

#[derive(IntoResponses)]
#[response(status = 404, description = "Not found")]
pub struct NotFound(ErrorBody);

#[derive(IntoResponses)]
#[response(
    status = 412,
    description = "If-Match does not hold: the deck changed; the body's revision is the current one"
)]
pub struct PreconditionFailed(ErrorBody);

#[derive(IntoResponses)]
#[response(
    status = 422,
    description = "The request parameters or body are invalid"
)]
pub struct Invalid(ErrorBody);

#[derive(IntoResponses)]
#[response(
    status = 429,
    description = "The request rate limit was exceeded",
    headers(("Retry-After" = u64, description = "Seconds until a request is allowed again"))
)]
pub struct RateLimited(ErrorBody);
