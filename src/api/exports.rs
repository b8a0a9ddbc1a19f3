//! The export operations (interface 4.6), and the signed download links they hand out.

use crate::api::bodies::CreateExportBody;
use crate::api::params::*;
use crate::api::responses::*;
use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lectern_core::service::exports::{ExportView, NewExport, POLL_AFTER_SECONDS};
use serde::Serialize;

use crate::api::{Envelope, data};
use crate::http::error::ApiError;
use crate::http::extract::{Auth, ExportIdPath, IdPath, JsonBody, Manage};
use crate::state::AppState;

/// `meta` of `create_deck_export`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PollMeta {
    /// Seconds to wait before polling `get_deck_export`.
    pub poll_after_seconds: i64,
}

/// `create_deck_export`: queues a PDF or ZIP export; 202 with the pending export.
#[utoipa::path(post, path = "/v1/decks/{deck_id}/exports", operation_id = "create_deck_export",
    request_body(content = CreateExportBody, content_type = "application/json"), tag = "exports",
    params(DeckIdParam),
    responses((status = 202, description = "Accepted", body = Envelope<ExportView, PollMeta>), Unauthorized,
        Forbidden, NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn create_deck_export(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<(StatusCode, Json<Envelope<ExportView, PollMeta>>), ApiError> {
    let new = NewExport::from_json(body)?;
    let export = state.core.create_deck_export(&caller, deck_id, new).await?;
    state.export_wakeup.notify_one();
    Ok((
        StatusCode::ACCEPTED,
        Json(Envelope {
            data: export,
            meta: Some(PollMeta {
                poll_after_seconds: POLL_AFTER_SECONDS,
            }),
        }),
    ))
}

/// `get_deck_export`: the export, with a temporary download link once completed.
#[utoipa::path(get, path = "/v1/decks/{deck_id}/exports/{id}", operation_id = "get_deck_export", tag = "exports",
    params(DeckIdParam, ("id" = i64, Path, minimum = 1, description = "The export id, from create_deck_export (an integer; its decimal string is accepted too)")),
    responses((status = 200, description = "Success", body = Envelope<ExportView>), Unauthorized,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn get_deck_export(
    State(state): State<AppState>,
    Auth(caller): Auth,
    IdPath(deck_id): IdPath,
    ExportIdPath(export_id): ExportIdPath,
) -> Result<Json<Envelope<ExportView>>, ApiError> {
    Ok(data(
        state
            .core
            .get_deck_export(&caller, deck_id, export_id)
            .await?,
    ))
}

/// GET `/exports/{id}/download?expires=..&signature=..`: the file, for anyone holding a valid
/// link; a tampered or expired link answers 403 and never the file.
pub async fn download(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let refused = || {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "this download link is invalid or has expired",
        )
        .into_response()
    };
    let (Ok(id), Some(Ok(expires)), Some(sig)) = (
        id.parse::<i64>(),
        q.get("expires").map(|e| e.parse::<i64>()),
        q.get("signature"),
    ) else {
        return refused();
    };
    let (export, slug) = match state.core.check_download(id, expires, sig).await {
        Ok(Some(found)) => found,
        Ok(None) => return refused(),
        Err(e) => return ApiError::from(e).into_response(),
    };
    let Some(key) = export.file_key.clone() else {
        return ApiError::new(StatusCode::NOT_FOUND, "this export no longer exists")
            .into_response();
    };
    let bytes = match state.core.files().get(&key).await {
        Ok(Some(b)) => b,
        Ok(None) => {
            return ApiError::new(StatusCode::NOT_FOUND, "the export file is gone").into_response();
        }
        Err(e) => return ApiError::from(lectern_core::Error::internal(e)).into_response(),
    };
    let (mime, ext) = match export.format.as_str() {
        "pdf" => ("application/pdf", "pdf"),
        "pptx" => (
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            "pptx",
        ),
        _ => ("application/zip", "zip"),
    };
    let mut r = (StatusCode::OK, bytes).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    // Named after the deck (its slug: letters, digits and dashes).
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{slug}.{ext}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    r
}

/// GET `/thumbnails/{token}.png`: a deck's drawn first slide (the token is unguessable and
/// changes with every drawing).
pub async fn thumbnail(State(state): State<AppState>, Path(file): Path<String>) -> Response {
    let not_found = || ApiError::new(StatusCode::NOT_FOUND, "no such thumbnail").into_response();
    let Some(token) = file.strip_suffix(".png") else {
        return not_found();
    };
    let deck_id = match state.core.deck_by_thumbnail(token).await {
        Ok(Some(id)) => id,
        Ok(None) => return not_found(),
        Err(e) => return ApiError::from(e).into_response(),
    };
    match state
        .core
        .files()
        .get(&format!("thumb-{deck_id}.png"))
        .await
    {
        Ok(Some(png)) => {
            let mut r = (StatusCode::OK, png).into_response();
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
            r.headers_mut().insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=86400, immutable"),
            );
            r
        }
        _ => not_found(),
    }
}
