//! `/mcp` over Streamable HTTP: rmcp's `StreamableHttpService` behind [`guard`], which answers
//! before rmcp does: a foreign `Host` or `Origin` gets 403 (DNS rebinding), a missing or invalid
//! credential 401 with the RFC 9728 challenge. Also the protected resource metadata of `/mcp`.
//!
//! [`McpService`] serves every revision from 2025-03-26 on: sessions for the revisions with an
//! `initialize` handshake (2025-03-26, 2025-06-18, 2025-11-25), the same clients without a
//! session when they send no `Mcp-Session-Id`, and the stateless 2026-07-28 revision. It also
//! keeps the resumability priming events of 2025-11-25 (events with an empty `data` line,
//! which rmcp sends on every event stream of a session) from clients of earlier revisions,
//! which parse every `data` line as JSON.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::future::BoxFuture;
use futures::{StreamExt, future};
use lectern_core::Error;
use lectern_core::auth::{Caller, Principal, Resource};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;
use serde_json::{Value, json};

use super::options::{authority_host, url_host};
use crate::http::error::ErrorBody;
use crate::http::limit_layer::over_limit_without_credential;
use crate::http::rate_limit::client_address;
use crate::mcp::LecternMcp;
use crate::state::AppState;

/// Host names always allowed besides the public URL's: a local client may use them.
const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// The scopes the MCP tools need (read tools and manage tools).
const SCOPES: &str = "read manage";

/// The first revision with resumability priming events (SEP-1699). Revisions are dates, so
/// they compare as strings.
const FIRST_PRIMING_REVISION: &str = "2025-11-25";

/// The revision header clients of 2025-06-18 and later send after `initialize`.
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// The session header of the revisions with a handshake.
const SESSION_HEADER: &str = "mcp-session-id";

/// The MCP service for `/mcp`; put [`guard`] in front of it.
pub fn service(state: &AppState) -> McpService {
    let core = state.core.clone();
    let wakeup = state.export_wakeup.clone();
    let renderer = state.renderer.clone();
    let limits = state.rate_limits.clone();
    let handler = move || {
        Ok(LecternMcp::for_http(
            core.clone(),
            wakeup.clone(),
            renderer.clone(),
            limits.clone(),
        ))
    };
    // The guard checks Host and Origin first (with JSON errors); rmcp checks Host again.
    let config =
        StreamableHttpServerConfig::default().with_allowed_hosts(allowed_hosts(&state.core));
    McpService {
        max_body: config.max_request_body_bytes,
        owners: Arc::default(),
        sessions: StreamableHttpService::new(
            handler.clone(),
            Arc::new(LocalSessionManager::default()),
            config.clone(),
        ),
        stateless: StreamableHttpService::new(
            handler,
            Arc::new(NeverSessionManager::default()),
            config.with_legacy_session_mode(false),
        ),
    }
}

/// `/mcp`: two rmcp services, and the priming filter for clients of earlier revisions.
///
/// rmcp serves a client of a revision with a handshake either with sessions or without, by
/// configuration (`legacy_session_mode`); Lectern serves both: a POST without
/// `Mcp-Session-Id` that is not an `initialize` goes to the stateless service (every tool
/// works without a session: the credential comes with each request), everything else to the
/// session-keeping one, which also serves 2026-07-28 requests statelessly.
#[derive(Clone)]
pub struct McpService {
    /// The credential that opened each session: only it may use or end the session.
    owners: Arc<SessionOwners>,
    /// `initialize` (which opens a session), requests of a session, and its GET and DELETE.
    sessions: StreamableHttpService<LecternMcp, LocalSessionManager>,
    /// Requests without a session id.
    stateless: StreamableHttpService<LecternMcp, NeverSessionManager>,
    /// Largest POST body rmcp accepts; a body read here to route it is held to it too.
    max_body: usize,
}

/// The part of a JSON-RPC message that decides where it goes.
#[derive(Deserialize)]
struct Probe {
    method: Option<String>,
    params: Option<ProbeParams>,
}

#[derive(Deserialize)]
struct ProbeParams {
    #[serde(rename = "protocolVersion")]
    protocol_version: Option<String>,
}

/// Session id → the credential whose `initialize` opened it. rmcp knows sessions by id
/// alone; without this, anyone holding an id (another account included) could use the
/// session or end it.
#[derive(Default)]
struct SessionOwners(std::sync::Mutex<std::collections::HashMap<String, Principal>>);

