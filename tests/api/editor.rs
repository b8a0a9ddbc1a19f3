//! The deck editor at `urls.edit` (issue 18, first version) in a real headless Chromium: a
//! person signs in through the form, opens the edit URL of a deck made through the API, types
//! notes, renames the deck, adds and moves slides, and meets a concurrent API write; every
//! change is then read back through the API. Also who gets the editor at all.

use std::path::PathBuf;
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchMouseEventParams, DispatchMouseEventType, InsertTextParams, MouseButton,
};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{TestApp, TestUser};

/// Evaluates `js` until it returns a string containing `want`; the last value seen.
async fn wait_for(page: &Page, js: &str, want: &str) -> String {
    let mut last = String::new();
    for _ in 0..200 {
        if let Ok(result) = page.evaluate(js).await
            && let Ok(text) = result.into_value::<String>()
        {
            if text.contains(want) {
                return text;
            }
            last = text;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    last
}

/// Polls the API until `check` holds (the editor saves on its own schedule).
async fn eventually<F, Fut>(mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..100 {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Clicks the element `selector` names, as a person would; retried while the list redraws
/// (the node found may be replaced before the click lands).
async fn click(page: &Page, selector: &str) {
    for _ in 0..100 {
        if let Ok(element) = page.find_element(selector).await
            && element.click().await.is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{selector} cannot be clicked");
}

/// Presses `key` on the element `selector` names, retried while the list redraws.
async fn press(page: &Page, selector: &str, key: &str) {
    for _ in 0..100 {
        if let Ok(element) = page.find_element(selector).await
            && element.press_key(key).await.is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{key} cannot be pressed on {selector}");
}

/// The id of the slide selected in the list.
const CURRENT_SLIDE: &str =
    "document.querySelector('.slide-item[aria-current=true]').dataset.slideId";

/// Clicks slide `id` in the list and waits until the editor shows it.
async fn select_slide(page: &Page, id: &str) {
    click(page, &format!(".slide-item[data-slide-id='{id}']")).await;
    let current = wait_for(page, CURRENT_SLIDE, id).await;
    assert_eq!(current, id, "slide {id} was not selected");
}

/// Types `text` into the field `selector` names: after what it holds, or instead of it.
async fn type_in_field(page: &Page, selector: &str, text: &str, replace: bool) {
    let place = if replace {
        "f.select()"
    } else {
        "f.setSelectionRange(f.value.length, f.value.length)"
    };
    let selector_js = serde_json::to_string(selector).unwrap();
    page.evaluate(format!(
        "(() => {{ const f = document.querySelector({selector_js}); f.focus(); {place}; }})()"
    ))
    .await
    .unwrap();
    page.find_element(selector)
        .await
        .unwrap()
        .type_str(text)
        .await
        .unwrap();
}

const SAVE_STATE: &str = "document.getElementById('save-state').textContent";

async fn shot(page: &Page, name: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("target/{name}.png"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    page.save_screenshot(
        chromiumoxide::page::ScreenshotParams::builder().build(),
        &path,
    )
    .await
    .unwrap();
}

async fn type_into(page: &Page, selector: &str, text: &str) {
    page.find_element(selector)
        .await
        .unwrap_or_else(|e| panic!("{selector}: {e}"))
        .click()
        .await
        .unwrap()
        .type_str(text)
        .await
        .unwrap();
}

/// Signs in through the form as a person would; ends on the home page.
pub(crate) async fn sign_in(page: &Page, app: &TestApp, user: &TestUser) {
    page.goto(format!("{}/login", app.base)).await.unwrap();
    page.wait_for_navigation().await.unwrap();
    type_into(page, "input[name=username]", &user.username).await;
    type_into(page, "input[name=password]", "a long password").await;
    click(page, "button[type=submit]").await;
    let home = wait_for(page, "document.title", "Your decks").await;
    assert!(home.contains("Your decks"), "after sign-in: {home}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_edits_notes_title_and_slides_and_a_concurrent_write_is_never_lost() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let created = app
        .create_deck(
            &alice.key,
            json!({"title": "Quarterly", "slides": [
                {"html": "<section><h2>Opening</h2></section>", "notes": "Start slow."},
                {"html": "<section><h2>Numbers</h2><p>Up.</p></section>"}
            ]}),
        )
        .await;
    created.expect(201);
    let deck = created.data()["id"].as_i64().unwrap();
    let edit_url = created.data()["urls"]["edit"].as_str().unwrap().to_string();
    let first = created.data()["slide_ids"][0].as_str().unwrap().to_string();
    let second = created.data()["slide_ids"][1].as_str().unwrap().to_string();

    let chromium = crate::common::Headless::launch(bin, 1280, 800).await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    sign_in(&page, &app, &alice).await;
    shot(&page, "home-signed-in").await;

    page.goto(edit_url.as_str()).await.unwrap();
    let state = wait_for(&page, SAVE_STATE, "All changes saved").await;
    assert!(
        state.contains("All changes saved"),
        "editor did not load: {state}"
    );
    let listed = wait_for(
        &page,
        "[...document.querySelectorAll('.slide-item')].map(b => b.querySelector('.slide-label').textContent).join('|')",
        "Numbers",
    )
    .await;
    assert_eq!(listed, "1 Opening|2 Numbers");
    shot(&page, "editor-opened").await;

    // Notes: typed at the end of the first slide's notes, saved on their own.
    type_in_field(&page, "#slide-notes", " Then the numbers.", false).await;
    let saved = eventually(|| async {
        app.get_slide(&alice.key, deck, &first).await.data()["notes"]
            == "Start slow. Then the numbers."
    })
    .await;
    assert!(saved, "the notes were not saved");
    wait_for(&page, SAVE_STATE, "All changes saved").await;

    // The title.
    type_in_field(&page, "#deck-title", "Quarterly review", true).await;
    let renamed = eventually(|| async {
        app.get_deck(&alice.key, deck, "").await.data()["title"] == "Quarterly review"
    })
    .await;
    assert!(renamed, "the title was not saved");

    // Add a slide (the default layout, "Title and body") after the selected (first) one:
    // Opening, Title, Numbers. Then move Numbers up: Opening, Numbers, Title.
    click(&page, "#add-slide").await;
    let grown = eventually(|| async {
        app.list_slides(&alice.key, deck, "").await.json["meta"]["total"] == 3
    })
    .await;
    assert!(grown, "no slide was added");
    wait_for(
        &page,
        "[...document.querySelectorAll('.slide-item')].map(b => b.querySelector('.slide-label').textContent).join('|')",
        "2 Title",
    )
    .await;
    select_slide(&page, &second).await;
    click(&page, "#move-up").await;
    let moved = eventually(|| async {
        let ids = app.list_slides(&alice.key, deck, "").await;
        ids.data()[0]["id"] == first.as_str() && ids.data()[1]["id"] == second.as_str()
    })
    .await;
    let state: String = page
        .evaluate(SAVE_STATE)
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert!(moved, "the slide was not moved: {state}");
    wait_for(&page, SAVE_STATE, "All changes saved").await;

    // A vertical group: the new slide (third) below Numbers, then out again.
    let new_slide = app.list_slides(&alice.key, deck, "").await.data()[2]["id"]
        .as_str()
        .unwrap()
        .to_string();
    select_slide(&page, &new_slide).await;
    click(&page, "#group-below").await;
    let grouped = eventually(|| async {
        let s = app.list_slides(&alice.key, deck, "").await;
        s.data()[1]["position"] == json!({"horizontal": 1, "vertical": 0})
            && s.data()[2]["position"] == json!({"horizontal": 1, "vertical": 1})
    })
    .await;
    assert!(grouped, "no vertical group was made");
    let listed = wait_for(
        &page,
        "[...document.querySelectorAll('.slide-list > li')].map(l => l.className + ':' + l.querySelector('.slide-label').textContent).join('|')",
        "below:2.2",
    )
    .await;
    assert!(listed.contains("below:2.2 Title"), "{listed}");
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    click(&page, "#group-out").await;
    let out = eventually(|| async {
        let s = app.list_slides(&alice.key, deck, "").await;
        s.data()
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["position"]["vertical"].is_null())
            && s.data()[2]["id"] == new_slide.as_str()
    })
    .await;
    assert!(out, "the slide did not leave the group");
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    // Undo brings the group back (a restore revision), redo takes the slide out again.
    let vertical_of_new = || async {
        let s = app.list_slides(&alice.key, deck, "").await;
        s.data()[2]["position"]["vertical"].clone()
    };
    click(&page, "#undo").await;
    let undone = eventually(|| async { vertical_of_new().await == json!(1) }).await;
    assert!(undone, "undo did not bring the group back");
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    // Ctrl+Shift+Z outside the text fields is redo.
    page.evaluate("document.activeElement.blur()")
        .await
        .unwrap();
    ctrl_key(&page, "z", true).await;
    let redone = eventually(|| async { vertical_of_new().await.is_null() }).await;
    assert!(redone, "redo did not take the slide out again");
    let history = app
        .call(
            reqwest::Method::GET,
            &format!("/v1/decks/{deck}/revisions"),
            Some(&alice.key),
            None,
        )
        .await;
    assert_eq!(history.data()[0]["operation"], "restore");
    assert_eq!(history.data()[0]["author"]["via"], "web");
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    select_slide(&page, &second).await;

    // Dragging with the mouse in the slide list: the new slide dropped on the right part of
    // Opening goes below it (a vertical group); then dropped on the upper half of Opening,
    // before it.
    drag_slide(&page, &new_slide, &first, 0.9, 0.5).await;
    let below = eventually(|| async {
        let s = app.list_slides(&alice.key, deck, "").await;
        s.data()[0]["id"] == first.as_str()
            && s.data()[1]["id"] == new_slide.as_str()
            && s.data()[1]["position"] == json!({"horizontal": 0, "vertical": 1})
    })
    .await;
    assert!(below, "the dropped slide is not below Opening");
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    // Before a slide of a group is inside that group, as with move_slides.
    drag_slide(&page, &new_slide, &first, 0.2, 0.2).await;
    let before = eventually(|| async {
        let s = app.list_slides(&alice.key, deck, "").await;
        s.data()[0]["id"] == new_slide.as_str()
            && s.data()[0]["position"] == json!({"horizontal": 0, "vertical": 0})
            && s.data()[1]["id"] == first.as_str()
    })
    .await;
    assert!(before, "the dropped slide is not before Opening");
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    // Back where it was (third), for what follows.
    drag_slide(&page, &new_slide, &second, 0.2, 0.8).await;
    let back = eventually(|| async {
        app.list_slides(&alice.key, deck, "").await.data()[2]["id"] == new_slide.as_str()
    })
    .await;
    assert!(back, "the dropped slide is not after Numbers");
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    select_slide(&page, &second).await;

    // Deck settings, in their dialog: colours and fonts changed one right after the other
    // (each an update_deck with the revision the one before answered: no conflict with
    // itself).
    click(&page, "[data-opens=settings]").await;
    wait_for(
        &page,
        "String(document.getElementById('settings').open)",
        "true",
    )
    .await;
    // The colours picked from the presets drawn small, the font right after in its menu.
    click(&page, ".theme-swatch[data-theme=black-mint]").await;
    page.evaluate(
        "(() => { const s = document.querySelector('[data-setting=theme_font]'); s.value = 'palatino'; \
         s.dispatchEvent(new Event('change')); })()",
    )
    .await
    .unwrap();
    let set = eventually(|| async {
        let d = app.get_deck(&alice.key, deck, "").await;
        d.data()["theme_color"] == "black-mint" && d.data()["theme_font"] == "palatino"
    })
    .await;
    let state = wait_for(&page, SAVE_STATE, "All changes saved").await;
    assert!(set, "the settings were not saved: {state}");
    assert_eq!(state, "All changes saved");
    wait_for(
        &page,
        "document.querySelector('.theme-swatch[aria-pressed=true]').dataset.theme",
        "black-mint",
    )
    .await;
    shot(&page, "editor-settings-dialog").await;
    click(&page, "#settings form[method=dialog] button").await;
    wait_for(
        &page,
        "String(document.getElementById('settings').open)",
        "false",
    )
    .await;
    // The canvas and the thumbnails wear the new theme at once: black background.
    let canvas_bg = wait_for(
        &page,
        "getComputedStyle(document.querySelector('.canvas-frame')).backgroundColor + ' ' + getComputedStyle(document.querySelector('.thumb-frame')).backgroundColor",
        "rgb(17, 17, 17) rgb(17, 17, 17)",
    )
    .await;
    assert_eq!(canvas_bg, "rgb(17, 17, 17) rgb(17, 17, 17)");

    // An image dropped from the desktop on the slide: uploaded to the media library and
    // placed in the selected slide (Numbers); then one by URL.
    use base64::Engine as _;
    let png = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/red.png"
    ))
    .unwrap();
    let png = base64::engine::general_purpose::STANDARD.encode(png);
    page.evaluate(format!(
        "(() => {{ const bytes = Uint8Array.from(atob('{png}'), c => c.charCodeAt(0)); \
         const file = new File([bytes], 'red dot.png', {{ type: 'image/png' }}); \
         const data = new DataTransfer(); data.items.add(file); \
         const stage = document.querySelector('.stage'); \
         stage.dispatchEvent(new DragEvent('dragover', {{ dataTransfer: data, bubbles: true, cancelable: true }})); \
         stage.dispatchEvent(new DragEvent('drop', {{ dataTransfer: data, bubbles: true, cancelable: true }})); }})()"
    ))
    .await
    .unwrap();
    let placed = eventually(|| async {
        let media = app
            .call(reqwest::Method::GET, "/v1/media", Some(&alice.key), None)
            .await;
        let Some(url) = media.data()[0]["url"].as_str().map(str::to_string) else {
            return false;
        };
        let html = app.get_slide(&alice.key, deck, &second).await.data()["html"].clone();
        html.as_str()
            .unwrap_or("")
            .contains(&format!("src=\"{url}\""))
    })
    .await;
    let media = app
        .call(reqwest::Method::GET, "/v1/media", Some(&alice.key), None)
        .await;
    let media_url = media.data()[0]["url"].as_str().unwrap_or("").to_string();
    let state: String = page
        .evaluate(SAVE_STATE)
        .await
        .unwrap()
        .into_value()
        .unwrap();
    let html = app.get_slide(&alice.key, deck, &second).await.text;
    assert!(
        placed,
        "the dropped image is not in the slide: {state}; {html}; {}",
        media.text
    );
    assert!(media_url.ends_with(".png"), "{media_url}");
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    click(&page, "#tab-image").await;
    type_into(&page, "#image-url", "https://images.example.org/chart.svg").await;
    click(&page, "#insert-url").await;
    let by_url = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &second).await.data()["html"].clone();
        html.as_str()
            .unwrap_or("")
            .contains("src=\"https://images.example.org/chart.svg\"")
    })
    .await;
    assert!(by_url, "the image by URL is not in the slide");
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    shot(&page, "editor-images").await;

    // Share: a private link made in the Share dialog, as the API would make it.
    click(&page, "[data-opens=share]").await;
    type_into(&page, "#share-name", "For the board").await;
    click(&page, "#share-create").await;
    let shared = eventually(|| async {
        let links = app
            .call(
                reqwest::Method::GET,
                &format!("/v1/decks/{deck}/share"),
                Some(&alice.key),
                None,
            )
            .await;
        links.data()[0]["name"] == "For the board"
    })
    .await;
    let state: String = page
        .evaluate(SAVE_STATE)
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert!(shared, "no share link was created: {state}");
    let listed = wait_for(
        &page,
        "document.getElementById('share-list').textContent",
        "For the board",
    )
    .await;
    assert!(listed.contains("0 views"), "{listed}");
    // The link's whole address shows, with a Copy button; signed out, it shows the deck.
    let url: String = page
        .evaluate("document.querySelector('#share-list .share-url').textContent")
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert!(url.starts_with(&app.base), "{url}");
    click(&page, "#share-list button.secondary").await;
    let copied = wait_for(
        &page,
        "(t => t === 'Copy' ? t : 'done:' + t)(document.querySelector('#share-list button.secondary').textContent)",
        "done:",
    )
    .await;
    assert!(
        copied == "done:Copied" || copied == "done:Press Ctrl+C",
        "{copied}"
    );
    shot(&page, "editor-share-dialog").await;
    let shown = reqwest::get(&url).await.unwrap();
    assert_eq!(shown.status(), StatusCode::OK);
    assert!(shown.text().await.unwrap().contains("Numbers"));
    press(&page, "#share", "Escape").await;
    wait_for(
        &page,
        "String(document.getElementById('share').open)",
        "false",
    )
    .await;

    // Keyboard: the arrow keys walk the slide list.
    click(&page, &format!(".slide-item[data-slide-id='{second}']")).await;
    wait_for(
        &page,
        "document.activeElement.dataset.slideId || ''",
        &second,
    )
    .await;
    press(
        &page,
        &format!(".slide-item[data-slide-id='{second}']"),
        "ArrowDown",
    )
    .await;
    let below = wait_for(
        &page,
        "document.activeElement.dataset.slideId + ' ' + document.querySelector('.slide-item[aria-current=true] .slide-label').textContent",
        "3 Title",
    )
    .await;
    assert!(below.contains("3 Title"), "{below}");
    select_slide(&page, &second).await;

    // A concurrent write through the API while the person has unsaved text: the editor's
    // save meets 412, the person's text stays on screen, and the API's change is kept.
    click(&page, "#tab-notes").await;
    type_in_field(&page, "#slide-notes", "Typed by the person", false).await;
    app.update_slide(
        &alice.key,
        deck,
        &second,
        json!({"notes": "Written by a program"}),
    )
    .await
    .expect(200);
    let state = wait_for(&page, SAVE_STATE, "Conflict").await;
    assert!(state.contains("Conflict"), "no conflict shown: {state}");
    let kept: String = page
        .evaluate("document.getElementById('slide-notes').value")
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert!(kept.contains("Typed by the person"), "{kept}");
    assert_eq!(
        app.get_slide(&alice.key, deck, &second).await.data()["notes"],
        "Written by a program"
    );
    shot(&page, "editor-conflict").await;

    chromium.close().await;
}

#[tokio::test]
async fn only_the_owner_gets_the_editor_and_strangers_learn_nothing() {
    let app = TestApp::spawn().await;
    let ann = app.team_user("ann", "crew").await;
    let ben = app.team_user("ben", "crew").await;
    let eve = app.user("eve").await;
    let r = app
        .create_deck(
            &ann.key,
            json!({"title": "Team plan", "visibility": "team"}),
        )
        .await;
    let edit = r.data()["urls"]["edit"].as_str().unwrap().to_string();
    let view = r.data()["url"].as_str().unwrap().to_string();
    // Signed out: sign in first, for a real deck and a made-up one alike.
    let b = app.browser(None).await;
    for url in [edit.clone(), format!("{}/ann/no-such-deck/edit", app.base)] {
        let r = b.get(&url).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::SEE_OTHER);
        let to = r.headers()["location"].to_str().unwrap().to_string();
        assert!(to.starts_with("/login?next=%2Fann%2F"), "{to}");
    }

    // The owner: the editor page, under a script policy that allows only Lectern's own.
    let owner = app.browser(Some(&ann)).await;
    let r = owner.get(&edit).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("script-src 'self';") && !csp.contains("unsafe-eval"),
        "{csp}"
    );
    let html = r.text().await.unwrap();
    assert!(html.contains("/assets/editor.js") && !html.contains("lk_"));
    let js = reqwest::get(format!("{}/assets/editor.js", app.base))
        .await
        .unwrap();
    assert_eq!(js.status(), 200);
    assert_eq!(
        js.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    // One bundle: the canvas module is inside it, nothing is imported at run time.
    let js = js.text().await.unwrap();
    assert!(
        js.contains("canvas-board") && !js.contains("import "),
        "not bundled"
    );
    // A team member: the viewer.
    let member = app.browser(Some(&ben)).await;
    let r = member.get(&edit).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        r.headers()["location"].to_str().unwrap(),
        view.trim_start_matches(&app.base)
    );
    // Anyone else: as for an unknown deck.
    let stranger = app.browser(Some(&eve)).await;
    let unknown = stranger
        .get(format!("{}/ann/no-such-deck/edit", app.base))
        .send()
        .await
        .unwrap();
    let r = stranger.get(&edit).send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(unknown.status(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_wears_the_sites_stylesheet_in_chromium() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.team_user("alice", "crew").await;
    let deck = app
        .create_deck(&alice.key, json!({"title": "Shown", "visibility": "all"}))
        .await;
    let private = app.new_deck(&alice.key, "Kept").await;
    let share = app
        .call(
            reqwest::Method::POST,
            &format!("/v1/decks/{private}/share"),
            Some(&alice.key),
            Some(json!({"name": "Board", "password": "open sesame"})),
        )
        .await;
    share.expect(201);
    let share_url = share.data()["url"].as_str().unwrap().to_string();
    let chromium = crate::common::Headless::launch(bin, 1280, 800).await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();

    // Signed out first: the home page and the sign-in form, then the person's pages.
    let signed_out = [
        ("home-signed-out", format!("{}/", app.base)),
        ("login", format!("{}/login", app.base)),
    ];
    for (name, url) in &signed_out {
        page.goto(url.as_str()).await.unwrap();
        styled(&page, name).await;
    }
    sign_in(&page, &app, &alice).await;
    let edit = deck.data()["urls"]["edit"].as_str().unwrap().to_string();
    let pages = [
        ("home", format!("{}/", app.base)),
        ("home-trash", format!("{}/?tab=trash", app.base)),
        ("home-team", format!("{}/?tab=team", app.base)),
        ("api-keys", format!("{}/users/api", app.base)),
        ("api-reference", format!("{}/v1/docs", app.base)),
        ("profile", format!("{}/alice", app.base)),
        ("team", format!("{}/teams/crew", app.base)),
        ("not-found", format!("{}/alice/no-such-deck", app.base)),
        ("share-password", share_url),
        ("editor", edit),
    ];
    for (name, url) in &pages {
        page.goto(url.as_str()).await.unwrap();
        styled(&page, name).await;
    }
    chromium.close().await;
}

/// Asserts the page loaded `site.css` under its Content-Security-Policy (the header is laid
/// out by it), and saves a screenshot as `target/page-<name>.png`.
async fn styled(page: &Page, name: &str) {
    let js = "(() => { const h = document.querySelector('.site-header'); \
              return h && document.readyState === 'complete' ? getComputedStyle(h).display : 'missing'; })()";
    let display = wait_for(page, js, "flex").await;
    assert_eq!(
        display, "flex",
        "{name}: the site's stylesheet did not apply"
    );
    // The editor is pictured once it has loaded the deck.
    wait_for(
        page,
        "(document.getElementById('save-state') || { textContent: 'All changes saved' }).textContent",
        "All changes saved",
    )
    .await;
    shot(page, &format!("page-{name}")).await;
}

/// The part of `html` from block `id`'s opening tag to the next block (or the section's end).
fn block_markup<'a>(html: &'a str, id: &str) -> &'a str {
    let marker = format!("data-block-id=\"{id}\"");
    let at = html
        .find(&marker)
        .unwrap_or_else(|| panic!("block {id} in {html}"));
    let start = html[..at].rfind("<div").unwrap();
    let end = html[at..]
        .find("<div class=\"sl-block\"")
        .map_or(html.len(), |e| at + e);
    &html[start..end]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_markup_slide_changes_one_block_and_leaves_the_others_as_they_were() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    // Slides.com block markup, as its public API clients write it.
    let slide = "<section><div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"t1\" style=\"left:80px;top:60px;width:600px;height:120px;z-index:1\">\
        <div class=\"sl-block-content\" style=\"font-size:48px;color:#222\"><h2>Old heading</h2></div></div>\
        <div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"t2\" style=\"left:80px;top:220px;width:800px;height:200px;z-index:2\">\
        <div class=\"sl-block-content\" data-placeholder-tag=\"p\"><p>Keep <strong>me</strong> exactly.</p></div></div>\
        <div class=\"sl-block\" data-block-type=\"image\" data-block-id=\"i1\" style=\"left:900px;top:60px;width:300px;height:200px\">\
        <div class=\"sl-block-content\"><img src=\"https://images.example.org/logo.png\" alt=\"Logo\"></div></div></section>";
    let r = app
        .create_deck(&alice.key, json!({"title": "Blocks", "slides": [{"html": slide}, {"html": "<section><h1>Free <em>HTML</em></h1></section>"}]}))
        .await;
    r.expect(201);
    let deck = r.data()["id"].as_i64().unwrap();
    let edit = r.data()["urls"]["edit"].as_str().unwrap().to_string();
    let first = r.data()["slide_ids"][0].as_str().unwrap().to_string();
    let other = r.data()["slide_ids"][1].as_str().unwrap().to_string();
    let before = app.get_slide(&alice.key, deck, &first).await.data()["html"]
        .as_str()
        .unwrap()
        .to_string();
    let free_before = app.get_slide(&alice.key, deck, &other).await.data()["html"].clone();

    let chromium = crate::common::Headless::launch(bin, 1280, 900).await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    sign_in(&page, &app, &alice).await;
    page.goto(edit.as_str()).await.unwrap();
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    let heads = wait_for(
        &page,
        "[...document.querySelectorAll('.block-heading')].map(h => h.textContent).join('|')",
        "image i1",
    )
    .await;
    assert_eq!(heads, "text t1|text t2|image i1");
    click(&page, "#tab-blocks").await;
    shot(&page, "editor-blocks").await;

    // The person rewrites the first block's heading and moves it 40 px to the right.
    type_in_field(
        &page,
        ".block-content[data-block='0']",
        "<h2>New heading</h2>",
        true,
    )
    .await;
    type_in_field(
        &page,
        "input[data-block='0'][data-side='left']",
        "120",
        true,
    )
    .await;
    let saved = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &first).await.data()["html"].clone();
        let html = html.as_str().unwrap_or("");
        html.contains("New heading") && block_markup(html, "t1").contains("left: 120px")
    })
    .await;
    let after = app.get_slide(&alice.key, deck, &first).await.data()["html"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(saved, "the block edit was not saved: {after}");
    // The first block keeps its other styles; the other blocks are exactly as they were.
    let t1 = block_markup(&after, "t1");
    for kept in [
        "top: 60px",
        "width: 600px",
        "z-index: 1",
        "font-size:48px;color:#222",
    ] {
        assert!(t1.contains(kept), "{kept} lost: {t1}");
    }
    assert!(!after.contains("Old heading"));
    assert_eq!(block_markup(&after, "t2"), block_markup(&before, "t2"));
    assert_eq!(block_markup(&after, "i1"), block_markup(&before, "i1"));
    // The free-HTML slide is one block on the canvas: a double-click opens its HTML.
    select_slide(&page, &other).await;
    let free = numbers(
        &page,
        "(() => { document.getElementById('canvas').scrollIntoView(); const r = document.querySelector('.canvas-free').getBoundingClientRect(); return [r.x + r.width / 2, r.y + 40]; })()",
    )
    .await;
    for clicks in [1, 2] {
        mouse(
            &page,
            DispatchMouseEventType::MousePressed,
            free[0],
            free[1],
            clicks,
        )
        .await;
        mouse(
            &page,
            DispatchMouseEventType::MouseReleased,
            free[0],
            free[1],
            clicks,
        )
        .await;
    }
    assert_eq!(
        wait_for(&page, "document.activeElement.id", "slide-html").await,
        "slide-html"
    );
    // The free-HTML slide nobody changed is byte for byte as it was.
    assert_eq!(
        app.get_slide(&alice.key, deck, &other).await.data()["html"],
        free_before
    );
    chromium.close().await;
}

