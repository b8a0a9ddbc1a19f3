//! Revisions (issue 16): every write is one revision with its author, `ETag`/`If-Match`
//! (and MCP `if_revision`) stop lost updates, and any kept revision can be read and restored.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{PgDatabase, TestApp, TestUser, account, serve, testing_postgres};
use crate::mcp::{call, failure, ok, session_client};

async fn revisions(app: &TestApp, key: &str, deck: i64, query: &str) -> Value {
    let r = app
        .call(
            Method::GET,
            &format!("/v1/decks/{deck}/revisions{query}"),
            Some(key),
            None,
        )
        .await;
    r.expect(200);
    r.json.clone()
}

async fn revision_of(app: &TestApp, key: &str, deck: i64) -> i64 {
    let r = app.get_deck(key, deck, "").await;
    r.expect(200);
    r.data()["revision"].as_i64().unwrap()
}

fn if_match(
    app: &TestApp,
    method: Method,
    path: &str,
    key: &str,
    tag: &str,
) -> reqwest::RequestBuilder {
    app.raw(method, path)
        .bearer_auth(key)
        .header("If-Match", tag)
}

async fn deck_of(app: &TestApp, user: &TestUser, n: usize) -> (i64, Vec<String>) {
    let slides: Vec<Value> = (0..n)
        .map(|i| json!({"html": format!("<section><h2>Slide {i}</h2></section>"), "notes": format!("note {i}")}))
        .collect();
    let r = app
        .create_deck(&user.key, json!({"title": "History", "slides": slides}))
        .await;
    r.expect(201);
    let ids = r.data()["slide_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    (r.data()["id"].as_i64().unwrap(), ids)
}

#[tokio::test]
async fn every_write_makes_exactly_one_revision_with_its_author() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_of(&app, &alice, 3).await;
    assert_eq!(revision_of(&app, &alice.key, deck).await, 1);

    let r = app
        .update_deck(&alice.key, deck, json!({"title": "Renamed"}))
        .await;
    assert_eq!(r.expect(200).data()["revision"], 2);
    let r = app
        .add_slide(
            &alice.key,
            deck,
            Some(json!({"html": "<section>new</section>"})),
        )
        .await;
    assert_eq!(r.expect(201).data()["revision"], 3);
    let added = r.data()["id"].as_str().unwrap().to_string();
    let r = app
        .update_slide(&alice.key, deck, &ids[0], json!({"notes": "changed"}))
        .await;
    assert_eq!(r.expect(200).data()["revision"], 4);
    let r = app
        .move_slides(
            &alice.key,
            deck,
            json!({"slide_ids": [ids[0]], "insert_after_slide_id": ids[2]}),
        )
        .await;
    assert_eq!(r.expect(200).data()["revision"], 5);
    let r = app
        .remove_slides(&alice.key, deck, json!({"slide_ids": [ids[1]]}))
        .await;
    assert_eq!(r.expect(200).data()["revision"], 6);
    app.trash_deck(&alice.key, deck).await.expect(204);
    app.recover_deck(&alice.key, deck).await.expect(204);
    // Writes that change nothing make no revision; nor does a failed write.
    app.update_deck(&alice.key, deck, json!({}))
        .await
        .expect(200);
    app.update_deck(&alice.key, deck, json!({"title": "Renamed"}))
        .await
        .expect(200);
    let r = app
        .move_slides(
            &alice.key,
            deck,
            json!({"slide_ids": [ids[2]], "insert_before_slide_id": ids[0]}),
        )
        .await;
    assert_eq!(r.expect(200).data()["revision"], 8);
    app.update_slide(&alice.key, deck, &ids[2], json!({"notes": "note 2"}))
        .await
        .expect(200);
    app.update_slide(&alice.key, deck, &ids[2], json!({"html": "<div>no</div>"}))
        .await
        .expect(422);
    let r = app.get_deck(&alice.key, deck, "").await;
    assert_eq!(r.expect(200).data()["revision"], 8);
    assert_eq!(r.headers["etag"], format!("\"{deck}-8\"").as_str());
    let r = app.get_slide(&alice.key, deck, &ids[2]).await;
    assert_eq!(r.expect(200).data()["revision"], 8);
    assert_eq!(r.headers["etag"], format!("\"{deck}-8\"").as_str());
    let listed = app.list_decks(&alice.key, "").await;
    assert_eq!(listed.data()[0]["revision"], 8);

    let page = revisions(&app, &alice.key, deck, "").await;
    assert_eq!(page["meta"], json!({"page": 1, "per_page": 20, "total": 8}));
    let ops: Vec<&str> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["operation"].as_str().unwrap())
        .collect();
    assert_eq!(
        ops,
        [
            "recover_deck",
            "trash_deck",
            "remove_slides",
            "move_slides",
            "update_slide",
            "add_slide",
            "update_deck",
            "create_deck"
        ]
    );
    let numbers: Vec<i64> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["revision"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, [8, 7, 6, 5, 4, 3, 2, 1]);
    for entry in page["data"].as_array().unwrap() {
        assert_eq!(
            entry["author"],
            json!({"user_id": alice.id, "username": "alice", "via": "api_key", "label": "tests"})
        );
        assert!(entry["restored_revision"].is_null());
    }
    let by_rev = |n: i64| page["data"][(8 - n) as usize].clone();
    assert_eq!(by_rev(1)["slide_ids"], json!(ids));
    assert_eq!(by_rev(2)["slide_ids"], json!([]));
    assert_eq!(by_rev(3)["slide_ids"], json!([added]));
    assert_eq!(by_rev(4)["slide_ids"], json!([ids[0]]));
    assert_eq!(by_rev(6)["slide_ids"], json!([ids[1]]));

    // A slide's own history: created, notes changed, moved.
    let r = app
        .call(
            Method::GET,
            &format!("/v1/decks/{deck}/slides/{}/revisions?per_page=2", ids[0]),
            Some(&alice.key),
            None,
        )
        .await;
    r.expect(200);
    assert_eq!(
        r.json["meta"],
        json!({"page": 1, "per_page": 2, "total": 3})
    );
    assert_eq!(r.data()[0]["revision"], 5);
    assert_eq!(r.data()[1]["revision"], 4);

    // The deck after revision 4: the original order, slide 0's new notes, the new title.
    let r = app
        .call(
            Method::GET,
            &format!("/v1/decks/{deck}/revisions/4"),
            Some(&alice.key),
            None,
        )
        .await;
    r.expect(200);
    assert_eq!(r.data()["deck"]["title"], "Renamed");
    let slides = r.data()["slides"].as_array().unwrap();
    let order: Vec<&str> = slides.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(order, [ids[0].as_str(), &ids[1], &ids[2], &added]);
    assert_eq!(slides[0]["notes"], "changed");
    assert_eq!(
        slides[3]["position"],
        json!({"horizontal": 3, "vertical": null})
    );

    // Unknown revisions, other accounts, no credential, read-only restore.
    for path in ["revisions/9", "revisions/0", "revisions/-1"] {
        app.call(
            Method::GET,
            &format!("/v1/decks/{deck}/{path}"),
            Some(&alice.key),
            None,
        )
        .await
        .expect_error(404);
    }
    app.call(
        Method::GET,
        &format!("/v1/decks/{deck}/revisions/x"),
        Some(&alice.key),
        None,
    )
    .await
    .expect_error(422);
    let bob = app.user("bob").await;
    for (method, path) in [
        (Method::GET, format!("/v1/decks/{deck}/revisions")),
        (Method::GET, format!("/v1/decks/{deck}/revisions/1")),
        (
            Method::POST,
            format!("/v1/decks/{deck}/revisions/1/restore"),
        ),
        (
            Method::GET,
            format!("/v1/decks/{deck}/slides/{}/revisions", ids[0]),
        ),
    ] {
        app.call(method.clone(), &path, Some(&bob.key), None)
            .await
            .expect_error(404);
        app.call(method, &path, None, None).await.expect_error(401);
    }
}

