//! Real decks keep their look (issue 41): a corpus of reveal.js documents in the shapes
//! public decks take (reveal.js's demo, pandoc's output, Markdown sections, a math talk, a
//! folder with images, a deck with its own `<style>`; `tests/fixtures/decks/`) imports through
//! the home page, and every page of its PDF shows the source theme's background and heading
//! colours (sampled), code highlighted in the code face, math drawn by KaTeX, one page per
//! slide. Pages land in `target/real-deck-*.png`.

use std::path::PathBuf;

use crate::common::{Headless, TestApp, TestUser};
use crate::editor::sign_in;
use crate::exports::pdf_text;
use crate::import::{import_in_browser, zip_of};
use crate::rendering::{pdf_fonts, pdf_pages, until};

/// One deck of the corpus and what its PDF must show.
struct Expected {
    file: &'static str,
    pages: usize,
    /// The theme's background, and pages with a background of their own.
    background: [u8; 3],
    own_backgrounds: &'static [(usize, [u8; 3])],
    /// The heading colour, on every page.
    heading: [u8; 3],
    /// Pages with highlighted code; pages with math.
    code: &'static [usize],
    math: &'static [usize],
}

const RED: [u8; 3] = [255, 0, 0];

const CORPUS: &[Expected] = &[
    Expected {
        file: "demo-black.html",
        pages: 6,
        background: [0x19, 0x19, 0x19],
        own_backgrounds: &[(5, [0x4d, 0x7e, 0x65])],
        heading: [0xff, 0xff, 0xff],
        code: &[3],
        math: &[4],
    },
    Expected {
        file: "pandoc-moon.html",
        pages: 4,
        background: [0x00, 0x2b, 0x36],
        own_backgrounds: &[],
        heading: [0xee, 0xe8, 0xd5],
        code: &[3],
        math: &[2],
    },
    Expected {
        file: "markdown-white.html",
        pages: 5,
        background: [0xff, 0xff, 0xff],
        own_backgrounds: &[],
        heading: [0x22, 0x22, 0x22],
        code: &[3],
        math: &[4],
    },
    Expected {
        file: "solarized-math.html",
        pages: 4,
        background: [0xfd, 0xf6, 0xe3],
        own_backgrounds: &[],
        heading: [0x58, 0x6e, 0x75],
        code: &[],
        math: &[1, 2, 3],
    },
    Expected {
        file: "league-groups.html",
        pages: 4,
        background: [0x1c, 0x1e, 0x20],
        own_backgrounds: &[(1, RED), (2, RED)],
        heading: [0xee, 0xee, 0xee],
        code: &[],
        math: &[],
    },
    Expected {
        file: "dracula-style.html",
        pages: 3,
        background: [0x19, 0x19, 0x19],
        own_backgrounds: &[],
        heading: [0x50, 0xfa, 0x7b],
        code: &[1],
        math: &[],
    },
];

/// monokai's token colours (reveal.js's highlight theme): keywords, strings, names, numbers.
const HIGHLIGHT: [[u8; 3]; 4] = [
    [0xf9, 0x26, 0x72],
    [0xa6, 0xe2, 0x2e],
    [0x66, 0xd9, 0xef],
    [0xbf, 0x79, 0xdb],
];

fn near(p: &image::Rgba<u8>, c: [u8; 3], tolerance: u8) -> bool {
    (0..3).all(|i| p[i].abs_diff(c[i]) <= tolerance)
}

fn count(page: &image::RgbaImage, c: [u8; 3], tolerance: u8) -> usize {
    page.pixels().filter(|p| near(p, c, tolerance)).count()
}

