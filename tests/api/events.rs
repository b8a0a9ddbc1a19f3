//! A deck's event stream (`GET /v1/decks/{deck_id}/events`, Server-Sent Events): every
//! write, whichever way it came, is one `revision` event; a stream resumes after
//! `Last-Event-ID` without a gap or a duplicate; only the deck's readers may listen.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{TestApp, TestUser};

/// One event as the stream sent it.
#[derive(Debug)]
pub(crate) struct Sse {
    event: String,
    id: Option<i64>,
    data: Value,
}

/// An open event stream, read as a client reads it.
pub(crate) struct Events {
    response: reqwest::Response,
    buffer: String,
}

impl Events {
    async fn open(app: &TestApp, user: &TestUser, deck: i64, resume: Resume) -> Events {
        Events::connect(&app.base, &user.key, deck, resume).await
    }

    /// A stream of deck `deck` from the server at `base`.
    pub(crate) async fn connect(base: &str, key: &str, deck: i64, resume: Resume) -> Events {
        let mut url = format!("{base}/v1/decks/{deck}/events");
        if let Resume::Query(after) = resume {
            url.push_str(&format!("?last_event_id={after}"));
        }
        let mut request = reqwest::Client::new().get(url).bearer_auth(key);
        if let Resume::Header(after) = resume {
            request = request.header("last-event-id", after.to_string());
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        Events {
            response,
            buffer: String::new(),
        }
    }

    /// The next event (comment lines skipped); panics when none comes within 5 s.
    async fn next(&mut self) -> Sse {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let (mut event, mut id, mut data) = (None, None, String::new());
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        event = Some(v.trim().to_string());
                    } else if let Some(v) = line.strip_prefix("id:") {
                        id = v.trim().parse().ok();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim());
                    }
                }
                if let Some(event) = event {
                    let data = serde_json::from_str(&data).unwrap_or(Value::Null);
                    return Sse { event, id, data };
                }
                continue;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let chunk = tokio::time::timeout(left, self.response.chunk())
                .await
                .expect("an event within 5 s")
                .unwrap()
                .expect("the stream stays open");
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// The next event, which must be revision `revision` made by `operation`.
    pub(crate) async fn revision(&mut self, revision: i64, operation: &str) -> Sse {
        let e = self.next().await;
        assert_eq!(e.event, "revision", "{e:?}");
        assert_eq!(e.id, Some(revision), "{e:?}");
        assert_eq!(e.data["revision"], revision, "{e:?}");
        assert_eq!(e.data["operation"], operation, "{e:?}");
        e
    }
}

#[derive(Clone, Copy)]
pub(crate) enum Resume {
    Now,
    Header(i64),
    Query(i64),
}