/// A deck made through the API with one slide on a 960 × 700 canvas, and its editor open
/// in Chromium, signed in and loaded ([`open_canvas`]).
struct CanvasEditor {
    chromium: crate::common::Headless,
    page: Page,
    deck: i64,
    first: String,
}

/// How many blocks the canvas shows.
const BLOCKS_ON_CANVAS: &str =
    "String(document.querySelectorAll('.canvas-board > .sl-block').length)";

/// The ids of the blocks selected on the canvas, joined by commas.
const SELECTED_BLOCKS: &str =
    "[...document.querySelectorAll('.canvas-selected')].map(v => v.dataset.blockId).join(',')";

/// Where a point of the slide canvas (960 px wide, in the canvas tests) is on the screen
/// now.
async fn on_board(page: &Page) -> impl Fn(f64, f64) -> (f64, f64) {
    let board = numbers(
        page,
        "(() => { const r = document.querySelector('.canvas-board').getBoundingClientRect(); return [r.x, r.y, r.width / 960]; })()",
    )
    .await;
    let (bx, by, scale) = (board[0], board[1], board[2]);
    move |x, y| (bx + x * scale, by + y * scale)
}

/// Makes a deck of one `slide` for `user` and opens its editor; waits until the canvas
/// shows its `blocks` blocks.
async fn open_canvas(
    app: &TestApp,
    user: &TestUser,
    bin: PathBuf,
    title: &str,
    slide: &str,
    blocks: usize,
) -> CanvasEditor {
    let r = app
        .create_deck(
            &user.key,
            json!({"title": title, "width": 960, "height": 700, "slides": [{"html": slide}]}),
        )
        .await;
    r.expect(201);
    let deck = r.data()["id"].as_i64().unwrap();
    let edit = r.data()["urls"]["edit"].as_str().unwrap().to_string();
    let first = r.data()["slide_ids"][0].as_str().unwrap().to_string();
    let chromium = crate::common::Headless::launch(bin, 1280, 900).await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    sign_in(&page, app, user).await;
    page.goto(edit.as_str()).await.unwrap();
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    let shown = wait_for(&page, BLOCKS_ON_CANVAS, &blocks.to_string()).await;
    assert_eq!(shown, blocks.to_string());
    CanvasEditor {
        chromium,
        page,
        deck,
        first,
    }
}

