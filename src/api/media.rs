//! The media library (an extension of the interface): upload, list, get and delete an
//! account's images, and the public file URL (`/media/<id>.<ext>`) slides name.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lectern_core::media::MAX_MEDIA_BYTES;
use lectern_core::params::Paging;
use lectern_core::service::media::{MediaView, Upload};

use crate::api::params::PageParams;
use crate::api::responses::*;
use crate::api::{Envelope, data, page};
use crate::http::error::{ApiError, ErrorBody};
use crate::http::extract::{Auth, Manage, QueryParams};
use crate::state::AppState;

/// Largest upload request: the 20 MiB file plus room for a multipart envelope and its name.
pub const MAX_UPLOAD_REQUEST_BYTES: usize = MAX_MEDIA_BYTES + 1024 * 1024;

/// How long browsers and caches may keep a media file (a deleted file may be served from a
/// cache until then).
const MEDIA_MAX_AGE: &str = "public, max-age=86400";

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the file is too large: at most {MAX_MEDIA_BYTES} bytes (20 MiB) are accepted"),
    )
}

/// Reads `multipart/form-data`: the `file` part (required) and the optional `name` part;
/// without `name`, the file part's own file name.
async fn read_multipart(request: Request) -> Result<Upload, ApiError> {
    let reject = |e: axum::extract::multipart::MultipartError| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large()
        } else {
            ApiError::invalid(format!("malformed multipart body: {}", e.body_text()))
        }
    };
    let mut multipart = Multipart::from_request(request, &())
        .await
        .map_err(|e| ApiError::invalid(format!("malformed multipart body: {}", e.body_text())))?;
    let (mut file, mut name, mut file_name) = (None, None, None);
    while let Some(field) = multipart.next_field().await.map_err(reject)? {
        match field.name() {
            Some("file") if file.is_none() => {
                file_name = field.file_name().map(str::to_string);
                file = Some(field.bytes().await.map_err(reject)?);
            }
            Some("name") if name.is_none() => {
                name = Some(field.text().await.map_err(reject)?);
            }
            // Other parts are read past and ignored.
            _ => {
                field.bytes().await.map_err(reject)?;
            }
        }
    }
    let bytes = file.ok_or_else(|| ApiError::invalid("the multipart body has no 'file' part"))?;
    Ok(Upload {
        bytes: bytes.to_vec(),
        name: name.filter(|n| !n.trim().is_empty()).or(file_name),
    })
}

/// `upload_media`: one image, as `multipart/form-data` (a `file` part and an optional `name`
/// part) or as the raw body (any `Content-Type`, optional `?name=`). 201 with the new
/// medium; 200 with the existing one when the account uploaded the same bytes before.
#[utoipa::path(post, path = "/v1/media", operation_id = "upload_media", tag = "media",
    params(("name" = Option<String>, Query, description = "The file's name (raw-body uploads); reduced to a safe file name with the extension of the detected type")),
    request_body(description = "The image: PNG, JPEG, GIF, WebP or SVG, at most 20 MiB; the type is decided from the bytes. Either multipart/form-data with a `file` part (and an optional `name` part), or the raw bytes with any Content-Type.",
        content((crate::api::bodies::MediaUploadForm = "multipart/form-data"), (Vec<u8> = "application/octet-stream"))),
    responses((status = 201, description = "Stored", body = Envelope<MediaView>), (status = 200, description = "The account had these bytes already: the first upload", body = Envelope<MediaView>),
        Unauthorized, Forbidden,
        (status = 413, description = "The file is larger than 20 MiB, or the account's media quota would be passed", body = ErrorBody),
        (status = 422, description = "Not an accepted image (HTML, truncated, undecodable), more than 50,000,000 pixels, more than 256 MiB to decode, or an animation of more than 100,000,000 pixels in all its frames", body = ErrorBody), RateLimited,
        (status = 503, description = "Every image decoder stayed busy while the upload waited", body = ErrorBody, headers(("Retry-After" = u64, description = "Seconds until a retry is likely to be served")))),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn upload_media(
    State(state): State<AppState>,
    Manage(caller): Manage,
    query: QueryParams,
    request: Request,
) -> Result<(StatusCode, Json<Envelope<MediaView>>), ApiError> {
    let multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("multipart/form-data")
        });
    let upload = if multipart {
        read_multipart(request).await?
    } else {
        let bytes = Bytes::from_request(request, &())
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    too_large()
                } else {
                    ApiError::invalid(format!("could not read the request body: {rejection}"))
                }
            })?;
        Upload {
            bytes: bytes.to_vec(),
            name: query.get("name").map(str::to_string),
        }
    };
    let uploaded = state.core.upload_media(&caller, upload).await?;
    let status = if uploaded.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, data(uploaded.media)))
}

