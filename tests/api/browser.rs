//! Deck pages in a real browser: headless Chromium (Debian's `chromium`, which CI installs)
//! loads the page, runs reveal.js and Lectern's scripts, and we read the DOM it ends with.
//! Without Chromium on the machine these tests say so and pass nothing off as checked.

use std::path::PathBuf;

use serde_json::json;
use tokio::process::Command;

use crate::common::TestApp;

fn chromium() -> Option<PathBuf> {
    [
        "/usr/lib/chromium/chromium",
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

/// Runs Chromium on `url` with `args` (e.g. `--dump-dom`) and returns its stdout.
async fn run_chromium(bin: &PathBuf, url: &str, args: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--window-size=1280,720",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url)
        .output()
        .await
        .expect("chromium runs");
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[tokio::test]
async fn a_deck_url_presents_in_chromium_and_slide_script_never_runs() {
    let Some(bin) = chromium() else {
        eprintln!("SKIPPED: no Chromium here (CI installs Debian's chromium)");
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let r = app
        .create_deck(&alice.key, json!({"visibility": "all", "theme_color": "black-blue", "slides": [
            {"html": "<section><h1>Opening words</h1><img src=\"missing.png\" onerror=\"document.body.setAttribute('data-pwned','img')\"></section>"},
            {"html": "<section><h2>Second thoughts</h2><script>document.body.setAttribute('data-pwned','script')</script></section>"}
        ]}))
        .await;
    let url = r.data()["url"].as_str().unwrap().to_string();

    let first = run_chromium(&bin, &format!("{url}/fullscreen"), &["--dump-dom"]).await;
    let second = run_chromium(&bin, &format!("{url}/fullscreen#/1"), &["--dump-dom"]).await;
    let shot = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/viewer-screenshot.png");
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    run_chromium(
        &bin,
        &format!("{url}/fullscreen"),
        &[&format!("--screenshot={}", shot.display())],
    )
    .await;

    // reveal.js ran: it marks the body as its viewport and the shown slide as present.
    assert!(
        first.contains("reveal-viewport"),
        "reveal.js did not start:\n{first}"
    );
    let present = |dom: &str, text: &str| {
        dom.split("<section")
            .any(|s| s.contains("class=\"present") && s.contains(text))
    };
    assert!(
        present(&first, "Opening words"),
        "the first slide is not shown"
    );
    assert!(
        present(&second, "Second thoughts"),
        "navigating to the next slide failed"
    );
    assert!(
        !first.contains("data-pwned") && !second.contains("data-pwned"),
        "slide script ran"
    );
    assert!(
        std::fs::metadata(&shot)
            .map(|m| m.len() > 1000)
            .unwrap_or(false),
        "no screenshot"
    );
}
