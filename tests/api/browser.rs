//! Deck pages in a real browser: headless Chromium (Debian's `chromium`, which CI installs)
//! loads the page, runs reveal.js and Lectern's scripts, and we read the DOM it ends with.
//! Without Chromium on the machine these tests say so and pass nothing off as checked.

use std::path::PathBuf;

use serde_json::json;
use tokio::process::Command;

use crate::common::TestApp;

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
            // Real time, not virtual: a deck page keeps a stream open (it follows the
            // presenter), and virtual time waits for the network to go quiet.
            "--timeout=5000",
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
    let Some(bin) = crate::common::chromium(module_path!()) else {
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

/// Evaluates `js` in the page until it returns a string containing `want` (polling the page's
/// state, which reveal.js changes asynchronously); returns the last value seen.
async fn wait_for_text(page: &chromiumoxide::Page, js: &str, want: &str) -> String {
    let mut last = String::new();
    for _ in 0..100 {
        if let Ok(result) = page.evaluate(js).await
            && let Ok(text) = result.into_value::<String>()
        {
            if text.contains(want) {
                return text;
            }
            last = text;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    last
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arrow_keys_move_through_horizontal_and_vertical_slides_in_chromium() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app
        .import_markdown(
            &alice,
            "# One\n---\n## Two\n--\n## Two below\n---\n## Three\n",
        )
        .await;
    let r = app
        .update_deck(
            &alice.key,
            deck,
            json!({"visibility": "all", "theme_font": "sketch"}),
        )
        .await;
    let url = format!("{}/fullscreen", r.data()["url"].as_str().unwrap());
    let chromium = crate::common::Headless::launch(bin, 1280, 720).await;
    let page = chromium.browser.new_page(url.as_str()).await.unwrap();
    let current = "(() => { const s = document.querySelectorAll('.reveal.main section.present'); \
                   return s.length ? s[s.length - 1].innerText : ''; })()";
    let first = wait_for_text(&page, current, "One").await;
    page.find_element("body")
        .await
        .unwrap()
        .press_key("ArrowRight")
        .await
        .unwrap();
    let second = wait_for_text(&page, current, "Two").await;
    page.find_element("body")
        .await
        .unwrap()
        .press_key("ArrowDown")
        .await
        .unwrap();
    let below = wait_for_text(&page, current, "Two below").await;
    // Let the slide transition finish before the screenshot.
    let settled = "(() => { const s = [...document.querySelectorAll('.reveal.main section.present')].pop(); \
                   const st = getComputedStyle(s); \
                   return st.opacity === '1' && (st.transform === 'none' || st.transform === 'matrix(1, 0, 0, 1, 0, 0)') \
                   ? 'settled' : 'moving'; })()";
    wait_for_text(&page, settled, "settled").await;
    let shot = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/viewer-keys.png");
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    page.save_screenshot(
        chromiumoxide::page::ScreenshotParams::builder().build(),
        &shot,
    )
    .await
    .unwrap();
    chromium.close().await;

    assert!(first.contains("One"), "first slide: {first:?}");
    assert!(
        second.contains("Two") && !second.contains("below"),
        "after ArrowRight: {second:?}"
    );
    assert!(below.contains("Two below"), "after ArrowDown: {below:?}");
    assert!(std::fs::metadata(&shot).unwrap().len() > 1000);
}