/// `list_media`: the account's media, newest first, paged (default 20, at most 100).
#[utoipa::path(get, path = "/v1/media", operation_id = "list_media", tag = "media",
    params(PageParams),
    responses((status = 200, description = "Success", body = Envelope<Vec<MediaView>>), Unauthorized,
        Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn list_media(
    State(state): State<AppState>,
    Auth(caller): Auth,
    query: QueryParams,
) -> Result<Json<Envelope<Vec<MediaView>>>, ApiError> {
    let paging = Paging::parse(query.get("page"), query.get("per_page"), Paging::DECKS)?;
    Ok(page(state.core.list_media(&caller, paging).await?))
}

/// `get_media`: one of the account's media.
#[utoipa::path(get, path = "/v1/media/{media_id}", operation_id = "get_media", tag = "media",
    params(("media_id" = String, Path, description = "The medium's id")),
    responses((status = 200, description = "Success", body = Envelope<MediaView>), Unauthorized,
        (status = 404, description = "Not found (also another account's)", body = ErrorBody), RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn get_media(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(media_id): Path<String>,
) -> Result<Json<Envelope<MediaView>>, ApiError> {
    Ok(data(state.core.get_media(&caller, &media_id).await?))
}

/// `delete_media`: removes one of the account's media; its URL answers 404 from then on.
#[utoipa::path(delete, path = "/v1/media/{media_id}", operation_id = "delete_media", tag = "media",
    params(("media_id" = String, Path, description = "The medium's id")),
    responses((status = 204, description = "Deleted"), Unauthorized, Forbidden,
        (status = 404, description = "Not found (also another account's)", body = ErrorBody), RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn delete_media(
    State(state): State<AppState>,
    Manage(caller): Manage,
    Path(media_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.core.delete_media(&caller, &media_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// GET `/media/{id}.{ext}`: the file, for anyone with its URL (slides shown on public pages
/// and share links name it). Cached for a day; `nosniff` always; SVG under a CSP that lets
/// nothing run or load.
pub async fn media_file(
    State(state): State<AppState>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    let mut response = match state.core.open_media_file(&file).await {
        Ok(f) => {
            let fresh = headers
                .get(header::IF_NONE_MATCH)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.split(',').any(|t| t.trim() == f.etag || t.trim() == "*"));
            let mut r = if fresh {
                StatusCode::NOT_MODIFIED.into_response()
            } else {
                (StatusCode::OK, f.bytes).into_response()
            };
            let h = r.headers_mut();
            if let Ok(v) = HeaderValue::from_str(&f.content_type) {
                h.insert(header::CONTENT_TYPE, v);
            }
            if let Ok(v) = HeaderValue::from_str(&f.etag) {
                h.insert(header::ETAG, v);
            }
            h.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static(MEDIA_MAX_AGE),
            );
            if f.content_type == "image/svg+xml" {
                h.insert(
                    header::CONTENT_SECURITY_POLICY,
                    HeaderValue::from_static(
                        "default-src 'none'; style-src 'unsafe-inline'; sandbox",
                    ),
                );
            }
            r
        }
        Err(e) => ApiError::from(e).into_response(),
    };
    response.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}
