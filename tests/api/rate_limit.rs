//! Request-rate limits (interface sections 4 and 7, `--rate-limit`): per credential, per
//! client address without one, 429 with `Retry-After` over the limit, and the `RateLimit-*`
//! headers on every response.

use reqwest::Method;

use crate::common::{Resp, TestApp};

fn header(resp: &Resp, name: &str) -> Option<u64> {
    resp.headers.get(name).map(|v| {
        v.to_str()
            .unwrap()
            .parse()
            .expect("a number of seconds or requests")
    })
}

#[tokio::test]
async fn requests_over_the_limit_answer_429_with_retry_after() {
    let app = TestApp::spawn_limited(5, |core| core).await;
    let alice = app.user("alice").await;
    for remaining in (0..5).rev() {
        let resp = app.users_get(&alice.key).await;
        resp.expect(200);
        assert_eq!(header(&resp, "ratelimit-limit"), Some(5));
        assert_eq!(header(&resp, "ratelimit-remaining"), Some(remaining));
        let reset = header(&resp, "ratelimit-reset").expect("RateLimit-Reset is sent");
        assert!((1..=60).contains(&reset), "reset {reset}");
        assert!(resp.headers.get("retry-after").is_none());
    }
    // Over the limit: every operation answers 429, with the headers.
    let resp = app.users_get(&alice.key).await;
    resp.expect_error(429);
    let retry = header(&resp, "retry-after").expect("Retry-After is sent");
    // 5 a minute refill one every 12 s.
    assert!((1..=12).contains(&retry), "retry after {retry}");
    assert_eq!(header(&resp, "ratelimit-remaining"), Some(0));
    assert_eq!(header(&resp, "ratelimit-limit"), Some(5));
    assert!(header(&resp, "ratelimit-reset").unwrap() >= retry);
    app.create_deck(&alice.key, serde_json::json!({"title": "t"}))
        .await
        .expect_error(429);

    // Another credential of the same account has its own budget; so has another account.
    let second = app
        .core
        .admin()
        .create_api_key("alice", "second")
        .await
        .unwrap();
    let resp = app.list_decks(second.expose(), "").await;
    resp.expect(200);
    // The limited create changed nothing.
    assert_eq!(resp.json["meta"]["total"], 0);
    let bob = app.user("bob").await;
    let resp = app.users_get(&bob.key).await;
    resp.expect(200);
    assert_eq!(header(&resp, "ratelimit-remaining"), Some(4));
}

#[tokio::test]
async fn requests_without_a_valid_credential_count_against_the_client_address() {
    let app = TestApp::spawn_limited(3, |core| core).await;
    let alice = app.user("alice").await;
    for (i, key) in [None, Some("lk_not_a_key"), None].into_iter().enumerate() {
        let resp = app.call(Method::GET, "/v1/decks", key, None).await;
        resp.expect_error(401);
        assert_eq!(header(&resp, "ratelimit-remaining"), Some(2 - i as u64));
    }
    let resp = app
        .call(Method::GET, "/v1/decks", Some("lk_other"), None)
        .await;
    resp.expect_error(429);
    assert!(header(&resp, "retry-after").is_some());
    // A valid key is counted on its own.
    let resp = app.users_get(&alice.key).await;
    resp.expect(200);
    assert_eq!(header(&resp, "ratelimit-remaining"), Some(2));
}

#[tokio::test]
async fn headers_are_on_error_answers_too() {
    let app = TestApp::spawn_limited(100, |core| core).await;
    let alice = app.user("alice").await;
    for resp in [
        app.get_deck(&alice.key, 999, "").await,
        app.list_decks(&alice.key, "?per_page=0").await,
        app.call(Method::GET, "/v1/openapi.json", None, None).await,
    ] {
        assert_eq!(header(&resp, "ratelimit-limit"), Some(100), "{}", resp.text);
        assert!(header(&resp, "ratelimit-remaining").is_some());
        assert!(header(&resp, "ratelimit-reset").is_some());
    }
}

#[tokio::test]
async fn a_limit_of_zero_turns_limiting_off() {
    let app = TestApp::spawn_limited(0, |core| core).await;
    let alice = app.user("alice").await;
    for _ in 0..50 {
        let resp = app.users_get(&alice.key).await;
        resp.expect(200);
        assert!(resp.headers.get("ratelimit-limit").is_none());
    }
}
