//! Request extractors whose rejections are the API's own JSON errors: the caller's
//! credential, an optional JSON body, query parameters and integer path ids.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Query, RawPathParams, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lectern_core::auth::{Caller, Scope};
use lectern_core::ids::{DeckId, ExportId, ShareId, SlideId};
use lectern_core::revision::Precondition;
use serde_json::Value;

use crate::http::error::ApiError;
use crate::state::AppState;

/// The header in which Lectern's own pages send the session's CSRF token with REST requests.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The signed-in person, for a REST request from Lectern's own pages (the browser editor):
/// no `Authorization` header, the session cookie, and the session's CSRF token in
/// `X-CSRF-Token`, which a page of another site cannot send (and no CORS header lets it read
/// an answer). `None` when the request has no such header: then only a bearer credential
/// counts, and a cookie alone never authenticates.
pub async fn session_caller(
    headers: &HeaderMap,
    state: &AppState,
) -> Option<Result<Caller, ApiError>> {
    let sent = headers.get(CSRF_HEADER)?.to_str().ok();
    let Some(token) = crate::http::session::cookie(headers, crate::http::session::SESSION_COOKIE)
    else {
        return Some(Err(ApiError::unauthorized(
            "sign in: X-CSRF-Token was sent without a session cookie",
            false,
        )));
    };
    Some(match state.core.session(token).await {
        Ok(Some(info)) if crate::http::session::csrf_matches(&info, sent) => {
            Ok(state.core.web_caller(&info))
        }
        Ok(Some(_)) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "the X-CSRF-Token header does not match the session; reload the page",
        )),
        Ok(None) => Err(ApiError::unauthorized(
            "the session has ended: sign in again",
            false,
        )),
        Err(e) => Err(e.into()),
    })
}

/// The authenticated caller, from `Authorization: Bearer <credential>` (or, from Lectern's
/// own pages, the session cookie with `X-CSRF-Token`: [`session_caller`]); 401 otherwise.
pub struct Auth(pub Caller);

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(PreAuthenticated(caller)) = parts.extensions.remove::<PreAuthenticated>() {
            return Ok(Auth(caller));
        }
        authenticate(&parts.headers, state).await.map(Auth)
    }
}

/// Who a `/v1` request comes from: its bearer credential, or, without one, the session of
/// Lectern's own pages with its CSRF token ([`session_caller`]); 401 (or 403) otherwise. The
/// rate limiter and [`Auth`] both ask here, so they never disagree.
pub async fn authenticate(headers: &HeaderMap, state: &AppState) -> Result<Caller, ApiError> {
    match bearer_token(headers) {
        Some(Ok(token)) => Ok(state.core.authenticate_bearer(token).await?),
        Some(Err(())) => Err(ApiError::unauthorized(
            "the Authorization header must be 'Bearer <credential>'",
            true,
        )),
        None => session_caller(headers, state).await.unwrap_or_else(|| {
            Err(ApiError::unauthorized(
                "a valid API key or OAuth access token is required (Authorization: Bearer ...)",
                false,
            ))
        }),
    }
}

/// The authenticated caller of a manage (M) operation: a credential without the `manage`
/// scope answers 403 `insufficient_scope` here, before the path or body is read, so a
/// read-only credential learns nothing from a bad body.
pub struct Manage(pub Caller);

impl FromRequestParts<AppState> for Manage {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Auth(caller) = Auth::from_request_parts(parts, state).await?;
        caller.require(Scope::Manage)?;
        Ok(Manage(caller))
    }
}

/// A caller the rate-limit middleware already authenticated (so it is done once).
#[derive(Clone)]
pub struct PreAuthenticated(pub Caller);

/// The credential of `Authorization: Bearer <credential>`: `None` without the header,
/// `Some(Err(()))` when it is not a bearer credential.
pub fn bearer_token(headers: &HeaderMap) -> Option<Result<&str, ()>> {
    let value = headers.get(header::AUTHORIZATION)?;
    Some(
        value
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
            .filter(|t| !t.is_empty())
            .ok_or(()),
    )
}

/// An optional JSON body: absent or empty is `None`; otherwise it must be sent as
/// `application/json` and parse. Oversized bodies answer 413.
pub struct JsonBody(pub Option<Value>);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|mime| {
                let mime = mime.trim().to_ascii_lowercase();
                mime == "application/json"
                    || (mime.starts_with("application/") && mime.ends_with("+json"))
            });
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "request body is too large")
            } else {
                ApiError::invalid(format!("could not read the request body: {rejection}"))
            }
        })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(JsonBody(None));
        }
        match is_json {
            Some(true) => {}
            Some(false) => {
                return Err(ApiError::invalid(
                    "the request body must be sent with Content-Type: application/json",
                ));
            }
            None => {
                return Err(ApiError::invalid(
                    "missing Content-Type: the request body must be application/json",
                ));
            }
        }
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::invalid(format!("malformed JSON in the request body: {e}")))?;
        lectern_core::text::refuse_nul_in_json(&value)?;
        Ok(JsonBody(Some(value)))
    }
}

