//! `users_get` and authentication.

use reqwest::Method;

use crate::common::TestApp;

#[tokio::test]
async fn users_get_returns_the_callers_account_with_every_field() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    let r = app.users_get(&alice.key).await;

    r.expect(200);
    let u = r.data();
    assert_eq!(u["id"], alice.id);
    assert_eq!(u["username"], "alice");
    assert_eq!(u["name"], "alice name");
    assert_eq!(u["email"], "alice@example.org");
    for field in [
        "description",
        "thumbnail_url",
        "website_url",
        "twitter_handle",
    ] {
        assert!(u[field].is_string(), "{field} is not a string");
    }
    assert_eq!(u["profile_url"], format!("{}/alice", app.base));
    assert_eq!(u["account"]["type"], "personal");
    assert_eq!(u["account"]["billing_period"], "none");
    assert!(u["team"].is_null());
    assert!(u["created_at"].as_str().unwrap().ends_with('Z'));
    assert!(u["updated_at"].is_string());
    assert!(r.json.get("meta").is_none());
}

#[tokio::test]
async fn each_key_sees_only_its_own_account() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;

    assert_eq!(app.users_get(&alice.key).await.data()["username"], "alice");
    assert_eq!(app.users_get(&bob.key).await.data()["username"], "bob");
}

#[tokio::test]
async fn missing_malformed_and_unknown_credentials_answer_401_with_a_bearer_challenge() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let mut wrong_secret = alice.key.clone();
    let last = wrong_secret.pop().unwrap();
    wrong_secret.push(if last == 'a' { 'b' } else { 'a' });

    let cases = [
        app.send(app.raw(Method::GET, "/v1/user")).await,
        app.send(
            app.raw(Method::GET, "/v1/user")
                .header("authorization", "Basic YTpi"),
        )
        .await,
        app.send(
            app.raw(Method::GET, "/v1/user")
                .header("authorization", "Bearer"),
        )
        .await,
        app.users_get("lk_nope").await,
        app.users_get(&wrong_secret).await,
    ];

    for r in cases {
        r.expect_error(401);
        let challenge = r.headers["www-authenticate"].to_str().unwrap();
        assert!(challenge.starts_with("Bearer"), "{challenge}");
    }
}

#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    let r = app
        .send(
            app.raw(Method::GET, "/v1/user")
                .header("authorization", format!("bearer {}", alice.key)),
        )
        .await;

    r.expect(200);
}
