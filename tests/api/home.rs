//! `/` (issue 18, the person's way in): the signed-out page, landing there after sign-in, the
//! person's decks as cards, new decks (blank and from a Markdown file), the trash with
//! recover, the team tab; CSRF on every form; one stylesheet.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::json;

use crate::common::{TestApp, TestUser, csrf_of};

fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Signs `user` in through the form (no `next`); returns the browser and where it was sent.
async fn sign_in(app: &TestApp, user: &TestUser) -> (reqwest::Client, String) {
    let b = browser();
    let form = get(&b, &format!("{}/login", app.base)).await.1;
    let r = b
        .post(format!("{}/login", app.base))
        .form(&[
            ("username", user.username.as_str()),
            ("password", "a long password"),
            ("csrf_token", &csrf_of(&form)),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let to = r.headers()["location"].to_str().unwrap().to_string();
    (b, to)
}

async fn get(b: &reqwest::Client, url: &str) -> (StatusCode, String) {
    let r = b.get(url).send().await.unwrap();
    (r.status(), r.text().await.unwrap())
}

#[tokio::test]
async fn signed_out_the_home_page_says_what_this_is_and_offers_sign_in() {
    let app = TestApp::spawn().await;
    let r = reqwest::get(format!("{}/", app.base)).await.unwrap();
    assert_eq!(r.status(), 200);
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("style-src 'self'") && !csp.contains("script-src"),
        "{csp}"
    );
    let html = r.text().await.unwrap();
    assert!(html.contains("href=\"/login\""), "{html}");
    assert!(html.contains("reveal.js presentations"));
    assert!(html.contains("<link rel=\"stylesheet\" href=\"/assets/web/site.css\">"));
    let css = reqwest::get(format!("{}/assets/web/site.css", app.base))
        .await
        .unwrap();
    assert_eq!(css.status(), 200);
    assert!(
        css.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/css")
    );
    // Every other page shares the layout.
    let (_, login) = get(&browser(), &format!("{}/login", app.base)).await;
    assert!(login.contains("/assets/web/site.css") && login.contains("class=\"site-header\""));
    // The forms need a session: signed out, they send the person to sign in.
    let r = browser()
        .post(format!("{}/web/decks/new", app.base))
        .form(&[("csrf_token", "x")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], "/login?next=/");
}

#[tokio::test]
async fn after_sign_in_a_person_sees_their_decks_and_makes_new_ones() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    app.create_deck(
        &alice.key,
        json!({"title": "Made by a program", "visibility": "all", "slides": [{"html": "<section>a</section>"}, {"html": "<section>b</section>"}]}),
    )
    .await
    .expect(201);
    app.create_deck(&bob.key, json!({"title": "Bob's secret"}))
        .await
        .expect(201);

    let (b, landed) = sign_in(&app, &alice).await;
    assert_eq!(landed, "/");
    let (status, home) = get(&b, &format!("{}/", app.base)).await;
    assert_eq!(status, 200);
    assert!(home.contains("Made by a program"), "{home}");
    assert!(
        home.contains("2 slides") && home.contains(">Public<"),
        "{home}"
    );
    assert!(home.contains("Signed in as <strong>alice</strong>"));
    assert!(!home.contains("Bob's secret") && !home.contains("Bob&#x27;s secret"));
    let deck = app.list_decks(&alice.key, "").await;
    let edit = format!("{}/edit", deck.data()[0]["url"].as_str().unwrap());
    assert!(
        home.contains(&format!("href=\"{edit}\"")),
        "each card opens the editor"
    );
    let csrf = csrf_of(&home);

    // A blank deck: created as the person (`via: web`), then its editor.
    let r = b
        .post(format!("{}/web/decks/new", app.base))
        .form(&[("csrf_token", csrf.as_str()), ("title", "From the browser")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let to = r.headers()["location"].to_str().unwrap().to_string();
    assert!(to.ends_with("/alice/from-the-browser/edit"), "{to}");
    let decks = app.list_decks(&alice.key, "").await;
    assert_eq!(decks.data()[0]["title"], "From the browser");
    let id = decks.data()[0]["id"].as_i64().unwrap();
    let history = app
        .call(
            reqwest::Method::GET,
            &format!("/v1/decks/{id}/revisions"),
            Some(&alice.key),
            None,
        )
        .await;
    let author = &history.data()[0]["author"];
    assert_eq!(
        (author["via"].as_str(), author["label"].as_str()),
        (Some("web"), None)
    );
    assert_eq!(author["username"], "alice");

    // From a Markdown file, through the importer.
    let markdown = "# Imported talk\n\nFirst words\n\n---\n\n## Second\n\n- a point\n";
    let form = Form::new().text("csrf_token", csrf.clone()).part(
        "file",
        Part::bytes(markdown.as_bytes().to_vec()).file_name("talk.md"),
    );
    let r = b
        .post(format!("{}/web/decks/import", app.base))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert!(r.headers()["location"].to_str().unwrap().ends_with("/edit"));
    let decks = app.list_decks(&alice.key, "").await;
    assert_eq!(decks.data()[0]["title"], "Imported talk");
    let id = decks.data()[0]["id"].as_i64().unwrap();
    let slides = app.list_slides(&alice.key, id, "").await;
    assert_eq!(slides.data().as_array().unwrap().len(), 2);

    // Without the CSRF token nothing happens.
    let before = app.list_decks(&alice.key, "").await.json["meta"]["total"].clone();
    for (path, form) in [
        ("/web/decks/new", vec![("title", "Forged")]),
        (
            &*format!("/web/decks/{id}/trash"),
            vec![("csrf_token", "wrong")],
        ),
    ] {
        let r = b
            .post(format!("{}{path}", app.base))
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(
        app.list_decks(&alice.key, "").await.json["meta"]["total"],
        before
    );
}

#[tokio::test]
async fn decks_go_to_the_trash_and_come_back_from_the_page() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let id = app.new_deck(&alice.key, "Keep me").await;
    let bobs = app.new_deck(&bob.key, "Not yours").await;
    let (b, _) = sign_in(&app, &alice).await;
    let (_, home) = get(&b, &format!("{}/", app.base)).await;
    let csrf = csrf_of(&home);
    let post = |path: String| {
        b.post(format!("{}{path}", app.base))
            .form(&[("csrf_token", csrf.as_str())])
            .send()
    };

    let r = post(format!("/web/decks/{id}/trash")).await.unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    app.get_deck(&alice.key, id, "").await.expect_error(404);
    let (_, trash) = get(&b, &format!("{}/?tab=trash", app.base)).await;
    assert!(trash.contains("Keep me") && trash.contains(&format!("/web/decks/{id}/recover")));
    let (_, home) = get(&b, &format!("{}/", app.base)).await;
    assert!(!home.contains("Keep me"));

    let r = post(format!("/web/decks/{id}/recover")).await.unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    app.get_deck(&alice.key, id, "").await.expect(200);

    // Another account's deck is not found, and stays where it was.
    let r = post(format!("/web/decks/{bobs}/trash")).await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    app.get_deck(&bob.key, bobs, "").await.expect(200);
}

#[tokio::test]
async fn a_team_member_sees_the_teams_decks_in_their_own_tab() {
    let app = TestApp::spawn().await;
    let ann = app.team_user("ann", "crew").await;
    let ben = app.team_user("ben", "crew").await;
    app.create_deck(
        &ben.key,
        json!({"title": "Shared plan", "visibility": "team"}),
    )
    .await
    .expect(201);
    app.create_deck(
        &ben.key,
        json!({"title": "Ben alone", "visibility": "self"}),
    )
    .await
    .expect(201);
    let (b, _) = sign_in(&app, &ann).await;
    let (_, home) = get(&b, &format!("{}/", app.base)).await;
    assert!(home.contains("href=\"/?tab=team\""));
    let (status, team) = get(&b, &format!("{}/?tab=team", app.base)).await;
    assert_eq!(status, 200);
    assert!(
        team.contains("Shared plan") && team.contains("by ben name"),
        "{team}"
    );
    assert!(!team.contains("Ben alone"));
}

#[tokio::test]
async fn lecterns_own_pages_call_the_rest_api_with_the_session_and_its_csrf_header() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let id = app.new_deck(&alice.key, "Edited in the browser").await;
    let (b, _) = sign_in(&app, &alice).await;
    let (_, home) = get(&b, &format!("{}/", app.base)).await;
    let csrf = csrf_of(&home);
    let url = format!("{}/v1/decks/{id}", app.base);

    // The cookie alone is no credential: another site's page could make the browser send it.
    let r = b.get(&url).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let r = b
        .get(&url)
        .header("x-csrf-token", "wrong")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = browser()
        .get(&url)
        .header("x-csrf-token", &csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);

    // With both, the person reads and writes their deck through the same operations.
    let r = b
        .get(&url)
        .header("x-csrf-token", &csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let r = b
        .patch(&url)
        .header("x-csrf-token", &csrf)
        .header("if-match", &etag)
        .json(&json!({"title": "Renamed in the browser"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().contains_key("ratelimit-remaining"));
    let history = app
        .call(
            reqwest::Method::GET,
            &format!("/v1/decks/{id}/revisions"),
            Some(&alice.key),
            None,
        )
        .await;
    assert_eq!(history.data()[0]["author"]["via"], "web");
    // A stale tag is refused as for any client.
    let r = b
        .patch(&url)
        .header("x-csrf-token", &csrf)
        .header("if-match", &etag)
        .json(&json!({"title": "Lost?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 412);
    // Another account's deck is as unknown as without a session.
    let bob = app.user("bob").await;
    let bobs = app.new_deck(&bob.key, "Bob's").await;
    let r = b
        .get(format!("{}/v1/decks/{bobs}", app.base))
        .header("x-csrf-token", &csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);

    // After signing out the same request is 401.
    let r = b
        .post(format!("{}/logout", app.base))
        .form(&[("csrf_token", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let r = b
        .get(&url)
        .header("x-csrf-token", &csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn a_missing_page_wears_the_signed_in_header_and_every_page_has_an_icon() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let missing = format!("{}/alice/no-such-deck", app.base);
    // Signed out: the header offers sign-in.
    let (status, html) = get(&browser(), &missing).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(html.contains("There is no presentation here."), "{html}");
    assert!(html.contains("href=\"/login\">Sign in</a>"), "{html}");
    // Signed in: the same page with the account's header, and no "Sign in".
    let (b, _) = sign_in(&app, &alice).await;
    let r = b.get(&missing).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(
        r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("default-src 'none'")
    );
    let html = r.text().await.unwrap();
    assert!(html.contains("There is no presentation here."), "{html}");
    assert!(
        html.contains("Signed in as <strong>alice</strong>"),
        "{html}"
    );
    assert!(!html.contains("Sign in</a>"), "{html}");
    // The same for a page of the site that is not there, and a profile that is not.
    for path in ["/nobody-here", "/alice/no-such-deck/present"] {
        let (status, html) = get(&b, &format!("{}{path}", app.base)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(
            html.contains("Signed in as <strong>alice</strong>"),
            "{path}: {html}"
        );
    }

    let r = reqwest::get(format!("{}/favicon.ico", app.base))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let kind = r.headers()["content-type"].to_str().unwrap().to_string();
    assert!(kind.contains("icon"), "{kind}");
    let ico = r.bytes().await.unwrap();
    // An icon directory (reserved 0, type 1) whose images are PNGs.
    assert_eq!(&ico[..4], &[0, 0, 1, 0]);
    let first = u32::from_le_bytes(ico[18..22].try_into().unwrap()) as usize;
    assert!(ico[first..].starts_with(b"\x89PNG"));
}