/// Drags slide `moved` in the list with the mouse onto the point of slide `target`'s button
/// at fractions (`fx`, `fy`) of its width and height, and lets go.
async fn drag_slide(page: &Page, moved: &str, target: &str, fx: f64, fy: f64) {
    let points = numbers(
        page,
        &format!(
            "(() => {{ const a = document.querySelector(\".slide-item[data-slide-id='{moved}']\").getBoundingClientRect(); \
             const b = document.querySelector(\".slide-item[data-slide-id='{target}']\").getBoundingClientRect(); \
             return [a.x + a.width / 2, a.y + a.height / 2, b.x + b.width * {fx}, b.y + b.height * {fy}]; }})()"
        ),
    )
    .await;
    drag(page, (points[0], points[1]), (points[2], points[3])).await;
}

/// One mouse event at (`x`, `y`) in the page's CSS pixels.
async fn mouse(page: &Page, kind: DispatchMouseEventType, x: f64, y: f64, clicks: i64) {
    mouse_with(page, kind, (x, y), clicks, 0).await;
}

/// One mouse event with keys held (`modifiers`: 8 is Shift).
async fn mouse_with(
    page: &Page,
    kind: DispatchMouseEventType,
    (x, y): (f64, f64),
    clicks: i64,
    modifiers: i64,
) {
    let mut event = DispatchMouseEventParams::new(kind, x, y);
    event.button = Some(MouseButton::Left);
    event.buttons = Some(if clicks > 0 { 1 } else { 0 });
    event.click_count = Some(clicks.max(1));
    event.modifiers = Some(modifiers);
    page.execute(event).await.unwrap();
}

/// Presses the mouse at `from`, moves it to `to` in steps, and lets go: a person's drag.
async fn drag(page: &Page, from: (f64, f64), to: (f64, f64)) {
    drag_with(page, from, to, 0).await;
}

/// A drag with keys held (`modifiers`: 8 is Shift).
async fn drag_with(page: &Page, from: (f64, f64), to: (f64, f64), modifiers: i64) {
    use DispatchMouseEventType::{MouseMoved, MousePressed, MouseReleased};
    mouse_with(page, MouseMoved, from, 0, modifiers).await;
    mouse_with(page, MousePressed, from, 1, modifiers).await;
    for step in 1..=8 {
        let t = f64::from(step) / 8.0;
        let at = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
        mouse_with(page, MouseMoved, at, 1, modifiers).await;
    }
    mouse_with(page, MouseReleased, to, 1, modifiers).await;
}

/// Evaluates `js` to numbers (an array).
async fn numbers(page: &Page, js: &str) -> Vec<f64> {
    page.evaluate(js).await.unwrap().into_value().unwrap()
}

