//! Every path Lectern serves, in one place: read this file as the table of contents.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;

use crate::state::AppState;
use crate::{api, http, mcp, oauth, web};

/// Largest request body (413 above it).
pub const MAX_BODY_BYTES: usize = 10 * 1024 * 1024;

/// The whole application.
pub fn build(state: AppState) -> Router {
    let mcp_service = ServiceBuilder::new()
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            mcp::http::guard,
        ))
        .service(mcp::http::service(&state));
    Router::new()
        .merge(rest_api(&state))
        .merge(web_pages(&state))
        .route("/v1/docs", get(web::reference::api_reference))
        // Export downloads and thumbnails (signed or unguessable URLs, no credential).
        .route("/exports/{id}/download", get(api::exports::download))
        .route("/thumbnails/{file}", get(api::exports::thumbnail))
        .route("/media/{file}", get(api::media::media_file))
        // OAuth 2.0 authorization server.
        .route(
            "/oauth/authorize",
            get(oauth::authorize).post(oauth::authorize_decision),
        )
        .route("/oauth/token", post(oauth::token))
        .route("/oauth/revoke", post(oauth::revoke))
        .route("/oauth/register", post(oauth::register))
        .route(
            "/.well-known/oauth-authorization-server",
            get(oauth::server_metadata),
        )
        .route(
            "/.well-known/oauth-protected-resource",
            get(oauth::resource_metadata),
        )
        .route(
            "/.well-known/oauth-protected-resource/v1",
            get(oauth::resource_metadata),
        )
        // MCP server (Streamable HTTP), and its protected resource metadata (RFC 9728).
        .route_service("/mcp", mcp_service.clone())
        .route_service("/mcp/", mcp_service)
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(mcp::http::resource_metadata),
        )
        // The files pages load.
        .route("/assets/reveal/{*path}", get(web::viewer::reveal_asset))
        .route("/assets/web/{*path}", get(web::viewer::web_asset))
        .route("/assets/editor.js", get(web::viewer::editor_script))
        .route("/assets/fonts/{*path}", get(web::viewer::font_asset))
        .route("/assets/katex/{*path}", get(web::viewer::katex_asset))
        .route("/favicon.ico", get(web::viewer::favicon))
        // Operations.
        .route("/healthz", get(web::health::healthz))
        .route("/metrics", get(http::metrics::metrics))
        .fallback(http::not_found)
        .method_not_allowed_fallback(http::method_not_allowed)
        .layer(
            ServiceBuilder::new()
                .layer(http::request_id::RequestIdLayer::default())
                .layer(http::EdgeLayer {
                    time_limit: state.timeouts.request,
                })
                .layer(CatchPanicLayer::custom(http::panic_response))
                .layer(DefaultBodyLimit::max(MAX_BODY_BYTES)),
        )
        .with_state(state)
}

/// The web pages: home and sign-in, API keys, share links, profiles and deck pages. Their
/// error pages wear the signed-in person's header (`web::page::account_header_on_errors`).
fn web_pages(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/", get(web::home::home))
        .route("/web/decks/new", post(web::home::create_deck))
        .route(
            "/web/decks/import",
            post(web::home::import_deck).layer(DefaultBodyLimit::max(web::home::MAX_IMPORT_BYTES)),
        )
        .route("/web/decks/{id}/trash", post(web::home::trash_deck))
        .route("/web/decks/{id}/recover", post(web::home::recover_deck))
        .route(
            "/login",
            get(web::login::login_page).post(web::login::login),
        )
        .route("/logout", post(web::login::logout))
        .route(
            "/users/api",
            get(web::keys::api_keys).post(web::keys::create_api_key),
        )
        .route("/users/api/{id}/revoke", post(web::keys::revoke_api_key))
        .route(
            "/s/{id}",
            get(web::share::share_page).post(web::share::share_unlock),
        )
        .route("/s/{id}/follow", get(web::share::share_follow))
        .route(
            "/s/{id}/fullscreen",
            get(web::share::share_page_fullscreen).post(web::share::share_unlock_fullscreen),
        )
        .route("/{username}", get(web::profile::profile_page))
        .route("/teams/{team}", get(web::profile::team_page))
        .route("/{username}/{slug}", get(web::viewer::deck_page))
        .route(
            "/{username}/{slug}/{mode}",
            get(web::viewer::deck_page_mode),
        )
        .route(
            "/teams/{team}/{username}/{slug}",
            get(web::viewer::team_deck_page),
        )
        .route(
            "/teams/{team}/{username}/{slug}/{mode}",
            get(web::viewer::team_deck_page_mode),
        )
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            web::page::account_header_on_errors,
        ))
}

/// The REST API (interface section 4), every route counted by the rate limiter: the
/// operations of `api::operations`, each at the path its `#[utoipa::path]` names.
fn rest_api(state: &AppState) -> Router<AppState> {
    let api = Router::new().route("/v1/openapi.json", get(api::openapi::openapi_json));
    api::operations()
        .into_iter()
        .flat_map(|(_, paths, methods)| {
            let paths: Vec<String> = paths.paths.into_keys().collect();
            paths.into_iter().map(move |path| (path, methods.clone()))
        })
        .fold(api, |api, (path, methods)| {
            api.route(&api::routed_path(&path), methods)
        })
        .route_layer(http::limit_layer::RateLimitLayer(state.clone()))
}

#[cfg(test)]
mod tests {
    /// Every first path segment this file routes, read from its own source (the router has
    /// no list of its routes to ask).
    fn routed_first_segments() -> Vec<String> {
        let source = include_str!("router.rs");
        let mut segments = Vec::new();
        for call in [".route(\"/", ".route_service(\"/", ".nest_service(\"/"] {
            for (at, _) in source.match_indices(call) {
                let path = &source[at + call.len()..];
                let end = path.find(['/', '"']).expect("a route literal ends");
                let segment = &path[..end];
                if !segment.is_empty() && !segment.starts_with('{') {
                    segments.push(segment.to_string());
                }
            }
        }
        segments.sort();
        segments.dedup();
        segments
    }

    #[test]
    fn every_first_path_segment_of_the_router_is_a_reserved_username() {
        let segments = routed_first_segments();
        assert!(
            segments.len() >= 10 && segments.iter().any(|s| s == "thumbnails"),
            "{segments:?}"
        );
        for segment in segments {
            // Names with characters a username cannot have (".well-known") are safe anyway.
            assert!(
                lectern_core::service::validate_username(&segment).is_err(),
                "/{segment} is routed but an account may be called {segment:?}"
            );
        }
    }
}
