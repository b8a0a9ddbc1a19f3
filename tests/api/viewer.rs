//! Deck pages in the browser: who may see what, sanitised slides, the page modes and assets.

use reqwest::StatusCode;
use serde_json::json;

use crate::common::{TestApp, TestUser};

/// A browser signed in as `user` (cookie-keeping, no redirects followed).
async fn signed_in(app: &TestApp, user: Option<&TestUser>) -> reqwest::Client {
    app.browser(user).await
}

async fn page(b: &reqwest::Client, url: &str) -> (StatusCode, String, reqwest::header::HeaderMap) {
    let r = b.get(url).send().await.unwrap();
    let status = r.status();
    let headers = r.headers().clone();
    (status, r.text().await.unwrap(), headers)
}

/// The team address of the team deck titled `title`, from `list_team_decks` as `member`.
async fn team_deck_url(app: &TestApp, member: &TestUser, title: &str) -> String {
    let decks = app
        .call(
            reqwest::Method::GET,
            "/v1/team/decks",
            Some(&member.key),
            None,
        )
        .await;
    decks.expect(200);
    decks
        .data()
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["title"] == title)
        .unwrap()["url"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn deck_url(app: &TestApp, user: &TestUser, body: serde_json::Value) -> String {
    let r = app.create_deck(&user.key, body).await;
    r.expect(201);
    r.data()["url"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_public_deck_presents_to_anyone_with_its_settings_and_to_its_owner_with_notes() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let url = deck_url(&app, &alice, json!({
        "title": "Launch", "visibility": "all", "theme_color": "black-mint", "theme_font": "news", "width": 1024, "height": 768,
        "slides": [{"html": "<section><h1>Hello world</h1></section>", "notes": "Say <hi>"}, {"html": "<section>Two</section>"}]
    }))
    .await;
    let owner = signed_in(&app, Some(&alice)).await;

    let (status, html, headers) = page(&signed_in(&app, None).await, &url).await;
    let (owner_status, owner_html, _) = page(&owner, &url).await;

    assert_eq!(status, 200);
    assert!(html.contains("<h1>Hello world</h1>"));
    assert!(!html.contains("Say &lt;hi&gt;"), "visitors get no notes");
    assert!(!html.contains("/present"), "nor a link to the speaker view");
    assert!(html.contains("theme-black-mint") && html.contains("font-news"));
    assert!(html.contains("\"width\":1024") && html.contains("\"height\":768"));
    assert!(html.contains("/assets/reveal/reveal.js"));
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    assert_eq!(owner_status, 200);
    assert!(
        owner_html.contains("<aside class=\"notes\">Say &lt;hi&gt;</aside>"),
        "the owner's page has the notes as reveal.js expects"
    );
    let (s, h, _) = page(&signed_in(&app, None).await, &format!("{url}/fullscreen")).await;
    assert_eq!(s, 200);
    assert!(h.contains("Hello world"));
    let (s, present, _) = page(&owner, &format!("{url}/present")).await;
    assert_eq!(s, 200);
    assert!(
        present.contains("lectern-notes")
            && present.contains("lectern-timer")
            && present.contains("reveal next")
            && present.contains("Say &lt;hi&gt;")
    );
}

/// Every page a non-owner can reach, for a public deck, a team deck and a share link whose
/// notes carry a unique marker: the marker is nowhere, and the speaker view is not there.
#[tokio::test]
async fn speaker_notes_reach_no_one_but_the_owner() {
    let app = TestApp::spawn().await;
    let owner = app.team_user("owen", "crew").await;
    let mate = app.team_user("mia", "crew").await;
    let stranger = app.user("sam").await;
    let slides = |marker: &str| {
        json!([{"html": "<section>first-slide</section>", "notes": format!("note {marker}")},
               {"html": "<section>two</section>", "notes": format!("{marker} again")}])
    };
    let public = deck_url(
        &app,
        &owner,
        json!({"title": "Open", "visibility": "all", "slides": slides("MARK-PUBLIC-31")}),
    )
    .await;
    let team = deck_url(
        &app,
        &owner,
        json!({"title": "Crew", "visibility": "team", "slides": slides("MARK-TEAM-47")}),
    )
    .await;
    let private = app
        .create_deck(
            &owner.key,
            json!({"title": "Board", "slides": slides("MARK-SHARE-59")}),
        )
        .await;
    let private_id = private.data()["id"].clone();
    let link = share(
        &app,
        &owner,
        &private_id,
        json!({"password": "open sesame"}),
    )
    .await;
    let link_url = link["url"].as_str().unwrap().to_string();
    let token = link_url.split("token=").nth(1).unwrap().to_string();
    let team_address = team_deck_url(&app, &mate, "Crew").await;
    let anon = signed_in(&app, None).await;
    let visitor = signed_in(&app, None).await;
    let right = visitor
        .post(format!("{}/s/{}", app.base, link["id"]))
        .form(&[("token", token.as_str()), ("password", "open sesame")])
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 303);
    let (mia, sam) = (
        signed_in(&app, Some(&mate)).await,
        signed_in(&app, Some(&stranger)).await,
    );

    let mut seen = 0;
    for browser in [&anon, &mia, &sam, &visitor] {
        for base in [&public, &team, &team_address] {
            for suffix in ["", "/fullscreen", "/present", "/edit"] {
                let (status, html, _) = page(browser, &format!("{base}{suffix}")).await;
                assert!(!html.contains("MARK-"), "{base}{suffix}: {status}");
                assert!(!html.contains("lectern-notes"), "{base}{suffix}");
                if suffix == "/present" {
                    assert_eq!(status, 404, "{base}{suffix} is the owner's");
                }
                if suffix == "/edit" {
                    // The owner's too: others sign in first (signed out), are sent to the
                    // viewer (team members) or get the unknown-deck 404; never the editor.
                    assert!(status == 404 || status == 303, "{base}{suffix}: {status}");
                }
                seen += usize::from(status == 200);
            }
        }
        for url in [
            link_url.clone(),
            link["urls"]["fullscreen"].as_str().unwrap().to_string(),
        ] {
            let (status, html, _) = page(browser, &url).await;
            assert!(!html.contains("MARK-"), "{url}");
            seen += usize::from(status == 200 && html.contains("first-slide"));
        }
    }
    // Pages were really shown: the public deck to all four (default and fullscreen), the team
    // deck to the member at both addresses, the share link to the visitor who gave the password.
    assert_eq!(seen, 4 * 2 + 2 * 2 + 2, "pages shown to non-owners");
    // The owner's own views keep the notes.
    let owen = signed_in(&app, Some(&owner)).await;
    for (base, marker) in [(&public, "MARK-PUBLIC-31"), (&team, "MARK-TEAM-47")] {
        for suffix in ["", "/fullscreen", "/present"] {
            let (status, html, _) = page(&owen, &format!("{base}{suffix}")).await;
            assert_eq!(status, 200);
            assert!(html.contains(marker), "{base}{suffix}");
        }
    }
}

#[tokio::test]
async fn private_and_team_decks_show_only_to_who_may_see_them() {
    let app = TestApp::spawn().await;
    let owner = app.team_user("owen", "crew").await;
    let mate = app.team_user("mia", "crew").await;
    let stranger = app.user("sam").await;
    let private = deck_url(
        &app,
        &owner,
        json!({"title": "Mine", "slides": [{"html": "<section>secret plan</section>"}]}),
    )
    .await;
    let team = deck_url(&app, &owner, json!({"title": "Ours", "visibility": "team", "slides": [{"html": "<section>team plan</section>"}]})).await;
    let (anon, owen, mia, sam) = (
        signed_in(&app, None).await,
        signed_in(&app, Some(&owner)).await,
        signed_in(&app, Some(&mate)).await,
        signed_in(&app, Some(&stranger)).await,
    );
    let missing = format!("{}/owen/nothing-here", app.base);

    for (browser, url, visible) in [
        (&anon, &private, false),
        (&mia, &private, false),
        (&sam, &private, false),
        (&owen, &private, true),
        (&anon, &team, false),
        (&sam, &team, false),
        (&mia, &team, true),
        (&owen, &team, true),
    ] {
        let (status, html, _) = page(browser, url).await;
        if visible {
            assert_eq!(status, 200, "{url}");
            assert!(html.contains("plan"));
        } else {
            assert_eq!(status, 404, "{url}");
            assert!(!html.contains("plan"));
            // To the same visitor (whose header it wears).
            let (missing_status, missing_page, _) = page(browser, &missing).await;
            assert_eq!(missing_status, 404);
            assert_eq!(
                html, missing_page,
                "a hidden deck looks exactly like a missing one"
            );
        }
    }
    // The team address of a team deck works for members only.
    let team_url = team_deck_url(&app, &mate, "Ours").await;
    assert_eq!(page(&mia, &team_url).await.0, 200);
    assert_eq!(page(&sam, &team_url).await.0, 404);
    // Only the owner gets the edit page; a team member is sent to the viewer, a stranger
    // gets the unknown-deck answer.
    assert_eq!(page(&owen, &format!("{team}/edit")).await.0, 200);
    let (status, _, headers) = page(&mia, &format!("{team}/edit")).await;
    assert_eq!(status, 303);
    assert!(team.ends_with(headers["location"].to_str().unwrap()));
    assert_eq!(page(&sam, &format!("{team}/edit")).await.0, 404);
}

#[tokio::test]
async fn script_in_slides_never_reaches_the_page_but_layout_does() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let slide = r#"<section><div class="sl-block" data-block-type="text" style="left:40px;top:60px;width:400px;height:80px"><p>Block</p></div><img src="a.png" onerror="alert(1)"><script>alert(2)</script><a href="javascript:alert(3)">x</a></section>"#;
    let url = deck_url(
        &app,
        &alice,
        json!({"visibility": "all", "slides": [{"html": slide}]}),
    )
    .await;

    let (status, html, _) = page(&signed_in(&app, None).await, &url).await;

    assert_eq!(status, 200);
    assert!(!html.contains("alert("), "{html}");
    assert!(html.contains(r#"style="left:40px;top:60px;width:400px;height:80px""#));
    assert!(html.contains(r#"data-block-type="text""#));
    // The stored slide is still what the author wrote (after the slide rules).
    let deck = app.list_decks(&alice.key, "").await.data()[0]["id"].clone();
    let stored = app
        .get_deck(&alice.key, deck, "?include_deck_html=true")
        .await;
    assert!(
        stored.data()["deck_html"]
            .as_str()
            .unwrap()
            .contains("<script>alert(2)</script>")
    );
}

#[tokio::test]
async fn trashed_decks_and_assets() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let r = app
        .create_deck(&alice.key, json!({"visibility": "all"}))
        .await;
    let url = r.data()["url"].as_str().unwrap().to_string();
    app.trash_deck(&alice.key, r.data()["id"].clone())
        .await
        .expect(204);
    let b = signed_in(&app, None).await;

    assert_eq!(page(&b, &url).await.0, 404);
    let (s, js, h) = page(&b, &format!("{}/assets/reveal/reveal.js", app.base)).await;
    assert_eq!(s, 200);
    assert!(h["content-type"].to_str().unwrap().contains("javascript"));
    assert!(js.len() > 50_000);
    assert_eq!(
        page(&b, &format!("{}/assets/web/viewer.js", app.base))
            .await
            .0,
        200
    );
    assert_eq!(
        page(&b, &format!("{}/assets/reveal/../Cargo.toml", app.base))
            .await
            .0,
        404
    );
}

async fn share(
    app: &TestApp,
    user: &TestUser,
    deck: &serde_json::Value,
    body: serde_json::Value,
) -> serde_json::Value {
    let r = app
        .call(
            reqwest::Method::POST,
            &format!("/v1/decks/{deck}/share"),
            Some(&user.key),
            Some(body),
        )
        .await;
    r.expect(201);
    r.data().clone()
}

async fn views(
    app: &TestApp,
    user: &TestUser,
    deck: &serde_json::Value,
) -> (i64, serde_json::Value) {
    let l = app
        .call(
            reqwest::Method::GET,
            &format!("/v1/decks/{deck}/share"),
            Some(&user.key),
            None,
        )
        .await;
    (
        l.data()[0]["view_count"].as_i64().unwrap(),
        l.data()[0]["first_viewed_at"].clone(),
    )
}

#[tokio::test]
async fn a_share_link_presents_a_private_deck_and_counts_one_view_per_visitor_session() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let r = app
        .create_deck(
            &alice.key,
            json!({"slides": [{"html": "<section>shared secret</section>"}]}),
        )
        .await;
    let deck = r.data()["id"].clone();
    let link = share(
        &app,
        &alice,
        &deck,
        json!({"name": "friends", "notify_on_view": true}),
    )
    .await;
    let url = link["url"].as_str().unwrap();
    let visitor = signed_in(&app, None).await;

    let (status, html, headers) = page(&visitor, url).await;
    page(&visitor, url).await;
    let (fs_status, fs_html, _) =
        page(&visitor, link["urls"]["fullscreen"].as_str().unwrap()).await;

    assert_eq!(status, 200);
    assert!(html.contains("shared secret"));
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("script-src 'self'")
    );
    assert_eq!(fs_status, 200);
    assert!(fs_html.contains("shared secret"));
    let (count, first) = views(&app, &alice, &deck).await;
    assert_eq!(count, 1, "one visitor session counts once");
    assert!(first.as_str().unwrap().ends_with('Z'));
    page(&signed_in(&app, None).await, url).await;
    assert_eq!(views(&app, &alice, &deck).await.0, 2);
    // The deck itself stays private.
    assert_eq!(
        page(&visitor, r.data()["url"].as_str().unwrap()).await.0,
        404
    );
}

#[tokio::test]
async fn a_password_link_sends_no_slide_before_the_right_password() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let r = app
        .create_deck(
            &alice.key,
            json!({"slides": [{"html": "<section>board only</section>"}]}),
        )
        .await;
    let deck = r.data()["id"].clone();
    let link = share(&app, &alice, &deck, json!({"password": "open sesame"})).await;
    let url = link["url"].as_str().unwrap().to_string();
    let (id, token) = (
        link["id"].as_i64().unwrap(),
        url.split("token=").nth(1).unwrap().to_string(),
    );
    let visitor = signed_in(&app, None).await;

    let (status, form, _) = page(&visitor, &url).await;
    assert_eq!(status, 200);
    assert!(form.contains("type=\"password\"") && !form.contains("board only"));
    let wrong = visitor
        .post(format!("{}/s/{id}", app.base))
        .form(&[("token", token.as_str()), ("password", "guess")])
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    assert!(!wrong.text().await.unwrap().contains("board only"));
    let right = visitor
        .post(format!("{}/s/{id}", app.base))
        .form(&[("token", token.as_str()), ("password", "open sesame")])
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 303);
    let cookie = right.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.contains("HttpOnly"));

    let (status, html, _) = page(&visitor, &url).await;
    assert_eq!(status, 200);
    assert!(html.contains("board only"));
    // Another browser still gets the form.
    assert!(
        !page(&signed_in(&app, None).await, &url)
            .await
            .1
            .contains("board only")
    );
}