/// Query parameters as raw strings; the core parses each one.
pub struct QueryParams(pub HashMap<String, String>);

impl QueryParams {
    /// The raw value of one parameter.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        if parts.uri.query().is_none() {
            // Most requests have none: no parsing, and an empty map allocates nothing.
            return Ok(QueryParams(HashMap::new()));
        }
        Query::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|e| ApiError::invalid(format!("invalid query string: {e}")))
            .and_then(|Query(map)| {
                for (name, value) in &map {
                    lectern_core::text::refuse_nul(
                        &format!("the query parameter {name:?}"),
                        value,
                    )?;
                    lectern_core::text::refuse_nul("a query parameter's name", name)?;
                }
                Ok(QueryParams(map))
            })
    }
}

/// The path parameter `name` (percent-decoded; empty when the route has none of that name),
/// read without building a map of them all.
async fn path_param<S: Send + Sync>(
    parts: &mut Parts,
    state: &S,
    name: &str,
) -> Result<String, ApiError> {
    let params = RawPathParams::from_request_parts(parts, state)
        .await
        .map_err(|e| ApiError::invalid(format!("invalid path: {e}")))?;
    Ok(params
        .iter()
        .find(|(key, _)| *key == name)
        .map_or_else(String::new, |(_, value)| value.to_string()))
}

/// The deck's `{id}` path segment as a [`DeckId`] (`12` or `"12"`); non-integers answer 422.
pub struct IdPath(pub DeckId);

impl<S: Send + Sync> FromRequestParts<S> for IdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let raw = &path_param(parts, state, "id").await?;
        Ok(IdPath(DeckId::parse("id", raw)?))
    }
}

/// The `{slide_id}` path segment: an opaque slide id.
pub struct SlideIdPath(pub SlideId);

impl<S: Send + Sync> FromRequestParts<S> for SlideIdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Ok(SlideIdPath(SlideId(
            path_param(parts, state, "slide_id").await?,
        )))
    }
}

/// The `{share_id}` path segment, like [`IdPath`].
pub struct ShareIdPath(pub ShareId);

impl<S: Send + Sync> FromRequestParts<S> for ShareIdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let raw = &path_param(parts, state, "share_id").await?;
        Ok(ShareIdPath(ShareId::parse("id", raw)?))
    }
}

/// The `{export_id}` path segment, like [`IdPath`].
pub struct ExportIdPath(pub ExportId);

impl<S: Send + Sync> FromRequestParts<S> for ExportIdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let raw = &path_param(parts, state, "export_id").await?;
        Ok(ExportIdPath(ExportId::parse("id", raw)?))
    }
}

/// The `{revision}` path segment: an integer (422 otherwise; the core answers 404 for
/// revisions below 1).
pub struct RevisionPath(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for RevisionPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let raw = &path_param(parts, state, "revision").await?;
        raw.parse()
            .map(RevisionPath)
            .map_err(|_| ApiError::invalid(format!("revision must be an integer, got {raw:?}")))
    }
}

/// The `If-Match` header as a write's precondition (absent: none). A value that is not
/// text never matches.
pub struct IfMatch(pub Option<Precondition>);

impl<S: Send + Sync> FromRequestParts<S> for IfMatch {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let values: Vec<&HeaderValue> = parts.headers.get_all(header::IF_MATCH).iter().collect();
        if values.is_empty() {
            return Ok(IfMatch(None));
        }
        let joined = values
            .iter()
            .map(|v| v.to_str().unwrap_or("\u{0}"))
            .collect::<Vec<_>>()
            .join(",");
        Ok(IfMatch(Some(Precondition::IfMatch(joined))))
    }
}

/// The client's address: the TCP peer the serve loop put on the request (no header is
/// trusted for it; behind a proxy every client is the proxy). Unspecified when a request
/// comes without one (a router called directly).
pub struct ClientAddress(pub std::net::IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|info| info.0.ip());
        Ok(ClientAddress(peer.unwrap_or(std::net::IpAddr::V4(
            std::net::Ipv4Addr::UNSPECIFIED,
        ))))
    }
}

/// A web form's fields (`application/x-www-form-urlencoded`), with the text rule of every
/// input: a NUL in any field answers 422.
pub struct TextForm(pub HashMap<String, String>);

impl<S: Send + Sync> FromRequest<S> for TextForm {
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> Result<Self, Response> {
        let axum::Form(map) = axum::Form::<HashMap<String, String>>::from_request(req, state)
            .await
            .map_err(IntoResponse::into_response)?;
        for (name, value) in &map {
            lectern_core::text::refuse_nul(&format!("the field {name:?}"), value)
                .and_then(|()| lectern_core::text::refuse_nul("a field's name", name))
                .map_err(|e| ApiError::from(e).into_response())?;
        }
        Ok(TextForm(map))
    }
}