/// A pixel length from a block's style in the saved HTML (`side: Npx`).
fn style_px(block: &str, side: &str) -> f64 {
    let at = block
        .find(&format!("{side}: "))
        .or_else(|| block.find(&format!("{side}:")))
        .unwrap_or_else(|| panic!("{side} in {block}"));
    let rest = block[at + side.len() + 1..].trim_start();
    rest[..rest.find("px").unwrap()].parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_moves_resizes_adds_and_formats_blocks_on_the_canvas_with_the_mouse() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = "<section><div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"t1\" style=\"left:80px;top:60px;width:400px;height:120px;z-index:1\">\
        <div class=\"sl-block-content\"><h2>Drag me</h2></div></div></section>";
    let CanvasEditor {
        chromium,
        page,
        deck,
        first,
    } = open_canvas(&app, &alice, bin, "Canvas", slide, 1).await;
    let count = BLOCKS_ON_CANVAS;
    let scale = numbers(
        &page,
        "[document.querySelector('.canvas-board').getBoundingClientRect().width / 960]",
    )
    .await[0];

    // Move the block: press on it, drag 60 x 50 screen pixels, let go. (Whatever the
    // scale, no edge or centre comes near the canvas's edges or centre, where it would snap.)
    let rect = "(() => { const r = document.querySelector('.canvas-board > .sl-block').getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()";
    let b = numbers(&page, rect).await;
    let (cx, cy) = (b[0] + b[2] / 2.0, b[1] + b[3] / 2.0);
    drag(&page, (cx, cy), (cx + 60.0, cy + 50.0)).await;
    // Resize it by its corner handle: 40 x 90 screen pixels larger (its bottom edge clear
    // of the canvas's middle, where it would snap, whatever the scale).
    let handle = "(() => { const r = document.querySelector('.canvas-handle').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()";
    let h = numbers(&page, handle).await;
    drag(&page, (h[0], h[1]), (h[0] + 40.0, h[1] + 90.0)).await;
    shot(&page, "editor-canvas-moved").await;

    // Add a text block (its text is selected, so typing replaces it) and type.
    click(&page, "#add-text").await;
    assert_eq!(wait_for(&page, count, "2").await, "2");
    page.execute(InsertTextParams::new("Hello world"))
        .await
        .unwrap();
    // Double-click "world" to select it, then make it bold.
    let word = "(() => { const c = document.querySelector('[contenteditable=true]'); const t = [...c.querySelectorAll('*')].concat([c]).flatMap(e => [...e.childNodes]).find(n => n.nodeType === 3 && n.data.includes('world')); const i = t.data.indexOf('world'); const range = document.createRange(); range.setStart(t, i + 1); range.setEnd(t, i + 2); const r = range.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()";
    let w = numbers(&page, word).await;
    mouse(&page, DispatchMouseEventType::MousePressed, w[0], w[1], 1).await;
    mouse(&page, DispatchMouseEventType::MouseReleased, w[0], w[1], 1).await;
    mouse(&page, DispatchMouseEventType::MousePressed, w[0], w[1], 2).await;
    mouse(&page, DispatchMouseEventType::MouseReleased, w[0], w[1], 2).await;
    let selected = wait_for(&page, "String(window.getSelection())", "world").await;
    assert_eq!(selected.trim(), "world");
    click(&page, "#fmt-bold").await;
    // And a rectangle, shown as the slide's first fragment.
    click(&page, "#add-rect").await;
    assert_eq!(wait_for(&page, count, "3").await, "3");
    click(&page, "#block-fragment").await;
    // A triangle with a 3 px stroke.
    click(&page, "#add-triangle").await;
    assert_eq!(wait_for(&page, count, "4").await, "4");
    page.evaluate(
        "(() => { const w = document.getElementById('shape-stroke-width'); w.value = '3'; w.dispatchEvent(new Event('change')); })()",
    )
    .await
    .unwrap();
    shot(&page, "editor-canvas-added").await;

    let saved = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &first).await.data()["html"].clone();
        let html = html.as_str().unwrap_or("");
        html.contains("data-block-type=\"shape\"")
            && html.contains("world</b>")
            && html.contains("fragment")
            && html.contains("3px solid")
    })
    .await;
    let html = app.get_slide(&alice.key, deck, &first).await.data()["html"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(saved, "the canvas's changes were not saved: {html}");
    // The dragged block: its new place and size in canvas pixels (screen / scale), ±1 px.
    let t1 = block_markup(&html, "t1");
    let near = |got: f64, want: f64| (got - want).abs() <= 1.0;
    assert!(near(style_px(t1, "left"), 80.0 + 60.0 / scale), "{t1}");
    assert!(near(style_px(t1, "top"), 60.0 + 50.0 / scale), "{t1}");
    assert!(near(style_px(t1, "width"), 400.0 + 40.0 / scale), "{t1}");
    assert!(near(style_px(t1, "height"), 120.0 + 90.0 / scale), "{t1}");
    assert!(
        t1.contains("<h2>Drag me</h2>") && t1.contains("z-index: 1"),
        "{t1}"
    );
    assert!(html.contains("Hello <b>world</b>"), "{html}");
    assert!(
        html.contains("clip-path: polygon(50% 0%, 100% 100%, 0% 100%)")
            && html.contains("border: 3px solid rgb(34, 34, 34)"),
        "{html}"
    );
    // The shape block's opening tag.
    let at = html.find("data-block-type=\"shape\"").unwrap();
    let start = &html[html[..at].rfind("<div").unwrap()..];
    let shape_tag = &start[..start.find('>').unwrap()];
    assert!(
        shape_tag.contains("class=\"sl-block fragment\"")
            && shape_tag.contains("data-fragment-index=\"0\""),
        "{shape_tag}"
    );
    assert!(
        html.contains("background-color: rgb(42, 118, 221)")
            || html.contains("background-color: #2a76dd"),
        "{html}"
    );
    // Duplicate the slide: a second slide right after it, the same blocks and notes.
    click(&page, "#duplicate-slide").await;
    let copied = eventually(|| async {
        app.list_slides(&alice.key, deck, "")
            .await
            .data()
            .as_array()
            .map(Vec::len)
            == Some(2)
    })
    .await;
    assert!(copied, "the slide was not duplicated");
    let slides = app.list_slides(&alice.key, deck, "").await;
    let second = slides.data()[1]["id"].as_str().unwrap().to_string();
    assert_eq!(slides.data()[0]["id"], first.as_str());
    let copy = app.get_slide(&alice.key, deck, &second).await.data()["html"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        copy.replace(&second, "ID"),
        html.replace(&first, "ID"),
        "the copy differs"
    );
    chromium.close().await;
}

/// A slide of one text block, `t1` (500 x 120 at 80, 60), holding heading `text`.
fn heading_block(text: &str) -> String {
    format!(
        "<section><div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"t1\" \
         style=\"left:80px;top:60px;width:500px;height:120px\">\
         <div class=\"sl-block-content\"><h2>{text}</h2></div></div></section>"
    )
}

/// Presses and releases the mouse twice at (`x`, `y`), the second time as a double-click.
async fn double_click(page: &Page, (x, y): (f64, f64)) {
    mouse(page, DispatchMouseEventType::MouseMoved, x, y, 0).await;
    for clicks in [1, 2] {
        mouse(page, DispatchMouseEventType::MousePressed, x, y, clicks).await;
        mouse(page, DispatchMouseEventType::MouseReleased, x, y, clicks).await;
    }
}

/// The block whose content has the keyboard focus, by id ("" when none).
const EDITING_BLOCK: &str = "(() => { const a = document.activeElement; const b = a && a.isContentEditable && a.closest('.sl-block'); return b ? b.dataset.blockId : ''; })()";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_click_edits_a_text_or_code_block_in_place() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = "<section>\
        <div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"t1\" style=\"left:80px;top:60px;width:500px;height:120px\">\
        <div class=\"sl-block-content\"><h2>Quarterly</h2></div></div>\
        <div class=\"sl-block\" data-block-type=\"code\" data-block-id=\"c1\" style=\"left:80px;top:300px;width:500px;height:200px\">\
        <div class=\"sl-block-content\"><pre><code class=\"language-rust\">fn main</code></pre></div></div></section>";
    let CanvasEditor {
        chromium,
        page,
        deck,
        first,
    } = open_canvas(&app, &alice, bin, "Double-click", slide, 2).await;
    let at = on_board(&page).await;

    // Double-click the heading's word: it becomes editable, the word selected, and typing
    // replaces it.
    double_click(&page, at(150.0, 110.0)).await;
    assert_eq!(wait_for(&page, EDITING_BLOCK, "t1").await, "t1");
    assert_eq!(
        wait_for(&page, "String(window.getSelection())", "Quarterly")
            .await
            .trim(),
        "Quarterly"
    );
    page.execute(InsertTextParams::new("Yearly")).await.unwrap();
    shot(&page, "editor-double-click-text").await;

    // Double-click the code: its <code> is edited in place.
    double_click(&page, at(120.0, 330.0)).await;
    assert_eq!(wait_for(&page, EDITING_BLOCK, "c1").await, "c1");
    assert_eq!(
        page.evaluate("document.activeElement.tagName")
            .await
            .unwrap()
            .into_value::<String>()
            .unwrap(),
        "CODE"
    );
    page.execute(InsertTextParams::new("start")).await.unwrap();

    let saved = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &first).await.data()["html"].clone();
        let html = html.as_str().unwrap_or("");
        html.contains("<h2>Yearly</h2>") && html.contains("start")
    })
    .await;
    let html = app.get_slide(&alice.key, deck, &first).await.data()["html"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(saved, "the in-place edits were not saved: {html}");
    let code = block_markup(&html, "c1");
    assert!(code.contains("<code class=\"language-rust\">"), "{code}");
    assert!(!html.contains("Quarterly"), "{html}");
    chromium.close().await;
}

