//! `/mcp` over Streamable HTTP: rmcp's `StreamableHttpService` (the stateless 2026-07-28
//! revision and the session-based 2025-11-25 one) behind [`guard`], which answers before rmcp
//! does: a foreign `Host` or `Origin` gets 403 (DNS rebinding), a missing or invalid
//! credential 401 with the RFC 9728 challenge. Also the protected resource metadata of `/mcp`.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lectern_core::Error;
use lectern_core::oauth::Resource;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

use crate::app::AppState;
use crate::http::error::ErrorBody;
use crate::http::rate_limit::{client_address, over_limit_without_credential};
use crate::mcp::LecternMcp;

/// Host names always allowed besides the public URL's: a local client may use them.
const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// The scopes the MCP tools need (read tools and manage tools).
const SCOPES: &str = "read manage";

/// The MCP service for `/mcp`; put [`guard`] in front of it.
pub fn service(state: &AppState) -> StreamableHttpService<LecternMcp, LocalSessionManager> {
    let core = state.core.clone();
    let wakeup = state.export_wakeup.clone();
    let renderer = state.renderer.clone();
    let limits = state.rate_limits.clone();
    // The guard checks Host and Origin first (with JSON errors); rmcp checks Host again.
    let config =
        StreamableHttpServerConfig::default().with_allowed_hosts(allowed_hosts(&state.core));
    StreamableHttpService::new(
        move || {
            Ok(LecternMcp::for_http(
                core.clone(),
                wakeup.clone(),
                renderer.clone(),
                limits.clone(),
            ))
        },
        Arc::new(LocalSessionManager::default()),
        config,
    )
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

/// The host of an `http(s)://host[:port]/...` URL, lowercase, without IPv6 brackets.
pub fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    authority_host(authority)
}

/// The host of a `host[:port]` authority, lowercase, without IPv6 brackets.
fn authority_host(authority: &str) -> Option<String> {
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split_once(']')?.0
    } else {
        authority.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Whether `host` names this machine.
pub fn is_loopback_host(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `{"error": message}` with `status`.
fn refuse(status: StatusCode, message: &str) -> Response {
    (
        status,
        Json(ErrorBody {
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
    fn loopback_names_are_recognised() {
        assert!(is_loopback_host("localhost"));
        assert!(is_loopback_host("127.0.0.1"));
        assert!(is_loopback_host("127.1.2.3"));
        assert!(is_loopback_host("::1"));
        assert!(!is_loopback_host("decks.example.org"));
        assert!(!is_loopback_host("0.0.0.0"));
    }
}
