//! The deck pages: `/{username}/{slug}` (default), `/fullscreen`, `/present` (speaker view)
//! and `/edit`, also under `/teams/{team}/...`, and the embedded front-end files. Slides are
//! sanitised by the core; a strict Content-Security-Policy lets only Lectern's own scripts
//! run.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lectern_core::service::viewer::ViewedDeck;
use rust_embed::RustEmbed;
use serde_json::json;

use crate::app::AppState;
use crate::web::page::{error_page, escape};
use crate::web::session::MaybeSession;

/// reveal.js from npm (`node_modules`, installed by build.rs), embedded in the binary.
#[derive(RustEmbed)]
#[folder = "node_modules/reveal.js/dist/"]
#[include = "reveal.js"]
#[include = "reveal.css"]
#[include = "reset.css"]
#[include = "plugin/notes.js"]
struct RevealAssets;

/// The preset fonts from the @fontsource npm packages (latin, regular and bold).
#[derive(RustEmbed)]
#[folder = "node_modules/@fontsource/"]
#[include = "*/files/*-latin-400-normal.woff2"]
#[include = "*/files/*-latin-700-normal.woff2"]
struct FontAssets;

/// Lectern's own page files.
#[derive(RustEmbed)]
#[folder = "assets/web/"]
struct WebAssets;

/// The theme presets' CSS (`assets/web/themes.css`), where their colours are written.
pub fn theme_css() -> String {
    WebAssets::get("themes.css")
        .map(|f| String::from_utf8_lossy(&f.data).into_owned())
        .unwrap_or_default()
}