#[tokio::test]
async fn wrong_tokens_revoked_and_expired_links() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.create_deck(&alice.key, json!({})).await.data()["id"].clone();
    let live = share(&app, &alice, &deck, json!({})).await;
    let expired = share(
        &app,
        &alice,
        &deck,
        json!({"expires_at": "2020-01-01T00:00:00Z"}),
    )
    .await;
    let revoked = share(&app, &alice, &deck, json!({})).await;
    app.call(
        reqwest::Method::DELETE,
        &format!("/v1/decks/{deck}/share/{}", revoked["id"]),
        Some(&alice.key),
        None,
    )
    .await
    .expect(204);
    let b = signed_in(&app, None).await;
    let live_url = live["url"].as_str().unwrap();

    assert_eq!(page(&b, &format!("{}x", live_url)).await.0, 404);
    assert_eq!(page(&b, live_url.split('?').next().unwrap()).await.0, 404);
    assert_eq!(page(&b, expired["url"].as_str().unwrap()).await.0, 410);
    assert_eq!(page(&b, revoked["url"].as_str().unwrap()).await.0, 410);
    assert_eq!(
        page(&b, &format!("{}/s/999999?token=abc", app.base))
            .await
            .0,
        404
    );
}

/// `profile_url` and the team `url` lead to pages listing decks: public ones for everyone,
/// the team's own for its signed-in members, never a trashed or private one.
#[tokio::test]
async fn profile_and_team_pages_list_the_decks_a_visitor_may_see() {
    let app = TestApp::spawn().await;
    let owner = app.team_user("owen", "crew").await;
    let mate = app.team_user("mia", "crew").await;
    let stranger = app.user("sam").await;
    for (title, visibility) in [
        ("Open deck", "all"),
        ("Crew deck", "team"),
        ("Secret deck", "self"),
        ("Old deck", "all"),
        ("Newest deck", "all"),
    ] {
        app.create_deck(
            &owner.key,
            json!({"title": title, "visibility": visibility}),
        )
        .await
        .expect(201);
    }
    let old = app
        .list_decks(&owner.key, "")
        .await
        .data()
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["title"] == "Old deck")
        .unwrap()["id"]
        .clone();
    app.trash_deck(&owner.key, &old).await.expect(204);
    let me = app.users_get(&owner.key).await;
    let profile_url = me.data()["profile_url"].as_str().unwrap().to_string();
    let team_url = me.data()["team"]["url"].as_str().unwrap().to_string();
    let (anon, mia, sam) = (
        signed_in(&app, None).await,
        signed_in(&app, Some(&mate)).await,
        signed_in(&app, Some(&stranger)).await,
    );

    let (status, profile, _) = page(&anon, &profile_url).await;
    assert_eq!(status, 200);
    assert!(profile.contains("Open deck") && profile.contains("Newest deck"));
    assert!(
        profile.find("Newest deck").unwrap() < profile.find("Open deck").unwrap(),
        "newest first"
    );
    for hidden in ["Crew deck", "Secret deck", "Old deck"] {
        assert!(!profile.contains(hidden), "{hidden} on the profile");
    }
    assert!(
        profile.contains(&format!("{}/owen/open-deck", app.base)),
        "links the deck"
    );
    assert!(profile.contains("/assets/web/thumbnail.svg") || profile.contains("/thumbnails/"));

    for (browser, member) in [(&anon, false), (&sam, false), (&mia, true)] {
        let (status, team, _) = page(browser, &team_url).await;
        assert_eq!(status, 200);
        assert!(team.contains("Open deck"));
        assert_eq!(
            team.contains("Crew deck"),
            member,
            "team decks for members only"
        );
        assert!(!team.contains("Secret deck") && !team.contains("Old deck"));
        assert!(
            team.contains("/teams/crew/owen/open-deck"),
            "team addresses"
        );
    }

    // Unknown accounts and teams are 404 pages; a path that cannot be an account is an
    // unknown route.
    assert_eq!(page(&anon, &format!("{}/nobody", app.base)).await.0, 404);
    // The first account, `admin`, has a profile like any other.
    let admin = app.user("admin").await;
    app.create_deck(
        &admin.key,
        json!({"title": "Admin's deck", "visibility": "all"}),
    )
    .await
    .expect(201);
    let (status, admin_page, _) = page(&anon, &format!("{}/admin", app.base)).await;
    assert_eq!(status, 200);
    assert!(admin_page.contains("Admin&#39;s deck"), "{admin_page}");
    assert_eq!(
        page(&anon, &format!("{}/teams/nobody", app.base)).await.0,
        404
    );
    // Not a profile: the site's icon.
    let (status, _, headers) = page(&anon, &format!("{}/favicon.ico", app.base)).await;
    assert_eq!(status, 200);
    assert!(headers["content-type"].to_str().unwrap().contains("icon"));
}

#[tokio::test]
async fn profile_pages_are_paged() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    for i in 0..25 {
        app.create_deck(
            &alice.key,
            json!({"title": format!("Deck number {i:02}"), "visibility": "all"}),
        )
        .await
        .expect(201);
    }
    let anon = signed_in(&app, None).await;
    let url = format!("{}/alice", app.base);

    let (_, first, _) = page(&anon, &url).await;
    let (_, second, _) = page(&anon, &format!("{url}?page=2")).await;

    assert_eq!(first.matches("class=\"deck-card\"").count(), 24);
    assert!(first.contains("Deck number 24") && !first.contains("Deck number 00"));
    assert!(first.contains("?page=2") && first.contains("Older"));
    assert_eq!(second.matches("class=\"deck-card\"").count(), 1);
    assert!(second.contains("Deck number 00") && second.contains("Newer"));
    assert_eq!(page(&anon, &format!("{url}?page=0")).await.0, 404);
}
