//! Deck HTML: the document a deck page, a ZIP export, a PDF print and a slide picture all
//! show, and the front-end files it loads (embedded in the binary). The web pages serve it;
//! the exports package or print it.

use lectern_core::html::escape;
use lectern_core::service::viewer::ViewedDeck;
use rust_embed::RustEmbed;
use serde_json::json;

/// reveal.js from npm (`node_modules`, installed by build.rs), embedded in the binary.
#[derive(RustEmbed)]
#[folder = "node_modules/reveal.js/dist/"]
#[include = "reveal.js"]
#[include = "reveal.css"]
#[include = "reset.css"]
#[include = "plugin/notes.js"]
#[include = "plugin/highlight/monokai.css"]
pub(crate) struct RevealAssets;

/// The preset fonts and the code font from the @fontsource npm packages (latin; regular and
/// bold, upright and italic).
#[derive(RustEmbed)]
#[folder = "node_modules/@fontsource/"]
#[include = "*/files/*-latin-400-normal.woff2"]
#[include = "*/files/*-latin-400-italic.woff2"]
#[include = "*/files/*-latin-700-normal.woff2"]
#[include = "*/files/*-latin-700-italic.woff2"]
pub(crate) struct FontAssets;

/// KaTeX's stylesheet and fonts (npm), for the math render.js draws.
#[derive(RustEmbed)]
#[folder = "node_modules/katex/dist/"]
#[include = "katex.min.css"]
#[include = "fonts/*.woff2"]
pub(crate) struct KatexAssets;

/// Lectern's own page files.
#[derive(RustEmbed)]
#[folder = "assets/web/"]
pub(crate) struct WebAssets;

/// The scripts build.rs bundles with esbuild, by their path under `/assets/web/`: the slide
/// drawing every page with slides runs (`assets/slides/index.js`) and the deck pages' start
/// (`assets/slides/viewer.js`).
pub(crate) const BUNDLES: [(&str, &str); 2] = [
    (
        "slides.js",
        include_str!(concat!(env!("OUT_DIR"), "/slides.js")),
    ),
    (
        "viewer.js",
        include_str!(concat!(env!("OUT_DIR"), "/viewer.js")),
    ),
];

/// The deck editor's script (`assets/editor/`), bundled by build.rs.
pub(crate) const EDITOR_JS: &str = include_str!(concat!(env!("OUT_DIR"), "/editor.js"));

/// The theme presets' CSS (`assets/web/themes.css`), where their colours are written.
pub fn theme_css() -> String {
    WebAssets::get("themes.css")
        .map(|f| String::from_utf8_lossy(&f.data).into_owned())
        .unwrap_or_default()
}

/// The page modes of a deck URL.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Default,
    Fullscreen,
    Present,
    Edit,
}

/// The policy of every page that shows slides (deck and share pages, and the pages the
/// renderer opens): only Lectern's own scripts run, slides may use inline styles and show
/// pictures from anywhere, no frames, and no other site may frame the page (the editor's preview, on this site, may).
pub const VIEWER_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data: https: http:; media-src 'self' data: https:; font-src 'self' data:; \
     connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

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
/// to the export's print settings; `live` (served pages only) says where the presenter is
/// followed and, in the speaker view, announced.
pub(crate) fn deck_document(
    v: &ViewedDeck,
    mode: Mode,
    links: &[(&str, String)],
    assets: &str,
    print: Option<PrintOptions>,
    live: Option<serde_json::Value>,
) -> String {
    let d = &v.deck;
    let look = &d.look;
    let mut reveal = json!({
        "width": look.width, "height": look.height, "margin": look.margin,
        "transition": look.transition.as_str(),
        "backgroundTransition": look.background_transition.as_str(),
        "rtl": look.rtl, "loop": look.loop_, "hash": mode != Mode::Present,
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
    let mut config = json!({
        "mode": match mode { Mode::Present => "present", _ => "view" },
        "reveal": reveal,
    });
    if let Some(live) = live {
        config["live"] = live;
    }
    let config = config.to_string().replace('<', "\\u003c");
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
         <link rel=\"stylesheet\" href=\"{assets}web/slides.css\">\
         <link rel=\"stylesheet\" href=\"{assets}reveal/plugin/highlight/monokai.css\">\
         <link rel=\"stylesheet\" href=\"{assets}katex/katex.min.css\">\
         <link rel=\"stylesheet\" href=\"{assets}web/viewer.css\">\
         <style>{css}</style></head>\
         <body class=\"{class} theme-{} font-{}\" style=\"--lectern-slide-height: {}px\">{body}\
         <script id=\"lectern-config\" type=\"application/json\">{config}</script>\
         <script src=\"{assets}reveal/reveal.js\"></script>\
         <script src=\"{assets}reveal/plugin/notes.js\"></script>\
         <script src=\"{assets}web/slides.js\"></script>\
         <script src=\"{assets}web/viewer.js\"></script></body></html>\n",
        escape(&look.language),
        if look.rtl { "rtl" } else { "ltr" },
        escape(&d.title),
        look.theme_color.as_str(),
        look.theme_font.as_str(),
        look.height,
    )
}

/// Every embedded front-end file as (path in a ZIP, bytes): `reveal/...`, `web/...`,
/// `katex/...` and `fonts/...`, with the stylesheet's font URLs made relative.
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
    for (path, script) in BUNDLES {
        out.push((format!("web/{path}"), script.as_bytes().to_vec()));
    }
    for path in KatexAssets::iter() {
        if let Some(f) = KatexAssets::get(&path) {
            out.push((format!("katex/{path}"), f.data.into_owned()));
        }
    }
    for path in FontAssets::iter() {
        if let Some(f) = FontAssets::get(&path) {
            out.push((format!("fonts/{path}"), f.data.into_owned()));
        }
    }
    out
}