impl SessionOwners {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, Principal>> {
        // A panic while holding the lock leaves a map that is still whole: use it.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `principal` opened the session `id` (false for a session unknown here).
    fn is_owner(&self, id: &str, principal: Option<&Principal>) -> bool {
        principal.is_some_and(|p| self.lock().get(id) == Some(p))
    }
}

impl McpService {
    async fn handle(self, req: Request) -> Response {
        let mut revision = header_text(req.headers(), PROTOCOL_VERSION_HEADER);
        let principal = req.extensions().get::<Caller>().map(Caller::principal);
        let session = header_text(req.headers(), SESSION_HEADER);
        if let Some(id) = &session
            && !self.owners.is_owner(id, principal.as_ref())
        {
            // Another credential's session answers as an unknown one does.
            return refuse(StatusCode::NOT_FOUND, "session not found");
        }
        let deleting = req.method() == Method::DELETE;
        let mut response = self.route(req, &mut revision).await;
        if deleting && response.status() == StatusCode::ACCEPTED {
            // The session is gone: 204 (rmcp's 202 reads as a failure to SDKs that check).
            *response.status_mut() = StatusCode::NO_CONTENT;
            *response.body_mut() = Body::empty();
        }
        match (&session, header_text(response.headers(), SESSION_HEADER)) {
            // `initialize` opened a session: it belongs to the credential that asked.
            (None, Some(opened)) => {
                if let Some(p) = principal {
                    self.owners.lock().insert(opened, p);
                }
            }
            (Some(id), _)
                if response.status() == StatusCode::NOT_FOUND
                    || (deleting && response.status().is_success()) =>
            {
                self.owners.lock().remove(id);
            }
            _ => {}
        }
        if predates_priming(revision.as_deref()) && is_event_stream(&response) {
            response.map(without_priming)
        } else {
            response
        }
    }

    /// Hands `req` to the service that serves it (see [`McpService`]).
    async fn route(&self, req: Request, revision: &mut Option<String>) -> Response {
        if req.method() != Method::POST || req.headers().contains_key(SESSION_HEADER) {
            self.sessions.handle(req).await.map(Body::new)
        } else {
            let (parts, body) = req.into_parts();
            let bytes = match read_body(body, self.max_body).await {
                Ok(bytes) => bytes,
                Err(refused) => return refused,
            };
            let probe = serde_json::from_slice::<Probe>(&bytes).ok();
            let req = Request::from_parts(parts, Body::from(bytes));
            match probe {
                // Not JSON-RPC: rmcp answers as before.
                None => self.sessions.handle(req).await.map(Body::new),
                Some(p) if p.method.as_deref() == Some("initialize") => {
                    // Before the handshake the client's revision is in the message.
                    if revision.is_none() {
                        *revision = p.params.and_then(|p| p.protocol_version);
                    }
                    self.sessions.handle(req).await.map(Body::new)
                }
                Some(_) => self.stateless.handle(req).await.map(Body::new),
            }
        }
    }
}

impl tower::Service<Request> for McpService {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let service = self.clone();
        Box::pin(async move { Ok(service.handle(req).await) })
    }
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Whether a client of `revision` predates priming events. Without the revision header, a
/// request after `initialize` is of 2025-03-26 (the header exists since 2025-06-18, and the
/// revisions that followed require it).
fn predates_priming(revision: Option<&str>) -> bool {
    revision.is_none_or(|r| r < FIRST_PRIMING_REVISION)
}

fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The whole request body, up to `limit` bytes (413 above it, as rmcp answers).
async fn read_body(body: Body, limit: usize) -> Result<Bytes, Response> {
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| {
            refuse(
                StatusCode::BAD_REQUEST,
                "the request body could not be read",
            )
        })?;
        if bytes.len() + chunk.len() > limit {
            return Err(refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("the request body is larger than {limit} bytes"),
            ));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes.into())
}

/// The event stream `body` without its priming events, passed on event by event as rmcp
/// writes them (a keep-alive comment too, so the connection stays open).
fn without_priming(body: Body) -> Body {
    let mut pending = Vec::new();
    let events = body
        .into_data_stream()
        .map(move |chunk| {
            pending.extend_from_slice(&chunk?);
            Ok::<_, axum::Error>(Bytes::from(complete_events_without_priming(&mut pending)))
        })
        .filter(|chunk| future::ready(!matches!(chunk, Ok(bytes) if bytes.is_empty())));
    Body::from_stream(events)
}

