//! The deck editor page at `urls.edit` (`/{username}/{slug}/edit`): a page shell for the
//! owner that loads Lectern's editor script (`assets/editor/`, bundled by build.rs into
//! `/assets/editor.js`). The script talks to the REST API with the session cookie and the session's CSRF token (`X-CSRF-Token`, see
//! `http::extract::session_caller`), so every change passes the same operations, validation
//! and revision preconditions as any API client. No API key is ever in the page.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lectern_core::service::viewer::ViewedDeck;
use lectern_core::store::SessionInfo;

use lectern_core::deck::{ThemeColor, ThemeFont, Visibility};
use lectern_core::store::DeckRecord;

use crate::web::page::{escape, script_page_headers};

/// The editor shell for `deck`, owned by the signed-in `session`; `base` is the deck's
/// viewer address (`/{username}/{slug}`, or its team form).
pub fn editor_page(deck: &ViewedDeck, session: &SessionInfo, base: &str) -> Response {
    let d = &deck.deck;
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Edit: {title} · Lectern</title>\
         <link rel=\"stylesheet\" href=\"/assets/web/site.css\">\
         <link rel=\"stylesheet\" href=\"/assets/web/fonts.css\">\
         <link rel=\"stylesheet\" href=\"/assets/web/themes.css\">\
         <link rel=\"stylesheet\" href=\"/assets/web/editor.css\">\
         <script type=\"module\" src=\"/assets/editor.js\"></script></head>\
         <body class=\"editor-page\" data-deck-id=\"{id}\" data-csrf=\"{csrf}\" data-view=\"{view}\" data-width=\"{width}\" data-height=\"{height}\" data-theme-color=\"{theme_color}\" data-theme-font=\"{theme_font}\">\
         <header class=\"site-header editor-header\"><a class=\"brand\" href=\"/\">Lectern</a>\
         <label class=\"deck-title\">Title <input id=\"deck-title\" maxlength=\"255\" value=\"{title}\"></label>\
         <span id=\"save-state\" class=\"save-state\" role=\"status\" aria-live=\"polite\">Loading…</span>\
         <button type=\"button\" id=\"undo\" class=\"secondary\" title=\"Undo (Ctrl+Z)\">Undo</button>\
         <button type=\"button\" id=\"redo\" class=\"secondary\" title=\"Redo (Ctrl+Shift+Z)\">Redo</button>\
         <nav aria-label=\"Deck\"><a href=\"{view}\">View</a><a href=\"{view}/present\" target=\"_blank\" rel=\"noopener\">Present</a></nav></header>\
         <div id=\"conflict\" class=\"conflict\" role=\"alert\" hidden></div>\
         <div class=\"editor\"><aside class=\"slide-panel\" aria-label=\"Slides\">\
         <div class=\"slide-tools\"><button type=\"button\" id=\"add-slide\">Add slide</button></div>\
         <ol id=\"slide-list\" class=\"slide-list\"></ol>\
         <div class=\"slide-tools\"><button type=\"button\" id=\"move-up\" class=\"secondary\">Move up</button>\
         <button type=\"button\" id=\"move-down\" class=\"secondary\">Move down</button>\
         <button type=\"button\" id=\"duplicate-slide\" class=\"secondary\">Duplicate</button>\
         <button type=\"button\" id=\"delete-slide\" class=\"danger\">Delete</button></div>\
         <div class=\"slide-tools\"><button type=\"button\" id=\"group-below\" class=\"secondary\" title=\"Put this slide below the slide above it (a vertical group)\">Below the one above</button>\
         <button type=\"button\" id=\"group-out\" class=\"secondary\" title=\"Take this slide out of its vertical group\">Out of the group</button></div></aside>\
         <section class=\"stage\" aria-label=\"Selected slide\">\
         <details class=\"settings panel\"><summary>Deck settings</summary><div class=\"settings-grid\">{settings}</div></details>\
         <details id=\"share\" class=\"settings panel\"><summary>Share</summary>\
         <p class=\"muted\">Private links show this deck to whoever has them, whatever its visibility.</p>\
         <ul id=\"share-list\" class=\"share-list\"></ul>\
         <div class=\"settings-grid\"><label>Name <input id=\"share-name\" maxlength=\"100\" placeholder=\"For the board\"></label>\
         <label>Password (optional) <input id=\"share-password\" type=\"password\" autocomplete=\"new-password\"></label>\
         <label>Expires (optional) <input id=\"share-expires\" type=\"date\"></label>\
         <button type=\"button\" id=\"share-create\">Create link</button></div></details>\
         <div class=\"canvas-tools\" role=\"toolbar\" aria-label=\"Canvas\">\
         <div class=\"tool-row\"><span class=\"tool-label\">Add</span>\
         <button type=\"button\" id=\"add-text\" class=\"secondary\">Text</button>\
         <button type=\"button\" id=\"add-rect\" class=\"secondary\">Rectangle</button>\
         <button type=\"button\" id=\"add-ellipse\" class=\"secondary\">Ellipse</button>\
         <button type=\"button\" id=\"add-triangle\" class=\"secondary\">Triangle</button>\
         <button type=\"button\" id=\"add-line\" class=\"secondary\">Line</button>\
         <button type=\"button\" id=\"add-arrow\" class=\"secondary\">Arrow</button>\
         <button type=\"button\" id=\"add-code\" class=\"secondary\">Code</button>\
         <select id=\"code-language\" aria-label=\"Code language\"><option>javascript</option><option>python</option><option>rust</option><option>html</option><option>css</option><option>json</option><option>bash</option><option>sql</option></select>\
         <button type=\"button\" id=\"add-html\" class=\"secondary\">HTML</button>\
         </div>\
         <div class=\"tool-row\"><span class=\"tool-label\">Text</span>\
         <button type=\"button\" id=\"fmt-bold\" class=\"secondary\" title=\"Bold\"><b>B</b></button>\
         <button type=\"button\" id=\"fmt-italic\" class=\"secondary\" title=\"Italic\"><i>I</i></button>\
         <button type=\"button\" id=\"fmt-underline\" class=\"secondary\" title=\"Underline\"><u>U</u></button>\
         <button type=\"button\" id=\"fmt-strike\" class=\"secondary\" title=\"Strike through\"><s>S</s></button>\
         <button type=\"button\" id=\"fmt-list\" class=\"secondary\" title=\"Bulleted list\">• List</button>\
         <button type=\"button\" id=\"fmt-numbers\" class=\"secondary\" title=\"Numbered list\">1. List</button>\
         <button type=\"button\" id=\"fmt-link\" class=\"secondary\" title=\"Link the selected text\">Link</button>\
         <select id=\"fmt-block\" aria-label=\"Text style\"><option value=\"p\">Paragraph</option><option value=\"h1\">Heading 1</option><option value=\"h2\">Heading 2</option><option value=\"h3\">Heading 3</option></select>\
         <button type=\"button\" id=\"fmt-left\" class=\"secondary\" title=\"Align left\">Left</button>\
         <button type=\"button\" id=\"fmt-center\" class=\"secondary\" title=\"Centre\">Centre</button>\
         <button type=\"button\" id=\"fmt-right\" class=\"secondary\" title=\"Align right\">Right</button>\
         <select id=\"fmt-size\" aria-label=\"Font size\"><option value=\"\">Size</option><option>24</option><option>32</option><option>40</option><option>48</option><option>64</option><option>80</option><option>120</option></select>\
         <label class=\"tool-field\">Colour <input type=\"color\" id=\"fmt-colour\" value=\"#222222\"></label>\
         </div>\
         <div class=\"tool-row\"><span class=\"tool-label\">Block</span>\
         <label class=\"tool-field\">Fill <input type=\"color\" id=\"shape-fill\" value=\"#2a76dd\"></label>\
         <label class=\"tool-field\">Stroke <input type=\"color\" id=\"shape-stroke\" value=\"#222222\"> <input type=\"number\" id=\"shape-stroke-width\" min=\"0\" max=\"40\" value=\"0\" class=\"small\" aria-label=\"Stroke width\"></label>\
         <label class=\"tool-field\">Corners <input type=\"number\" id=\"shape-radius\" min=\"0\" max=\"500\" value=\"0\" class=\"small\" aria-label=\"Corner radius\"></label>\
         <button type=\"button\" id=\"block-forward\" class=\"secondary\" title=\"Bring forward\">Forward</button>\
         <button type=\"button\" id=\"block-backward\" class=\"secondary\" title=\"Send backward\">Backward</button>\
         <button type=\"button\" id=\"block-duplicate\" class=\"secondary\" title=\"Duplicate (Ctrl+D)\">Duplicate</button>\
         <button type=\"button\" id=\"block-delete\" class=\"danger\" title=\"Delete the block (Delete)\">Delete block</button>\
         <label class=\"tool-field\"><input type=\"checkbox\" id=\"block-fragment\"> Fragment, step <input type=\"number\" id=\"fragment-order\" min=\"0\" max=\"99\" value=\"0\" class=\"small\"></label>\
         </div>\
         <div class=\"tool-row\"><span class=\"tool-label\">Slide</span>\
         <label class=\"tool-field\">Background <input type=\"color\" id=\"slide-background\" value=\"#ffffff\"></label>\
         <label class=\"tool-field\">Background image <input type=\"url\" id=\"slide-background-image\" placeholder=\"https://…/photo.jpg\"></label>\
         </div>\
         </div>\
         <div id=\"canvas\" class=\"canvas\" aria-label=\"Slide canvas: click a block to select it, drag to move, drag its corner to resize, double-click text to edit\"></div>\
         <label class=\"field\">Speaker notes<textarea id=\"slide-notes\" rows=\"4\"></textarea></label>\
         <iframe id=\"preview\" class=\"preview\" title=\"Slide preview\"></iframe>\
         <div id=\"image-tools\" class=\"image-tools\"><label class=\"button secondary\" for=\"image-file\">Upload an image</label>\
         <input type=\"file\" id=\"image-file\" accept=\"image/png,image/jpeg,image/gif,image/webp,image/svg+xml\" class=\"visually-hidden\">\
         <label>or by URL <input id=\"image-url\" type=\"url\" placeholder=\"https://…/picture.png\"></label>\
         <button type=\"button\" id=\"insert-url\" class=\"secondary\">Insert image</button>\
         <span class=\"muted\">(or drop an image file on the slide)</span></div>\
         <section id=\"blocks\" class=\"panel blocks\" aria-labelledby=\"blocks-title\" hidden><h2 id=\"blocks-title\">Blocks</h2>\
         <p class=\"muted\">This slide is in block markup: each block's content and place on the canvas (pixels).</p>\
         <ol id=\"block-list\" class=\"block-list\"></ol></section>\
         <label class=\"field\">Slide HTML (one &lt;section&gt;)<textarea id=\"slide-html\" spellcheck=\"false\" rows=\"10\"></textarea></label>\
         </section></div></body></html>\n",
        title = escape(&d.title),
        id = d.id,
        csrf = escape(&session.csrf_token),
        view = escape(base),
        settings = settings(d),
        width = d.width,
        height = d.height,
        theme_color = d.theme_color.as_str(),
        theme_font = d.theme_font.as_str(),
    );
    let mut response = (StatusCode::OK, html).into_response();
    // Only Lectern's own script runs (no inline script, no eval); slides shown in the
    // preview frame are the viewer page, under its own policy.
    script_page_headers(
        response.headers_mut(),
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data: https: http:; font-src 'self'; connect-src 'self'; frame-src 'self'; \
         frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        "no-store",
    );
    response
        .headers_mut()
        .insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// A `<select>` of every value of a setting, the deck's own selected.
