//! Exports: validation, the pending -> completed flow for ZIP and PDF, signed downloads, and
//! the queue's durability and failure handling.

use std::io::Read;
use std::sync::Arc;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{TestApp, TestUser};

async fn create(app: &TestApp, user: &TestUser, deck: &Value, body: Value) -> crate::common::Resp {
    app.call(
        Method::POST,
        &format!("/v1/decks/{deck}/exports"),
        Some(&user.key),
        Some(body),
    )
    .await
}

/// Polls `get_deck_export` until the export leaves `pending` (or a minute passes).
async fn finished(app: &TestApp, user: &TestUser, deck: &Value, id: &Value) -> Value {
    let mut last = Value::Null;
    for _ in 0..600 {
        let r = app
            .call(
                Method::GET,
                &format!("/v1/decks/{deck}/exports/{id}"),
                Some(&user.key),
                None,
            )
            .await;
        r.expect(200);
        last = r.data().clone();
        if last["status"] != "pending" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    last
}

async fn deck(app: &TestApp, user: &TestUser) -> Value {
    let r = app
        .create_deck(&user.key, json!({"title": "Quarterly", "slides": [
            {"html": "<section><h1>Alpha title</h1></section>", "notes": "Speaker note alpha"},
            {"html": "<section><h2>Beta title</h2><p class=\"fragment\">step one</p><p class=\"fragment\">step two</p></section>"},
            {"html": "<section><h2>Gamma title</h2></section>"}
        ]}))
        .await;
    r.expect(201);
    r.data()["id"].clone()
}

#[tokio::test]
async fn export_requests_are_validated() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let mallory = app.user("mallory").await;
    let d = deck(&app, &alice).await;

    for body in [
        json!({}),
        json!({"format": "docx"}),
        json!({"format": "pdf", "margin": 0.3}),
        json!({"format": "pdf", "slide_notes": "yes"}),
        json!({"format": "zip", "slide_number": true}),
        json!({"format": "zip", "extra": 1}),
    ] {
        create(&app, &alice, &d, body).await.expect_error(422);
    }
    app.call(
        Method::POST,
        &format!("/v1/decks/{d}/exports"),
        Some(&alice.key),
        None,
    )
    .await
    .expect_error(422);
    create(&app, &mallory, &d, json!({"format": "zip"}))
        .await
        .expect_error(404);
    let mine = create(&app, &alice, &d, json!({"format": "zip"})).await;
    let id = mine.data()["id"].clone();
    app.call(
        Method::GET,
        &format!("/v1/decks/{d}/exports/{id}"),
        Some(&mallory.key),
        None,
    )
    .await
    .expect_error(404);
    app.call(
        Method::GET,
        &format!("/v1/decks/{d}/exports/999999"),
        Some(&alice.key),
        None,
    )
    .await
    .expect_error(404);
    app.call(
        Method::GET,
        &format!("/v1/decks/{d}/exports/abc"),
        Some(&alice.key),
        None,
    )
    .await
    .expect_error(422);
}

