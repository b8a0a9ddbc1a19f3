//! The MCP server's settings, and the host checks they and `/mcp` share.

use std::sync::Arc;

use lectern_core::secret::Secret;

/// Settings of the HTTP MCP server.
#[derive(Clone, Default)]
pub struct McpOptions {
    /// Test-only (MCP conformance suite, which sends no credential): the API key used for
    /// `/mcp` requests without an `Authorization` header. Only ever set for a server that
    /// listens on and is published at a loopback address (see [`McpOptions::from_env`]).
    pub anonymous_key: Option<Arc<Secret>>,
}

/// Environment variable holding the test-only API key for credential-less `/mcp` requests.
pub const TEST_KEY_ENV: &str = "LECTERN_MCP_TEST_API_KEY";

impl McpOptions {
    /// Reads [`TEST_KEY_ENV`]; refuses it unless the server is bound to loopback and its
    /// public URL is a loopback address too (a proxy in front would publish it otherwise).
    pub fn from_env(bound: std::net::SocketAddr, public_url: &str) -> anyhow::Result<Self> {
        let Some(key) = std::env::var(TEST_KEY_ENV).ok().filter(|k| !k.is_empty()) else {
            return Ok(McpOptions::default());
        };
        let public_host = url_host(public_url).unwrap_or_default();
        if !bound.ip().is_loopback() || !is_loopback_host(&public_host) {
            anyhow::bail!(
                "{TEST_KEY_ENV} is for tests only and needs a loopback --listen and --public-url"
            );
        }
        tracing::warn!(
            "{TEST_KEY_ENV} is set: /mcp requests without a credential act as that key's account (tests only)"
        );
        Ok(McpOptions {
            anonymous_key: Some(Arc::new(Secret::new(key))),
        })
    }
}

/// The host of an `http(s)://host[:port]/...` URL, lowercase, without IPv6 brackets.
pub fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    authority_host(authority)
}

/// The host of a `host[:port]` authority, lowercase, without IPv6 brackets.
pub(super) fn authority_host(authority: &str) -> Option<String> {
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