/// A change made while the previous one is being saved (the answer is slow to come back) is
/// saved too, not dropped when that answer arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_made_while_a_save_is_under_way_is_saved_after_it() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = "<section><div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"a\" style=\"left:100px;top:100px;width:200px;height:100px\"><div class=\"sl-block-content\"><p>a</p></div></div></section>";
    let CanvasEditor {
        chromium,
        page,
        deck,
        first,
    } = open_canvas(&app, &alice, bin, "Slow network", slide, 1).await;
    // A slow network: every answer reaches the page 1.5 s after the server sent it.
    page.evaluate(
        "(() => { const f = window.fetch; window.fetch = (...a) => f(...a).then(r => new Promise(ok => setTimeout(() => ok(r), 1500))); })()",
    )
    .await
    .unwrap();
    page.evaluate("document.getElementById('canvas').scrollIntoView()")
        .await
        .unwrap();
    let (x, y) = on_board(&page).await(200.0, 150.0);
    mouse(&page, DispatchMouseEventType::MousePressed, x, y, 1).await;
    mouse(&page, DispatchMouseEventType::MouseReleased, x, y, 1).await;
    assert_eq!(wait_for(&page, SELECTED_BLOCKS, "a").await, "a");
    // One nudge, saved; a second one while that save waits for its answer.
    press(&page, "#canvas", "ArrowRight").await;
    assert_eq!(wait_for(&page, SAVE_STATE, "Saving…").await, "Saving…");
    press(&page, "#canvas", "ArrowRight").await;

    let both = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &first).await.data()["html"].clone();
        block_markup(html.as_str().unwrap_or(""), "a").contains("left: 102px")
    })
    .await;
    let html = app.get_slide(&alice.key, deck, &first).await.data()["html"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(both, "the second nudge was not saved: {html}");
    assert_eq!(
        wait_for(&page, SAVE_STATE, "All changes saved").await,
        "All changes saved"
    );
    chromium.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_selects_blocks_with_a_rectangle_moves_them_together_and_rotates_one() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let block = |id: &str, left: u32, top: u32| {
        format!(
            "<div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"{id}\" style=\"left:{left}px;top:{top}px;width:200px;height:100px\">\
             <div class=\"sl-block-content\"><p>{id}</p></div></div>"
        )
    };
    let slide = format!(
        "<section>{}{}{}</section>",
        block("a", 100, 100),
        block("b", 400, 100),
        block("c", 100, 400)
    );
    let CanvasEditor {
        chromium,
        page,
        deck,
        first,
    } = open_canvas(&app, &alice, bin, "Several", &slide, 3).await;
    page.evaluate("document.getElementById('canvas').scrollIntoView()")
        .await
        .unwrap();
    // Where canvas point (x, y) is on the screen.
    let at = on_board(&page).await;

    // A rectangle from (50, 50) to (650, 250) on the empty canvas touches a and b, not c.
    drag(&page, at(50.0, 50.0), at(650.0, 250.0)).await;
    assert_eq!(wait_for(&page, SELECTED_BLOCKS, "a,b").await, "a,b");
    // Dragging a by (70, 130) canvas pixels moves b with it (to where no edge or centre of a
    // lines up with anything, so nothing snaps, whatever the canvas's scale).
    drag(&page, at(200.0, 150.0), at(270.0, 280.0)).await;
    // A click on c selects c alone.
    let (cx, cy) = at(200.0, 450.0);
    mouse(&page, DispatchMouseEventType::MousePressed, cx, cy, 1).await;
    mouse(&page, DispatchMouseEventType::MouseReleased, cx, cy, 1).await;
    assert_eq!(wait_for(&page, SELECTED_BLOCKS, "c").await, "c");
    // Turn c a quarter to the right with its knob: from above its centre to its right.
    let knob = numbers(
        &page,
        "(() => { const r = document.querySelector('.canvas-rotate').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()",
    )
    .await;
    drag(&page, (knob[0], knob[1]), (cx + 200.0, cy)).await;
    shot(&page, "editor-canvas-several").await;
    // The keyboard: two nudges to the right.
    press(&page, "#canvas", "ArrowRight").await;
    press(&page, "#canvas", "ArrowRight").await;

    let saved = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &first).await.data()["html"].clone();
        let html = html.as_str().unwrap_or("");
        html.contains("rotate(90deg)") && block_markup(html, "c").contains("left: 102px")
    })
    .await;
    let html = app.get_slide(&alice.key, deck, &first).await.data()["html"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(saved, "the rotation was not saved: {html}");
    let near = |got: f64, want: f64| (got - want).abs() <= 1.0;
    let (a, b, c) = (
        block_markup(&html, "a"),
        block_markup(&html, "b"),
        block_markup(&html, "c"),
    );
    assert!(near(style_px(a, "left"), 170.0), "{a}");
    assert!(near(style_px(a, "top"), 230.0), "{a}");
    assert!(near(style_px(b, "left"), 470.0), "{b}");
    assert!(near(style_px(b, "top"), 230.0), "{b}");
    assert!(
        style_px(c, "left") == 102.0 && style_px(c, "top") == 400.0,
        "{c}"
    );
    assert!(c.contains("transform: rotate(90deg)"), "{c}");
    chromium.close().await;
}

/// Stored markup that would act on the page (a `<meta http-equiv=refresh>` moved the owner's
/// editor to another site) is drawn inert on the canvas and in the slide list, while the
/// slide itself keeps it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markup_in_a_slide_cannot_act_on_the_editors_page() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = "<section><meta http-equiv=\"refresh\" content=\"0;url=/left-by-free-html\">\
        <div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"t1\" style=\"left:80px;top:60px;width:400px;height:120px\">\
        <div class=\"sl-block-content\"><p>Hello</p><meta http-equiv=\"refresh\" content=\"0;url=/left-by-block\">\
        <form action=\"/logout\" method=\"post\"><button autofocus>Go</button></form></div></div></section>";
    let CanvasEditor {
        chromium,
        page,
        deck,
        first,
    } = open_canvas(&app, &alice, bin, "Inert", slide, 1).await;
    // The slide list's thumbnail and the canvas are drawn; nothing they hold is live.
    let live = wait_for(
        &page,
        "String(document.querySelectorAll('.thumb-board').length) + ' ' + \
         String(document.querySelectorAll('meta[http-equiv], form:not([method=dialog])').length) + ' ' + location.pathname",
        "/edit",
    )
    .await;
    assert!(
        live.starts_with("1 0 ") && live.ends_with("/edit"),
        "{live}"
    );
    let text = wait_for(
        &page,
        "document.querySelector('.canvas-board > .sl-block').textContent",
        "Hello",
    )
    .await;
    assert!(text.contains("Hello"), "{text}");
    // Still on the editor after the page had every chance to move.
    let path: String = page
        .evaluate("new Promise((r) => setTimeout(() => r(location.pathname), 1500))")
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert!(path.ends_with("/edit"), "the editor moved to {path}");
    // The stored slide is unchanged.
    let stored = app.get_slide(&alice.key, deck, &first).await;
    assert!(
        stored.data()["html"]
            .as_str()
            .unwrap()
            .contains("http-equiv=\"refresh\"")
    );
    chromium.close().await;
}