/// Takes the complete events off the front of `pending` (each ends with an empty line, as
/// rmcp writes them: `field: value\n` lines, then `\n`) and returns them without the events
/// whose every `data` line is empty. An incomplete event stays in `pending`.
fn complete_events_without_priming(pending: &mut Vec<u8>) -> Vec<u8> {
    let Some(end) = pending.windows(2).rposition(|w| w == b"\n\n") else {
        return Vec::new();
    };
    let complete: Vec<u8> = pending.drain(..end + 2).collect();
    let mut kept = Vec::with_capacity(complete.len());
    let mut rest = complete.as_slice();
    while let Some(end) = rest.windows(2).position(|w| w == b"\n\n") {
        let (event, after) = rest.split_at(end + 2);
        if !is_priming(event) {
            kept.extend_from_slice(event);
        }
        rest = after;
    }
    kept
}

/// An event with `data` lines that are all empty: a priming event (or a bare retry hint).
fn is_priming(event: &[u8]) -> bool {
    let mut data_lines = event
        .split(|b| *b == b'\n')
        .filter_map(|line| line.strip_prefix(b"data:"))
        .peekable();
    data_lines.peek().is_some() && data_lines.all(|d| d.strip_prefix(b" ").unwrap_or(d).is_empty())
}

/// The public URL's host and the loopback names.
fn allowed_hosts(core: &lectern_core::Lectern) -> Vec<String> {
    let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect();
    if let Some(public) = url_host(core.public_url())
        && !hosts.contains(&public)
    {
        hosts.push(public);
    }
    hosts
}

/// `{"error": message}` with `status`, answered before the request body was read: the
/// connection is closed after it (`Connection: close`), so that a client does not send its
/// next request on a connection the server drops for the unread body.
fn refuse(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONNECTION, "close")],
        Json(ErrorBody {
            revision: None,
            error: message.into(),
        }),
    )
        .into_response()
}

/// 401 with `WWW-Authenticate: Bearer resource_metadata=..., scope=...` (RFC 9728 §5.1), so
/// an MCP client finds the authorization server.
fn unauthorized(state: &AppState, message: &str, presented: bool) -> Response {
    let metadata = format!(
        "{}/.well-known/oauth-protected-resource/mcp",
        state.core.public_url()
    );
    let error = if presented {
        ", error=\"invalid_token\""
    } else {
        ""
    };
    let challenge = format!("Bearer resource_metadata=\"{metadata}\", scope=\"{SCOPES}\"{error}");
    let mut response = refuse(StatusCode::UNAUTHORIZED, message);
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// In front of `/mcp`: Host and Origin against DNS rebinding (403), then the bearer
/// credential (API key or an OAuth token for the MCP resource) into a `Caller` in the
/// request's extensions (401 without one).
pub async fn guard(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let allowed = allowed_hosts(&state.core);
    // Requests without a valid credential count against the client address, as on REST.
    let address = client_address(&req);
    let deny = |message: &str, presented: bool| {
        over_limit_without_credential(&state, address)
            .unwrap_or_else(|| unauthorized(&state, message, presented))
    };
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .and_then(authority_host)
        .or_else(|| {
            req.uri()
                .host()
                .map(|h| h.trim_matches(['[', ']']).to_ascii_lowercase())
        });
    match host {
        Some(h) if allowed.contains(&h) => {}
        _ => {
            return refuse(
                StatusCode::FORBIDDEN,
                "the Host header is not allowed for /mcp",
            );
        }
    }
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let ok = origin
            .to_str()
            .ok()
            .filter(|o| o.starts_with("http://") || o.starts_with("https://"))
            .and_then(url_host)
            .is_some_and(|h| allowed.contains(&h));
        if !ok {
            return refuse(
                StatusCode::FORBIDDEN,
                "the Origin header is not allowed for /mcp",
            );
        }
    }

    let presented = req.headers().get(header::AUTHORIZATION).map(|value| {
        value
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim().to_string())
            .filter(|t| !t.is_empty())
    });
    let token = match presented {
        Some(Some(token)) => token,
        Some(None) => {
            return deny(
                "the Authorization header must be 'Bearer <credential>'",
                true,
            );
        }
        None => match anonymous_key(&state, &req) {
            Some(key) => key,
            None => {
                return deny(
                    "a valid API key or OAuth access token is required (Authorization: Bearer ...)",
                    false,
                );
            }
        },
    };
    match state
        .core
        .authenticate_bearer_for(&token, Resource::Mcp)
        .await
    {
        Ok(caller) => {
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        Err(Error::Unauthorized(message)) => deny(&message, true),
        Err(e) => crate::http::error::ApiError::from(e).into_response(),
    }
}

