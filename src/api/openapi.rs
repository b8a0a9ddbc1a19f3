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

/// The API description, without its operations (see [`api_doc`]).
#[derive(OpenApi)]
#[openapi(
    info(title = "Lectern deck service", version = "1.0.0",
        description = "Create, edit, present, share and export reveal.js slide decks. Every operation also answers 401 without a valid credential and 429 over the rate limit; every response of the API carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset."),
    components(schemas(lectern_core::params::PageMeta)),
    modifiers(&BearerAuth)
)]
pub struct ApiDoc;

/// The API description with every operation of [`api::operations`] and the schemas they name.
pub fn api_doc() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    for (schemas, paths, _) in api::operations() {
        doc.paths.paths.extend(paths.paths);
        let components = doc.components.get_or_insert_with(Default::default);
        components.schemas.extend(schemas);
    }
    doc
}

/// The description as this server publishes it: its public URL as the server, and the OAuth
/// 2.0 authorization-code flow (PKCE) at its own endpoints with the two scopes.
pub fn document(public_url: &str) -> utoipa::openapi::OpenApi {
    let mut doc = api_doc();
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