fn select(field: &str, label: &str, values: &[&str], current: &str) -> String {
    let options: String = values
        .iter()
        .map(|v| {
            let selected = if *v == current { " selected" } else { "" };
            format!("<option value=\"{v}\"{selected}>{v}</option>")
        })
        .collect();
    format!("<label>{label}<select data-setting=\"{field}\">{options}</select></label>")
}

/// The deck settings the editor changes, each saved through `update_deck` as it changes.
/// (The interface makes `transition` read-only: `update_deck` refuses it, so it is not here.)
fn settings(d: &DeckRecord) -> String {
    [
        select(
            "theme_color",
            "Colours",
            &ThemeColor::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            d.theme_color.as_str(),
        ),
        select(
            "theme_font",
            "Fonts",
            &ThemeFont::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            d.theme_font.as_str(),
        ),
        select(
            "visibility",
            "Visibility",
            &Visibility::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            d.visibility.as_str(),
        ),
        format!(
            "<label class=\"wide\">Description <input data-setting=\"description\" value=\"{}\"></label>",
            escape(&d.description)
        ),
        format!(
            "<label>Width <input type=\"number\" min=\"1\" data-setting=\"width\" value=\"{}\"></label>\
             <label>Height <input type=\"number\" min=\"1\" data-setting=\"height\" value=\"{}\"></label>",
            d.width, d.height
        ),
    ]
    .concat()
}
