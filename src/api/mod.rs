//! The REST API under `/v1` (interface section 4): one module per resource, one handler per
//! operation, named by its operationId. Handlers only extract, call the core, and wrap the
//! answer in the envelope.

pub mod bodies;
pub mod deck_bodies;
pub mod decks;
pub mod exports;
pub mod media;
pub mod openapi;
pub mod responses;
pub mod revisions;
pub mod shares;
pub mod slides;
pub mod team;
pub mod users;

use axum::Json;
use lectern_core::params::PageMeta;
use serde::Serialize;

/// The success envelope (interface 2.1).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Envelope<T, M = PageMeta> {
    pub data: T,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<M>,
}

/// `{"data": data}`.
pub fn data<T: Serialize>(data: T) -> Json<Envelope<T>> {
    Json(Envelope { data, meta: None })
}

/// The answer of a read of one deck at one revision: `{"data": data}` with the strong
/// `ETag: "<deck id>-<revision>"` that `If-Match` takes.
pub type Tagged<T> = ([(axum::http::HeaderName, String); 1], Json<Envelope<T>>);

/// `{"data": data}` tagged with the deck's revision.
pub fn tagged<T: Serialize>(deck_id: i64, revision: i64, value: T) -> Tagged<T> {
    (
        [(
            axum::http::header::ETAG,
            lectern_core::revision::etag(deck_id, revision),
        )],
        data(value),
    )
}

/// `{"data": items, "meta": {page, per_page, total}}`.
pub fn page<T: Serialize>(page: lectern_core::service::Page<T>) -> Json<Envelope<Vec<T>>> {
    Json(Envelope {
        data: page.items,
        meta: Some(page.meta),
    })
}
