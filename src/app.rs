//! The state every handler shares, and the server loop (bind, serve, drain on shutdown).

use std::future::Future;

use std::sync::Arc;

use lectern_core::Lectern;
use tokio::sync::Notify;

use crate::export::files::FileStore;
use crate::export::pdf::PdfRenderer;
use crate::export::worker::Exporter;
use tokio::net::TcpListener;

use crate::http::rate_limit::RateLimits;
use crate::router;

/// Handler state: the application core and what the export endpoints need.
#[derive(Clone)]
pub struct AppState {
    pub core: Lectern,
    /// Where export files are kept (downloads read them).
    pub files: Arc<dyn FileStore>,
    /// Wakes this server's export worker when a job is queued.
    pub export_wakeup: Arc<Notify>,
    /// The warm Chromium: PDF exports, thumbnails and MCP slide screenshots.
    pub renderer: Arc<PdfRenderer>,
    /// Settings of the MCP server on `/mcp`.
    pub mcp: crate::mcp::McpOptions,
    /// Request-rate limits per credential (`--rate-limit`).
    pub rate_limits: Arc<RateLimits>,
}

/// Starts `workers` export workers for `state` (PDFs printed by `state.renderer`).
pub fn spawn_export_workers(state: &AppState, workers: usize) {
    let exporter = Arc::new(Exporter {
        core: state.core.clone(),
        files: state.files.clone(),
        pdf: state.renderer.clone(),
        wakeup: state.export_wakeup.clone(),
    });
    for _ in 0..workers {
        tokio::spawn(exporter.clone().run());
    }
    tokio::spawn(exporter.clone().run_thumbnails());
    tokio::spawn(exporter.run_cleanup());
}

/// Serves the API on `listener` until `shutdown` completes, then lets in-flight requests
/// finish.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router::build(state).into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}
