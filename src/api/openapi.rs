//! `/v1/openapi.json`: the OpenAPI 3.1 description of the REST API, generated from the same
//! handler annotations and Rust types the handlers use.

use axum::Json;
use axum::extract::State;
use utoipa::openapi::security::{
    AuthorizationCode, Flow, HttpAuthScheme, HttpBuilder, OAuth2, Scopes, SecurityScheme,
};
use utoipa::{Modify, OpenApi};

use crate::api;
use crate::state::AppState;

/// Adds the bearer scheme (API key or OAuth access token).
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "An API key (lk_...) or an OAuth 2.0 access token (lat_...)",
                    ))
                    .build(),
            ),
        );
    }
}

/// The API description.
#[derive(OpenApi)]
#[openapi(
    info(title = "Lectern deck service", version = "1.0.0",
        description = "Create, edit, present, share and export reveal.js slide decks. Every operation also answers 401 without a valid credential and 429 over the rate limit; every response of the API carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset."),
    paths(
        api::users::users_get,
        api::decks::list_decks,
        api::decks::create_deck,
        api::decks::list_trashed_decks,
        api::decks::get_deck,
        api::decks::update_deck,
        api::decks::trash_deck,
        api::decks::recover_deck,
        api::slides::list_slides,
        api::slides::add_slide,
        api::slides::remove_slides,
        api::slides::get_slide,
        api::slides::update_slide,
        api::slides::move_slides,
        api::slides::group_slides,
        api::shares::list_deck_shares,
        api::shares::create_deck_share,
        api::shares::revoke_deck_share,
        api::exports::create_deck_export,
        api::exports::get_deck_export,
        api::team::list_team_decks,
        api::team::get_team_deck,
        api::revisions::list_revisions,
        api::revisions::get_revision,
        api::revisions::restore,
        api::revisions::list_slide_revisions,
        api::media::upload_media,
        api::media::list_media,
        api::media::get_media,
        api::media::delete_media,
    ),
    components(schemas(lectern_core::params::PageMeta)),
    modifiers(&BearerAuth)
)]
pub struct ApiDoc;

/// The description as this server publishes it: its public URL as the server, and the OAuth
/// 2.0 authorization-code flow (PKCE) at its own endpoints with the two scopes.
pub fn document(public_url: &str) -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.servers = Some(vec![utoipa::openapi::Server::new(public_url)]);
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "oauth2",
        SecurityScheme::OAuth2(OAuth2::with_description(
            [Flow::AuthorizationCode(AuthorizationCode::new(
                format!("{public_url}/oauth/authorize"),
                format!("{public_url}/oauth/token"),
                Scopes::from_iter([
                    ("read", "Read operations (R in the interface's table)"),
                    ("manage", "Read and write operations (M; implies read)"),
                ]),
            ))],
            "OAuth 2.0 authorization code flow with PKCE (S256); tokens for this API carry the resource <public URL>/v1",
        )),
    );
    doc
}

/// GET `/v1/openapi.json`.
pub async fn openapi_json(State(state): State<AppState>) -> Json<utoipa::openapi::OpenApi> {
    Json(document(state.core.public_url()))
}
