//! The state every handler shares: the application core and the server's parts (renderer,
//! limits, caches). A leaf: it names the types it holds and nothing that handles requests.

use std::sync::Arc;
use std::time::Duration;

use lectern_core::Lectern;
use tokio::sync::Notify;

use crate::api::deck_bodies::DeckBodies;
use crate::export::pdf::PdfRenderer;
use crate::http::rate_limit::RateLimits;
use crate::mcp::options::McpOptions;

/// Handler state: the application core and what the export endpoints need, shared. axum
/// clones the state for every request (and every extractor that takes it), so it is one
/// `Arc`: a clone is one counter increment, not one per part.
#[derive(Clone)]
pub struct AppState(Arc<AppShared>);

impl AppState {
    pub fn new(shared: AppShared) -> Self {
        AppState(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = AppShared;

    fn deref(&self) -> &AppShared {
        &self.0
    }
}

/// What [`AppState`] shares.
pub struct AppShared {
    pub core: Lectern,
    /// Wakes this server's export worker when a job is queued.
    pub export_wakeup: Arc<Notify>,
    /// The warm Chromium: PDF exports, thumbnails and MCP slide screenshots.
    pub renderer: Arc<PdfRenderer>,
    /// Settings of the MCP server on `/mcp`.
    pub mcp: McpOptions,
    /// Request-rate limits per credential (`--rate-limit`).
    pub rate_limits: Arc<RateLimits>,
    /// `get_deck`'s answers for unchanged decks.
    pub deck_bodies: DeckBodies,
    /// How long the server waits on clients.
    pub timeouts: Timeouts,
    /// The bearer token `/metrics` requires (`--metrics-token`); `None`: no credential.
    pub metrics_token: Option<lectern_core::secret::Secret>,
}

/// How long the server waits on a client. Settings rather than constants so that the tests
/// that wait for them can shorten them.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// For each request's headers: slow-header attacks hold a connection open otherwise (the
    /// request's time limit starts only after its headers).
    pub header_read: Duration,
    /// For a request after its headers; past it the answer is 408 and the request's work is
    /// dropped (a write rolls back).
    pub request: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            header_read: Duration::from_secs(10),
            request: Duration::from_secs(30),
        }
    }
}
