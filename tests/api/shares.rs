//! Private share links: create, list, revoke, with every rule of 2.10, 4.5 and 8.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{TestApp, TestUser};

async fn create(
    app: &TestApp,
    user: &TestUser,
    deck: impl std::fmt::Display,
    body: Option<Value>,
) -> crate::common::Resp {
    app.call(
        Method::POST,
        &format!("/v1/decks/{deck}/share"),
        Some(&user.key),
        body,
    )
    .await
}

async fn list(app: &TestApp, user: &TestUser, deck: impl std::fmt::Display) -> crate::common::Resp {
    app.call(
        Method::GET,
        &format!("/v1/decks/{deck}/share"),
        Some(&user.key),
        None,
    )
    .await
}

async fn revoke(
    app: &TestApp,
    user: &TestUser,
    deck: impl std::fmt::Display,
    id: impl std::fmt::Display,
) -> crate::common::Resp {
    app.call(
        Method::DELETE,
        &format!("/v1/decks/{deck}/share/{id}"),
        Some(&user.key),
        None,
    )
    .await
}

#[tokio::test]
async fn a_share_link_has_every_field_and_never_its_password() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Private").await;

    let r = create(&app, &alice, deck, Some(json!({
        "name": "For the board", "password": "s3cret pass", "expires_at": "2031-06-01T12:00:00+02:00", "notify_on_view": true
    })))
    .await;

    r.expect(201);
    let s = r.data();
    assert!(s["id"].is_i64());
    assert_eq!(s["deck_id"], deck);
    assert_eq!(s["name"], "For the board");
    let url = s["url"].as_str().unwrap();
    assert!(
        url.starts_with(&app.base) && url.contains("token="),
        "{url}"
    );
    let token = url.split("token=").nth(1).unwrap();
    assert!(token.len() >= 32 && token.chars().all(|c| c.is_ascii_alphanumeric()));
    assert_eq!(s["urls"]["default"], url);
    assert!(
        s["urls"]["fullscreen"]
            .as_str()
            .unwrap()
            .contains(&format!("token={token}"))
    );
    assert_eq!(s["password_protected"], true);
    assert!(s.get("password").is_none() && !r.text.contains("s3cret"));
    assert_eq!(s["expires_at"], "2031-06-01T10:00:00Z");
    assert_eq!(s["expired"], false);
    assert_eq!(s["notify_on_view"], true);
    assert_eq!(s["view_count"], 0);
    assert!(s["first_viewed_at"].is_null());
    assert!(s["created_at"].as_str().unwrap().ends_with('Z'));
}

#[tokio::test]
async fn defaults_expiry_and_unique_tokens() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Private").await;

    let plain = create(&app, &alice, deck, None).await;
    let past = create(
        &app,
        &alice,
        deck,
        Some(json!({"expires_at": "2020-01-01T00:00:00Z"})),
    )
    .await;
    let never = create(&app, &alice, deck, Some(json!({"expires_at": null}))).await;

    plain.expect(201);
    assert_eq!(plain.data()["name"], "");
    assert_eq!(plain.data()["password_protected"], false);
    assert!(plain.data()["expires_at"].is_null());
    assert_eq!(plain.data()["expired"], false);
    assert_eq!(plain.data()["notify_on_view"], false);
    assert_eq!(past.data()["expired"], true);
    assert!(never.data()["expires_at"].is_null());
    assert_ne!(plain.data()["url"], never.data()["url"]);
}

#[tokio::test]
async fn only_private_and_team_decks_can_be_shared() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let teammate = app.team_user("tina", "crew").await;
    let public = app
        .create_deck(&alice.key, json!({"visibility": "all"}))
        .await
        .data()["id"]
        .clone();
    let team = app
        .create_deck(&teammate.key, json!({"visibility": "team"}))
        .await
        .data()["id"]
        .clone();

    create(&app, &alice, &public, None).await.expect_error(422);
    create(&app, &teammate, &team, None).await.expect(201);
}

