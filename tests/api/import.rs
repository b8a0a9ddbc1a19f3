//! `lectern admin import-deck` against a running server's database: reveal.js HTML and
//! Markdown documents become decks with vertical groups and notes.

use tokio::process::Command;

use crate::common::TestApp;

const BIN: &str = env!("CARGO_BIN_EXE_lectern");

async fn import(app: &TestApp, username: &str, file: &str) -> (bool, String, String) {
    let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(BIN)
        .args([
            "admin",
            "import-deck",
            "--username",
            username,
            "--database-url",
            &app.database_url,
            &path,
        ])
        .output()
        .await
        .expect("the admin command runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[tokio::test]
async fn a_multi_level_reveal_document_imports_with_groups_and_notes() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    let (ok, id, err) = import(&app, "alice", "launch.html").await;

    assert!(ok, "{err}");
    let id: i64 = id.parse().expect("import-deck prints the deck id alone");
    let deck = app.get_deck(&alice.key, id, "").await;
    deck.expect(200);
    assert_eq!(deck.data()["title"], "Launch Plan 2027");
    assert_eq!(deck.data()["slide_count"], 7);
    let shape = app.shape(&alice.key, id).await;
    assert_eq!(shape.iter().map(Vec::len).collect::<Vec<_>>(), [1, 3, 1, 2]);
    let slides = app.list_slides(&alice.key, id, "").await;
    let titles: Vec<&str> = slides
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Launch Plan",
            "Goals",
            "Risks",
            "Mitigations",
            "Timeline",
            "Team A",
            "Team B"
        ]
    );
    let first = app.get_slide(&alice.key, id, &shape[0][0]).await;
    assert_eq!(
        first.data()["notes"],
        "Welcome everyone, introduce the team."
    );
    let first_html = first.data()["html"].as_str().unwrap();
    assert!(
        first_html.contains("data-background-color=\"#1e2a3a\""),
        "{first_html}"
    );
    assert!(
        !first_html.contains("aside"),
        "notes are not left in the html"
    );
    let risks = app.get_slide(&alice.key, id, &shape[1][1]).await;
    assert_eq!(risks.data()["notes"], "Be honest about hiring.");
    assert_eq!(
        risks.data()["position"],
        serde_json::json!({"horizontal": 1, "vertical": 1})
    );
    let html = app
        .get_deck(&alice.key, id, "?include_deck_html=true")
        .await;
    assert!(
        html.data()["deck_html"]
            .as_str()
            .unwrap()
            .contains("data-transition=\"zoom\"")
    );
}

#[tokio::test]
async fn a_markdown_document_imports_with_separators_and_notes() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    let (ok, id, err) = import(&app, "alice", "talk.md").await;

    assert!(ok, "{err}");
    let id: i64 = id.parse().unwrap();
    let deck = app.get_deck(&alice.key, id, "").await;
    assert_eq!(deck.data()["title"], "Rust at Work");
    let shape = app.shape(&alice.key, id).await;
    assert_eq!(shape.iter().map(Vec::len).collect::<Vec<_>>(), [1, 3, 1]);
    let first = app.get_slide(&alice.key, id, &shape[0][0]).await;
    assert_eq!(first.data()["notes"], "Thank the organisers.");
    assert!(
        first.data()["html"]
            .as_str()
            .unwrap()
            .contains("<h1>Rust at Work</h1>")
    );
    let safety = app.get_slide(&alice.key, id, &shape[1][1]).await;
    assert_eq!(safety.data()["notes"], "mention the borrow checker.");
    assert!(!safety.data()["html"].as_str().unwrap().contains("borrow"));
}

#[tokio::test]
async fn bad_input_is_reported_with_its_place_and_creates_nothing() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let dir = tempfile::tempdir().unwrap();
    let bad_html = dir.path().join("bad.html");
    std::fs::write(
        &bad_html,
        "<div class=\"slides\"><section>ok</section><section onclick=\"x()\">bad</section></div>",
    )
    .unwrap();
    let bad_md = dir.path().join("bad.md");
    std::fs::write(&bad_md, "# One\n---\n## Two\n\n<section>nested</section>\n").unwrap();

    for (file, needle) in [(&bad_html, "slide 2"), (&bad_md, "line 3")] {
        let out = Command::new(BIN)
            .args([
                "admin",
                "import-deck",
                "--username",
                "alice",
                "--database-url",
                &app.database_url,
            ])
            .arg(file)
            .output()
            .await
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(err.contains(needle), "{err}");
    }
    let (ok, _, err) = import(&app, "nobody", "talk.md").await;
    assert!(!ok && err.contains("nobody"), "{err}");
    assert_eq!(
        app.list_decks(&alice.key, "").await.json["meta"]["total"],
        0
    );
}