#[tokio::test]
async fn a_stale_weak_foreign_or_garbage_tag_answers_412_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_of(&app, &alice, 3).await;
    let (other, _) = deck_of(&app, &alice, 1).await;
    app.update_deck(&alice.key, deck, json!({"title": "Two"}))
        .await
        .expect(200);
    let current = format!("\"{deck}-2\"");
    let writes = [
        (
            Method::PATCH,
            format!("/v1/decks/{deck}"),
            json!({"title": "X"}),
        ),
        (
            Method::POST,
            format!("/v1/decks/{deck}/slides"),
            json!({"html": "<section>x</section>"}),
        ),
        (
            Method::PATCH,
            format!("/v1/decks/{deck}/slides/{}", ids[0]),
            json!({"notes": "x"}),
        ),
        (
            Method::DELETE,
            format!("/v1/decks/{deck}/slides"),
            json!({"slide_ids": [ids[1]]}),
        ),
        (
            Method::PATCH,
            format!("/v1/decks/{deck}/slides/move"),
            json!({"slide_ids": [ids[0]], "insert_after_slide_id": ids[2]}),
        ),
        (
            Method::POST,
            format!("/v1/decks/{deck}/revisions/1/restore"),
            Value::Null,
        ),
    ];
    let stale = [
        format!("\"{deck}-1\""),
        format!("\"{other}-2\""),
        format!("W/{current}"),
        format!("{deck}-2"),
        "garbage".to_string(),
        String::new(),
    ];
    let before = app
        .get_deck(&alice.key, deck, "?include_deck_html=true")
        .await;
    for (method, path, body) in &writes {
        for tag in &stale {
            let mut req = if_match(&app, method.clone(), path, &alice.key, tag);
            if !body.is_null() {
                req = req.json(body);
            }
            let r = app.send(req).await;
            r.expect_error(412);
            assert_eq!(r.json["revision"], 2, "{method} {path} with {tag:?}");
        }
    }
    let after = app
        .get_deck(&alice.key, deck, "?include_deck_html=true")
        .await;
    assert_eq!(before.data(), after.data(), "nothing changed");

    // Another account's deck and a trashed deck stay 404, whatever the tag.
    let bob = app.user("bob").await;
    let r = app
        .send(
            if_match(
                &app,
                Method::PATCH,
                &format!("/v1/decks/{deck}"),
                &bob.key,
                "garbage",
            )
            .json(&json!({"title": "B"})),
        )
        .await;
    r.expect_error(404);
    assert!(r.json.get("revision").is_none());
    app.trash_deck(&alice.key, other).await.expect(204);
    app.send(
        if_match(
            &app,
            Method::PATCH,
            &format!("/v1/decks/{other}"),
            &alice.key,
            "garbage",
        )
        .json(&json!({"title": "B"})),
    )
    .await
    .expect_error(404);

    // The current tag, one of a list, or * passes.
    for tag in [
        current.clone(),
        format!("\"{deck}-1\", {current}"),
        "*".to_string(),
    ] {
        let rev = revision_of(&app, &alice.key, deck).await;
        let tag = tag.replace("-2\"", &format!("-{rev}\""));
        let r = app
            .send(
                if_match(
                    &app,
                    Method::PATCH,
                    &format!("/v1/decks/{deck}/slides/{}", ids[0]),
                    &alice.key,
                    &tag,
                )
                .json(&json!({"notes": format!("n{rev}")})),
            )
            .await;
        assert_eq!(r.expect(200).data()["revision"], rev + 1, "{tag}");
    }
}