#[tokio::test]
async fn invalid_bodies_answer_422() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Private").await;

    for body in [
        json!({"name": "x".repeat(256)}),
        json!({"password": "x".repeat(256)}),
        json!({"expires_at": "next week"}),
        json!({"expires_at": 1700000000}),
        json!({"notify_on_view": "yes"}),
        json!({"token": "mine"}),
        json!(["x"]),
    ] {
        create(&app, &alice, deck, Some(body))
            .await
            .expect_error(422);
    }
    create(
        &app,
        &alice,
        deck,
        Some(json!({"name": "n".repeat(255), "password": "p".repeat(255)})),
    )
    .await
    .expect(201);
    assert_eq!(list(&app, &alice, deck).await.json["meta"]["total"], 1);
}

#[tokio::test]
async fn lists_are_newest_first_and_revoked_links_leave_them() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Private").await;
    let other = app.new_deck(&alice.key, "Other").await;
    let mut ids = Vec::new();
    for name in ["one", "two", "three"] {
        ids.push(
            create(&app, &alice, deck, Some(json!({"name": name})))
                .await
                .data()["id"]
                .as_i64()
                .unwrap(),
        );
    }

    let l = list(&app, &alice, deck).await;
    l.expect(200);
    let names: Vec<&str> = l
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["three", "two", "one"]);
    assert_eq!(l.json["meta"], json!({"total": 3}));

    let r = revoke(&app, &alice, deck, ids[1]).await;
    r.expect(204);
    assert!(r.text.is_empty());
    assert_eq!(list(&app, &alice, deck).await.json["meta"]["total"], 2);
    revoke(&app, &alice, deck, ids[1]).await.expect_error(404);
    revoke(&app, &alice, other, ids[0]).await.expect_error(404);
    revoke(&app, &alice, deck, "abc").await.expect_error(422);
    assert_eq!(list(&app, &alice, other).await.json["meta"]["total"], 0);
}

#[tokio::test]
async fn a_deck_holds_at_most_100_links() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Popular").await;
    let mut first = 0;
    for i in 0..100 {
        let r = create(&app, &alice, deck, None).await;
        r.expect(201);
        if i == 0 {
            first = r.data()["id"].as_i64().unwrap();
        }
    }

    create(&app, &alice, deck, None).await.expect_error(422);
    revoke(&app, &alice, deck, first).await.expect(204);
    create(&app, &alice, deck, None).await.expect(201);
    assert_eq!(list(&app, &alice, deck).await.json["meta"]["total"], 100);
}

#[tokio::test]
async fn expired_links_do_not_hold_places() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Popular").await;
    let past = json!({"expires_at": "2020-01-01T00:00:00Z"});
    for _ in 0..3 {
        create(&app, &alice, deck, Some(past.clone()))
            .await
            .expect(201);
    }
    for _ in 0..99 {
        create(&app, &alice, deck, None).await.expect(201);
    }

    let hundredth = create(&app, &alice, deck, None).await;
    let over = create(&app, &alice, deck, None).await;

    hundredth.expect(201);
    over.expect_error(422);
    let listed = list(&app, &alice, deck).await;
    assert_eq!(
        listed.json["meta"]["total"], 103,
        "expired links are still listed"
    );
    let expired = listed
        .data()
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["expired"] == true)
        .count();
    assert_eq!(expired, 3);
}

#[tokio::test]
async fn other_accounts_and_trashed_decks_answer_404() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let mallory = app.user("mallory").await;
    let deck = app.new_deck(&alice.key, "Private").await;
    let id = create(&app, &alice, deck, None).await.data()["id"]
        .as_i64()
        .unwrap();

    list(&app, &mallory, deck).await.expect_error(404);
    create(&app, &mallory, deck, None).await.expect_error(404);
    revoke(&app, &mallory, deck, id).await.expect_error(404);
    app.trash_deck(&alice.key, deck).await.expect(204);
    list(&app, &alice, deck).await.expect_error(404);
    create(&app, &alice, deck, None).await.expect_error(404);
    list(&app, &alice, "nope").await.expect_error(422);
}
