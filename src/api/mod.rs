//! The REST API under `/v1` (interface section 4): one module per resource, one handler per
//! operation, named by its operationId. Handlers only extract, call the core, and wrap the
//! answer in the envelope.

pub mod bodies;
pub mod deck_bodies;
pub mod decks;
pub mod events;
pub mod exports;
pub mod media;
pub mod openapi;
pub mod params;
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

/// Operations on one path as `utoipa_axum::routes!` collects them from their handlers'
/// `#[utoipa::path]`: the schemas they name, the path with its OpenAPI operations, and the
/// axum method router.
pub type Operations = utoipa_axum::router::UtoipaMethodRouter<crate::state::AppState>;

/// Every operation of the REST API, grouped by path. A handler's `#[utoipa::path]` is the one
/// place that says its method, path (as the interface spells it), parameters, answers and
/// scopes: `router.rs` mounts these groups and `/v1/openapi.json` describes them.
pub fn operations() -> Vec<Operations> {
    use utoipa_axum::routes;
    let (schemas, paths, media) = routes!(media::list_media, media::upload_media);
    let media = media.layer(axum::extract::DefaultBodyLimit::max(
        media::MAX_UPLOAD_REQUEST_BYTES,
    ));
    vec![
        routes!(users::users_get),
        routes!(decks::list_decks, decks::create_deck),
        routes!(decks::list_trashed_decks),
        routes!(decks::get_deck, decks::update_deck),
        routes!(decks::trash_deck),
        routes!(decks::recover_deck),
        routes!(
            slides::list_slides,
            slides::add_slide,
            slides::remove_slides
        ),
        routes!(slides::get_slide, slides::update_slide),
        routes!(slides::move_slides),
        routes!(slides::group_slides),
        routes!(shares::list_deck_shares, shares::create_deck_share),
        routes!(shares::revoke_deck_share),
        routes!(exports::create_deck_export),
        routes!(exports::get_deck_export),
        routes!(team::list_team_decks),
        routes!(team::get_team_deck),
        routes!(revisions::list_revisions),
        routes!(revisions::get_revision),
        routes!(revisions::restore),
        routes!(revisions::list_slide_revisions),
        routes!(events::deck_events),
        routes!(events::present_deck),
        routes!(events::set_presence),
        (schemas, paths, media),
        routes!(media::get_media, media::delete_media),
    ]
}

/// The path axum routes for a documented one. Axum wants one name per parameter position,
/// while the interface names a deck `{id}` on its own paths and `{deck_id}` under them: the
/// deck is `{id}` here, and the id after it is named after its resource (`{share_id}`,
/// `{export_id}`), as the extractors read them (`http::extract`).
pub fn routed_path(documented: &str) -> String {
    let Some(rest) = documented.strip_prefix("/v1/decks/{deck_id}") else {
        return documented.to_string();
    };
    let rest = rest
        .replace("/share/{id}", "/share/{share_id}")
        .replace("/exports/{id}", "/exports/{export_id}");
    format!("/v1/decks/{{id}}{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routed_paths_name_the_deck_id_and_the_ids_under_it() {
        let cases = [
            ("/v1/decks/{id}", "/v1/decks/{id}"),
            ("/v1/decks/{deck_id}/slides", "/v1/decks/{id}/slides"),
            (
                "/v1/decks/{deck_id}/share/{id}",
                "/v1/decks/{id}/share/{share_id}",
            ),
            (
                "/v1/decks/{deck_id}/exports/{id}",
                "/v1/decks/{id}/exports/{export_id}",
            ),
            ("/v1/media/{media_id}", "/v1/media/{media_id}"),
        ];
        for (documented, routed) in cases {
            assert_eq!(routed_path(documented), routed, "{documented}");
        }
    }

    #[test]
    fn every_group_of_operations_shares_one_path_and_each_path_is_one_group() {
        let mut seen = std::collections::HashSet::new();
        for (_, paths, _) in operations() {
            assert_eq!(paths.paths.len(), 1, "{:?}", paths.paths.keys());
            let path = paths.paths.keys().next().unwrap().clone();
            assert!(seen.insert(path.clone()), "{path} twice");
        }
        assert_eq!(seen.len(), 25);
    }
}