/// A deck of `alice`'s with two slides: its id, revision and first slide.
async fn deck_of(app: &TestApp, alice: &TestUser) -> (i64, i64, String) {
    let r = app
        .create_deck(
            &alice.key,
            json!({"title": "Live", "slides": [{"html": "<section><h2>One</h2></section>"}, {}]}),
        )
        .await;
    r.expect(201);
    let d = r.data();
    (
        d["id"].as_i64().unwrap(),
        d["revision"].as_i64().unwrap(),
        d["slide_ids"][0].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn a_rest_an_mcp_and_an_editor_write_each_arrive_as_one_revision_event() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, revision, first) = deck_of(&app, &alice).await;
    let mut events = Events::open(&app, &alice, deck, Resume::Now).await;

    // Through REST with an API key.
    let started = Instant::now();
    app.update_slide(&alice.key, deck, &first, json!({"notes": "rest"}))
        .await
        .expect(200);
    let e = events.revision(revision + 1, "update_slide").await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(e.data["deck_id"], deck);
    assert_eq!(e.data["slide_ids"], json!([first]));
    assert_eq!(e.data["author"]["username"], "alice");
    assert_eq!(e.data["author"]["via"], "api_key");
    assert!(e.data["created_at"].is_string(), "{e:?}");

    // Through MCP.
    let client = crate::mcp::session_client(&app, &alice.key).await;
    let started = Instant::now();
    crate::mcp::ok(
        &crate::mcp::call(
            &client,
            "update_deck",
            json!({"id": deck, "title": "Live from MCP"}),
        )
        .await,
    );
    let e = events.revision(revision + 2, "update_deck").await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(e.data["author"]["via"], "mcp");
    assert_eq!(e.data["slide_ids"], json!([]));
    client.cancel().await.unwrap();

    // As the editor writes: the session cookie and its CSRF token.
    let browser = app.browser(Some(&alice)).await;
    let csrf = app.session_csrf(&browser).await;
    let started = Instant::now();
    let r = browser
        .patch(format!("{}/v1/decks/{deck}/slides/{first}", app.base))
        .header("x-csrf-token", csrf)
        .json(&json!({"html": "<section><h2>Edited</h2></section>"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let e = events.revision(revision + 3, "update_slide").await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(e.data["author"]["via"], "web");

    // One event each: the deck is at the last one.
    let got = app.get_deck(&alice.key, deck, "").await;
    assert_eq!(got.data()["revision"], revision + 3);
}

#[tokio::test]
async fn a_stream_resumes_after_the_last_event_id_without_a_gap_or_a_duplicate() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, revision, first) = deck_of(&app, &alice).await;
    let mut events = Events::open(&app, &alice, deck, Resume::Now).await;
    app.update_slide(&alice.key, deck, &first, json!({"notes": "seen"}))
        .await
        .expect(200);
    let seen = events
        .revision(revision + 1, "update_slide")
        .await
        .id
        .unwrap();
    drop(events);

    // Fifty writes while nobody listens.
    for n in 0..50 {
        app.update_slide(
            &alice.key,
            deck,
            &first,
            json!({"notes": format!("missed {n}")}),
        )
        .await
        .expect(200);
    }
    let mut events = Events::open(&app, &alice, deck, Resume::Header(seen)).await;
    for n in 1..=50 {
        events.revision(seen + n, "update_slide").await;
    }
    // Then live, in order.
    app.add_slide(&alice.key, deck, None).await.expect(201);
    events.revision(seen + 51, "add_slide").await;

    // The query parameter does the same for clients that cannot set the header.
    let mut events = Events::open(&app, &alice, deck, Resume::Query(seen + 49)).await;
    events.revision(seen + 50, "update_slide").await;
    events.revision(seen + 51, "add_slide").await;
}

#[tokio::test]
async fn a_resume_point_the_kept_history_no_longer_reaches_answers_reset() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, revision, first) = deck_of(&app, &alice).await;
    for n in 0..5 {
        app.update_slide(&alice.key, deck, &first, json!({"notes": format!("{n}")}))
            .await
            .expect(200);
    }
    let store = lectern::cli::storage::open_raw_store(&app.database_url)
        .await
        .unwrap();
    let later = lectern_core::time::Timestamp::from_unix_micros(
        lectern_core::time::Timestamp::now().unix_micros() + 60_000_000,
    );
    // The newest two kept: revisions up to revision + 3 are gone.
    assert!(store.prune_history(later, 2).await.unwrap() > 0);
    let mut events = Events::open(&app, &alice, deck, Resume::Header(revision)).await;
    let e = events.next().await;
    assert_eq!(e.event, "reset", "{e:?}");
    // After it, the stream goes on from the deck as it is now.
    app.update_slide(&alice.key, deck, &first, json!({"notes": "after"}))
        .await
        .expect(200);
    events.revision(revision + 6, "update_slide").await;
}

#[tokio::test]
async fn only_the_decks_readers_may_listen() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let (deck, _, _) = deck_of(&app, &alice).await;
    let path = format!("/v1/decks/{deck}/events");
    app.call(Method::GET, &path, Some(&bob.key), None)
        .await
        .expect_error(404);
    app.call(Method::GET, &path, None, None)
        .await
        .expect_error(401);
    app.call(
        Method::GET,
        "/v1/decks/999999/events",
        Some(&alice.key),
        None,
    )
    .await
    .expect_error(404);
    let r = app
        .send(
            app.raw(Method::GET, &path)
                .bearer_auth(&alice.key)
                .header("last-event-id", "yesterday"),
        )
        .await;
    r.expect_error(422);
}

/// Records the `notifications/resources/updated` an MCP session hears.
struct Recorder(tokio::sync::mpsc::UnboundedSender<String>);

impl rmcp::ClientHandler for Recorder {
    fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        let _ = self.0.send(params.uri);
        std::future::ready(())
    }
}