#[tokio::test]
async fn a_zip_export_is_an_offline_presentation_behind_a_signed_link() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let d = deck(&app, &alice).await;

    let r = create(&app, &alice, &d, json!({"format": "zip"})).await;

    r.expect(202);
    let e = r.data();
    assert_eq!(e["status"], "pending");
    assert_eq!(e["format"], "zip");
    assert_eq!(e["deck_id"], d);
    assert!(
        e["completed_at"].is_null()
            && e["download_url"].is_null()
            && e["download_url_expires_at"].is_null()
    );
    assert_eq!(r.json["meta"]["poll_after_seconds"], 2);
    let done = finished(&app, &alice, &d, &e["id"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(done["completed_at"].is_string() && done["download_url_expires_at"].is_string());
    let url = done["download_url"].as_str().unwrap().to_string();

    let resp = reqwest::get(&url).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/zip");
    let bytes = resp.bytes().await.unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let mut index = String::new();
    zip.by_name("index.html")
        .unwrap()
        .read_to_string(&mut index)
        .unwrap();
    for text in [
        "Alpha title",
        "Beta title",
        "Gamma title",
        "Speaker note alpha",
    ] {
        assert!(index.contains(text), "index.html lacks {text}");
    }
    assert!(index.contains("src=\"reveal/reveal.js\"") && !index.contains("/assets/"));
    for file in [
        "reveal/reveal.js",
        "reveal/reveal.css",
        "web/viewer.js",
        "web/slides.js",
        "web/slides.css",
        "katex/katex.min.css",
        "fonts/jetbrains-mono/files/jetbrains-mono-latin-400-normal.woff2",
        "web/viewer.css",
        "web/fonts.css",
    ] {
        assert!(zip.by_name(file).is_ok(), "{file} missing");
    }

    // Tampered and expired links never give the file.
    let tampered = url.replace("signature=", "signature=0");
    assert_eq!(reqwest::get(&tampered).await.unwrap().status(), 403);
    let expired = format!(
        "{}/exports/{}/download?expires=1&signature=00",
        app.base, e["id"]
    );
    assert_eq!(reqwest::get(&expired).await.unwrap().status(), 403);
    let other_id = url.replacen(&format!("/exports/{}/", e["id"]), "/exports/999/", 1);
    assert_eq!(reqwest::get(&other_id).await.unwrap().status(), 403);
}

#[tokio::test]
async fn exports_leave_with_their_deck_and_end_with_their_file() {
    use lectern::export::pdf::PdfRenderer;
    use lectern::export::worker::Exporter;

    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let d = deck(&app, &alice).await;
    let id = create(&app, &alice, &d, json!({"format": "zip"}))
        .await
        .data()["id"]
        .clone();
    let done = finished(&app, &alice, &d, &id).await;
    let url = done["download_url"].as_str().unwrap().to_string();
    let path = format!("/v1/decks/{d}/exports/{id}");

    // In the trash: the export and its link answer 404; back from the trash: both work.
    app.trash_deck(&alice.key, &d).await.expect(204);
    app.call(Method::GET, &path, Some(&alice.key), None)
        .await
        .expect_error(404);
    assert_eq!(reqwest::get(&url).await.unwrap().status(), 404);
    app.recover_deck(&alice.key, &d).await.expect(204);
    app.call(Method::GET, &path, Some(&alice.key), None)
        .await
        .expect(200);
    assert_eq!(reqwest::get(&url).await.unwrap().status(), 200);

    // The end of retention: the file is deleted, and the export no longer exists.
    let worker = Exporter {
        core: app.core.clone(),
        pdf: std::sync::Arc::new(PdfRenderer::new(None)),
        wakeup: Default::default(),
    };
    assert_eq!(worker.cleanup(std::time::Duration::ZERO).await.unwrap(), 1);
    app.call(Method::GET, &path, Some(&alice.key), None)
        .await
        .expect_error(404);
    let link = reqwest::get(&url).await.unwrap();
    assert_eq!(link.status(), 404);
    let body: Value = link.json().await.unwrap();
    assert!(body["error"].is_string());
}

fn pdf_pages(pdf: &[u8]) -> usize {
    let text = String::from_utf8_lossy(pdf);
    text.match_indices("/Type /Page")
        .filter(|(i, _)| !text[i + 11..].starts_with('s'))
        .count()
}

pub(crate) fn pdf_text(pdf: &[u8]) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.pdf");
    std::fs::write(&path, pdf).unwrap();
    let out = std::process::Command::new("pdftotext")
        .arg(&path)
        .arg("-")
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).to_string())
}

#[tokio::test]
async fn pdf_exports_print_one_page_per_slide_with_titles_and_notes() {
    if crate::common::chromium(module_path!()).is_none() {
        return;
    }
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let d = deck(&app, &alice).await;

    let plain = create(&app, &alice, &d, json!({"format": "pdf"}))
        .await
        .data()["id"]
        .clone();
    let notes = create(
        &app,
        &alice,
        &d,
        json!({"format": "pdf", "slide_notes": true, "slide_number": true, "margin": 0.1}),
    )
    .await
    .data()["id"]
        .clone();
    let steps = create(
        &app,
        &alice,
        &d,
        json!({"format": "pdf", "separate_fragments": true}),
    )
    .await
    .data()["id"]
        .clone();
    let mut files = Vec::new();
    for id in [&plain, &notes, &steps] {
        let done = finished(&app, &alice, &d, id).await;
        assert_eq!(done["status"], "completed", "{done}");
        let resp = reqwest::get(done["download_url"].as_str().unwrap())
            .await
            .unwrap();
        assert_eq!(resp.headers()["content-type"], "application/pdf");
        files.push(resp.bytes().await.unwrap().to_vec());
    }

    assert!(files[0].starts_with(b"%PDF"));
    assert_eq!(pdf_pages(&files[0]), 3, "one page per slide");
    assert_eq!(
        pdf_pages(&files[2]),
        5,
        "fragment steps printed separately (1 + 3 + 1)"
    );
    if let Some(text) = pdf_text(&files[0]) {
        for title in ["Alpha title", "Beta title", "Gamma title"] {
            assert!(text.contains(title), "the PDF lacks {title}: {text}");
        }
        assert!(!text.contains("Speaker note alpha"));
        assert!(
            pdf_text(&files[1]).unwrap().contains("Speaker note alpha"),
            "slide_notes prints the notes"
        );
    } else {
        eprintln!("note: pdftotext not installed; PDF text not checked");
    }
}