/// The test-only key for credential-less requests, unless the request came through a proxy.
fn anonymous_key(state: &AppState, req: &Request) -> Option<String> {
    let key = state.mcp.anonymous_key.as_ref()?;
    let proxied = ["forwarded", "x-forwarded-for", "x-real-ip"]
        .iter()
        .any(|h| req.headers().contains_key(*h));
    (!proxied).then(|| key.expose().to_string())
}

/// GET `/.well-known/oauth-protected-resource/mcp` (RFC 9728, path-inserted): the MCP
/// server as a protected resource.
pub async fn resource_metadata(State(state): State<AppState>) -> Json<Value> {
    let base = state.core.public_url();
    Json(json!({
        "resource": Resource::Mcp.uri(base),
        "resource_name": "Lectern MCP server",
        "authorization_servers": [state.core.issuer()],
        "scopes_supported": ["read", "manage"],
        "bearer_methods_supported": ["header"],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::options::is_loopback_host;

    #[test]
    fn hosts_come_out_of_urls_and_authorities_without_ports_or_brackets() {
        assert_eq!(
            url_host("https://Decks.Example.org/x").as_deref(),
            Some("decks.example.org")
        );
        assert_eq!(
            url_host("http://127.0.0.1:8080").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(url_host("http://[::1]:8080/mcp").as_deref(), Some("::1"));
        assert_eq!(url_host("http://user@host:1").as_deref(), Some("host"));
        assert_eq!(
            authority_host("localhost:3000").as_deref(),
            Some("localhost")
        );
        assert_eq!(authority_host("[::1]").as_deref(), Some("::1"));
        assert_eq!(authority_host(""), None);
    }

    #[test]
    fn priming_events_are_dropped_and_other_events_kept_whole() {
        let priming = "data: \nid: 0\nretry: 3000\n\n";
        let message = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nid: 0/1\n\n";
        let keep_alive = ":\n\n";
        let mut pending = format!("{priming}{message}{keep_alive}").into_bytes();
        assert_eq!(
            complete_events_without_priming(&mut pending),
            format!("{message}{keep_alive}").into_bytes()
        );
        assert!(pending.is_empty());
        // A bare retry hint carries an empty data line too.
        let mut pending = b"data:\nretry: 3000\n\n".to_vec();
        assert!(complete_events_without_priming(&mut pending).is_empty());
    }

    #[test]
    fn an_event_split_across_chunks_waits_for_its_end() {
        let message = "data: {\"a\":1}\n\n";
        let (first, second) = message.split_at(9);
        let mut pending = format!("data: \nid: 0\n\n{first}").into_bytes();
        assert!(complete_events_without_priming(&mut pending).is_empty());
        assert_eq!(pending, first.as_bytes());
        pending.extend_from_slice(second.as_bytes());
        assert_eq!(
            complete_events_without_priming(&mut pending),
            message.as_bytes()
        );
        // The end of an event split between its two newlines.
        let mut pending = b"data: {}\n".to_vec();
        assert!(complete_events_without_priming(&mut pending).is_empty());
        pending.push(b'\n');
        assert_eq!(
            complete_events_without_priming(&mut pending),
            b"data: {}\n\n"
        );
    }

    #[test]
    fn revisions_before_2025_11_25_and_requests_without_one_predate_priming() {
        assert!(predates_priming(None));
        assert!(predates_priming(Some("2025-03-26")));
        assert!(predates_priming(Some("2025-06-18")));
        assert!(!predates_priming(Some("2025-11-25")));
        assert!(!predates_priming(Some("2026-07-28")));
    }

    #[test]
    fn loopback_names_are_recognised() {
        assert!(is_loopback_host("localhost"));
        assert!(is_loopback_host("127.0.0.1"));
        assert!(is_loopback_host("127.1.2.3"));
        assert!(is_loopback_host("::1"));
        assert!(!is_loopback_host("decks.example.org"));
        assert!(!is_loopback_host("0.0.0.0"));
    }
}
