//! Errors every route shares: unknown routes, wrong methods, bodies, 401 on each operation.

use reqwest::Method;
use serde_json::json;

use crate::common::TestApp;

/// Every operation built so far, as (method, path).
const OPERATIONS: &[(&str, &str)] = &[
    ("GET", "/v1/user"),
    ("GET", "/v1/decks"),
    ("POST", "/v1/decks"),
    ("GET", "/v1/decks/trashed"),
    ("GET", "/v1/decks/1"),
    ("PATCH", "/v1/decks/1"),
    ("POST", "/v1/decks/1/trash"),
    ("POST", "/v1/decks/1/recover"),
    ("GET", "/v1/decks/1/slides"),
    ("POST", "/v1/decks/1/slides"),
    ("DELETE", "/v1/decks/1/slides"),
    ("GET", "/v1/decks/1/slides/abc"),
    ("PATCH", "/v1/decks/1/slides/abc"),
    ("PATCH", "/v1/decks/1/slides/move"),
    ("GET", "/v1/decks/1/share"),
    ("POST", "/v1/decks/1/share"),
    ("DELETE", "/v1/decks/1/share/1"),
    ("POST", "/v1/decks/1/exports"),
    ("GET", "/v1/decks/1/exports/1"),
    ("GET", "/v1/team/decks"),
    ("GET", "/v1/team/decks/1"),
    ("PATCH", "/v1/decks/1/slides/group"),
    ("POST", "/v1/media"),
    ("GET", "/v1/media"),
    ("GET", "/v1/media/abc"),
    ("DELETE", "/v1/media/abc"),
];

#[tokio::test]
async fn every_operation_answers_401_without_a_credential() {
    let app = TestApp::spawn().await;

    for (method, path) in OPERATIONS {
        let r = app.call(method.parse().unwrap(), path, None, None).await;
        r.expect_error(401);
        assert!(
            r.headers.contains_key("www-authenticate"),
            "{method} {path}"
        );
    }
}

#[tokio::test]
async fn every_operation_answers_401_for_an_unknown_key() {
    let app = TestApp::spawn().await;
    let bogus = format!("lk_{}", "x".repeat(48));

    for (method, path) in OPERATIONS {
        let r = app
            .call(method.parse().unwrap(), path, Some(&bogus), Some(json!({})))
            .await;
        r.expect_error(401);
    }
}

#[tokio::test]
async fn unknown_routes_answer_404_json() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    app.call(Method::GET, "/v1/nothing", Some(&alice.key), None)
        .await
        .expect_error(404);
    app.call(Method::GET, "/v1/decks/1/unknown", Some(&alice.key), None)
        .await
        .expect_error(404);
}

#[tokio::test]
async fn wrong_methods_answer_405_json() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    app.call(Method::PUT, "/v1/decks", Some(&alice.key), None)
        .await
        .expect_error(405);
    app.call(Method::DELETE, "/v1/decks/1", Some(&alice.key), None)
        .await
        .expect_error(405);
    app.call(Method::GET, "/v1/decks/1/trash", Some(&alice.key), None)
        .await
        .expect_error(405);
}

#[tokio::test]
async fn bodies_that_are_not_json_answer_422() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let post = || app.raw(Method::POST, "/v1/decks").bearer_auth(&alice.key);

    let malformed = app
        .send(
            post()
                .header("content-type", "application/json")
                .body("{\"title\": "),
        )
        .await;
    let wrong_type = app
        .send(
            post()
                .header("content-type", "text/plain")
                .body("{\"title\": \"x\"}"),
        )
        .await;
    let no_type = app.send(post().body("{\"title\": \"x\"}")).await;
    let not_object = app.create_deck(&alice.key, json!(["x"])).await;

    malformed.expect_error(422);
    wrong_type.expect_error(422);
    no_type.expect_error(422);
    not_object.expect_error(422);
    assert_eq!(
        app.list_decks(&alice.key, "").await.json["meta"]["total"],
        0
    );
}