#[tokio::test]
async fn a_queued_job_survives_a_restart_and_a_dying_browser_ends_it_failed() {
    use lectern::export::files::LocalFiles;
    use lectern::export::pdf::PdfRenderer;
    use lectern::export::worker::{Exporter, MAX_ATTEMPTS};
    use lectern_core::service::exports::NewExport;

    // A database with jobs queued while no worker ran (a server that stopped after queueing).
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("lectern.db").display());
    let files = Arc::new(LocalFiles::new(dir.path().join("exports")).unwrap());
    let core = lectern_core::Lectern::new(
        lectern::cli::storage::open_store(&url).await.unwrap(),
        "http://127.0.0.1:9",
    )
    .with_files(files);
    core.admin()
        .create_user(lectern_core::service::NewUser {
            username: "alice".into(),
            email: "a@example.org".into(),
            name: None,
            password: None,
            team: None,
        })
        .await
        .unwrap();
    let key = core.admin().create_api_key("alice", "").await.unwrap();
    let caller = core.authenticate_bearer(key.expose()).await.unwrap();
    let deck = core
        .create_deck(
            &caller,
            lectern_core::deck::NewDeck::from_json(None).unwrap(),
        )
        .await
        .unwrap();
    let zip = core
        .create_deck_export(
            &caller,
            deck.meta.id.into(),
            NewExport::from_json(Some(json!({"format": "zip"}))).unwrap(),
        )
        .await
        .unwrap();
    let pdf = core
        .create_deck_export(
            &caller,
            deck.meta.id.into(),
            NewExport::from_json(Some(json!({"format": "pdf"}))).unwrap(),
        )
        .await
        .unwrap();
    // `/metrics` reports them as the queue depth.
    assert_eq!(core.export_queue_depth().await.unwrap(), 2);

    // After the "restart", a worker whose browser dies at once takes the jobs from the database.
    let worker = Exporter {
        core: core.clone(),
        pdf: std::sync::Arc::new(PdfRenderer::new(Some("/bin/false".into()))),
        wakeup: Default::default(),
    };
    let mut runs = 0;
    while worker.run_one().await.unwrap() {
        runs += 1;
        assert!(runs < 10, "the queue never drains");
    }
    assert_eq!(core.export_queue_depth().await.unwrap(), 0);

    let zip = core
        .get_deck_export(&caller, deck.meta.id.into(), zip.id.into())
        .await
        .unwrap();
    let pdf = core
        .get_deck_export(&caller, deck.meta.id.into(), pdf.id.into())
        .await
        .unwrap();
    assert_eq!(zip.status, "completed");
    assert!(zip.download_url.is_some());
    assert_eq!(pdf.status, "failed");
    let reason = pdf.error.unwrap_or_default();
    assert!(
        reason.contains("Chromium did not start")
            && reason.contains(&format!("{MAX_ATTEMPTS} attempts")),
        "{reason}"
    );
    assert_eq!(
        runs,
        1 + MAX_ATTEMPTS as usize,
        "one run for the zip, one per pdf attempt"
    );
}