/// The editor as an app window: at 1366 x 768 and 1920 x 1080 the whole canvas shows without
/// scrolling; the Export dialog makes a PDF (with its options), a PowerPoint file and a ZIP
/// and offers each for download under the deck's title; "Present" opens the audience's view
/// and "Speaker view" the presenter's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_fits_the_window_and_exports_from_its_menu() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let created = app
        .create_deck(
            &alice.key,
            json!({"title": "Board review", "slides": [
                {"html": "<section><h2>Results</h2></section>", "notes": "Say thanks."},
                {"html": "<section><h2>Plans</h2></section>"}
            ]}),
        )
        .await;
    created.expect(201);
    let edit_url = created.data()["urls"]["edit"].as_str().unwrap().to_string();
    let deck_url = created.data()["url"].as_str().unwrap().to_string();

    let chromium = crate::common::Headless::launch(bin, 1920, 1080).await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    sign_in(&page, &app, &alice).await;
    for (width, height) in [(1366, 768), (1920, 1080)] {
        crate::rendering::viewport(&page, width, height).await;
        page.goto(edit_url.as_str()).await.unwrap();
        wait_for(&page, SAVE_STATE, "All changes saved").await;
        let rect = numbers(
            &page,
            "(() => { const r = document.getElementById('canvas').getBoundingClientRect(); \
             return [r.top, r.bottom, r.left, r.right, window.innerHeight, window.innerWidth, window.scrollY]; })()",
        )
        .await;
        let [top, bottom, left, right, inner_h, inner_w, scrolled] = rect[..] else {
            panic!("{rect:?}");
        };
        assert_eq!(scrolled, 0.0);
        assert!(
            top >= 0.0 && bottom <= inner_h && left >= 0.0 && right <= inner_w,
            "at {width}x{height} the canvas is at {rect:?}"
        );
        assert!(
            bottom - top >= inner_h * 0.45,
            "the canvas is too small: {rect:?}"
        );
        shot(&page, &format!("editor-window-{width}x{height}")).await;
    }
    let links: Vec<String> = page
        .evaluate("['present-link', 'speaker-link'].map((id) => document.getElementById(id).href)")
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(
        links,
        [
            format!("{deck_url}/fullscreen"),
            format!("{deck_url}/present")
        ]
    );

    // New slides from layouts, chosen by typing in the layout menu: blocks a person
    // double-clicks and types into.
    let deck = created.data()["id"].as_i64().unwrap();
    for (typed, blocks) in [
        ("Title s", 2),
        ("Section", 1),
        ("Image", 2),
        ("Blank", 0),
        ("Two", 3),
    ] {
        let before = app.list_slides(&alice.key, deck, "").await.json["meta"]["total"]
            .as_i64()
            .unwrap();
        type_into(&page, "#slide-layout", typed).await;
        click(&page, "#add-slide").await;
        let grown = eventually(|| async {
            app.list_slides(&alice.key, deck, "").await.json["meta"]["total"] == before + 1
        })
        .await;
        assert!(grown, "{typed}: no slide was added");
        wait_for(&page, SAVE_STATE, "All changes saved").await;
        let current: String = page
            .evaluate(CURRENT_SLIDE)
            .await
            .unwrap()
            .into_value()
            .unwrap();
        let html = app.get_slide(&alice.key, deck, &current).await.data()["html"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(
            html.matches("class=\"sl-block\"").count(),
            blocks,
            "{typed}: {html}"
        );
        shot(&page, &format!("editor-layout-{}", typed.replace(' ', "-"))).await;
    }
    // The two-column slide's title placeholder takes what is typed.
    let current: String = page
        .evaluate(CURRENT_SLIDE)
        .await
        .unwrap()
        .into_value()
        .unwrap();
    let at = on_board(&page).await;
    double_click(&page, at(480.0, 80.0)).await;
    wait_for(&page, "String(window.getSelection())", "Title").await;
    page.execute(InsertTextParams::new("Plan")).await.unwrap();
    mouse(&page, DispatchMouseEventType::MousePressed, 5.0, 5.0, 1).await;
    mouse(&page, DispatchMouseEventType::MouseReleased, 5.0, 5.0, 1).await;
    let typed = eventually(|| async {
        app.get_slide(&alice.key, deck, &current).await.data()["html"]
            .as_str()
            .unwrap()
            .contains("<h2>Plan</h2>")
    })
    .await;
    assert!(typed, "the title placeholder did not take the text");
    wait_for(&page, SAVE_STATE, "All changes saved").await;

    // History: the revision before the typing, restored from the History dialog.
    let before_typing = app.get_deck(&alice.key, deck, "").await.data()["revision"]
        .as_i64()
        .unwrap()
        - 1;
    click(&page, "[data-opens=history]").await;
    let history = wait_for(
        &page,
        "document.getElementById('history-list').textContent",
        "(now)",
    )
    .await;
    assert!(
        history.contains("Changed a slide · alice (web)"),
        "{history}"
    );
    shot(&page, "editor-history-dialog").await;
    click(
        &page,
        &format!("#history-list button[data-revision='{before_typing}']"),
    )
    .await;
    let restored = eventually(|| async {
        app.get_slide(&alice.key, deck, &current).await.data()["html"]
            .as_str()
            .unwrap()
            .contains("<h2>Title</h2>")
    })
    .await;
    assert!(restored, "the revision was not restored");
    let newest = app
        .call(
            reqwest::Method::GET,
            &format!("/v1/decks/{deck}/revisions"),
            Some(&alice.key),
            None,
        )
        .await;
    assert_eq!(newest.data()[0]["operation"], "restore");
    assert_eq!(newest.data()[0]["restored_revision"], before_typing);
    wait_for(
        &page,
        "document.querySelector('.canvas-board h2').textContent",
        "Title",
    )
    .await;
    press(&page, "#history", "Escape").await;

    click(&page, "[data-opens=export]").await;
    click(&page, "#export-notes").await;
    for (format, magic, name) in [
        ("pdf", &b"%PDF"[..], "board-review.pdf"),
        ("pptx", &b"PK"[..], "board-review.pptx"),
        ("zip", &b"PK"[..], "board-review.zip"),
    ] {
        click(&page, &format!("#export [data-format={format}]")).await;
        let state = wait_for(
            &page,
            "document.getElementById('export-state').textContent",
            name,
        )
        .await;
        assert!(state.contains("is ready"), "{state}");
        let href: String = page
            .evaluate("document.querySelector('#export-state a').href")
            .await
            .unwrap()
            .into_value()
            .unwrap();
        let download = reqwest::get(&href).await.unwrap();
        assert_eq!(
            download.headers()["content-disposition"],
            format!("attachment; filename=\"{name}\"").as_str()
        );
        let file = download.bytes().await.unwrap();
        assert!(file.starts_with(magic), "{format}: {} bytes", file.len());
        if format == "pdf" {
            // The notes option reached the export: its text is in the PDF.
            let text = crate::exports::pdf_text(&file).expect("pdftotext reads the PDF");
            assert!(text.contains("Say thanks."), "{text}");
        }
    }
    shot(&page, "editor-export-dialog").await;

    // The side panel's tabs, each shown with a click, one pane at a time.
    press(&page, "dialog#export", "Escape").await;
    wait_for(
        &page,
        "String(document.getElementById('export').open)",
        "false",
    )
    .await;
    for pane in ["image", "blocks", "html", "preview", "notes"] {
        click(&page, &format!("#tab-{pane}")).await;
        let shown = wait_for(
            &page,
            "[...document.querySelectorAll('.side-pane')].filter(p => !p.hidden).map(p => p.id).join(',')",
            &format!("pane-{pane}"),
        )
        .await;
        assert_eq!(shown, format!("pane-{pane}"));
        shot(&page, &format!("editor-pane-{pane}")).await;
    }

    // Presenting: the speaker view drives the audience's window in the same browser and
    // follows it; S on the audience's window opens the speaker view.
    let audience = chromium.browser.new_page("about:blank").await.unwrap();
    audience
        .goto(format!("{deck_url}/fullscreen"))
        .await
        .unwrap();
    let speaker = chromium.browser.new_page("about:blank").await.unwrap();
    speaker.goto(format!("{deck_url}/present")).await.unwrap();
    const INDEX: &str =
        "(typeof Reveal !== 'undefined' && Reveal.isReady()) ? String(Reveal.getIndices().h) : ''";
    wait_for(&audience, INDEX, "0").await;
    wait_for(&speaker, INDEX, "0").await;
    press(&speaker, "body", "ArrowRight").await;
    assert_eq!(wait_for(&speaker, INDEX, "1").await, "1");
    assert_eq!(
        wait_for(&audience, INDEX, "1").await,
        "1",
        "the audience did not follow"
    );
    press(&audience, "body", "ArrowRight").await;
    assert_eq!(wait_for(&audience, INDEX, "2").await, "2");
    assert_eq!(
        wait_for(&speaker, INDEX, "2").await,
        "2",
        "the speaker view did not follow"
    );
    let before = chromium.browser.pages().await.unwrap().len();
    press(&audience, "body", "s").await;
    let mut opened = None;
    for _ in 0..100 {
        let pages = chromium.browser.pages().await.unwrap();
        if pages.len() > before {
            for p in pages {
                if let Ok(Some(url)) = p.url().await
                    && url.ends_with("/present")
                    && p.target_id() != speaker.target_id()
                {
                    opened = Some(p);
                }
            }
        }
        if opened.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let opened = opened.expect("S opened no speaker view");
    // It works: it shows the audience's slide and drives the window it was opened from.
    assert_eq!(
        wait_for(&opened, INDEX, "2").await,
        "2",
        "the opened speaker view is not on the audience's slide"
    );
    press(&opened, "body", "ArrowLeft").await;
    assert_eq!(
        wait_for(&audience, INDEX, "1").await,
        "1",
        "the speaker view S opened does not drive the audience"
    );
    chromium.close().await;
}

/// Keys and drops a person uses: `?` shows the shortcuts, Ctrl+A on the canvas selects every
/// block (not the page), and a text file dropped on the slide is refused with a message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shortcuts_select_all_and_a_dropped_file_that_is_no_image() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = "<section>\
        <div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"t1\" style=\"left:80px;top:60px;width:500px;height:120px\">\
        <div class=\"sl-block-content\"><h2>One</h2></div></div>\
        <div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"t2\" style=\"left:80px;top:300px;width:500px;height:120px\">\
        <div class=\"sl-block-content\"><p>Two</p></div></div></section>";
    let CanvasEditor {
        chromium,
        page,
        deck,
        first,
    } = open_canvas(&app, &alice, bin, "Keys", slide, 2).await;

    press(&page, "body", "?").await;
    wait_for(
        &page,
        "String(document.getElementById('shortcuts').open)",
        "true",
    )
    .await;
    shot(&page, "editor-shortcuts").await;
    press(&page, "#shortcuts", "Escape").await;
    wait_for(
        &page,
        "String(document.getElementById('shortcuts').open)",
        "false",
    )
    .await;

    let at = on_board(&page).await;
    let (x, y) = at(700.0, 600.0);
    mouse(&page, DispatchMouseEventType::MousePressed, x, y, 1).await;
    mouse(&page, DispatchMouseEventType::MouseReleased, x, y, 1).await;
    ctrl_key(&page, "a", false).await;
    assert_eq!(wait_for(&page, SELECTED_BLOCKS, "t1,t2").await, "t1,t2");
    let selected_text: String = page
        .evaluate("String(window.getSelection())")
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(selected_text, "", "the page's text was selected");

    // The toolbar shows the selected block's state and offers only what applies to it.
    let toolbar = "[document.getElementById('fmt-block').value, String(document.getElementById('fmt-bold').disabled), \
         String(document.getElementById('block-delete').disabled), document.getElementById('fmt-size').value].join(' ')";
    let (px1, py1) = at(300.0, 100.0);
    let (px2, py2) = at(300.0, 330.0);
    let clicks = [
        (x, y, "p true true "),
        (px1, py1, "h2 false false "),
        (px2, py2, "p false false "),
    ];
    for (cx, cy, want) in clicks {
        mouse(&page, DispatchMouseEventType::MousePressed, cx, cy, 1).await;
        mouse(&page, DispatchMouseEventType::MouseReleased, cx, cy, 1).await;
        assert_eq!(wait_for(&page, toolbar, want).await, want);
    }
    // "Size 80" on a heading block gives 80 px text (not 80 x 1.6).
    mouse(&page, DispatchMouseEventType::MousePressed, px1, py1, 1).await;
    mouse(&page, DispatchMouseEventType::MouseReleased, px1, py1, 1).await;
    wait_for(&page, toolbar, "h2 false").await;
    type_into(&page, "#fmt-size", "80").await;
    press(&page, "#fmt-size", "Enter").await;
    let size = wait_for(
        &page,
        "getComputedStyle(document.querySelector('.canvas-board [data-block-id=t1] h2')).fontSize",
        "80px",
    )
    .await;
    assert_eq!(size, "80px");
    assert_eq!(
        wait_for(&page, toolbar, "h2 false false 80").await,
        "h2 false false 80"
    );
    let stored = eventually(|| async {
        app.get_slide(&alice.key, deck, &first).await.data()["html"]
            .as_str()
            .unwrap()
            .contains("font-size: 50px")
    })
    .await;
    assert!(stored, "the size was not saved as 80 / 1.6 = 50 px");

    // Eight handles: the top-left corner of the heading block dragged up and left grows it
    // there (left 80 -> 40, top 60 -> 40, 500 x 120 -> 540 x 140).
    let nw = numbers(
        &page,
        "(() => { const r = document.querySelector('.canvas-selected .canvas-handle[data-handle=nw]').getBoundingClientRect(); \
         return [r.x + r.width / 2, r.y + r.height / 2, document.querySelectorAll('.canvas-selected .canvas-handle').length]; })()",
    )
    .await;
    assert_eq!(nw[2], 8.0, "eight handles");
    let scale = at(1.0, 0.0).0 - at(0.0, 0.0).0;
    drag(
        &page,
        (nw[0], nw[1]),
        (nw[0] - 40.0 * scale, nw[1] - 20.0 * scale),
    )
    .await;
    let grown = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &first).await.data()["html"]
            .as_str()
            .unwrap()
            .to_string();
        html.contains("left: 40px; top: 40px; width: 540px; height: 140px")
    })
    .await;
    assert!(grown, "the top-left handle did not resize from its corner");

    // A text block grows with its text: four more lines in the 120 px paragraph block.
    let (tx, ty) = at(300.0, 330.0);
    double_click(&page, (tx, ty)).await;
    assert_eq!(wait_for(&page, EDITING_BLOCK, "t2").await, "t2");
    for line in ["Three", "Four", "Five", "Six"] {
        press(
            &page,
            ".canvas-board [data-block-id=t2] .sl-block-content",
            "Enter",
        )
        .await;
        page.execute(InsertTextParams::new(line)).await.unwrap();
    }
    let tall = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &first).await.data()["html"]
            .as_str()
            .unwrap()
            .to_string();
        let at = html.find("data-block-id=\"t2\"").unwrap();
        let height = html[at..]
            .split("height: ")
            .nth(1)
            .and_then(|h| h.split("px").next())
            .and_then(|h| h.parse::<f64>().ok())
            .unwrap_or(0.0);
        html.contains("Six") && height > 200.0
    })
    .await;
    assert!(tall, "the text block did not grow with its text");
    shot(&page, "editor-text-grows").await;

    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "not a picture").unwrap();
    drop_file(&page, (x, y), &notes).await;
    let said = wait_for(&page, SAVE_STATE, "not an image").await;
    assert!(said.starts_with("notes.txt is not an image"), "{said}");

    // A picture dropped on the slide lands where it was dropped (centred on the pointer:
    // 700 - 240, 500 - 160), selected; its alt text is typed in the toolbar.
    let png = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/red.png");
    drop_file(&page, at(700.0, 500.0), &png).await;
    let placed = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &first).await.data()["html"]
            .as_str()
            .unwrap()
            .to_string();
        let Some(at) = html.find("data-block-type=\"image\"") else {
            return false;
        };
        let image = &html[at..];
        let near = |property: &str, want: f64| {
            image
                .split(&format!("{property}: "))
                .nth(1)
                .and_then(|v| v.split("px").next())
                .and_then(|v| v.parse::<f64>().ok())
                .is_some_and(|v| (v - want).abs() <= 2.0)
        };
        near("left", 460.0) && near("top", 340.0)
    })
    .await;
    let html = app.get_slide(&alice.key, deck, &first).await.data()["html"].clone();
    assert!(
        placed,
        "the dropped picture is not where it was dropped: {html}"
    );
    type_into(&page, "#image-alt", "A red square").await;
    press(&page, "#image-alt", "Tab").await;
    let described = eventually(|| async {
        app.get_slide(&alice.key, deck, &first).await.data()["html"]
            .as_str()
            .unwrap()
            .contains("alt=\"A red square\"")
    })
    .await;
    assert!(described, "the alt text was not saved");

    // Ctrl+A, then "Align left" in the Arrange menu: the three blocks share the leftmost edge
    // (the heading's, 40 px since its resize).
    let (ex, ey) = at(900.0, 60.0);
    mouse(&page, DispatchMouseEventType::MousePressed, ex, ey, 1).await;
    mouse(&page, DispatchMouseEventType::MouseReleased, ex, ey, 1).await;
    ctrl_key(&page, "a", false).await;
    wait_for(
        &page,
        "String(document.querySelectorAll('.canvas-selected').length)",
        "3",
    )
    .await;
    type_into(&page, "#arrange", "Align l").await;
    press(&page, "#arrange", "Enter").await;
    let aligned = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &first).await.data()["html"]
            .as_str()
            .unwrap()
            .replace(' ', "");
        html.matches("left:40px").count() == 3
    })
    .await;
    assert!(aligned, "the blocks were not aligned left");
    chromium.close().await;
}

