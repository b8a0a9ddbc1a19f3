//! One rendering (issue 41): a slide looks the same on the editor's canvas, on the deck page
//! and in the PDF. Each slide of a corpus (block markup with every text style, a shape, an
//! image, code and math; free HTML with a list, a table, a quote, code and math; a fitted
//! heading over a stretched picture) is drawn at
//! the deck's own size, 960 x 700, by all three in real Chromium, and the pictures are
//! compared pixel by pixel. Pictures land in `target/rendering-*.png`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::page::ScreenshotParams;
use serde_json::json;

use crate::common::{Headless, TestApp};
use crate::editor::sign_in;

const WIDTH: u32 = 960;
const HEIGHT: u32 = 700;

/// A pixel differs when one of its channels differs by more than this (anti-aliasing of the
/// same glyph at the same place stays below it).
const CHANNEL_TOLERANCE: u8 = 64;

/// The share of differing pixels allowed between two drawings of one slide.
const MAX_DIFFERENT: f64 = 0.02;

/// A 24 x 16 PNG in two colours, as a data URL.
fn picture() -> String {
    picture_of_size(24, 16)
}

/// A `width` x `height` PNG, its left half blue and its right half yellow, as a data URL.
fn picture_of_size(width: u32, height: u32) -> String {
    use base64::Engine as _;
    let img = image::RgbImage::from_fn(width, height, |x, _| {
        if x < width / 2 {
            image::Rgb([30, 120, 200])
        } else {
            image::Rgb([240, 200, 40])
        }
    });
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png)
    )
}

fn block(kind: &str, (left, top, width, height): (u32, u32, u32, u32), content: &str) -> String {
    format!(
        "<div class=\"sl-block\" data-block-type=\"{kind}\" style=\"left: {left}px; top: {top}px; width: {width}px; height: {height}px;\"><div class=\"sl-block-content\">{content}</div></div>"
    )
}

/// The corpus: a slide of blocks and a slide of free HTML.
/// The slides the PDF is compared on: all but the last, whose `r-stretch` reveal.js lays out
/// differently when printing (its own print layout, a few pixels off); the editor is
/// compared on every slide.
const PRINT_COMPARED: usize = 2;

fn corpus() -> Vec<String> {
    let blocks = [
        block("text", (40, 20, 880, 110), "<h1>Bold heading</h1>"),
        block(
            "text",
            (40, 150, 430, 230),
            "<p><em>An italic subtitle</em> with <strong>bold</strong> and <code>mono</code></p><ul><li>First point</li><li>Second point</li></ul>",
        ),
        block(
            "shape",
            (500, 150, 200, 140),
            "<div style=\"width: 100%; height: 100%; background-color: #e0533d;\"></div>",
        ),
        block(
            "image",
            (730, 150, 190, 140),
            &format!(
                "<img src=\"{}\" alt=\"\" style=\"width: 100%; height: 100%; object-fit: contain;\">",
                picture()
            ),
        ),
        block(
            "code",
            (40, 410, 520, 250),
            "<pre><code class=\"language-rust\">fn main() {\n    let answer = 42;\n    println!(\"{answer}\");\n}</code></pre>",
        ),
        block(
            "text",
            (600, 430, 320, 120),
            "<p>\\(e^{i\\pi} + 1 = 0\\)</p>",
        ),
    ];
    vec![
        format!("<section>{}</section>", blocks.concat()),
        "<section><h2>Free <em>HTML</em></h2><ul><li>First point</li><li><strong>Second</strong> point</li></ul>\
         <table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>pi</td><td>3.14</td></tr></tbody></table>\
         <blockquote>A quotation</blockquote>\
         <pre><code class=\"language-python\" data-trim>\n    def double(x):\n        return 2 * x\n</code></pre>\
         <p>\\(\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}\\)</p></section>"
            .to_string(),
        format!(
            "<section><h2 class=\"r-fit-text\">Fitted to the width</h2><p>Above a stretched picture</p>\
             <ul><li>One</li><li>Two</li><li>Three</li></ul><img class=\"r-stretch\" src=\"{}\" alt=\"\"></section>",
            picture_of_size(240, 160)
        ),
    ]
}

/// Sets the page's viewport to `width` x `height` CSS pixels at one device pixel each.
pub(crate) async fn viewport(page: &Page, width: u32, height: u32) {
    let params = SetDeviceMetricsOverrideParams::builder()
        .width(width)
        .height(height)
        .device_scale_factor(1.0)
        .mobile(false)
        .build()
        .unwrap();
    page.execute(params).await.unwrap();
}

