//! The deck pages: `/{username}/{slug}` (default), `/fullscreen`, `/present` (speaker view)
//! and `/edit`, also under `/teams/{team}/...`, and the embedded front-end files. Slides are
//! sanitised by the core; a strict Content-Security-Policy lets only Lectern's own scripts
//! run.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lectern_core::service::viewer::ViewedDeck;
use rust_embed::RustEmbed;

use crate::http::session::MaybeSession;
use crate::render::{
    BUNDLES, EDITOR_JS, FontAssets, KatexAssets, Mode, RevealAssets, VIEWER_CSP, WebAssets,
    deck_document,
};
use crate::state::AppState;
use crate::web::page::error_page;

/// A front-end file, cached for an hour.
fn file_response(mime: &str, data: Vec<u8>) -> Response {
    let mut r = (StatusCode::OK, data).into_response();
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(mime) {
        h.insert(header::CONTENT_TYPE, v);
    }
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

fn asset<E: RustEmbed>(path: &str) -> Response {
    match E::get(path) {
        Some(file) => file_response(file.metadata.mimetype(), file.data.into_owned()),
        None => error_page(StatusCode::NOT_FOUND, "No such file."),
    }
}

/// GET `/assets/reveal/{*path}`.
pub async fn reveal_asset(Path(path): Path<String>) -> Response {
    asset::<RevealAssets>(&path)
}

/// GET `/assets/fonts/{*path}`.
pub async fn font_asset(Path(path): Path<String>) -> Response {
    asset::<FontAssets>(&path)
}

/// GET `/assets/katex/{*path}`.
pub async fn katex_asset(Path(path): Path<String>) -> Response {
    asset::<KatexAssets>(&path)
}

/// GET `/assets/editor.js`: revalidated on every load, so a new build's editor is used at
/// once.
pub async fn editor_script() -> Response {
    let mut r = file_response(
        "text/javascript; charset=utf-8",
        EDITOR_JS.as_bytes().to_vec(),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// GET `/assets/web/{*path}`: Lectern's page files and the scripts bundled at build time.
pub async fn web_asset(Path(path): Path<String>) -> Response {
    match BUNDLES.iter().find(|(name, _)| *name == path) {
        Some((_, script)) => {
            file_response("text/javascript; charset=utf-8", script.as_bytes().to_vec())
        }
        None => asset::<WebAssets>(&path),
    }
}

/// GET `/favicon.ico`: the site's icon, which browsers ask for on every page.
pub async fn favicon() -> Response {
    asset::<WebAssets>("favicon.ico")
}

/// The not-found answer of deck pages: the same for missing and hidden decks.
fn not_found() -> Response {
    error_page(StatusCode::NOT_FOUND, "There is no presentation here.")
}

/// Headers of a deck page (also share pages): only Lectern's scripts run; slides may use inline styles and show
/// images from anywhere; the page URL is never sent on.
pub(crate) fn viewer_headers(r: &mut Response) {
    crate::web::page::script_page_headers(r.headers_mut(), VIEWER_CSP, "private, no-cache");
}

/// The deck page as a response with the viewer's headers; `live` tells its script where to
/// follow the presenter (and, in the speaker view, where to say where the presenter is).
pub(crate) fn render(
    v: &ViewedDeck,
    mode: Mode,
    links: &[(&str, String)],
    live: serde_json::Value,
) -> Response {
    let html = deck_document(v, mode, links, "/assets/", None, Some(live));
    let mut r = (StatusCode::OK, html).into_response();
    viewer_headers(&mut r);
    r
}

async fn show(
    state: &AppState,
    session: MaybeSession,
    team: Option<&str>,
    username: &str,
    slug: &str,
    mode: &str,
) -> Response {
    // The editor's data (`edit.json`) is answered to whoever gets the editor; `follow` is
    // the presenter's place for whoever may see the deck.
    let data = mode == "edit.json";
    let follow = mode == "follow";
    let mode = match mode {
        "" | "follow" => Mode::Default,
        "fullscreen" => Mode::Fullscreen,
        "present" => Mode::Present,
        "edit" | "edit.json" => Mode::Edit,
        _ => return not_found(),
    };
    let visitor = session.0.as_ref().map(|(_, info)| info);
    let base = match team {
        Some(t) => format!("/teams/{t}"),
        None => String::new(),
    };
    // The editor is for the signed-in owner: a signed-out visitor signs in first (whether
    // the deck exists or not), so an edit URL tells a stranger nothing.
    if mode == Mode::Edit && visitor.is_none() {
        let next = format!("{base}/{username}/{slug}/edit");
        let next: String = serde_urlencoded::to_string([("next", next.as_str())])
            .unwrap_or_else(|_| "next=/".into());
        return crate::web::page::see_other(&format!("/login?{next}"));
    }
    let viewed = match state.core.view_deck(visitor, username, slug, team).await {
        Ok(v) => v,
        Err(lectern_core::Error::NotFound(_)) => return not_found(),
        Err(e) => {
            tracing::error!(error = %e, "showing a deck failed");
            return error_page(StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong.");
        }
    };
    let url = format!("{base}/{}/{}", viewed.deck.owner_username, viewed.deck.slug);
    if follow {
        return crate::api::events::presenter_stream(state, viewed.deck.id);
    }
    if mode == Mode::Edit
        && !viewed.is_owner
        && let Some(v) = visitor
        && v.team_id.is_some()
        && v.team_id == viewed.deck.owner_team_id
    {
        // A team member may see the deck but not edit it: its viewer.
        return crate::web::page::see_other(&url);
    }
    // The editor and the speaker view (with the notes) are the owner's; anyone else gets
    // the answer of an unknown deck.
    if matches!(mode, Mode::Edit | Mode::Present) && !viewed.is_owner {
        return not_found();
    }
    if mode == Mode::Edit
        && let Some(v) = visitor
    {
        if data {
            return crate::web::editor::editor_data(&viewed, v, &url);
        }
        return crate::web::editor::editor_page();
    }
    let mut links = vec![("Fullscreen", format!("{url}/fullscreen"))];
    if viewed.is_owner {
        links.push(("Present", format!("{url}/present")));
    }
    let mut live = serde_json::json!({ "follow": format!("{url}/follow") });
    if mode == Mode::Present
        && let Some(v) = visitor
    {
        // The speaker view says where it is through the REST API, as the editor writes.
        live["presenter"] = format!("/v1/decks/{}/presenter", viewed.deck.id).into();
        live["csrf"] = v.csrf_token.clone().into();
    }
    render(&viewed, mode, &links, live)
}

/// GET `/{username}/{slug}`.
pub async fn deck_page(
    State(state): State<AppState>,
    session: MaybeSession,
    Path((username, slug)): Path<(String, String)>,
) -> Response {
    if username == "v1" {
        return crate::http::error::ApiError::new(StatusCode::NOT_FOUND, "no such route")
            .into_response();
    }
    show(&state, session, None, &username, &slug, "").await
}

/// GET `/{username}/{slug}/{mode}`.
pub async fn deck_page_mode(
    State(state): State<AppState>,
    session: MaybeSession,
    Path((username, slug, mode)): Path<(String, String, String)>,
) -> Response {
    if username == "v1" {
        return crate::http::error::ApiError::new(StatusCode::NOT_FOUND, "no such route")
            .into_response();
    }
    show(&state, session, None, &username, &slug, &mode).await
}

/// GET `/teams/{team}/{username}/{slug}`.
pub async fn team_deck_page(
    State(state): State<AppState>,
    session: MaybeSession,
    Path((team, username, slug)): Path<(String, String, String)>,
) -> Response {
    show(&state, session, Some(&team), &username, &slug, "").await
}

/// GET `/teams/{team}/{username}/{slug}/{mode}`.
pub async fn team_deck_page_mode(
    State(state): State<AppState>,
    session: MaybeSession,
    Path((team, username, slug, mode)): Path<(String, String, String, String)>,
) -> Response {
    show(&state, session, Some(&team), &username, &slug, &mode).await
}