/// Drags the file at `path` from outside the window and drops it at (`x`, `y`), as a person
/// drops a file from their desktop.
async fn drop_file(page: &Page, (x, y): (f64, f64), path: &std::path::Path) {
    use chromiumoxide::cdp::browser_protocol::input::{
        DispatchDragEventParams, DispatchDragEventType, DragData, DragDataItem,
    };
    // (CDP wants at least one item beside the files.)
    let mut data = DragData::new(vec![DragDataItem::new("text/plain", "a file")], 1);
    data.files = Some(vec![path.display().to_string()]);
    for kind in [
        DispatchDragEventType::DragEnter,
        DispatchDragEventType::DragOver,
        DispatchDragEventType::Drop,
    ] {
        let event = DispatchDragEventParams::builder()
            .r#type(kind)
            .x(x)
            .y(y)
            .data(data.clone())
            .build()
            .unwrap();
        page.execute(event).await.unwrap();
    }
}

/// Presses `key` (a letter) with Ctrl, and Shift when `shift`, on what has the focus.
async fn ctrl_key(page: &Page, key: &str, shift: bool) {
    use chromiumoxide::cdp::browser_protocol::input::{
        DispatchKeyEventParams, DispatchKeyEventType,
    };
    let code = format!("Key{}", key.to_uppercase());
    let vk = i64::from(key.to_uppercase().as_bytes()[0]);
    for kind in [DispatchKeyEventType::KeyDown, DispatchKeyEventType::KeyUp] {
        page.execute(
            DispatchKeyEventParams::builder()
                .r#type(kind)
                .key(key)
                .code(code.clone())
                .windows_virtual_key_code(vk)
                .modifiers(if shift { 2 | 8 } else { 2 })
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    }
}

/// Undo on the page: five nudges of a block undone with Ctrl+Z show at once (the whole five
/// in under a second), are saved as a new revision, and Ctrl+Shift+Z redoes one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_undos_show_at_once_and_are_saved() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = &heading_block("Steps");
    let CanvasEditor {
        chromium,
        page,
        deck,
        first,
    } = open_canvas(&app, &alice, bin, "Undo", slide, 1).await;
    let at = on_board(&page).await;
    let (x, y) = at(300.0, 100.0);
    mouse(&page, DispatchMouseEventType::MousePressed, x, y, 1).await;
    mouse(&page, DispatchMouseEventType::MouseReleased, x, y, 1).await;
    wait_for(&page, SELECTED_BLOCKS, "t1").await;
    for _ in 0..5 {
        press(&page, "#canvas", "ArrowRight").await;
    }
    const LEFT: &str = "document.querySelector('.canvas-board [data-block-id=t1]').style.left";
    wait_for(&page, LEFT, "85px").await;
    wait_for(&page, SAVE_STATE, "All changes saved").await;

    let started = std::time::Instant::now();
    for _ in 0..5 {
        ctrl_key(&page, "z", false).await;
    }
    wait_for(&page, LEFT, "80px").await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(1), "five undos took {took:?}");
    let saved = eventually(|| async {
        app.get_slide(&alice.key, deck, &first).await.data()["html"]
            .as_str()
            .unwrap()
            .replace(' ', "")
            .contains("left:80px")
    })
    .await;
    assert!(saved, "the undone slide was not saved");
    ctrl_key(&page, "z", true).await;
    wait_for(&page, LEFT, "81px").await;
    let redone = eventually(|| async {
        app.get_slide(&alice.key, deck, &first).await.data()["html"]
            .as_str()
            .unwrap()
            .replace(' ', "")
            .contains("left:81px")
    })
    .await;
    assert!(redone, "the redo was not saved");
    eprintln!("five undos shown in {took:?}");

    // Dragging the block until its centre meets the canvas's shows a guide there, gone once
    // the block is let go.
    let (sx, sy) = at(330.0, 120.0);
    let (mx, my) = at(330.0 + 149.0, 120.0);
    mouse(&page, DispatchMouseEventType::MouseMoved, sx, sy, 0).await;
    mouse(&page, DispatchMouseEventType::MousePressed, sx, sy, 1).await;
    for step in 1..=5 {
        let f = f64::from(step) / 5.0;
        mouse(
            &page,
            DispatchMouseEventType::MouseMoved,
            sx + (mx - sx) * f,
            sy + (my - sy) * f,
            1,
        )
        .await;
    }
    let guide = wait_for(
        &page,
        "[...document.querySelectorAll('.canvas-guide-x')].map(g => g.style.left).join(',')",
        "480px",
    )
    .await;
    assert!(guide.contains("480px"), "{guide}");
    shot(&page, "editor-guide").await;
    mouse(&page, DispatchMouseEventType::MouseReleased, mx, my, 1).await;
    wait_for(
        &page,
        "String(document.querySelectorAll('.canvas-guide').length)",
        "0",
    )
    .await;
    wait_for(&page, SAVE_STATE, "All changes saved").await;

    // Offline, a slide added from the default layout and moved up shows at once and waits,
    // with the text typed into its title; back online, both are sent in order and the text
    // saved on the slide the server made.
    #[allow(deprecated)]
    use chromiumoxide::cdp::browser_protocol::network::{
        EmulateNetworkConditionsParams, EnableParams,
    };
    page.execute(EnableParams::default()).await.unwrap();
    // The deprecated command is the one that also sets navigator.onLine, as a lost
    // connection does.
    #[allow(deprecated)]
    let offline = EmulateNetworkConditionsParams::new(true, 0.0, -1.0, -1.0);
    #[allow(deprecated)]
    let online = EmulateNetworkConditionsParams::new(false, 0.0, -1.0, -1.0);
    page.execute(offline).await.unwrap();
    click(&page, "#add-slide").await;
    let said = wait_for(&page, SAVE_STATE, "1 change to the slides waiting").await;
    assert!(said.starts_with("Offline"), "{said}");
    const LISTED: &str =
        "[...document.querySelectorAll('.slide-item')].map(b => b.dataset.slideId).join(',')";
    let listed = wait_for(&page, LISTED, &format!("{first},offline-1")).await;
    assert_eq!(listed, format!("{first},offline-1"));
    click(&page, "#move-up").await;
    wait_for(&page, SAVE_STATE, "2 changes to the slides waiting").await;
    wait_for(&page, LISTED, &format!("offline-1,{first}")).await;
    double_click(&page, at(480.0, 98.0)).await;
    wait_for(&page, "String(window.getSelection())", "Title").await;
    page.execute(InsertTextParams::new("Written offline"))
        .await
        .unwrap();
    shot(&page, "editor-offline").await;
    assert_eq!(
        app.list_slides(&alice.key, deck, "").await.json["meta"]["total"],
        1
    );
    page.execute(online).await.unwrap();
    let sent = eventually(|| async {
        let list = app.list_slides(&alice.key, deck, "").await.json;
        let data = list["data"].as_array().cloned().unwrap_or_default();
        data.len() == 2 && data[1]["id"] == first.as_str() && data[0]["title"] == "Written offline"
    })
    .await;
    let list = app.list_slides(&alice.key, deck, "").await.json;
    assert!(
        sent,
        "back online, the offline changes were not sent: {list}"
    );
    let made = list["data"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        wait_for(&page, LISTED, &format!("{made},{first}")).await,
        format!("{made},{first}")
    );
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    chromium.close().await;
}

/// A new deck from a template on the home page, then every placeholder of every slide
/// double-clicked and typed into, with the mouse and keyboard; read back through the API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deck_from_a_template_takes_text_in_every_placeholder() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let chromium = crate::common::Headless::launch(bin, 1366, 768).await;
    let page = chromium.browser.new_page("about:blank").await.unwrap();
    sign_in(&page, &app, &alice).await;
    page.goto(format!("{}/", app.base)).await.unwrap();
    page.wait_for_navigation().await.unwrap();
    type_into(
        &page,
        "form[action='/web/decks/new'] input[name=title]",
        "Series A",
    )
    .await;
    click(&page, "input[name=template][value=pitch]").await;
    shot(&page, "home-templates").await;
    click(&page, "form[action='/web/decks/new'] button[type=submit]").await;
    wait_for(&page, SAVE_STATE, "All changes saved").await;

    let decks = app.list_decks(&alice.key, "").await.json;
    assert_eq!(decks["meta"]["total"], 1, "{decks}");
    let deck = decks["data"][0]["id"].as_i64().unwrap();
    let got = app.get_deck(&alice.key, deck, "").await;
    assert_eq!(got.data()["title"], "Series A");
    assert_eq!(got.data()["theme_color"], "black-blue");
    let ids: Vec<String> = app.list_slides(&alice.key, deck, "").await.json["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 6);

    let mut typed = Vec::new();
    for (n, id) in ids.iter().enumerate() {
        if n > 0 {
            select_slide(&page, id).await;
        }
        let blocks: Vec<String> = page
            .evaluate("[...document.querySelectorAll('.canvas-board > .sl-block')].map(b => b.dataset.blockId)")
            .await
            .unwrap()
            .into_value()
            .unwrap();
        assert!(!blocks.is_empty(), "slide {n} has no placeholder");
        for block in &blocks {
            // The middle of the block's first line of text: a word there.
            let point = numbers(
                &page,
                &format!(
                    "(() => {{ const t = document.querySelector('.canvas-board [data-block-id={block}] :is(h1,h2,p,li)'); \
                     const r = t.getBoundingClientRect(); return [r.x + Math.min(r.width / 2, 40), r.y + r.height / 2]; }})()"
                ),
            )
            .await;
            double_click(&page, (point[0], point[1])).await;
            assert_eq!(wait_for(&page, EDITING_BLOCK, block).await, *block);
            let text = format!("Typed {n}-{block}");
            page.execute(InsertTextParams::new(text.clone()))
                .await
                .unwrap();
            typed.push((id.clone(), text));
        }
        if n == 0 {
            shot(&page, "editor-template-typed").await;
        }
    }
    // A click on the canvas's empty margin ends the editing; everything is saved.
    let (x, y) = on_board(&page).await(5.0, 5.0);
    mouse(&page, DispatchMouseEventType::MousePressed, x, y, 1).await;
    mouse(&page, DispatchMouseEventType::MouseReleased, x, y, 1).await;
    wait_for(&page, EDITING_BLOCK, "").await;
    let saved = eventually(|| async {
        let mut all = true;
        for (id, text) in &typed {
            let html = app.get_slide(&alice.key, deck, id).await.data()["html"].clone();
            all &= html.as_str().unwrap_or("").contains(text.as_str());
        }
        all
    })
    .await;
    assert!(saved, "not every placeholder's text was saved: {typed:?}");

    // A font chosen for the selected block (the last slide's title) is saved on it.
    let (last, _) = typed.last().unwrap().clone();
    let point = numbers(
        &page,
        "(() => { const r = document.querySelector('.canvas-board > .sl-block').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()",
    )
    .await;
    mouse(
        &page,
        DispatchMouseEventType::MousePressed,
        point[0],
        point[1],
        1,
    )
    .await;
    mouse(
        &page,
        DispatchMouseEventType::MouseReleased,
        point[0],
        point[1],
        1,
    )
    .await;
    wait_for(
        &page,
        "String(document.getElementById('fmt-font').disabled)",
        "false",
    )
    .await;
    type_into(&page, "#fmt-font", "Merri").await;
    press(&page, "#fmt-font", "Enter").await;
    let styled = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &last).await.data()["html"].clone();
        html.as_str()
            .unwrap_or("")
            .contains("font-family: Merriweather, serif")
    })
    .await;
    let html = app.get_slide(&alice.key, deck, &last).await.data()["html"].clone();
    assert!(styled, "the chosen font was not saved: {html}");
    chromium.close().await;
}