#[tokio::test]
async fn thumbnails_show_the_first_slide_after_changes_settle() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let r = app
        .create_deck(
            &alice.key,
            json!({"slides": [{"html": "<section><h1>Cover</h1></section>"}]}),
        )
        .await;
    let d = r.data()["id"].clone();
    let generic = r.data()["thumbnail_url"].as_str().unwrap().to_string();
    assert!(generic.ends_with("/assets/web/thumbnail.svg"), "{generic}");
    let svg = reqwest::get(&generic).await.unwrap();
    assert_eq!(svg.status(), 200);
    if crate::common::chromium(module_path!()).is_none() {
        return;
    }

    let drawn = |previous: String| {
        let (app, key, d) = (&app, alice.key.clone(), d.clone());
        async move {
            for _ in 0..300 {
                let url = app.get_deck(&key, &d, "").await.data()["thumbnail_url"]
                    .as_str()
                    .unwrap()
                    .to_string();
                if url.ends_with(".png") && url != previous {
                    return url;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            panic!("no new thumbnail was drawn");
        }
    };
    let first = drawn(String::new()).await;
    let png = reqwest::get(&first).await.unwrap();
    assert_eq!(png.status(), 200);
    assert_eq!(png.headers()["content-type"], "image/png");
    assert!(png.bytes().await.unwrap().starts_with(b"\x89PNG"));
    // The deck list shows the same image.
    assert_eq!(
        app.list_decks(&alice.key, "").await.data()[0]["thumbnail_url"],
        first
    );

    let slide = app.list_slides(&alice.key, &d, "").await.data()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.update_slide(
        &alice.key,
        &d,
        &slide,
        json!({"html": "<section><h1>New cover</h1></section>"}),
    )
    .await
    .expect(200);
    let second = drawn(first.clone()).await;
    assert_ne!(second, first);
    assert_eq!(
        reqwest::get(&first).await.unwrap().status(),
        404,
        "the old image is gone"
    );
    assert_eq!(reqwest::get(&second).await.unwrap().status(), 200);
}

/// A thumbnail reads the deck's first slide in presentation order and nothing after it (the
/// store is asked for one row, so a deck of 60,000 slides costs what a deck of one does):
/// here the first slide is one moved to the front, not the first one stored.
#[tokio::test]
async fn a_thumbnail_reads_only_the_first_slide_in_presentation_order() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slides: Vec<Value> = ["One", "Two", "Three"]
        .iter()
        .map(|t| json!({"html": format!("<section><h1>Slide {t}</h1></section>")}))
        .collect();
    let r = app.create_deck(&alice.key, json!({"slides": slides})).await;
    r.expect(201);
    let deck = r.data()["id"].as_i64().unwrap();
    let ids = app.shape(&alice.key, deck).await.concat();
    app.move_slides(
        &alice.key,
        deck,
        json!({"slide_ids": [ids[2]], "insert_before_slide_id": ids[0]}),
    )
    .await
    .expect(200);

    let viewed = app.core.worker().deck_for_thumbnail(deck).await.unwrap();
    let html = &viewed.slides_html;
    assert!(html.contains("Slide Three"), "{html}");
    assert!(
        !html.contains("Slide One") && !html.contains("Slide Two"),
        "{html}"
    );
    assert_eq!(html.matches("<section").count(), 1, "{html}");
}