fn asset<E: RustEmbed>(path: &str) -> Response {
    match E::get(path) {
        Some(file) => {
            let mime = file.metadata.mimetype().to_string();
            let mut r = (StatusCode::OK, file.data.into_owned()).into_response();
            let h = r.headers_mut();
            if let Ok(v) = HeaderValue::from_str(&mime) {
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

/// The deck editor's script: `assets/editor/` bundled by esbuild at build time (build.rs).
const EDITOR_JS: &str = include_str!(concat!(env!("OUT_DIR"), "/editor.js"));

/// GET `/assets/editor.js`: revalidated on every load, so a new build's editor is used at
/// once.
pub async fn editor_script() -> Response {
    let mut r = (StatusCode::OK, EDITOR_JS).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// GET `/assets/web/{*path}`.
pub async fn web_asset(Path(path): Path<String>) -> Response {
    asset::<WebAssets>(&path)
}

/// The page modes of a deck URL.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Default,
    Fullscreen,
    Present,
    Edit,
}

/// The not-found answer of deck pages: the same for missing and hidden decks.
fn not_found() -> Response {
    error_page(StatusCode::NOT_FOUND, "There is no presentation here.")
}

/// The policy of every page that shows slides (deck and share pages, and the pages the
/// renderer opens): only Lectern's own scripts run, slides may use inline styles and show
/// pictures from anywhere, no frames, and no other site may frame the page (the editor's preview, on this site, may).
pub const VIEWER_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data: https: http:; media-src 'self' data: https:; font-src 'self' data:; \
     connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

/// Headers of a deck page (also share pages): only Lectern's scripts run; slides may use inline styles and show
/// images from anywhere; the page URL is never sent on.
pub(crate) fn viewer_headers(r: &mut Response) {
    crate::web::page::script_page_headers(r.headers_mut(), VIEWER_CSP, "private, no-cache");
}

/// How a deck document is printed (PDF exports): reveal.js's print options.
#[derive(Debug, Clone, Copy, Default)]
pub struct PrintOptions {
    pub margin: f64,
    pub slide_number: bool,
    pub slide_notes: bool,
    pub separate_fragments: bool,
}

/// The deck page as HTML. `links` go into the default page's header; asset URLs start with
/// `assets` (`/assets/` on the server, a relative folder in a ZIP); `print` switches reveal.js
/// to the export's print settings.
pub(crate) fn deck_document(
    v: &ViewedDeck,
    mode: Mode,
    links: &[(&str, String)],
    assets: &str,
    print: Option<PrintOptions>,
) -> String {
    let d = &v.deck;
    let mut reveal = json!({
        "width": d.width, "height": d.height, "margin": d.margin,
        "transition": d.transition.as_str(),
        "backgroundTransition": d.background_transition.as_str(),
        "rtl": d.rtl, "loop": d.loop_, "hash": mode != Mode::Present,
        "embedded": mode != Mode::Fullscreen,
        "controls": true,
        "progress": true, "slideNumber": mode == Mode::Present,
    });
    if let Some(p) = print {
        reveal["margin"] = json!(p.margin);
        reveal["slideNumber"] = json!(p.slide_number);
        reveal["showNotes"] = json!(p.slide_notes);
        reveal["pdfSeparateFragments"] = json!(p.separate_fragments);
        reveal["controls"] = json!(false);
        reveal["progress"] = json!(false);
    }
    let config = json!({
        "mode": match mode { Mode::Present => "present", _ => "view" },
        "reveal": reveal,
    })
    .to_string()
    .replace('<', "\\u003c");
    // Custom CSS stays CSS: a "<" cannot close the style element.
    let css = d.css.replace('<', "\\3c ");
    let main = format!(
        "<div class=\"reveal main\"><div class=\"slides\">{}</div></div>",
        v.slides_html
    );
    let body = match mode {
        Mode::Default => {
            let nav: String = links
                .iter()
                .map(|(label, href)| format!("<a href=\"{}\">{}</a>", escape(href), escape(label)))
                .collect();
            format!(
                "<header><strong>{}</strong> · {nav}</header>{main}",
                escape(&d.title)
            )
        }
        Mode::Fullscreen | Mode::Edit => main,
        Mode::Present => format!(
            "{main}<div class=\"side-next\"><div class=\"label\">Next</div><div class=\"reveal next\"><div class=\"slides\">{}</div></div></div>\
             <div class=\"side-notes\"><div id=\"lectern-timer\">00:00:00</div><div class=\"label\">Notes</div><div id=\"lectern-notes\"></div></div>",
            v.slides_html
        ),
    };
    let class = match mode {
        Mode::Default => "lectern-default",
        Mode::Fullscreen | Mode::Edit => "lectern-fullscreen",
        Mode::Present => "lectern-present",
    };
    format!(
        "<!doctype html>\n<html lang=\"{}\" dir=\"{}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title>\
         <link rel=\"stylesheet\" href=\"{assets}reveal/reset.css\">\
         <link rel=\"stylesheet\" href=\"{assets}reveal/reveal.css\">\
         <link rel=\"stylesheet\" href=\"{assets}web/fonts.css\">\
         <link rel=\"stylesheet\" href=\"{assets}web/themes.css\">\
         <link rel=\"stylesheet\" href=\"{assets}web/viewer.css\">\
         <style>{css}</style></head>\
         <body class=\"{class} theme-{} font-{}\">{body}\
         <script id=\"lectern-config\" type=\"application/json\">{config}</script>\
         <script src=\"{assets}reveal/reveal.js\"></script>\
         <script src=\"{assets}reveal/plugin/notes.js\"></script>\
         <script src=\"{assets}web/init.js\"></script></body></html>\n",
        escape(&d.language),
        if d.rtl { "rtl" } else { "ltr" },
        escape(&d.title),
        d.theme_color.as_str(),
        d.theme_font.as_str(),
    )
}

/// The deck page as a response with the viewer's headers.
pub(crate) fn render(v: &ViewedDeck, mode: Mode, links: &[(&str, String)]) -> Response {
    let html = deck_document(v, mode, links, "/assets/", None);
    let mut r = (StatusCode::OK, html).into_response();
    viewer_headers(&mut r);
    r
}

/// Every embedded front-end file as (path in a ZIP, bytes): `reveal/...`, `web/...` and
/// `fonts/...`, with the stylesheet's font URLs made relative.
pub(crate) fn offline_assets() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for path in RevealAssets::iter() {
        if let Some(f) = RevealAssets::get(&path) {
            out.push((format!("reveal/{path}"), f.data.into_owned()));
        }
    }
    for path in WebAssets::iter() {
        if let Some(f) = WebAssets::get(&path) {
            let mut data = f.data.into_owned();
            if path == "fonts.css" {
                data = String::from_utf8_lossy(&data)
                    .replace("/assets/fonts/", "../fonts/")
                    .into_bytes();
            }
            out.push((format!("web/{path}"), data));
        }
    }
    for path in FontAssets::iter() {
        if let Some(f) = FontAssets::get(&path) {
            out.push((format!("fonts/{path}"), f.data.into_owned()));
        }
    }
    out
}

async fn show(
    state: &AppState,
    session: MaybeSession,
    team: Option<&str>,
    username: &str,
    slug: &str,
    mode: &str,
) -> Response {
    // The editor's data (`edit.json`) is answered to whoever gets the editor.
    let data = mode == "edit.json";
    let mode = match mode {
        "" => Mode::Default,
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
    render(&viewed, mode, &links)
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
