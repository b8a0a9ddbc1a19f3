//! `/healthz`: liveness and a storage round trip, without a credential.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::state::AppState;

/// 200 `{"status": "ok"}` when storage answers, 503 with an error otherwise.
pub async fn healthz(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    match state.core.health().await {
        Ok(()) => (StatusCode::OK, Json(json!({ "status": "ok" }))),
        Err(e) => {
            tracing::error!(error = %e, "health check failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "error": "storage is unavailable" })),
            )
        }
    }
}