/// The deck's PowerPoint export in the source theme too: its background on every slide,
/// headings in its heading colour and face.
async fn pptx_keeps_the_theme(app: &TestApp, user: &TestUser, id: i64, deck: &Expected) {
    let Some(python) =
        crate::common::needs(module_path!(), "python-pptx", crate::exports::python_pptx())
    else {
        return;
    };
    let pptx = app
        .exported_file(user, id, serde_json::json!({"format": "pptx"}))
        .await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deck.pptx");
    std::fs::write(&file, pptx).unwrap();
    let read = crate::exports::pptx_dump(&python, &file);
    let hex = |c: [u8; 3]| format!("{:02X}{:02X}{:02X}", c[0], c[1], c[2]);
    let slides = read["slides"].as_array().unwrap();
    assert_eq!(slides.len(), deck.pages);
    for slide in slides {
        assert_eq!(slide["background"], hex(deck.background), "{slide}");
    }
    let heading = slides[1]["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["runs"].as_array().unwrap())
        .find(|r| r["text"] == "Why queues")
        .unwrap_or_else(|| panic!("no heading run: {}", slides[1]))
        .clone();
    assert_eq!(heading["colour"], hex(deck.heading), "{heading}");
    assert_eq!(heading["font"], "League Gothic", "{heading}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_style_decks_import_and_print_in_their_own_theme() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let browser = app.browser(Some(&alice)).await;
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).unwrap();
    let mut edit = String::new();
    for deck in CORPUS {
        let text = std::fs::read(fixtures.join("decks").join(deck.file)).unwrap();
        // The deck with pictures comes as its folder, zipped.
        let (name, file) = if deck.file.starts_with("league") {
            let png = std::fs::read(fixtures.join("red.png")).unwrap();
            (
                "folder.zip",
                zip_of(&[("index.html", &text), ("img/red.png", &png)]),
            )
        } else {
            (deck.file, text)
        };
        let (status, _, page) = import_in_browser(&app, &browser, name, file).await;
        assert!(
            status == 200 || status == 303,
            "{}: {status} {page}",
            deck.file
        );
        let id = app.list_decks(&alice.key, "").await.data()[0]["id"]
            .as_i64()
            .unwrap();
        edit = app.get_deck(&alice.key, id, "").await.data()["urls"]["edit"]
            .as_str()
            .unwrap()
            .to_string();
        let pdf = app
            .exported_file(&alice, id, serde_json::json!({"format": "pdf"}))
            .await;

        let pages = pdf_pages(&pdf, &["-r", "40"]);
        assert_eq!(pages.len(), deck.pages, "{}: one page per slide", deck.file);
        let text = pdf_text(&pdf).expect("pdftotext (poppler-utils) reads the PDF");
        for raw in ["\\frac", "\\sum", "$$", "\\(", "\\[", "<span", "class="] {
            assert!(
                !text.contains(raw),
                "{}: raw {raw} in the PDF:\n{text}",
                deck.file
            );
        }
        let fonts = pdf_fonts(&pdf);
        if !deck.code.is_empty() {
            assert!(
                fonts.contains("JetBrainsMono"),
                "{}: no code face:\n{fonts}",
                deck.file
            );
        }
        if !deck.math.is_empty() {
            assert!(
                fonts.contains("KaTeX_Main"),
                "{}: no KaTeX fonts:\n{fonts}",
                deck.file
            );
        }
        for (i, page) in pages.iter().enumerate() {
            let stem = deck.file.trim_end_matches(".html");
            page.save(target.join(format!("real-deck-{stem}-{i}.png")))
                .unwrap();
            let background = deck
                .own_backgrounds
                .iter()
                .find(|(p, _)| *p == i)
                .map_or(deck.background, |(_, c)| *c);
            let corner = page.get_pixel(2, 2);
            assert!(
                near(corner, background, 6),
                "{} page {i}: background {corner:?}, the theme's is {background:?}",
                deck.file
            );
            let heading = count(page, deck.heading, 24);
            assert!(
                heading >= 40,
                "{} page {i}: {heading} pixels of the heading colour {:?}",
                deck.file,
                deck.heading
            );
            if deck.code.contains(&i) {
                let coloured: usize = HIGHLIGHT.iter().map(|c| count(page, *c, 30)).sum();
                assert!(
                    coloured >= 40,
                    "{} page {i}: code is not highlighted ({coloured} pixels in monokai's colours)",
                    deck.file
                );
            }
        }
        if deck.file == "pandoc-moon.html" {
            pptx_keeps_the_theme(&app, &alice, id, deck).await;
        }
        eprintln!(
            "{}: {} pages as the source theme draws them",
            deck.file,
            pages.len()
        );
    }

    // The editor draws the last deck with its own CSS too: its headings in the <style>'s
    // colour, on the theme's background.
    let chromium = Headless::launch(bin, 1400, 1000).await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    sign_in(&page, &app, &alice).await;
    page.goto(edit.as_str()).await.unwrap();
    until(
        &page,
        "document.querySelector('.canvas-frame h2') !== null",
        "the canvas",
    )
    .await;
    let drawn: Vec<String> = page
        .evaluate(
            "(() => { const h = document.querySelector('.canvas-frame h2'); \
             return [getComputedStyle(h).color, getComputedStyle(document.querySelector('.canvas-frame')).backgroundColor]; })()",
        )
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(
        drawn,
        ["rgb(80, 250, 123)", "rgb(25, 25, 25)"],
        "the editor's canvas"
    );
    chromium.close().await;
}