#[tokio::test]
async fn an_oversized_body_answers_413_json() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let huge = format!("{{\"title\": \"{}\"}}", "a".repeat(11 * 1024 * 1024));

    let r = app
        .send(
            app.raw(Method::POST, "/v1/decks")
                .bearer_auth(&alice.key)
                .header("content-type", "application/json")
                .body(huge),
        )
        .await;

    r.expect_error(413);
}

#[tokio::test]
async fn responses_carry_a_request_id_and_healthz_needs_no_credential() {
    let app = TestApp::spawn().await;

    let r = app.call(Method::GET, "/healthz", None, None).await;

    r.expect(200);
    assert_eq!(r.json["status"], "ok");
    let first = r.headers["x-request-id"].clone();
    assert!(!first.is_empty());
    let next = app.call(Method::GET, "/healthz", None, None).await;
    assert_ne!(
        next.headers["x-request-id"], first,
        "each request gets its own id"
    );
    // A client's own id comes back as it was sent, on errors too.
    let given = app
        .send(
            app.raw(Method::GET, "/v1/nowhere")
                .header("x-request-id", "client-7f3a"),
        )
        .await;
    given.expect_error(404);
    assert_eq!(given.headers["x-request-id"], "client-7f3a");
}

#[tokio::test]
async fn the_openapi_document_describes_every_operation_built() {
    let app = TestApp::spawn().await;

    let r = app.call(Method::GET, "/v1/openapi.json", None, None).await;

    r.expect(200);
    assert_eq!(r.json["openapi"], "3.1.0");
    let mut ids: Vec<String> = r.json["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|p| {
            p.as_object()
                .unwrap()
                .values()
                .map(|op| op["operationId"].as_str().unwrap().to_string())
        })
        .collect();
    ids.sort();
    let mut expected = crate::common::OPERATIONS.to_vec();
    expected.extend(crate::common::REVISION_OPERATIONS);
    expected.extend(crate::common::MEDIA_OPERATIONS);
    expected.push("group_slides");
    expected.push("deck_events");
    expected.push("present_deck");
    expected.push("set_presence");
    expected.sort();
    assert_eq!(ids, expected);
    assert_eq!(
        r.json["components"]["schemas"]["ThemeColor"]["enum"][0],
        "white-blue"
    );
    assert_eq!(
        r.json["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
}

#[tokio::test]
async fn metrics_count_requests_by_route_without_ids() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let id = app.new_deck(&alice.key, "Counted").await;
    app.get_deck(&alice.key, id, "").await.expect(200);

    let r = app.call(Method::GET, "/metrics", None, None).await;

    r.expect(200);
    assert!(r.text.contains("http_requests_total"), "{}", r.text);
    assert!(r.text.contains("route=\"/v1/decks/{id}\""), "{}", r.text);
    assert!(r.text.contains("http_request_duration_seconds"));
    assert!(
        r.text.contains("lectern_export_queue_depth 0"),
        "no export is waiting: {}",
        r.text
    );
    assert!(
        !r.text.contains(&format!("/v1/decks/{id}\"")),
        "raw ids never become labels"
    );
}

/// Time limits short enough to wait for (the server's defaults are 10 s and 30 s).
const SHORT_TIMEOUTS: lectern::state::Timeouts = lectern::state::Timeouts {
    header_read: std::time::Duration::from_secs(1),
    request: std::time::Duration::from_secs(2),
};

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_disconnected() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let timeouts = SHORT_TIMEOUTS;
    let app = TestApp::spawn_with_timeouts(timeouts).await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: lectern\r\n")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    // The server ends the connection (perhaps after a 408) once the header time is up.
    tokio::time::timeout(timeouts.header_read * 2, stream.read_to_end(&mut answer))
        .await
        .expect("the server closes a connection whose headers never end")
        .ok();
    let waited = started.elapsed();
    assert!(
        waited >= timeouts.header_read - std::time::Duration::from_millis(500),
        "closed after {waited:?}"
    );
    let text = String::from_utf8_lossy(&answer);
    assert!(
        text.is_empty() || text.starts_with("HTTP/1.1 408"),
        "unexpected answer: {text}"
    );
}

