//! `/metrics`: Prometheus text metrics of this process: requests by method, route and
//! status, the latency of all requests, and the export queue depth. The recorder is
//! installed once per process; the edge middleware (`http::EdgeLayer`) records every request
//! through a [`RequestTimer`].

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use metrics::{Counter, Histogram};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

use crate::state::AppState;

/// How often the recorder's histograms are drained into their summaries (see [`handle`]).
const UPKEEP_EVERY: Duration = Duration::from_secs(1);

/// The process's metrics recorder (installed on first use), with a thread of its own that
/// runs the recorder's upkeep every [`UPKEEP_EVERY`]. A histogram keeps each value recorded
/// until upkeep (or a scrape) drains it into its summary: without one, a server nobody
/// scrapes kept 8 bytes per request for ever. A thread, not a task: the recorder outlives any one Tokio runtime (the tests run
/// several in one process).
fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let handle = PrometheusBuilder::new()
            .install_recorder()
            .expect("the metrics recorder is installed once per process, here");
        let upkeep = handle.clone();
        std::thread::Builder::new()
            .name("metrics-upkeep".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(UPKEEP_EVERY);
                    upkeep.run_upkeep();
                }
            })
            .expect("a thread can be started at startup");
        handle
    })
}

/// The request counter of one method, route template and status, made once and kept: the
/// recorder's own look-up hashes the labels and their `String`s are made for each call, a
/// cost every request would pay. The set is bounded by the routes (unknown paths count as
/// "unmatched").
fn count_request(method: &Method, route: &str, status: StatusCode) {
    type ByRoute = HashMap<Box<str>, Vec<(Method, StatusCode, Counter)>>;
    static COUNTERS: OnceLock<RwLock<ByRoute>> = OnceLock::new();
    let counters = COUNTERS.get_or_init(Default::default);
    let find = |by_route: &ByRoute| {
        by_route.get(route).and_then(|known| {
            known
                .iter()
                .find(|(m, s, _)| m == method && *s == status)
                .map(|(_, _, c)| c.clone())
        })
    };
    let known = find(&counters.read().expect("no panics while the lock is held"));
    let counter = known.unwrap_or_else(|| {
        let mut by_route = counters.write().expect("no panics while the lock is held");
        find(&by_route).unwrap_or_else(|| {
            let labels = [
                ("method", method.to_string()),
                ("route", route.to_string()),
                ("status", status.as_u16().to_string()),
            ];
            let counter = metrics::counter!("http_requests_total", &labels);
            by_route.entry(route.into()).or_default().push((
                method.clone(),
                status,
                counter.clone(),
            ));
            counter
        })
    });
    counter.increment(1);
}

/// One request being counted and timed: started before it is handled, finished with its
/// answer's status.
pub struct RequestTimer {
    started: Instant,
    method: Method,
    route: Option<MatchedPath>,
}

impl RequestTimer {
    pub fn start(req: &Request) -> Self {
        let _ = handle();
        RequestTimer {
            started: Instant::now(),
            method: req.method().clone(),
            route: req.extensions().get::<MatchedPath>().cloned(),
        }
    }

    /// Counts the request under its route template (never the raw path, which would hold
    /// ids and tokens) and records its latency.
    pub fn finish(self, status: StatusCode) {
        let route = self.route.as_ref().map_or("unmatched", MatchedPath::as_str);
        count_request(&self.method, route, status);
        // One latency histogram for the process: per-route histograms cost too much on the
        // hot path (measured with lectern-bench's get_deck).
        static LATENCY: OnceLock<Histogram> = OnceLock::new();
        LATENCY
            .get_or_init(|| metrics::histogram!("http_request_duration_seconds"))
            .record(self.started.elapsed().as_secs_f64());
    }
}

/// GET `/metrics`. The export queue depth is read from the database on each scrape (it
/// counts every server's jobs, so any server reports the same number).
pub async fn metrics(State(state): State<AppState>, headers: axum::http::HeaderMap) -> Response {
    if let Some(token) = &state.metrics_token {
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or_default();
        if !lectern_core::secret::constant_time_eq(presented, token.expose()) {
            return crate::http::error::ApiError::new(
                axum::http::StatusCode::UNAUTHORIZED,
                "/metrics needs the metrics token (--metrics-token)",
            )
            .into_response();
        }
    }
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