/// Resizing from a corner: Shift keeps a shape's proportions, a picture keeps its own
/// without Shift; read back through the API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corner_drag_with_shift_keeps_the_proportions() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = "<section>\
        <div class=\"sl-block\" data-block-type=\"shape\" data-block-id=\"r1\" style=\"left:100px;top:100px;width:200px;height:100px\">\
        <div class=\"sl-block-content\" style=\"width:100%;height:100%;background-color:#2a76dd\"></div></div>\
        <div class=\"sl-block\" data-block-type=\"image\" data-block-id=\"i1\" style=\"left:500px;top:300px;width:300px;height:200px\">\
        <div class=\"sl-block-content\"><img src=\"https://images.example.org/photo.png\" alt=\"\"></div></div></section>";
    let CanvasEditor {
        chromium,
        page,
        deck,
        first,
    } = open_canvas(&app, &alice, bin, "Proportions", slide, 2).await;
    let at = on_board(&page).await;
    const SE: &str = "(() => { const r = document.querySelector('.canvas-handle[data-handle=se]').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()";
    for (block, point, modifiers) in [("r1", at(200.0, 150.0), 8), ("i1", at(650.0, 400.0), 0)] {
        mouse(
            &page,
            DispatchMouseEventType::MousePressed,
            point.0,
            point.1,
            1,
        )
        .await;
        mouse(
            &page,
            DispatchMouseEventType::MouseReleased,
            point.0,
            point.1,
            1,
        )
        .await;
        wait_for(&page, SELECTED_BLOCKS, block).await;
        let h = numbers(&page, SE).await;
        // Mostly rightwards: the width leads, the height follows the proportions.
        drag_with(&page, (h[0], h[1]), (h[0] + 90.0, h[1] + 5.0), modifiers).await;
    }
    let saved = eventually(|| async {
        let html = app.get_slide(&alice.key, deck, &first).await.data()["html"].clone();
        let html = html.as_str().unwrap_or("").to_string();
        !block_markup(&html, "r1")
            .replace(' ', "")
            .contains("width:200px")
            && !block_markup(&html, "i1")
                .replace(' ', "")
                .contains("width:300px")
    })
    .await;
    let html = app.get_slide(&alice.key, deck, &first).await.data()["html"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(saved, "the resizes were not saved: {html}");
    for (block, ratio) in [("r1", 2.0), ("i1", 1.5)] {
        let markup = block_markup(&html, block);
        let (w, h) = (style_px(markup, "width"), style_px(markup, "height"));
        assert!(w > ratio * 100.0 + 20.0, "{block} did not grow: {markup}");
        assert!(
            (w / h - ratio).abs() < 0.02,
            "{block} lost its proportions: {markup}"
        );
    }
    shot(&page, "editor-resize-shift").await;
    chromium.close().await;
}

/// Changes made elsewhere appear in an open editor without a reload: another slide's new
/// title in the list, the open slide's new text on the canvas (it held no unsaved edits).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_made_elsewhere_appears_in_the_open_editor() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = &heading_block("Before");
    let CanvasEditor {
        chromium,
        page,
        deck,
        first,
    } = open_canvas(&app, &alice, bin, "Live", slide, 1).await;
    let second = app
        .add_slide(
            &alice.key,
            deck,
            Some(json!({"html": "<section><h2>Second</h2></section>"})),
        )
        .await
        .data()["id"]
        .as_str()
        .unwrap()
        .to_string();
    const LABELS: &str =
        "[...document.querySelectorAll('.slide-label')].map(l => l.textContent).join('|')";
    let started = std::time::Instant::now();
    let labels = wait_for(&page, LABELS, "2 Second").await;
    assert!(labels.contains("2 Second"), "{labels}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    // Another slide renamed through the API: its label follows.
    app.update_slide(
        &alice.key,
        deck,
        &second,
        json!({"html": "<section><h2>Renamed elsewhere</h2></section>"}),
    )
    .await
    .expect(200);
    let started = std::time::Instant::now();
    let labels = wait_for(&page, LABELS, "Renamed elsewhere").await;
    assert!(labels.contains("2 Renamed elsewhere"), "{labels}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    // The open slide changed by a program: the canvas shows its new text.
    app.update_slide(
        &alice.key,
        deck,
        &first,
        json!({"html": slide.replace("Before", "After")}),
    )
    .await
    .expect(200);
    const TEXT: &str = "document.querySelector('.canvas-board [data-block-id=t1]').textContent";
    assert_eq!(wait_for(&page, TEXT, "After").await, "After");
    wait_for(&page, SAVE_STATE, "All changes saved").await;
    shot(&page, "editor-live-change").await;
    // Nothing was written back: the deck is at the program's revision.
    let history = app
        .call(
            reqwest::Method::GET,
            &format!("/v1/decks/{deck}/revisions?per_page=1"),
            Some(&alice.key),
            None,
        )
        .await;
    assert_eq!(history.data()[0]["author"]["via"], "api_key");
    chromium.close().await;
}

/// The owner presents from the speaker view; three audience pages in other browsers (the
/// deck's URL signed out, a password share link, a team member signed in) follow each of ten
/// moves within a second. One audience page stops following, then catches up with a click.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audience_pages_in_other_browsers_follow_the_presenter() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.team_user("alice", "crew").await;
    let bob = app.team_user("bob", "crew").await;
    let slides: Vec<Value> = (0..12)
        .map(|n| json!({"html": format!("<section><h2>Step {n}</h2></section>"), "notes": format!("secret note {n}")}))
        .collect();
    let r = app
        .create_deck(
            &alice.key,
            json!({"title": "Followed", "visibility": "team", "slides": slides}),
        )
        .await;
    r.expect(201);
    let deck = r.data()["id"].as_i64().unwrap();
    let deck_url = r.data()["url"].as_str().unwrap().to_string();
    let share = app
        .call(
            reqwest::Method::POST,
            &format!("/v1/decks/{deck}/share"),
            Some(&alice.key),
            Some(json!({"password": "front row"})),
        )
        .await;
    share.expect(201);
    let share_url = share.data()["url"].as_str().unwrap().to_string();
    // Public now, so that a signed-out visitor may open the deck's own URL too.
    app.update_deck(&alice.key, deck, json!({"visibility": "all"}))
        .await
        .expect(200);

    let presenter = crate::common::Headless::launch(bin.clone(), 1280, 800).await;
    let speaker = presenter.browser.new_page("about:blank").await.unwrap();
    sign_in(&speaker, &app, &alice).await;
    let strangers = crate::common::Headless::launch(bin.clone(), 1024, 700).await;
    let public = strangers.browser.new_page("about:blank").await.unwrap();
    public.goto(format!("{deck_url}/fullscreen")).await.unwrap();
    let shared = strangers.browser.new_page("about:blank").await.unwrap();
    shared.goto(share_url.as_str()).await.unwrap();
    type_into(&shared, "input[name=password]", "front row").await;
    click(&shared, "button[type=submit]").await;
    let team = crate::common::Headless::launch(bin, 1024, 700).await;
    let member = team.browser.new_page("about:blank").await.unwrap();
    sign_in(&member, &app, &bob).await;
    member.goto(deck_url.as_str()).await.unwrap();

    const INDEX: &str =
        "(typeof Reveal !== 'undefined' && Reveal.isReady()) ? String(Reveal.getIndices().h) : ''";
    let audience = [&public, &shared, &member];
    for page in audience {
        wait_for(page, INDEX, "0").await;
    }
    speaker.goto(format!("{deck_url}/present")).await.unwrap();
    wait_for(&speaker, INDEX, "0").await;
    for step in 1..=10 {
        press(&speaker, "body", "ArrowRight").await;
        let want = step.to_string();
        assert_eq!(wait_for(&speaker, INDEX, &want).await, want);
        let started = std::time::Instant::now();
        for page in audience {
            assert_eq!(wait_for(page, INDEX, &want).await, want, "step {step}");
        }
        let took = started.elapsed();
        assert!(took < Duration::from_secs(1), "step {step}: {took:?}");
    }
    // Audience pages never see the notes.
    for page in audience {
        let html: String = page
            .evaluate("document.documentElement.outerHTML")
            .await
            .unwrap()
            .into_value()
            .unwrap();
        assert!(
            !html.contains("secret note"),
            "an audience page holds the notes"
        );
    }

    // The team member reads back on their own: they stop following...
    press(&member, "body", "ArrowLeft").await;
    wait_for(&member, INDEX, "9").await;
    let button = "document.querySelector('.lectern-follow').textContent";
    assert!(
        wait_for(&member, button, "Catch up")
            .await
            .contains("Catch up")
    );
    press(&speaker, "body", "ArrowRight").await;
    wait_for(&public, INDEX, "11").await;
    assert_eq!(
        wait_for(&member, INDEX, "9").await,
        "9",
        "a reader who stopped was moved"
    );
    shot(&member, "audience-catch-up").await;
    // ...and catch up with one click.
    click(&member, ".lectern-follow").await;
    assert_eq!(wait_for(&member, INDEX, "11").await, "11");
    presenter.close().await;
    strangers.close().await;
    team.close().await;
}

/// A second window on the deck shows in the first: a badge on the slide it is on, ringed
/// while it edits the slide, gone once it closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_window_on_the_deck_shows_on_its_slide_and_goes_when_closed() {
    let Some(bin) = crate::common::chromium(module_path!()) else {
        return;
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let CanvasEditor {
        chromium,
        page,
        deck,
        first: _,
    } = open_canvas(&app, &alice, bin, "Together", &heading_block("Here"), 1).await;
    let second = app
        .add_slide(
            &alice.key,
            deck,
            Some(json!({"html": heading_block("There")})),
        )
        .await
        .data()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let edit = app.get_deck(&alice.key, deck, "").await.data()["urls"]["edit"]
        .as_str()
        .unwrap()
        .to_string();
    let other = chromium.browser.new_page(edit.as_str()).await.unwrap();
    wait_for(&other, SAVE_STATE, "All changes saved").await;
    select_slide(&other, &second).await;

    let badges = format!(
        "[...document.querySelectorAll('.slide-item[data-slide-id=\"{second}\"] .presence')].map(b => b.className + ':' + b.textContent).join(',')"
    );
    assert_eq!(wait_for(&page, &badges, "presence:A").await, "presence:A");
    let word = on_board(&other).await(150.0, 110.0);
    double_click(&other, word).await;
    wait_for(&other, EDITING_BLOCK, "t1").await;
    assert_eq!(
        wait_for(&page, &badges, "presence editing:A").await,
        "presence editing:A"
    );
    shot(&page, "editor-presence").await;
    other.close().await.unwrap();
    let gone = format!("({badges}) === '' ? 'gone' : 'there'");
    assert_eq!(wait_for(&page, &gone, "gone").await, "gone");
    chromium.close().await;
}