pub(crate) fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in files {
        w.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// Imports `file` through the home page's form as `browser`; the answer's status, location
/// and page.
pub(crate) async fn import_in_browser(
    app: &TestApp,
    browser: &reqwest::Client,
    name: &str,
    file: Vec<u8>,
) -> (u16, String, String) {
    let home = browser
        .get(format!("{}/", app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let form = reqwest::multipart::Form::new()
        .text("csrf_token", crate::common::csrf_of(&home))
        .part(
            "file",
            reqwest::multipart::Part::bytes(file).file_name(name.to_string()),
        );
    let r = browser
        .post(format!("{}/web/decks/import", app.base))
        .multipart(form)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let location = r
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, location, r.text().await.unwrap())
}

/// Slide HTML without the ids a deck gives its slides.
fn without_ids(html: &str) -> String {
    let re = html.split(" data-id=\"").collect::<Vec<_>>();
    let mut out = re[0].to_string();
    for part in &re[1..] {
        out.push_str(part.split_once('"').map_or("", |(_, rest)| rest));
    }
    out
}

const FOLDER_INDEX: &str = r#"<!doctype html><html><head><title>Folder talk</title>
<link rel="stylesheet" href="dist/reveal.css"><link rel="stylesheet" href="dist/theme/night.css">
<style>@import url(https://fonts.example/a.css);
.reveal h2 { color: #ff0088; }
.reveal .banner { background-image: url(./img/red.png); height: 40px; }</style></head>
<body><div class="reveal"><div class="slides">
<section><h1>Folder talk</h1><img src="img/red.png" alt="logo"></section>
<section data-background-image="img/red.png"><section><h2>Down one</h2><div class="banner"></div></section>
<section><h2>Down two</h2><aside class="notes">Say it twice.</aside></section></section>
</div></div><script src="dist/reveal.js"></script><script src="plugin/zoom/zoom.js"></script>
<script>Reveal.initialize({ transition: 'fade', width: 1280, height: 720 });</script></body></html>"#;

#[tokio::test]
async fn a_zip_of_a_reveal_folder_imports_with_its_images_theme_and_style_and_exports_back() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let png = std::fs::read(format!(
        "{}/tests/fixtures/red.png",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let folder = zip_of(&[
        ("talk/index.html", FOLDER_INDEX.as_bytes()),
        ("talk/img/red.png", &png),
        ("talk/dist/reveal.js", b"/* reveal */"),
    ]);
    let browser = app.browser(Some(&alice)).await;

    let (status, _, page) = import_in_browser(&app, &browser, "talk.zip", folder).await;

    // Something was left out, so the page says what before the editor opens.
    assert_eq!(status, 200, "{page}");
    for what in ["@import", "zoom.js"] {
        assert!(page.contains(what), "{what} not reported: {page}");
    }
    assert!(page.contains("/edit\""), "a way on to the editor: {page}");
    let deck = app.list_decks(&alice.key, "").await;
    let id = deck.data()[0]["id"].as_i64().unwrap();
    let deck = app.get_deck(&alice.key, id, "").await;
    let d = deck.data();
    assert_eq!(d["title"], "Folder talk");
    assert_eq!(
        (d["theme_color"].as_str(), d["theme_font"].as_str()),
        (Some("black-orange"), Some("montserrat"))
    );
    assert_eq!(
        (
            d["width"].as_i64(),
            d["height"].as_i64(),
            d["transition"].as_str()
        ),
        (Some(1280), Some(720), Some("fade"))
    );
    let media = app
        .call(reqwest::Method::GET, "/v1/media", Some(&alice.key), None)
        .await;
    let media_url = media.data()[0]["url"].as_str().unwrap().to_string();
    let css = d["css"].as_str().unwrap();
    assert!(
        css.contains("--lectern-bg: #111") && css.contains(".reveal h2 { color: #ff0088; }"),
        "{css}"
    );
    assert!(
        css.contains(&format!("url(\"{media_url}\")"))
            || css.contains(&format!("url({media_url})")),
        "{css}"
    );
    assert!(!css.contains("@import"), "{css}");
    let shape = app.shape(&alice.key, id).await;
    assert_eq!(shape.iter().map(Vec::len).collect::<Vec<_>>(), [1, 2]);
    let first = app.get_slide(&alice.key, id, &shape[0][0]).await;
    assert!(
        first.data()["html"]
            .as_str()
            .unwrap()
            .contains(&format!("src=\"{media_url}\""))
    );
    let down = app.get_slide(&alice.key, id, &shape[1][1]).await;
    let down_html = down.data()["html"].as_str().unwrap();
    assert!(
        down_html.contains(&format!("data-background-image=\"{media_url}\"")),
        "{down_html}"
    );
    assert_eq!(down.data()["notes"], "Say it twice.");

    // Its ZIP export imports back as the same deck: slides, groups, notes, settings, CSS.
    let bytes = app
        .exported_file(&alice, id, serde_json::json!({"format": "zip"}))
        .await;

    let (status, location, page) = import_in_browser(&app, &browser, "export.zip", bytes).await;

    assert_eq!(
        status, 303,
        "nothing is left out of a Lectern export: {page}"
    );
    assert!(location.ends_with("/edit"));
    let again = app.list_decks(&alice.key, "").await;
    let copy = again.data()[0]["id"].as_i64().unwrap();
    assert_ne!(copy, id);
    let c = app.get_deck(&alice.key, copy, "").await;
    for field in [
        "title",
        "theme_color",
        "theme_font",
        "width",
        "height",
        "margin",
        "transition",
        "background_transition",
        "css",
        "slide_count",
    ] {
        assert_eq!(c.data()[field], d[field], "{field}");
    }
    assert_eq!(
        app.shape(&alice.key, copy)
            .await
            .iter()
            .map(Vec::len)
            .collect::<Vec<_>>(),
        [1, 2]
    );
    let slides = |deck: i64| {
        let app = &app;
        let key = alice.key.clone();
        async move {
            let list = app.list_slides(&key, deck, "").await;
            let mut out = Vec::new();
            for s in list.data().as_array().unwrap() {
                let one = app.get_slide(&key, deck, s["id"].as_str().unwrap()).await;
                out.push((
                    without_ids(one.data()["html"].as_str().unwrap()),
                    one.data()["notes"].clone(),
                ));
            }
            out
        }
    };
    assert_eq!(slides(copy).await, slides(id).await);
    let media = app
        .call(reqwest::Method::GET, "/v1/media", Some(&alice.key), None)
        .await;
    assert_eq!(
        media.data().as_array().unwrap().len(),
        1,
        "the same image is stored once"
    );
}