#[tokio::test]
async fn restore_brings_back_removed_slides_their_notes_order_and_groups() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app
        .import_markdown(
            &alice,
            "# A\nNote: a\n---\n## B1\n--\n## B2\nNote: b2\n---\n## C\n",
        )
        .await;
    let shape = app.shape(&alice.key, deck).await;
    assert_eq!(shape.len(), 3);
    let original = app
        .get_deck(&alice.key, deck, "?include_deck_html=true")
        .await;
    let (b1, b2) = (shape[1][0].clone(), shape[1][1].clone());
    let notes_b2 = app.get_slide(&alice.key, deck, &b2).await.data()["notes"].clone();
    assert_eq!(notes_b2, "b2");

    // Remove B1 (its group of one dissolves), change C, rename, add a slide.
    app.remove_slides(&alice.key, deck, json!({"slide_ids": [b1]}))
        .await
        .expect(200);
    app.update_slide(
        &alice.key,
        deck,
        &shape[2][0],
        json!({"html": "<section>changed</section>", "notes": null}),
    )
    .await
    .expect(200);
    app.update_deck(
        &alice.key,
        deck,
        json!({"title": "Other", "theme_color": "black-mint"}),
    )
    .await
    .expect(200);
    app.add_slide(&alice.key, deck, None).await.expect(201);
    assert_eq!(app.shape(&alice.key, deck).await.len(), 4);

    let r = app
        .call(
            Method::POST,
            &format!("/v1/decks/{deck}/revisions/1/restore"),
            Some(&alice.key),
            None,
        )
        .await;
    r.expect(200);
    assert_eq!(r.data()["revision"], 6);
    assert_eq!(r.data()["title"], original.data()["title"]);
    let restored = app
        .get_deck(&alice.key, deck, "?include_deck_html=true")
        .await;
    assert_eq!(restored.data()["deck_html"], original.data()["deck_html"]);
    assert_eq!(restored.data()["theme_color"], "white-blue");
    assert_eq!(app.shape(&alice.key, deck).await, shape);
    assert_eq!(
        app.get_slide(&alice.key, deck, &b2).await.data()["notes"],
        "b2"
    );
    assert_eq!(
        app.get_slide(&alice.key, deck, &shape[0][0]).await.data()["notes"],
        "a"
    );

    let page = revisions(&app, &alice.key, deck, "?per_page=1").await;
    let newest = &page["data"][0];
    assert_eq!(newest["operation"], "restore");
    assert_eq!(newest["restored_revision"], 1);
    assert_eq!(page["meta"]["total"], 6);
    // The import was the admin's revision 1.
    let all = revisions(&app, &alice.key, deck, "").await;
    assert_eq!(all["data"][5]["author"]["via"], "admin");
    assert!(all["data"][5]["author"]["label"].is_null());

    // Restoring what the deck already is changes nothing.
    let r = app
        .call(
            Method::POST,
            &format!("/v1/decks/{deck}/revisions/6/restore"),
            Some(&alice.key),
            None,
        )
        .await;
    assert_eq!(r.expect(200).data()["revision"], 6);
    // And the state before the restore can come back too.
    let r = app
        .call(
            Method::POST,
            &format!("/v1/decks/{deck}/revisions/5/restore"),
            Some(&alice.key),
            None,
        )
        .await;
    assert_eq!(r.expect(200).data()["revision"], 7);
    assert_eq!(app.shape(&alice.key, deck).await.len(), 4);
    assert_eq!(
        app.get_deck(&alice.key, deck, "").await.data()["title"],
        "Other"
    );

    // A restore that removes or brings back slides counts them: revision 2 had three
    // slides (B1 removed), revision 5 four.
    for (revision, count) in [(2, 3), (5, 4)] {
        let r = app
            .call(
                Method::POST,
                &format!("/v1/decks/{deck}/revisions/{revision}/restore"),
                Some(&alice.key),
                None,
            )
            .await;
        assert_eq!(r.expect(200).data()["slide_count"], count);
        let listed = app
            .call(
                Method::GET,
                &format!("/v1/decks/{deck}/slides"),
                Some(&alice.key),
                None,
            )
            .await;
        assert_eq!(listed.expect(200).json["meta"]["total"], count);
        assert_eq!(
            app.get_deck(&alice.key, deck, "").await.data()["slide_count"],
            count
        );
    }
}

