//! Guessing a share link's password: tries are limited per link and per address, counted
//! before the password is checked, and refused with 429 and `Retry-After` past the limit.

use std::time::{Duration, Instant};

use lectern_core::guard::GuessLimits;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::common::TestApp;

/// A password link ("1234") to a new private deck of a new account: (path, token).
async fn password_link(app: &TestApp) -> (String, String) {
    let owner = app.user("owner").await;
    let deck = app.new_deck(&owner.key, "Board").await;
    let share = app
        .call(
            Method::POST,
            &format!("/v1/decks/{deck}/share"),
            Some(&owner.key),
            Some(json!({"password": "1234"})),
        )
        .await;
    share.expect(201);
    let url = reqwest::Url::parse(share.data()["url"].as_str().unwrap()).unwrap();
    let token = url
        .query_pairs()
        .find(|(k, _)| k == "token")
        .unwrap()
        .1
        .to_string();
    (url.path().to_string(), token)
}

async fn guess(
    app: &TestApp,
    client: &reqwest::Client,
    path: &str,
    token: &str,
    pw: &str,
) -> reqwest::Response {
    client
        .post(format!("{}{path}", app.base))
        .form(&[("token", token), ("password", pw)])
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn fifty_parallel_guesses_are_refused_past_the_limit_and_so_is_the_right_one() {
    let window = Duration::from_secs(3);
    let app = TestApp::spawn_with(|core| {
        core.with_guess_limits(GuessLimits {
            share_window: window,
            ..Default::default()
        })
    })
    .await;
    let limits = app.core.guess_limits().clone();
    let (path, token) = password_link(&app).await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();

    let started = Instant::now();
    let guesses = (0..50).map(|i| {
        let (client, path, token) = (&client, &path, &token);
        let app = &app;
        async move { guess(app, client, path, token, &format!("{i:04}")).await }
    });
    let answers = futures::future::join_all(guesses).await;
    let wrong = answers
        .iter()
        .filter(|r| r.status() == StatusCode::UNAUTHORIZED)
        .count();
    let refused: Vec<_> = answers
        .iter()
        .filter(|r| r.status() == StatusCode::TOO_MANY_REQUESTS)
        .collect();
    let allowed = limits.share_per_address.min(limits.share_per_link) as usize;
    assert!((1..=allowed).contains(&wrong), "{wrong} tries checked");
    assert_eq!(refused.len(), 50 - wrong);
    for r in &refused {
        let wait: u64 = r.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=window.as_secs()).contains(&wait), "Retry-After {wait}");
    }

    // The right password is refused as well until the window has passed...
    let r = guess(&app, &client, &path, &token, "1234").await;
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    // ...and then it opens the link.
    let opened = loop {
        let r = guess(&app, &client, &path, &token, "1234").await;
        if r.status() == StatusCode::SEE_OTHER {
            break started.elapsed();
        }
        assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(started.elapsed() < window * 4, "the window never ended");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        opened >= window - Duration::from_millis(500),
        "opened after {opened:?}"
    );
}
