//! What an attacker tried and must not get: script URLs reveal.js would load, markup nested
//! so deep that parsing it stalls the server, pages framed by other sites.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::TestApp;

/// `n` nested `<div>`s around `inner`, in a section.
fn nested(n: usize, inner: &str) -> String {
    format!(
        "<section>{}{inner}{}</section>",
        "<div>".repeat(n),
        "</div>".repeat(n)
    )
}

#[tokio::test]
async fn deeply_nested_slides_are_refused_within_a_second() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Deep").await;
    let slide = app.list_slides(&alice.key, deck, "").await.data()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // ~1 MB of nesting: minutes of parsing before the limit existed.
    let deep = format!("<section>{}</section>", "<div>".repeat(190_000));
    let started = Instant::now();
    app.create_deck(&alice.key, json!({"slides": [{"html": deep}]}))
        .await
        .expect_error(422);
    app.add_slide(&alice.key, deck, Some(json!({"html": deep})))
        .await
        .expect_error(422);
    let r = app
        .update_slide(&alice.key, deck, &slide, json!({"html": nested(101, "x")}))
        .await;
    r.expect_error(422);
    assert!(
        r.json["error"].as_str().unwrap().contains("deep"),
        "{}",
        r.text
    );
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "three refusals took {took:?}"
    );
    app.update_slide(&alice.key, deck, &slide, json!({"html": nested(100, "x")}))
        .await
        .expect(200);
}

#[tokio::test]
async fn healthz_stays_fast_while_20_visitors_open_the_deepest_allowed_slide() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    // The deepest allowed nesting holding ~900 KB of paragraphs.
    let slide = nested(98, &"<p>word <b>bold</b> word</p>".repeat(30_000));
    let r = app
        .create_deck(
            &alice.key,
            json!({"visibility": "all", "slides": [{"html": slide}]}),
        )
        .await;
    r.expect(201);
    let url = r.data()["url"].as_str().unwrap().to_string();
    let client = reqwest::Client::new();
    let views: Vec<_> = (0..20)
        .map(|_| {
            let (client, url) = (client.clone(), url.clone());
            tokio::spawn(async move { client.get(url).send().await.unwrap().status() })
        })
        .collect();
    let mut latencies = Vec::new();
    while latencies.len() < 20 || views.iter().any(|v| !v.is_finished()) {
        let started = Instant::now();
        let status = client
            .get(format!("{}/healthz", app.base))
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, 200);
        latencies.push(started.elapsed());
        if latencies.len() > 2000 {
            break;
        }
    }
    for view in views {
        assert_eq!(view.await.unwrap(), 200);
    }
    latencies.sort();
    let slowest = *latencies.last().unwrap();
    let median = latencies[latencies.len() / 2];
    eprintln!(
        "healthz during 20 views: median {median:?}, slowest {slowest:?} of {}",
        latencies.len()
    );
    assert!(slowest < Duration::from_secs(1), "healthz took {slowest:?}");
}

#[tokio::test]
async fn script_urls_that_reveal_loads_are_refused_when_stored() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    for html in [
        r#"<section data-background-iframe="javascript:while(true){}"></section>"#,
        r#"<section data-background-iframe="data:text/html,<script>while(1){}</script>"></section>"#,
        r#"<section><div data-src="javascript:alert(1)"></div></section>"#,
    ] {
        let r = app
            .create_deck(&alice.key, json!({"slides": [{"html": html}]}))
            .await;
        r.expect_error(422);
        assert!(
            r.json["error"].as_str().unwrap().contains("http(s)"),
            "{}",
            r.text
        );
    }
    app.create_deck(
        &alice.key,
        json!({"slides": [{"html": r#"<section data-background-iframe="https://example.com/embed"></section>"#}]}),
    )
    .await
    .expect(201);
}

#[tokio::test]
async fn deck_pages_may_be_framed_by_this_site_only() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let r = app
        .create_deck(&alice.key, json!({"visibility": "all"}))
        .await;
    r.expect(201);
    let url = r.data()["url"].as_str().unwrap().to_string();
    for page in [url.clone(), format!("{url}/fullscreen")] {
        let resp = reqwest::get(&page).await.unwrap();
        assert_eq!(resp.status(), 200);
        let csp = resp.headers()["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'self'"), "{page}: {csp}");
        assert_eq!(resp.headers()["x-frame-options"], "SAMEORIGIN", "{page}");
    }
}