#[tokio::test]
async fn mcp_writes_take_if_revision_and_undo_refuses_another_credentials_change() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_of(&app, &alice, 2).await;
    let client = session_client(&app, &alice.key).await;

    let stale = call(
        &client,
        "update_slide",
        json!({"deck_id": deck, "slide_id": ids[0], "notes": "x", "if_revision": 7}),
    )
    .await;
    let (_, status) = failure(&stale);
    assert_eq!(status, 412);
    assert_eq!(crate::mcp::error_json(&stale)["revision"], 1);
    let done = ok(&call(
        &client,
        "update_slide",
        json!({"deck_id": deck, "slide_id": ids[0], "notes": "mcp", "if_revision": 1}),
    )
    .await);
    assert_eq!(done["data"]["revision"], 2);
    let got = ok(&call(
        &client,
        "get_slides",
        json!({"deck_id": deck, "slide_ids": [ids[0]]}),
    )
    .await);
    assert_eq!(got["data"]["revision"], 2);

    // The MCP client's name from initialize is the label; undo of its own change works.
    let listed = ok(&call(&client, "list_revisions", json!({"deck_id": deck})).await);
    assert_eq!(listed["data"][0]["author"]["via"], "mcp");
    assert!(listed["data"][0]["author"]["label"].is_string());
    let undone = ok(&call(&client, "undo_last_change", json!({"deck_id": deck})).await);
    assert_eq!(undone["data"]["revision"], 3);
    assert_eq!(
        app.get_slide(&alice.key, deck, &ids[0]).await.data()["notes"],
        "note 0"
    );

    // A change through another key is not undone without force.
    let other = app
        .core
        .admin()
        .create_api_key("alice", "laptop")
        .await
        .unwrap();
    app.update_deck(other.expose(), deck, json!({"title": "By the laptop"}))
        .await
        .expect(200);
    let refused = call(&client, "undo_last_change", json!({"deck_id": deck})).await;
    let (message, status) = failure(&refused);
    assert_eq!(status, 422);
    assert!(message.contains("laptop"), "{message}");
    assert_eq!(
        app.get_deck(&alice.key, deck, "").await.data()["title"],
        "By the laptop"
    );
    let forced = ok(&call(
        &client,
        "undo_last_change",
        json!({"deck_id": deck, "force": true}),
    )
    .await);
    assert_eq!(forced["data"]["title"], "History");
    let revision = ok(&call(
        &client,
        "get_revision",
        json!({"deck_id": deck, "revision": 1}),
    )
    .await);
    assert_eq!(revision["data"]["slides"].as_array().unwrap().len(), 2);
}