/// Evaluates `js` until it is true.
pub(crate) async fn until(page: &Page, js: &str, what: &str) {
    for _ in 0..200 {
        if let Ok(v) = page.evaluate(js).await
            && v.into_value::<bool>().unwrap_or(false)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what} never happened ({js})");
}

/// A picture of the page's region `[x, y, w, h]`, saved as `target/rendering-<name>.png`.
async fn picture_of(page: &Page, rect: [f64; 4], name: &str) -> image::RgbaImage {
    page.bring_to_front().await.unwrap();
    let clip = chromiumoxide::cdp::browser_protocol::page::Viewport {
        x: rect[0],
        y: rect[1],
        width: rect[2],
        height: rect[3],
        scale: 1.0,
    };
    let png = page
        .screenshot(ScreenshotParams::builder().clip(clip).build())
        .await
        .unwrap();
    let path = target(&format!("rendering-{name}.png"));
    std::fs::write(&path, &png).unwrap();
    image::load_from_memory(&png).unwrap().to_rgba8()
}

fn target(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The share of pixels that differ between `a` and `b` (of the same size); a picture of where
/// they differ is saved as `target/rendering-diff-<name>.png`.
fn difference(a: &image::RgbaImage, b: &image::RgbaImage, name: &str) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions(), "{name}: sizes differ");
    let mut diff = image::RgbaImage::new(a.width(), a.height());
    let mut different = 0usize;
    for (x, y, pa) in a.enumerate_pixels() {
        let pb = b.get_pixel(x, y);
        let off = (0..3).any(|c| pa[c].abs_diff(pb[c]) > CHANNEL_TOLERANCE);
        if off {
            different += 1;
        }
        let v = if off { 255 } else { 0 };
        diff.put_pixel(x, y, image::Rgba([v, 0, 0, 255]));
    }
    diff.save(target(&format!("rendering-diff-{name}.png")))
        .unwrap();
    different as f64 / (a.width() * a.height()) as f64
}

/// The deck page's picture of slide `index`, with reveal.js's controls and progress bar
/// hidden (the viewer's own furniture, as the editor's handles are the editor's).
async fn viewer_picture(page: &Page, url: &str, index: usize, name: &str) -> image::RgbaImage {
    page.bring_to_front().await.unwrap();
    // A fresh load each time (a change of the fragment alone would not load the page).
    page.goto("about:blank").await.unwrap();
    page.goto(format!("{url}/fullscreen#/{index}"))
        .await
        .unwrap();
    until(
        page,
        "typeof Reveal !== 'undefined' && Reveal.isReady() && document.fonts.status === 'loaded'",
        "the deck page getting ready",
    )
    .await;
    page.evaluate(
        "(() => { for (const e of document.querySelectorAll('.controls, .progress')) e.style.display = 'none'; return true; })()",
    )
    .await
    .unwrap();
    let rect: Vec<f64> = page
        .evaluate("(() => { const r = document.querySelector('.reveal .slides').getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()")
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(
        rect,
        vec![0.0, 0.0, WIDTH as f64, HEIGHT as f64],
        "the deck page does not draw the slide at its own size"
    );
    picture_of(page, [0.0, 0.0, WIDTH as f64, HEIGHT as f64], name).await
}