#[tokio::test]
async fn a_request_that_takes_longer_than_the_time_limit_answers_408_json() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let timeouts = SHORT_TIMEOUTS;
    let app = TestApp::spawn_with_timeouts(timeouts).await;
    let alice = app.user("alice").await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    // The headers arrive, the body never does: the handler waits until the time limit.
    let head = format!(
        "POST /v1/decks HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{{",
        alice.key
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    tokio::time::timeout(timeouts.request * 2, stream.read_to_end(&mut answer))
        .await
        .expect("the server answers within the time limit")
        .unwrap();
    assert!(started.elapsed() >= timeouts.request - std::time::Duration::from_millis(200));
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("application/json"), "{answer}");
    assert!(answer.contains("{\"error\":"), "{answer}");
    // Nothing was created.
    let decks = app.list_decks(&alice.key, "").await;
    decks.expect(200);
    assert_eq!(decks.json["meta"]["total"], 0);
}

/// Text with a NUL (U+0000) is refused as 422 by every kind of input, on both engines
/// (PostgreSQL's text cannot hold it, so it answered 500 there).
#[tokio::test]
async fn text_with_a_nul_character_is_refused_with_422_everywhere() {
    let app = crate::common::TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Deck").await;
    let slide = app.list_slides(&alice.key, deck, "").await.data()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let nul = "a\u{0}b";
    for (what, answer) in [
        (
            "create_deck title",
            app.create_deck(&alice.key, serde_json::json!({"title": nul}))
                .await,
        ),
        (
            "create_deck slide notes",
            app.create_deck(
                &alice.key,
                serde_json::json!({"title": "x", "slides": [{"notes": nul}]}),
            )
            .await,
        ),
        (
            "update_deck description",
            app.update_deck(&alice.key, deck, serde_json::json!({"description": nul}))
                .await,
        ),
        (
            "update_deck css",
            app.update_deck(&alice.key, deck, serde_json::json!({"css": nul}))
                .await,
        ),
        (
            "add_slide html",
            app.add_slide(
                &alice.key,
                deck,
                Some(serde_json::json!({"html": format!("<section>{nul}</section>")})),
            )
            .await,
        ),
        (
            "update_slide notes",
            app.update_slide(&alice.key, deck, &slide, serde_json::json!({"notes": nul}))
                .await,
        ),
        (
            "create_deck_share name",
            app.call(
                reqwest::Method::POST,
                &format!("/v1/decks/{deck}/share"),
                Some(&alice.key),
                Some(serde_json::json!({"name": nul})),
            )
            .await,
        ),
        (
            "create_deck_share password",
            app.call(
                reqwest::Method::POST,
                &format!("/v1/decks/{deck}/share"),
                Some(&alice.key),
                Some(serde_json::json!({"name": "n", "password": format!("long password {nul}")})),
            )
            .await,
        ),
        (
            "list_decks query",
            app.list_decks(&alice.key, "?page=1%00").await,
        ),
    ] {
        answer.expect_error(422);
        assert!(
            answer.json["error"].as_str().unwrap().contains("NUL"),
            "{what}: {answer:?}"
        );
    }

    // MCP tool arguments.
    let client = crate::mcp::session_client(&app, &alice.key).await;
    let result = crate::mcp::call(
        &client,
        "update_deck",
        serde_json::json!({"id": deck, "title": nul}),
    )
    .await;
    let (message, status) = crate::mcp::failure(&result);
    assert_eq!(status, 422, "{message}");

    // Web forms: the API-key page's label.
    let browser = app.browser(Some(&alice)).await;
    let page = browser
        .get(format!("{}/users/api", app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let csrf = crate::common::csrf_of(&page);
    let answer = browser
        .post(format!("{}/users/api", app.base))
        .form(&[("csrf_token", csrf.as_str()), ("label", nul)])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 422);

    // Nothing was stored.
    let got = app.get_deck(&alice.key, deck, "").await;
    assert_eq!(got.data()["title"], "Deck");
}