/// Two clients append tokens to one slide's notes with read–modify–write under `If-Match`,
/// retrying on 412, through `bases` (one server, or two on one PostgreSQL database).
async fn two_writers_lose_nothing(bases: [String; 2], key: String) {
    let client = reqwest::Client::new();
    let created: Value = client
        .post(format!("{}/v1/decks", bases[0]))
        .bearer_auth(&key)
        .json(
            &json!({"title": "Race", "slides": [{"html": "<section>race</section>", "notes": ""}]}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let deck = created["data"]["id"].as_i64().unwrap();
    let slide = created["data"]["slide_ids"][0]
        .as_str()
        .unwrap()
        .to_string();
    let mut writers = Vec::new();
    for w in 0..2 {
        let (client, key, base, slide) =
            (client.clone(), key.clone(), bases[w].clone(), slide.clone());
        writers.push(tokio::spawn(async move {
            let url = format!("{base}/v1/decks/{deck}/slides/{slide}");
            let mut retries = 0;
            for i in 0..200 {
                let token = format!("{}{i:03}", ["a", "b"][w]);
                loop {
                    let got = client.get(&url).bearer_auth(&key).send().await.unwrap();
                    let tag = got.headers()["etag"].to_str().unwrap().to_string();
                    let body: Value = got.json().await.unwrap();
                    let notes = body["data"]["notes"].as_str().unwrap_or("").to_string();
                    let put = client
                        .patch(&url)
                        .bearer_auth(&key)
                        .header("If-Match", tag)
                        .json(&json!({"notes": format!("{notes}{token};")}))
                        .send()
                        .await
                        .unwrap();
                    match put.status().as_u16() {
                        200 => break,
                        412 => retries += 1,
                        other => panic!("update_slide answered {other}"),
                    }
                }
            }
            retries
        }));
    }
    let mut retries = 0;
    for w in writers {
        retries += w.await.unwrap();
    }
    let got: Value = client
        .get(format!("{}/v1/decks/{deck}/slides/{slide}", bases[1]))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let notes = got["data"]["notes"].as_str().unwrap();
    let tokens: Vec<&str> = notes.split(';').filter(|t| !t.is_empty()).collect();
    assert_eq!(tokens.len(), 400, "{retries} retries");
    let unique: std::collections::HashSet<&str> = tokens.iter().copied().collect();
    assert_eq!(unique.len(), 400);
    for w in ["a", "b"] {
        for i in 0..200 {
            assert!(unique.contains(format!("{w}{i:03}").as_str()));
        }
    }
    // One revision per answered write, plus the creation.
    assert_eq!(got["data"]["revision"], 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_writers_with_if_match_lose_nothing() {
    if testing_postgres() {
        // Two servers on one PostgreSQL database.
        let db = PgDatabase::create().await;
        let key = account(&db.url, "alice").await;
        let dir = tempfile::tempdir().unwrap();
        let (_a, a) = serve(&db.url, dir.path(), &["--rate-limit", "0"]).await;
        let (_b, b) = serve(&db.url, dir.path(), &["--rate-limit", "0"]).await;
        two_writers_lose_nothing([a, b], key).await;
    } else {
        let app = TestApp::spawn().await;
        let alice = app.user("alice").await;
        two_writers_lose_nothing([app.base.clone(), app.base.clone()], alice.key).await;
    }
}

#[tokio::test]
async fn forgotten_revisions_answer_404_and_the_kept_ones_stay_exact() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_of(&app, &alice, 3).await;
    app.update_slide(
        &alice.key,
        deck,
        &ids[0],
        json!({"html": "<section><h1>Two</h1></section>"}),
    )
    .await
    .expect(200);
    app.remove_slides(&alice.key, deck, json!({"slide_ids": [ids[1]]}))
        .await
        .expect(200);
    app.update_deck(&alice.key, deck, json!({"title": "Four"}))
        .await
        .expect(200);
    app.add_slide(&alice.key, deck, None).await.expect(201);
    app.move_slides(
        &alice.key,
        deck,
        json!({"slide_ids": [ids[0]], "insert_after_slide_id": ids[2]}),
    )
    .await
    .expect(200);
    let read = |rev: i64| {
        let app = &app;
        let key = alice.key.clone();
        async move {
            app.call(
                Method::GET,
                &format!("/v1/decks/{deck}/revisions/{rev}"),
                Some(&key),
                None,
            )
            .await
        }
    };
    let mut before = Vec::new();
    for rev in 3..=6 {
        before.push(read(rev).await.expect(200).data().clone());
    }

    // Everything older than a minute from now, except the newest four.
    let store = lectern::cli::storage::open_raw_store(&app.database_url)
        .await
        .unwrap();
    let later = lectern_core::time::Timestamp::from_unix_micros(
        lectern_core::time::Timestamp::now().unix_micros() + 60_000_000,
    );
    assert_eq!(store.prune_history(later, 4).await.unwrap(), 2);
    assert_eq!(store.prune_history(later, 4).await.unwrap(), 0);

    let page = revisions(&app, &alice.key, deck, "").await;
    assert_eq!(page["meta"]["total"], 4);
    for rev in [1, 2] {
        read(rev).await.expect_error(404);
    }
    for (rev, expected) in (3..=6).zip(&before) {
        assert_eq!(
            read(rev).await.expect(200).data(),
            expected,
            "revision {rev}"
        );
    }
    // The oldest kept revision still restores exactly (its settings were carried over).
    let r = app
        .call(
            Method::POST,
            &format!("/v1/decks/{deck}/revisions/3/restore"),
            Some(&alice.key),
            None,
        )
        .await;
    assert_eq!(r.expect(200).data()["title"], "History");
    let after = read(7).await;
    assert_eq!(after.expect(200).data()["slides"], before[0]["slides"]);
}

#[tokio::test]
async fn an_oauth_write_names_the_client_read_tokens_cannot_restore_and_undo_tells_grants_apart() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, _) = deck_of(&app, &alice, 1).await;
    let token = crate::oauth::access_token(&app, None, &["manage"]).await;
    app.update_deck(&token, deck, json!({"title": "Through OAuth"}))
        .await
        .expect(200);
    let page = revisions(&app, &alice.key, deck, "?per_page=1").await;
    assert_eq!(
        page["data"][0]["author"],
        json!({"user_id": alice.id, "username": "alice", "via": "oauth", "label": "MCP test"})
    );
    // A read-only token reads the history but may not restore.
    let read = crate::oauth::access_token(&app, None, &["read"]).await;
    revisions(&app, &read, deck, "").await;
    app.call(
        Method::POST,
        &format!("/v1/decks/{deck}/revisions/1/restore"),
        Some(&read),
        None,
    )
    .await
    .expect_error(403);
    // An MCP client on an API key did not make that change: undo refuses without force.
    let client = session_client(&app, &alice.key).await;
    let (_, status) = failure(&call(&client, "undo_last_change", json!({"deck_id": deck})).await);
    assert_eq!(status, 422);
}
