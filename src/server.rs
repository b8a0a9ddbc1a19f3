//! The server: the routes served on a listener (bind, serve, drain on shutdown), and the
//! export workers beside them.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tower::ServiceExt;

use tokio::net::TcpListener;

use crate::export::worker::Exporter;
use crate::router;
use crate::state::AppState;

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

/// How long a shutdown waits for in-flight requests (and open event streams) to finish.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves the API on `listener` until `shutdown` completes, then lets in-flight requests
/// finish (up to [`DRAIN_TIMEOUT`]).
///
/// A hyper HTTP/1.1 loop rather than `axum::serve`, which cannot time out header reads:
/// every connection gets `Timeouts::header_read` for each request's headers, and each request
/// carries the peer address (`ConnectInfo`) for the rate limiter.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let header_read = state.timeouts.header_read;
    let app = router::build(state);
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_read)
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
