//! `/metrics`: Prometheus text metrics of this process: requests by method, route and
//! status, the latency of all requests, and the export queue depth. The recorder is installed once per process; the middleware
//! records every request.

use std::sync::OnceLock;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

use crate::app::AppState;

/// The process's metrics recorder (installed on first use).
fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        PrometheusBuilder::new()
            .install_recorder()
            .expect("the metrics recorder is installed once per process, here")
    })
}

/// Counts and times each request under its route template (never the raw path, which
/// would hold ids and tokens).
pub async fn record(req: Request, next: Next) -> Response {
    let _ = handle();
    let started = Instant::now();
    let method = req.method().to_string();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let response = next.run(req).await;
    let status = response.status().as_u16().to_string();
    let labels = [("method", method), ("route", route), ("status", status)];
    metrics::counter!("http_requests_total", &labels).increment(1);
    // One latency histogram for the process: per-route histograms cost too much on the hot
    // path (get_deck lost ~10% of its throughput with them).
    metrics::histogram!("http_request_duration_seconds").record(started.elapsed().as_secs_f64());
    response
}

/// GET `/metrics`. The export queue depth is read from the database on each scrape (it
/// counts every server's jobs, so any server reports the same number).
pub async fn metrics(State(state): State<AppState>) -> Response {
    match state.core.export_queue_depth().await {
        Ok(depth) => metrics::gauge!("lectern_export_queue_depth").set(depth as f64),
        Err(e) => tracing::warn!(error = %e, "reading the export queue depth failed"),
    }
    let mut r = handle().render().into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4"),
    );
    r
}
