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