#[tokio::test]
#[allow(deprecated)] // resources/subscribe, as the session revisions of MCP subscribe
async fn an_mcp_session_subscribed_to_a_deck_hears_of_each_revision() {
    use rmcp::ServiceExt;
    use rmcp::model::{
        ReadResourceRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let (deck, _, first) = deck_of(&app, &alice).await;
    let (other, _, other_first) = deck_of(&app, &alice).await;
    let bobs = app.new_deck(&bob.key, "Bob's").await;
    let (sender, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let client = Recorder(sender)
        .serve(crate::mcp::transport(&app, Some(&alice.key)))
        .await
        .unwrap();
    let uri = format!("lectern://decks/{deck}");

    // Her decks are resources, read as their JSON; Bob's is not hers.
    let listed = client.list_resources(None).await.unwrap();
    let uris: Vec<&str> = listed.resources.iter().map(|r| r.uri.as_str()).collect();
    assert!(uris.contains(&uri.as_str()), "{uris:?}");
    assert!(
        !uris.contains(&format!("lectern://decks/{bobs}").as_str()),
        "{uris:?}"
    );
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri.clone()))
        .await
        .unwrap();
    let text = match &read.contents[0] {
        rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("{other:?}"),
    };
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["id"], deck);
    assert!(
        json["deck_html"].as_str().unwrap().contains("One"),
        "{json}"
    );
    let refused = client
        .subscribe(SubscribeRequestParams::new(format!(
            "lectern://decks/{bobs}"
        )))
        .await;
    assert!(refused.is_err(), "{refused:?}");

    // Subscribed: each revision, whoever makes it, is one notification.
    client
        .subscribe(SubscribeRequestParams::new(uri.clone()))
        .await
        .unwrap();
    for n in 0..3 {
        app.update_slide(&alice.key, deck, &first, json!({"notes": format!("{n}")}))
            .await
            .expect(200);
        let got = tokio::time::timeout(Duration::from_secs(2), heard.recv())
            .await
            .expect("a notification within 2 s");
        assert_eq!(got.as_deref(), Some(uri.as_str()));
    }
    // Unsubscribed: a write to it is not heard, while one to another subscribed deck is.
    client
        .unsubscribe(UnsubscribeRequestParams::new(uri.clone()))
        .await
        .unwrap();
    let other_uri = format!("lectern://decks/{other}");
    client
        .subscribe(SubscribeRequestParams::new(other_uri.clone()))
        .await
        .unwrap();
    app.update_slide(&alice.key, deck, &first, json!({"notes": "unheard"}))
        .await
        .expect(200);
    app.update_slide(&alice.key, other, &other_first, json!({"notes": "heard"}))
        .await
        .expect(200);
    let got = tokio::time::timeout(Duration::from_secs(2), heard.recv())
        .await
        .expect("a notification within 2 s");
    assert_eq!(got.as_deref(), Some(other_uri.as_str()));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn presence_reaches_the_listeners_and_those_who_come_later_hear_who_is_there() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let (deck, revision, first) = deck_of(&app, &alice).await;
    let path = format!("/v1/decks/{deck}/presence");
    let present = |body: Value| {
        let (app, key, path) = (&app, alice.key.clone(), path.clone());
        async move { app.call(Method::PUT, &path, Some(&key), Some(body)).await }
    };
    let mut events = Events::open(&app, &alice, deck, Resume::Now).await;
    present(json!({"client": "tab-1", "slide_id": first}))
        .await
        .expect(204);
    let e = events.next().await;
    assert_eq!(e.event, "presence", "{e:?}");
    assert_eq!(e.id, None, "presence is not a revision");
    assert_eq!(e.data["username"], "alice");
    assert_eq!(e.data["client"], "tab-1");
    assert_eq!(e.data["slide_id"], first.as_str());
    assert_eq!(e.data["editing"], false);
    assert_eq!(e.data["left"], false);
    present(json!({"client": "tab-1", "slide_id": first, "editing": true}))
        .await
        .expect(204);
    assert_eq!(events.next().await.data["editing"], true);

    // Who comes later hears who is there first.
    let mut later = Events::open(&app, &alice, deck, Resume::Now).await;
    let e = later.next().await;
    assert_eq!(
        (e.event.as_str(), e.data["editing"].clone()),
        ("presence", json!(true))
    );

    // Leaving is told; who comes after hears nobody.
    present(json!({"client": "tab-1", "slide_id": null, "left": true}))
        .await
        .expect(204);
    assert_eq!(events.next().await.data["left"], true);
    let mut after = Events::open(&app, &alice, deck, Resume::Now).await;
    app.update_slide(&alice.key, deck, &first, json!({"notes": "n"}))
        .await
        .expect(200);
    after.revision(revision + 1, "update_slide").await;

    // Refused: another account's deck, and what is no presence.
    app.call(
        Method::PUT,
        &path,
        Some(&bob.key),
        Some(json!({"client": "b"})),
    )
    .await
    .expect_error(404);
    present(json!({"client": ""})).await.expect_error(422);
    present(json!({"client": "x", "colour": "red"}))
        .await
        .expect_error(422);
}