/// What python-pptx reads in the .pptx `file` (`scripts/pptx_dump.py`).
pub(crate) fn pptx_dump(python: &str, file: &std::path::Path) -> Value {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/api/scripts/pptx_dump.py"
    );
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The Python that has python-pptx (`LECTERN_PPTX_PYTHON`, which .ci/run sets; else
/// `python3`), or `None` (a failure under CI).
pub(crate) fn python_pptx() -> Option<String> {
    let python = std::env::var("LECTERN_PPTX_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = std::process::Command::new(&python)
        .args(["-c", "import pptx"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok || std::env::var("CI").as_deref() != Ok("true"),
        "python-pptx is required under CI"
    );
    ok.then_some(python)
}

/// A PowerPoint export of a deck in block markup, free HTML and HTML that does not map,
/// read back with python-pptx: the canvas size, one slide per slide, the notes, a text box
/// at its block's place with its runs, a native shape with its fill, the code as monospace
/// text, the free HTML's text as text boxes and its table as a table, Chromium's picture of
/// a slide with SVG art; then LibreOffice turns it into a PDF in which pdftotext finds every
/// text box's and table's text.
#[tokio::test]
async fn pptx_exports_map_blocks_to_native_shapes_and_draw_the_rest() {
    if crate::common::chromium(module_path!()).is_none() {
        return;
    }
    let Some(python) = crate::common::needs(module_path!(), "python-pptx", python_pptx()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let blocks = r##"<section data-background-color="#102030"><div class="sl-block" data-block-type="text" style="left: 80px; top: 60px; width: 400px; height: 120px;"><div class="sl-block-content" style="font-size: 32px; color: #ffcc00;"><p>Hello <strong>bold</strong> world</p></div></div><div class="sl-block" data-block-type="shape" style="left: 500px; top: 300px; width: 300px; height: 200px;"><div class="sl-block-content" data-shape-type="rect" style="width: 100%; height: 100%; background-color: #00ff00;"></div></div><div class="sl-block" data-block-type="code" style="left: 80px; top: 400px; width: 300px; height: 100px;"><div class="sl-block-content"><pre><code>let answer = 42;</code></pre></div></div></section>"##;
    let created = app
        .create_deck(
            &alice.key,
            json!({"title": "Handout", "width": 960, "height": 700, "theme_color": "black-orange", "slides": [
                {"html": blocks, "notes": "Speak slowly"},
                {"html": "<section><h2>Agenda</h2><ul><li>First point</li><li>Second <em>point</em></li></ul><pre><code>make run</code></pre></section>"},
                {"html": "<section><h2>Figures</h2><table><thead><tr><th>Year</th><th>Sales</th></tr></thead><tbody><tr><td>2026</td><td><em>nine</em></td></tr></tbody></table></section>"},
                {"html": "<section><h2>Art</h2><svg width=\"100\" height=\"100\"><circle cx=\"50\" cy=\"50\" r=\"40\" fill=\"red\"/></svg></section>"}
            ]}),
        )
        .await;
    created.expect(201);
    let deck = created.data()["id"].as_i64().unwrap();
    let done = app
        .finished_export(&alice, deck, json!({"format": "pptx"}))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    let resp = reqwest::get(done["download_url"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(
        resp.headers()["content-type"],
        "application/vnd.openxmlformats-officedocument.presentationml.presentation"
    );
    assert!(
        resp.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .ends_with(".pptx\""),
    );
    let bytes = resp.bytes().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deck.pptx");
    std::fs::write(&file, &bytes).unwrap();
    let read = pptx_dump(&python, &file);
    const PX: i64 = 9525;
    let near = |v: &Value, px: i64| (v.as_i64().unwrap() - px * PX).abs() <= PX;
    assert!(
        near(&read["width"], 960) && near(&read["height"], 700),
        "{read}"
    );
    let slides = read["slides"].as_array().unwrap();
    assert_eq!(slides.len(), 4, "one PowerPoint slide per slide");

    // Block markup: native text box, shape, and the code block as monospace text.
    let first = &slides[0];
    assert_eq!(first["notes"], "Speak slowly");
    let shapes = first["shapes"].as_array().unwrap();
    let text = shapes
        .iter()
        .find(|s| s["text"] == "Hello bold world")
        .unwrap_or_else(|| panic!("no text box with the block's text: {first}"));
    assert!(near(&text["left"], 80) && near(&text["top"], 60), "{text}");
    assert!(
        near(&text["width"], 400) && near(&text["height"], 120),
        "{text}"
    );
    let bold = text["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["text"] == "bold")
        .unwrap();
    assert_eq!(bold["bold"], true);
    assert_eq!(bold["size_pt"], 24.0, "32 px is 24 pt");
    assert_eq!(bold["colour"], "FFCC00");
    let shape = shapes
        .iter()
        .find(|s| s["fill"] == "00FF00")
        .unwrap_or_else(|| panic!("no native shape with the block's fill: {first}"));
    assert!(
        near(&shape["left"], 500) && near(&shape["top"], 300),
        "{shape}"
    );
    let code = shapes
        .iter()
        .find(|s| s["text"] == "let answer = 42;")
        .unwrap_or_else(|| panic!("the code block is not text: {first}"));
    assert!(near(&code["left"], 80) && near(&code["top"], 400), "{code}");
    assert_eq!(code["runs"][0]["font"], "JetBrains Mono", "{code}");

    // Free HTML: text boxes in the deck's faces, italic and code kept; HTML that does not
    // map: a picture of the whole slide.
    let runs: Vec<&Value> = slides[1]["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["runs"].as_array().unwrap())
        .collect();
    let run = |text: &str| {
        *runs
            .iter()
            .find(|r| r["text"] == text)
            .unwrap_or_else(|| panic!("no run {text:?}: {runs:?}"))
    };
    assert_eq!(run("Agenda")["font"], "Montserrat");
    assert_eq!(run("Agenda")["bold"], true);
    assert_eq!(run("point")["italic"], true);
    assert_eq!(run("make run")["font"], "JetBrains Mono");
    let agenda: Vec<&str> = slides[1]["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["text"].as_str())
        .collect();
    assert!(
        agenda.iter().any(|t| t.contains("Agenda"))
            && agenda.iter().any(|t| t.contains("First point")),
        "{agenda:?}"
    );
    let figures = slides[2]["shapes"].as_array().unwrap();
    let table = figures
        .iter()
        .find(|s| !s["table"].is_null())
        .unwrap_or_else(|| panic!("the table is not a table: {figures:?}"));
    assert_eq!(table["table"], json!([["Year", "Sales"], ["2026", "nine"]]));
    let cell = |text: &str| {
        table["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["text"] == text)
            .unwrap_or_else(|| panic!("no run {text:?}: {table}"))
            .clone()
    };
    assert_eq!(cell("Year")["bold"], true, "header cells are bold");
    assert_eq!(cell("nine")["italic"], true);
    assert_eq!(cell("2026")["bold"], false);
    let art = slides[3]["shapes"].as_array().unwrap();
    assert!(
        art.iter()
            .any(|s| s["image"] == "image/png" && near(&s["width"], 960)),
        "{art:?}"
    );

    // LibreOffice reads it and pdftotext finds the text boxes' text.
    let soffice = std::process::Command::new("soffice")
        .arg(format!(
            "-env:UserInstallation=file://{}/profile",
            dir.path().display()
        ))
        .args(["--headless", "--convert-to", "pdf", "--outdir"])
        .arg(dir.path())
        .arg(&file)
        .output();
    match soffice {
        Ok(out) if out.status.success() => {
            let pdf =
                std::fs::read(dir.path().join("deck.pdf")).expect("LibreOffice wrote the PDF");
            let text = pdf_text(&pdf).expect("pdftotext reads LibreOffice's PDF");
            for want in [
                "Hello",
                "bold",
                "world",
                "Agenda",
                "First point",
                "Second",
                "make run",
                "let answer = 42;",
                "Figures",
                "Year",
                "Sales",
                "nine",
            ] {
                assert!(
                    text.contains(want),
                    "LibreOffice's PDF lacks {want:?}: {text}"
                );
            }
        }
        other => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "LibreOffice is required under CI: {other:?}"
            );
            eprintln!("note: LibreOffice not installed; its reading not checked");
        }
    }
}

/// `lectern serve --export-workers 0` queues exports but builds none (the work stays out of
/// the serving process); `lectern worker` on the same data builds them, and the server
/// serves the download. Runs in the SQLite pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_process_builds_what_a_server_without_workers_queued() {
    use crate::common::{BIN, account, send_json, serve, testing_postgres};

    if testing_postgres() {
        eprintln!("skipped: runs in the SQLite pass");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db_url = format!("sqlite://{}", dir.path().join("lectern.db").display());
    let key = account(&db_url, "alice").await;
    let (_server, base) = serve(&db_url, dir.path(), &["--export-workers", "0"]).await;
    let client = reqwest::Client::new();
    let call = |method: Method, path: String, body: Option<Value>| {
        let (client, key, url) = (client.clone(), key.clone(), format!("{base}{path}"));
        async move { send_json(&client, method, url, &key, body).await.unwrap() }
    };
    let (_, made) = call(
        Method::POST,
        "/v1/decks".into(),
        Some(json!({"title": "Offloaded"})),
    )
    .await;
    let deck = made["data"]["id"].as_i64().unwrap();
    let (status, queued) = call(
        Method::POST,
        format!("/v1/decks/{deck}/exports"),
        Some(json!({"format": "zip"})),
    )
    .await;
    assert_eq!(status, 202, "{queued}");
    let path = format!("/v1/decks/{deck}/exports/{}", queued["data"]["id"]);
    // Two idle polls of a worker (0.5 s each) pass: nobody in the server takes the job.
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    assert_eq!(
        call(Method::GET, path.clone(), None).await.1["data"]["status"],
        "pending"
    );

    let _worker = tokio::process::Command::new(BIN)
        .args(["worker", "--database-url", &db_url])
        .arg("--data-dir")
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut done = Value::Null;
    for _ in 0..300 {
        done = call(Method::GET, path.clone(), None).await.1["data"].clone();
        if done["status"] != "pending" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(done["status"], "completed", "{done}");
    let zip = reqwest::get(done["download_url"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(zip.status(), 200);
    assert!(zip.bytes().await.unwrap().starts_with(b"PK"));
}

/// The processes whose parent is `pid` and which are not zombies, with their command lines.
fn children(pid: u32) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: comm may hold spaces, so read after its ')'.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let mut fields = after.split(' ');
        let state = fields.next().unwrap();
        let ppid: u32 = fields.next().unwrap().parse().unwrap();
        if ppid == pid && state != "Z" {
            let cmdline = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
            found.push((child, String::from_utf8_lossy(&cmdline).replace('\0', " ")));
        }
    }
    found
}

/// Whether process `pid` is running (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s[s.rfind(')').unwrap() + 2..].starts_with('Z'))
        .unwrap_or(false)
}

/// A server of its own (SQLite) with one deck, whose thumbnail made it start its browser.
struct ServerWithBrowser {
    server: tokio::process::Child,
    base: String,
    key: String,
    deck: Value,
    /// The browser's pid and command line.
    browser: (u32, String),
    _dir: tempfile::TempDir,
}

/// Starts a [`ServerWithBrowser`] once its browser runs; `None` (the test is skipped) in the
/// PostgreSQL pass, since these tests look at the server's own processes, or without
/// Chromium.
async fn server_with_its_browser() -> Option<ServerWithBrowser> {
    use crate::common::{account, send_json, serve};

    if crate::common::testing_postgres() {
        eprintln!("skipped: runs in the SQLite pass");
        return None;
    }
    crate::common::chromium(module_path!())?;
    let dir = tempfile::tempdir().unwrap();
    let db_url = format!("sqlite://{}", dir.path().join("lectern.db").display());
    let key = account(&db_url, "alice").await;
    let (server, base) = serve(&db_url, dir.path(), &[]).await;
    let server_pid = server.id().unwrap();
    let (status, made) = send_json(
        &reqwest::Client::new(),
        Method::POST,
        format!("{base}/v1/decks"),
        &key,
        Some(json!({"title": "Thumbnail", "slides": [{"html": "<section><h1>A</h1></section>"}]})),
    )
    .await
    .unwrap();
    assert_eq!(status, 201, "{made}");
    // The thumbnail starts the browser (a child of the server) within moments: through a
    // shell script, then `nice` and `setpriv`, whose process becomes Chromium's once its last
    // `exec` is done.
    let mut browser = None;
    for _ in 0..400 {
        browser = children(server_pid).into_iter().find(|(_, cmdline)| {
            cmdline.contains("remote-debugging-pipe")
                && !cmdline.contains("lectern-chromium")
                && !cmdline.contains("setpriv")
                && !cmdline.contains("nice")
        });
        if browser.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    Some(ServerWithBrowser {
        server,
        base,
        key,
        deck: made["data"]["id"].clone(),
        browser: browser.expect("the server started its browser for the thumbnail"),
        _dir: dir,
    })
}

/// The browser a server starts (here for a deck's thumbnail) ends with the server, even one
/// killed with SIGKILL, which can clean nothing up: no Chromium is left running. Runs in the
/// SQLite pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_with_sigkill_leaves_no_browser_behind() {
    let Some(mut running) = server_with_its_browser().await else {
        return;
    };
    let (browser, cmdline) = running.browser.clone();

    running.server.kill().await.unwrap(); // SIGKILL
    let mut gone = false;
    for _ in 0..200 {
        if !alive(browser) {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(gone, "the browser outlived its server: {browser} {cmdline}");
}

/// The browser's work (thumbnails here) runs below the requests' priority: once it has drawn
/// a thumbnail, every thread of the browser and of the processes it started has a niceness
/// of at least `BROWSER_NICENESS`, also where the server runs as root (which could raise a
/// thread's priority: Chromium sets its main thread to -8). Runs in the SQLite pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_yields_the_cpu_to_requests() {
    let Some(mut running) = server_with_its_browser().await else {
        return;
    };
    let ServerWithBrowser {
        base, key, deck, ..
    } = &running;
    let browser = running.browser.0;
    let client = reqwest::Client::new();
    let mut drawn = false;
    for _ in 0..300 {
        let (status, got) = crate::common::send_json(
            &client,
            Method::GET,
            format!("{base}/v1/decks/{deck}"),
            key,
            None,
        )
        .await
        .unwrap();
        assert_eq!(status, 200, "{got}");
        if got["data"]["thumbnail_url"]
            .as_str()
            .is_some_and(|u| u.ends_with(".png"))
        {
            drawn = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(drawn, "no thumbnail was drawn");

    // The browser and everything it started, and each one's threads' niceness (the 19th
    // field of /proc/<pid>/task/<tid>/stat).
    let mut processes = vec![browser];
    let mut i = 0;
    while i < processes.len() {
        processes.extend(children(processes[i]).into_iter().map(|(pid, _)| pid));
        i += 1;
    }
    let mut threads = 0;
    for pid in &processes {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue; // ended meanwhile
        };
        for task in tasks.flatten() {
            let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
                continue;
            };
            let after = &stat[stat.rfind(')').unwrap() + 2..];
            // Fields from the 3rd (state) on: the niceness is the 19th.
            let nice: i32 = after.split(' ').nth(16).unwrap().parse().unwrap();
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            assert!(
                nice >= lectern::export::pdf::BROWSER_NICENESS,
                "browser process {pid}'s thread {:?} ({}) runs at nice {nice}",
                task.file_name(),
                comm.trim()
            );
            threads += 1;
        }
    }
    assert!(
        processes.len() >= 2 && threads >= 10,
        "the browser's processes were not found: {processes:?}, {threads} threads"
    );
    running.server.kill().await.unwrap();
}

/// The server's Chromium listens on no TCP port (DevTools runs over a pipe), and keeps its
/// sandbox where the kernel offers user namespaces (as `nobody` when the server is root).
/// Runs in the SQLite pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_listens_on_no_port_and_keeps_its_sandbox() {
    let Some(running) = server_with_its_browser().await else {
        return;
    };
    let (browser, cmdline) = running.browser.clone();
    // Wait until the thumbnail is drawn: the browser and its helpers are all up.
    let thumbnail = async {
        loop {
            let (_, deck) = crate::common::send_json(
                &reqwest::Client::new(),
                Method::GET,
                format!("{}/v1/decks/{}", running.base, running.deck),
                &running.key,
                None,
            )
            .await
            .unwrap();
            if !deck["data"]["thumbnail_url"]
                .as_str()
                .unwrap()
                .ends_with(".svg")
            {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(30), thumbnail).await;
    let mut family = vec![browser];
    let mut i = 0;
    while i < family.len() {
        family.extend(children(family[i]).into_iter().map(|(pid, _)| pid));
        i += 1;
    }
    let sockets: std::collections::HashSet<String> = family
        .iter()
        .flat_map(|pid| {
            std::fs::read_dir(format!("/proc/{pid}/fd"))
                .into_iter()
                .flatten()
        })
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|link| {
            let link = link.to_string_lossy().into_owned();
            Some(
                link.strip_prefix("socket:[")?
                    .strip_suffix(']')?
                    .to_string(),
            )
        })
        .collect();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // `st` 0A is LISTEN; the tenth field is the socket's inode.
            assert!(
                !(fields[3] == "0A" && sockets.contains(fields[9])),
                "the browser listens on {}: {cmdline}",
                fields[1]
            );
        }
    }
    assert!(!cmdline.contains("remote-debugging-port"), "{cmdline}");
    let namespaces = std::fs::read_to_string("/proc/sys/user/max_user_namespaces")
        .ok()
        .and_then(|n| n.trim().parse::<u64>().ok())
        .unwrap_or(0);
    if namespaces > 0 {
        assert!(!cmdline.contains("--no-sandbox"), "{cmdline}");
    }
}

/// One account's queue of exports does not hold up another's: with one worker, another
/// account's export queued behind six PDFs of the first is taken as soon as the worker is
/// free (one job in flight per account, then the account served longest ago).
#[tokio::test]
async fn another_accounts_export_does_not_wait_behind_one_accounts_queue() {
    if crate::common::chromium(module_path!()).is_none() {
        return;
    }
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let busy = app.new_deck(&alice.key, "Many").await;
    let small = app.new_deck(&bob.key, "One").await;
    let queue = |user: &crate::common::TestUser, deck: i64, format: &str| {
        let body = json!({ "format": format });
        let key = user.key.clone();
        let app = &app;
        async move {
            let r = app
                .call(
                    Method::POST,
                    &format!("/v1/decks/{deck}/exports"),
                    Some(&key),
                    Some(body),
                )
                .await;
            r.expect(202);
            r.data()["id"].as_i64().unwrap()
        }
    };
    let mut alices = Vec::new();
    for _ in 0..6 {
        alices.push(queue(&alice, busy, "pdf").await);
    }
    let bobs = queue(&bob, small, "zip").await;
    let status = |user: &crate::common::TestUser, deck: i64, id: i64| {
        let key = user.key.clone();
        let app = &app;
        async move {
            let r = app
                .call(
                    Method::GET,
                    &format!("/v1/decks/{deck}/exports/{id}"),
                    Some(&key),
                    None,
                )
                .await;
            r.data()["status"].as_str().unwrap().to_string()
        }
    };
    let mut done_before_bob = None;
    for _ in 0..1200 {
        if status(&bob, small, bobs).await != "pending" {
            let mut done = 0;
            for &id in &alices {
                if status(&alice, busy, id).await != "pending" {
                    done += 1;
                }
            }
            done_before_bob = Some(done);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let done = done_before_bob.expect("bob's export finished");
    assert_eq!(status(&bob, small, bobs).await, "completed");
    assert!(done <= 2, "bob's export waited for {done} of alice's six");
}