/// The editor canvas's picture of slide `id`, nothing selected.
async fn editor_picture(page: &Page, id: &str, name: &str) -> image::RgbaImage {
    page.bring_to_front().await.unwrap();
    // Clicked as a person would, again while the list is drawn anew under the pointer.
    let item = format!(".slide-item[data-slide-id='{id}']");
    let mut clicked = false;
    for _ in 0..100 {
        if let Ok(element) = page.find_element(&item).await
            && element.click().await.is_ok()
        {
            clicked = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(clicked, "slide {id} cannot be clicked in the list");
    let shown = format!(
        "document.querySelector('.slide-item[aria-current=true]')?.dataset.slideId === '{id}' && document.fonts.status === 'loaded' && !document.querySelector('.canvas-selected') \
         && !!window.LecternSlides && !document.querySelector('.canvas pre code:not([data-highlighted])') \
         && !['\\\\(', '$$'].some(d => document.querySelector('.canvas').textContent.includes(d))"
    );
    until(page, &shown, "the editor showing the slide").await;
    // The canvas fills the window's height below its top: a window that leaves it exactly
    // the deck's height (and room enough across, beside the slide list and the side
    // panel) draws the slide at its own size.
    viewport(page, 1800, 1000).await;
    let top: f64 = page
        .evaluate("new Promise(r => requestAnimationFrame(() => r(document.getElementById('canvas').getBoundingClientRect().top + scrollY)))")
        .await
        .unwrap()
        .into_value()
        .unwrap();
    viewport(page, 1800, (top + f64::from(HEIGHT) + 12.0).ceil() as u32).await;
    until(
        page,
        &format!(
            "Math.round(document.querySelector('.canvas .slide-frame').getBoundingClientRect().height) === {HEIGHT}"
        ),
        "the canvas at the deck's size",
    )
    .await;
    page.evaluate("(() => { document.activeElement.blur(); document.getElementById('canvas').scrollIntoView(); return true; })()")
        .await
        .unwrap();
    let rect: Vec<f64> = page
        .evaluate("(() => { const r = document.querySelector('.canvas .slide-frame').getBoundingClientRect(); return [r.x + scrollX, r.y + scrollY, r.width, r.height]; })()")
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(
        (rect[2], rect[3]),
        (WIDTH as f64, HEIGHT as f64),
        "the canvas is not at the deck's size"
    );
    picture_of(page, [rect[0], rect[1], rect[2], rect[3]], name).await
}

/// The PDF's pages as pictures of the deck's size (pdftoppm).
fn pdf_pictures(pdf: &[u8]) -> Vec<image::RgbaImage> {
    let (w, h) = (WIDTH.to_string(), HEIGHT.to_string());
    pdf_pages(pdf, &["-scale-to-x", &w, "-scale-to-y", &h])
}

/// The PDF's pages as pictures, drawn by pdftoppm with `size` (`-r 40`, `-scale-to-x ...`).
pub(crate) fn pdf_pages(pdf: &[u8], size: &[&str]) -> Vec<image::RgbaImage> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deck.pdf");
    std::fs::write(&file, pdf).unwrap();
    let status = std::process::Command::new("pdftoppm")
        .arg("-png")
        .args(size)
        .arg(&file)
        .arg(dir.path().join("page"))
        .status()
        .expect("pdftoppm (poppler-utils) runs");
    assert!(status.success());
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    pages.sort();
    pages
        .iter()
        .map(|p| image::open(p).unwrap().to_rgba8())
        .collect()
}

/// The fonts `pdffonts` lists in `pdf`.
pub(crate) fn pdf_fonts(pdf: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deck.pdf");
    std::fs::write(&file, pdf).unwrap();
    let out = std::process::Command::new("pdffonts")
        .arg(Path::new(&file))
        .output()
        .expect("pdffonts (poppler-utils) runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slide_looks_the_same_on_the_canvas_the_deck_page_and_in_the_pdf() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slides: Vec<_> = corpus()
        .into_iter()
        .map(|html| json!({"html": html}))
        .collect();
    let r = app
        .create_deck(
            &alice.key,
            json!({"title": "One rendering", "visibility": "all", "width": WIDTH, "height": HEIGHT,
                   "margin": 0, "theme_color": "white-blue", "theme_font": "montserrat", "slides": slides}),
        )
        .await;
    r.expect(201);
    let deck = r.data()["id"].as_i64().unwrap();
    let url = r.data()["url"].as_str().unwrap().to_string();
    let edit = r.data()["urls"]["edit"].as_str().unwrap().to_string();
    let ids: Vec<String> = r.data()["slide_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();

    let chromium = Headless::launch(bin, 1400, 1000).await;
    let viewer = chromium.browser.new_page("about:blank").await.unwrap();
    viewport(&viewer, WIDTH, HEIGHT).await;
    let editor = chromium.browser.new_page("about:blank").await.unwrap();
    viewport(&editor, 1400, 1000).await;
    sign_in(&editor, &app, &alice).await;
    editor.goto(edit.as_str()).await.unwrap();
    until(
        &editor,
        "document.getElementById('save-state').textContent.includes('All changes saved')",
        "the editor loading",
    )
    .await;

    let done = app
        .finished_export(&alice, deck, json!({"format": "pdf"}))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    let pdf = reqwest::get(done["download_url"].as_str().unwrap())
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let pages = pdf_pictures(&pdf);
    for (i, page) in pages.iter().enumerate() {
        page.save(target(&format!("rendering-pdf-{i}.png")))
            .unwrap();
    }
    assert_eq!(pages.len(), ids.len(), "one PDF page per slide");

    for (i, id) in ids.iter().enumerate() {
        let shown = viewer_picture(&viewer, &url, i, &format!("viewer-{i}")).await;
        let drawn = editor_picture(&editor, id, &format!("editor-{i}")).await;
        let canvas_vs_page = difference(&drawn, &shown, &format!("editor-viewer-{i}"));
        let pdf_vs_page = difference(&pages[i], &shown, &format!("pdf-viewer-{i}"));
        eprintln!(
            "slide {i}: canvas {:.2}%, PDF {:.2}% of pixels differ from the deck page",
            canvas_vs_page * 100.0,
            pdf_vs_page * 100.0
        );
        assert!(
            canvas_vs_page <= MAX_DIFFERENT,
            "slide {i}: the canvas differs from the deck page in {:.2}% of pixels",
            canvas_vs_page * 100.0
        );
        assert!(
            pdf_vs_page <= MAX_DIFFERENT || i >= PRINT_COMPARED,
            "slide {i}: the PDF differs from the deck page in {:.2}% of pixels",
            pdf_vs_page * 100.0
        );
    }

    // The deck page drew code highlighted in the code face and math with KaTeX.
    viewer.goto("about:blank").await.unwrap();
    viewer.goto(format!("{url}/fullscreen#/0")).await.unwrap();
    until(
        &viewer,
        "typeof Reveal !== 'undefined' && Reveal.isReady()",
        "the deck page",
    )
    .await;
    let drawn: Vec<String> = viewer
        .evaluate(
            "(() => { const k = document.querySelector('code .hljs-keyword'); const m = document.querySelector('.katex'); \
             return [k ? getComputedStyle(k).fontFamily : '', m ? m.textContent : '', document.body.textContent.includes('\\\\pi') ? 'raw' : 'drawn']; })()",
        )
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert!(drawn[0].contains("JetBrains Mono"), "code: {drawn:?}");
    assert!(!drawn[1].is_empty(), "no KaTeX output: {drawn:?}");

    // The PDF embeds the faces the slides use: bold and italic text, and the code font.
    let fonts = pdf_fonts(&pdf);
    // (The @fontsource files name their family "Montserrat Thin" inside; the faces are
    // the regular, bold and italic cuts.)
    for (family, face) in [
        ("Montserrat", "-Regular"),
        ("Montserrat", "-Bold "),
        ("Montserrat", "-Italic"),
        ("JetBrainsMono", "-Regular"),
        ("KaTeX_Main", "-Regular"),
    ] {
        assert!(
            fonts
                .lines()
                .any(|l| l.contains(family) && l.contains(face)),
            "the PDF lacks {family}{face}:\n{fonts}"
        );
    }
    chromium.close().await;
}

/// The colour presets as themes.css writes them: name, background and heading colour.
fn presets() -> Vec<(String, [u8; 3], [u8; 3])> {
    let css = include_str!("../../assets/web/themes.css");
    let hex = |line: &str, var: &str| {
        let at = line.find(&format!("{var}: #")).unwrap() + var.len() + 3;
        let h = &line[at..at + 6];
        [0, 2, 4].map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
    };
    css.lines()
        .filter_map(|line| {
            let name = line.strip_prefix(".theme-")?.split_whitespace().next()?;
            Some((
                name.to_string(),
                hex(line, "--lectern-bg"),
                hex(line, "--lectern-heading"),
            ))
        })
        .collect()
}

/// Relative luminance (0 black, 1 white) of an sRGB colour, roughly.
fn luminance(c: [u8; 3]) -> f64 {
    (0.2126 * c[0] as f64 + 0.7152 * c[1] as f64 + 0.0722 * c[2] as f64) / 255.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_colour_preset_looks_the_same_on_the_canvas_and_the_deck_page() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let presets = presets();
    assert_eq!(presets.len(), 18, "the interface's 18 colour presets");
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = "<section><h2>Preset <em>check</em></h2><p>Body text with a <a href=\"https://example.com/\">link</a></p>\
                 <ul><li>One</li><li><strong>Two</strong></li></ul></section>";
    let r = app
        .create_deck(
            &alice.key,
            json!({"title": "Presets", "visibility": "all", "width": WIDTH, "height": HEIGHT,
                   "margin": 0, "slides": [{"html": slide}]}),
        )
        .await;
    r.expect(201);
    let deck = r.data()["id"].as_i64().unwrap();
    let url = r.data()["url"].as_str().unwrap().to_string();
    let edit = r.data()["urls"]["edit"].as_str().unwrap().to_string();
    let id = r.data()["slide_ids"][0].as_str().unwrap().to_string();

    let chromium = Headless::launch(bin, 1400, 1000).await;
    let viewer = chromium.browser.new_page("about:blank").await.unwrap();
    viewport(&viewer, WIDTH, HEIGHT).await;
    let editor = chromium.browser.new_page("about:blank").await.unwrap();
    viewport(&editor, 1400, 1000).await;
    sign_in(&editor, &app, &alice).await;

    let mut worst = 0.0f64;
    for (name, background, heading) in &presets {
        app.update_deck(&alice.key, deck, json!({"theme_color": name}))
            .await
            .expect(200);
        let shown = viewer_picture(&viewer, &url, 0, &format!("preset-viewer-{name}")).await;
        editor.bring_to_front().await.unwrap();
        editor.goto(edit.as_str()).await.unwrap();
        until(
            &editor,
            &format!("document.querySelector('.canvas-frame.theme-{name}') !== null"),
            "the editor wearing the preset",
        )
        .await;
        let drawn = editor_picture(&editor, &id, &format!("preset-editor-{name}")).await;
        let different = difference(&drawn, &shown, &format!("preset-{name}"));
        worst = worst.max(different);
        assert!(
            different <= MAX_DIFFERENT,
            "{name}: the canvas differs from the deck page in {:.2}% of pixels",
            different * 100.0
        );
        // The slide wears the preset's background, and its heading stands out from it (light
        // text on a dark preset).
        let corner = shown.get_pixel(5, 5);
        assert!(
            (0..3).all(|c| corner[c].abs_diff(background[c]) <= 8),
            "{name}: background {corner:?}, not {background:?}"
        );
        assert!(
            (luminance(*heading) - luminance(*background)).abs() > 0.4,
            "{name}: the heading colour does not stand out"
        );
        let heading_shown: String = viewer
            .evaluate("getComputedStyle(document.querySelector('.reveal h2')).color")
            .await
            .unwrap()
            .into_value()
            .unwrap();
        let want = format!("rgb({}, {}, {})", heading[0], heading[1], heading[2]);
        assert_eq!(heading_shown, want, "{name}: heading colour");
    }
    eprintln!(
        "18 presets: at most {:.2}% of pixels differ between canvas and deck page",
        worst * 100.0
    );
    chromium.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_steps_become_fragments_on_the_deck_page_with_line_numbers() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = "<section><pre><code class=\"language-javascript\" data-line-numbers=\"1|2-3\" data-trim>\n  first();\n  second();\n  third();\n</code></pre></section>";
    let r = app
        .create_deck(
            &alice.key,
            json!({"visibility": "all", "slides": [{"html": slide}]}),
        )
        .await;
    r.expect(201);
    let url = r.data()["url"].as_str().unwrap().to_string();
    let chromium = Headless::launch(bin, 1280, 720).await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    page.goto(format!("{url}/fullscreen")).await.unwrap();
    until(
        &page,
        "typeof Reveal !== 'undefined' && Reveal.isReady()",
        "the deck page",
    )
    .await;
    let found: Vec<String> = page
        .evaluate(
            "(() => { const codes = [...document.querySelectorAll('.reveal pre code')]; \
             return [String(codes.length), String(codes.filter(c => c.classList.contains('fragment')).length), \
                     String(document.querySelectorAll('.reveal .hljs-ln').length), \
                     codes.map(c => [...c.querySelectorAll('tr.highlight-line')].map(r => r.textContent.trim()).join('/')).join(' | '), \
                     codes[0].querySelector('.hljs-title, .hljs-title.function_') ? 'highlighted' : 'plain', \
                     String(Reveal.getTotalSlides()), codes[0].textContent.includes('  first') ? 'untrimmed' : 'trimmed']; })()",
        )
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(found[0], "2", "the first step and one more: {found:?}");
    assert_eq!(found[1], "1", "the second step is a fragment: {found:?}");
    assert_eq!(found[2], "2", "both steps have line numbers: {found:?}");
    assert_eq!(
        found[3], "first(); | second();/third();",
        "highlighted lines per step: {found:?}"
    );
    assert_eq!(found[4], "highlighted", "{found:?}");
    assert_eq!(found[6], "trimmed", "{found:?}");
    chromium.close().await;
}
