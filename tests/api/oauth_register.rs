//! `/oauth/register` is open to anyone: its rate per address and its field sizes are
//! bounded (RFC 7591 error bodies), and the consent page tells a self-registered client
//! from one the administrator added.

use lectern_core::guard::GuessLimits;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestApp;

const CALLBACK: &str = "http://127.0.0.1/callback";

async fn register(app: &TestApp, body: String) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let r = reqwest::Client::new()
        .post(format!("{}/oauth/register", app.base))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let (status, headers) = (r.status(), r.headers().clone());
    (status, headers, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn oversized_registrations_are_refused_with_rfc_7591_errors() {
    let app = TestApp::spawn().await;
    let cases = [
        (
            json!({"client_name": "x".repeat(101), "redirect_uris": [CALLBACK]}),
            "invalid_client_metadata",
        ),
        (
            json!({"client_name": "six", "redirect_uris": vec![CALLBACK; 6]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"client_name": "long", "redirect_uris": [format!("{CALLBACK}/{}", "x".repeat(1000))]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"client_name": "padded", "redirect_uris": [CALLBACK], "logo_uri": "x".repeat(20_000)}),
            "invalid_client_metadata",
        ),
    ];
    for (body, error) in cases {
        let (status, _, answer) = register(&app, body.to_string()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert_eq!(answer["error"], error, "{answer}");
        assert!(answer["error_description"].is_string());
    }
    // A megabyte is refused without being stored or read whole.
    let (status, _, answer) =
        register(&app, format!("{{\"x\":\"{}\"}}", "y".repeat(1 << 20))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer["error"], "invalid_client_metadata");
    // The limits leave room for a real client.
    let ok = json!({"client_name": "é".repeat(100), "redirect_uris": vec![CALLBACK; 5]});
    assert_eq!(register(&app, ok.to_string()).await.0, StatusCode::CREATED);
}

#[tokio::test]
async fn one_address_registers_a_few_clients_a_window_then_gets_429() {
    let app = TestApp::spawn_with(|core| {
        core.with_guess_limits(GuessLimits {
            register_per_address: 3,
            ..Default::default()
        })
    })
    .await;
    let body = json!({"client_name": "CLI", "redirect_uris": [CALLBACK]}).to_string();
    for _ in 0..3 {
        assert_eq!(register(&app, body.clone()).await.0, StatusCode::CREATED);
    }
    let (status, headers, answer) = register(&app, body).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{answer}");
    assert!(answer["error"].is_string(), "{answer}");
    let wait: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=3600).contains(&wait));
}

/// The consent page `browser` (signed in) gets for `client_id`.
async fn consent_page(app: &TestApp, browser: &reqwest::Client, client_id: &str) -> String {
    let query = serde_urlencoded::to_string([
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", CALLBACK),
        (
            "code_challenge",
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        ),
        ("code_challenge_method", "S256"),
        ("state", "s"),
    ])
    .unwrap();
    let r = browser
        .get(format!("{}/oauth/authorize?{query}", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    r.text().await.unwrap()
}

#[tokio::test]
async fn a_self_registered_client_shows_as_unverified_unlike_the_admins_client_of_the_same_name() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let admins = app
        .core
        .admin()
        .create_oauth_client("Lectern Desktop", &[CALLBACK.to_string()], true)
        .await
        .unwrap();
    let body = json!({"client_name": "Lectern Desktop", "redirect_uris": [CALLBACK]});
    let (status, _, registered) = register(&app, body.to_string()).await;
    assert_eq!(status, StatusCode::CREATED);

    let browser = app.browser(Some(&alice)).await;
    let trusted = consent_page(&app, &browser, &admins.client_id).await;
    let unverified = consent_page(&app, &browser, registered["client_id"].as_str().unwrap()).await;

    assert!(trusted.contains("Lectern Desktop"));
    assert!(!trusted.to_lowercase().contains("unverified"), "{trusted}");
    assert!(unverified.contains("Lectern Desktop"));
    assert!(
        unverified.to_lowercase().contains("unverified"),
        "{unverified}"
    );
    // The lines that name the client differ, not only somewhere else on the page.
    let naming = |page: &str| {
        page.lines()
            .flat_map(|l| l.split("<p>"))
            .find(|p| p.contains("Lectern Desktop"))
            .unwrap()
            .to_string()
    };
    assert_ne!(naming(&trusted), naming(&unverified));
}
