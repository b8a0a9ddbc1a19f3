//! The state every handler shares, and the server loop (bind, serve, drain on shutdown).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tower::ServiceExt;

use lectern_core::Lectern;
use tokio::sync::Notify;

use crate::export::pdf::PdfRenderer;
use crate::export::worker::Exporter;
use tokio::net::TcpListener;

use crate::http::rate_limit::RateLimits;
use crate::router;

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
    pub mcp: crate::mcp::McpOptions,
    /// Request-rate limits per credential (`--rate-limit`).
    pub rate_limits: Arc<RateLimits>,
    /// `get_deck`'s answers for unchanged decks.
    pub deck_bodies: crate::api::decks::DeckBodies,
    /// The bearer token `/metrics` requires (`--metrics-token`); `None`: no credential.
    pub metrics_token: Option<lectern_core::secret::Secret>,
}

/// Starts `workers` export workers for `state` (PDFs printed by `state.renderer`), with the
/// thumbnail loop and the file cleanup; none of them when `workers` is 0 (another process,
/// `lectern worker`, does that work).
pub fn spawn_export_workers(state: &AppState, workers: usize) {
    if workers == 0 {
        return;
    }
    let exporter = Arc::new(Exporter {
        core: state.core.clone(),
        pdf: state.renderer.clone(),
        wakeup: state.export_wakeup.clone(),
    });
    for _ in 0..workers {
        tokio::spawn(exporter.clone().run());
    }
    tokio::spawn(exporter.clone().run_thumbnails());
    tokio::spawn(exporter.run_cleanup());
}

/// How long a client may take to send a request's headers (slow-header attacks hold a
/// connection open otherwise; the 30 s request timeout starts only after the headers).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a shutdown waits for in-flight requests (and open event streams) to finish.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves the API on `listener` until `shutdown` completes, then lets in-flight requests
/// finish (up to [`DRAIN_TIMEOUT`]).
///
/// A hyper HTTP/1.1 loop rather than `axum::serve`, which cannot time out header reads:
/// every connection gets [`HEADER_READ_TIMEOUT`] for each request's headers, and each request
/// carries the peer address (`ConnectInfo`) for the rate limiter.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router::build(state);
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            app.clone().oneshot(req.map(Body::new))
        });
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, peer = %peer, "connection ended with an error");
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(DRAIN_TIMEOUT, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("in-flight requests still running after {DRAIN_TIMEOUT:?}; stopping anyway");
    }
    Ok(())
}
