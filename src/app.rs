//! The state every handler shares, and the server loop (bind, serve, drain on shutdown).

use std::future::Future;

use lectern_core::Lectern;
use tokio::net::TcpListener;

use crate::router;

/// Handler state: the application core.
#[derive(Clone)]
pub struct AppState {
    pub core: Lectern,
}

/// Serves the API on `listener` until `shutdown` completes, then lets in-flight requests
/// finish.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router::build(state))
        .with_graceful_shutdown(shutdown)
        .await
}
