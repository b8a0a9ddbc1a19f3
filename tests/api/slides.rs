//! The slide operations: list, add, get, update, remove, move, with vertical groups.

use serde_json::{Value, json};

use crate::common::{TestApp, TestUser};

/// A deck with `n` horizontal slides; returns its id and the slide ids.
async fn deck_with(app: &TestApp, user: &TestUser, n: usize) -> (i64, Vec<String>) {
    let slides: Vec<Value> = (0..n)
        .map(|i| json!({"html": format!("<section><h2>Slide {i}</h2><p>Body {i}</p></section>")}))
        .collect();
    let r = app
        .create_deck(&user.key, json!({"title": "Slides", "slides": slides}))
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

/// A deck shaped [a] [b1 b2 b3] [c], imported from Markdown; returns the id and the shape.
async fn grouped_deck(app: &TestApp, user: &TestUser) -> (i64, Vec<Vec<String>>) {
    let id = app
        .import_markdown(user, "# A\n---\n## B1\n--\n## B2\n--\n## B3\n---\n## C\n")
        .await;
    let shape = app.shape(&user.key, id).await;
    assert_eq!(shape.iter().map(Vec::len).collect::<Vec<_>>(), [1, 3, 1]);
    (id, shape)
}

fn s(v: &[&String]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn list_slides_returns_summaries_in_order() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let r = app
        .create_deck(&alice.key, json!({"slides": [
            {"html": "<section>\n  <h1>  Hello   world </h1>\n  <p>Some <b>bold</b>\ttext</p></section>", "notes": "n"},
            {"html": "<section><p>no heading</p></section>", "notes": ""},
            {}
        ]}))
        .await;
    let deck = r.data()["id"].as_i64().unwrap();
    let ids = r.data()["slide_ids"].clone();

    let list = app.list_slides(&alice.key, deck, "").await;

    list.expect(200);
    assert_eq!(
        list.json["meta"],
        json!({"page": 1, "per_page": 50, "total": 3})
    );
    let items = list.data().as_array().unwrap();
    assert_eq!(items.len(), 3);
    let first = &items[0];
    assert_eq!(first["id"], ids[0]);
    assert_eq!(
        first["position"],
        json!({"horizontal": 0, "vertical": null})
    );
    assert_eq!(first["title"], "Hello world");
    assert_eq!(first["text_preview"], "Hello world Some bold text");
    assert_eq!(first["has_notes"], true);
    let html = app
        .get_slide(&alice.key, deck, ids[0].as_str().unwrap())
        .await;
    assert_eq!(
        first["html_bytes"].as_u64().unwrap() as usize,
        html.data()["html"].as_str().unwrap().len()
    );
    assert_eq!(items[1]["title"], "");
    assert_eq!(items[1]["has_notes"], false);
    assert_eq!(items[2]["position"]["horizontal"], 2);
    assert!(first.get("html").is_none() && first.get("notes").is_none());
}

#[tokio::test]
async fn list_slides_pages_by_50_and_at_most_200() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_with(&app, &alice, 230).await;

    let first = app.list_slides(&alice.key, deck, "").await;
    let fifth = app.list_slides(&alice.key, deck, "?page=5").await;
    let big = app
        .list_slides(&alice.key, deck, "?per_page=200&page=2")
        .await;

    assert_eq!(first.data().as_array().unwrap().len(), 50);
    assert_eq!(
        first.json["meta"],
        json!({"page": 1, "per_page": 50, "total": 230})
    );
    assert_eq!(fifth.data().as_array().unwrap().len(), 30);
    assert_eq!(fifth.data()[0]["id"], json!(ids[200]));
    assert_eq!(fifth.data()[0]["position"]["horizontal"], 200);
    assert_eq!(big.data().as_array().unwrap().len(), 30);
    for q in ["?per_page=201", "?per_page=0", "?page=0", "?page=a"] {
        app.list_slides(&alice.key, deck, q).await.expect_error(422);
    }
}

#[tokio::test]
async fn add_slide_appends_a_blank_slide_by_default() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, _) = deck_with(&app, &alice, 2).await;
    let before = app.get_deck(&alice.key, deck, "").await;

    let r = app.add_slide(&alice.key, deck, None).await;

    r.expect(201);
    let id = r.data()["id"].as_str().unwrap().to_string();
    assert_eq!(r.data()["deck_id"], deck);
    assert_eq!(
        r.data()["position"],
        json!({"horizontal": 2, "vertical": null})
    );
    assert!(r.data().get("html").is_none());
    let slide = app.get_slide(&alice.key, deck, &id).await;
    assert_eq!(
        slide.data()["html"],
        format!("<section data-id=\"{id}\"></section>")
    );
    assert!(slide.data()["notes"].is_null());
    let after = app.get_deck(&alice.key, deck, "").await;
    assert_eq!(after.data()["slide_count"], 3);
    assert!(after.data()["updated_at"].as_str() > before.data()["updated_at"].as_str());
}

#[tokio::test]
async fn add_slide_before_and_after_a_horizontal_reference() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_with(&app, &alice, 2).await;

    let before = app.add_slide(&alice.key, deck, Some(json!({"insert_before_slide_id": ids[0], "html": "<section>x</section>", "notes": "n"}))).await;
    let after = app
        .add_slide(
            &alice.key,
            deck,
            Some(json!({"insert_after_slide_id": ids[0]})),
        )
        .await;

    before.expect(201);
    after.expect(201);
    let b = before.data()["id"].as_str().unwrap().to_string();
    let a = after.data()["id"].as_str().unwrap().to_string();
    assert_eq!(
        app.shape(&alice.key, deck).await,
        vec![
            vec![b.clone()],
            vec![ids[0].clone()],
            vec![a],
            vec![ids[1].clone()]
        ]
    );
    assert_eq!(
        app.get_slide(&alice.key, deck, &b).await.data()["notes"],
        "n"
    );
}

#[tokio::test]
async fn add_slide_next_to_a_grouped_slide_joins_the_group() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, shape) = grouped_deck(&app, &alice).await;

    let r = app
        .add_slide(
            &alice.key,
            deck,
            Some(json!({"insert_after_slide_id": shape[1][0]})),
        )
        .await;

    r.expect(201);
    assert_eq!(
        r.data()["position"],
        json!({"horizontal": 1, "vertical": 1})
    );
    let new = r.data()["id"].as_str().unwrap().to_string();
    let after = app.shape(&alice.key, deck).await;
    assert_eq!(
        after[1],
        vec![
            shape[1][0].clone(),
            new,
            shape[1][1].clone(),
            shape[1][2].clone()
        ]
    );
}

#[tokio::test]
async fn add_slide_rejects_bad_input() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_with(&app, &alice, 1).await;

    for body in [
        json!({"insert_before_slide_id": ids[0], "insert_after_slide_id": ids[0]}),
        json!({"html": "<div></div>"}),
        json!({"html": "<section><section></section></section>"}),
        json!({"notes": "x".repeat(10_001)}),
        json!({"position": 3}),
        json!({"insert_before_slide_id": 5}),
    ] {
        app.add_slide(&alice.key, deck, Some(body))
            .await
            .expect_error(422);
    }
    app.add_slide(
        &alice.key,
        deck,
        Some(json!({"insert_after_slide_id": "nope"})),
    )
    .await
    .expect_error(404);
    app.add_slide(&alice.key, 99999, None)
        .await
        .expect_error(404);
    app.add_slide(&alice.key, "abc", None)
        .await
        .expect_error(422);
    assert_eq!(
        app.get_deck(&alice.key, deck, "").await.data()["slide_count"],
        1
    );
}

#[tokio::test]
async fn get_slide_is_scoped_to_the_deck_and_the_owner() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let (deck, ids) = deck_with(&app, &alice, 1).await;
    let (other, _) = deck_with(&app, &alice, 1).await;

    let r = app.get_slide(&alice.key, deck, &ids[0]).await;

    r.expect(200);
    assert_eq!(r.data()["id"], json!(ids[0]));
    assert_eq!(r.data()["deck_id"], deck);
    assert_eq!(
        r.data()["position"],
        json!({"horizontal": 0, "vertical": null})
    );
    assert_eq!(
        r.data()["html"],
        format!(
            "<section data-id=\"{}\"><h2>Slide 0</h2><p>Body 0</p></section>",
            ids[0]
        )
    );
    app.get_slide(&alice.key, other, &ids[0])
        .await
        .expect_error(404);
    app.get_slide(&alice.key, deck, "missing")
        .await
        .expect_error(404);
    app.get_slide(&bob.key, deck, &ids[0])
        .await
        .expect_error(404);
    app.get_slide(&alice.key, "x", &ids[0])
        .await
        .expect_error(422);
}

#[tokio::test]
async fn update_slide_replaces_html_and_notes_and_keeps_the_id() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_with(&app, &alice, 2).await;
    let id = &ids[1];

    let r = app
        .update_slide(&alice.key, deck, id, json!({"html": "<section data-id=\"hijack\" class=\"c\"><h1>New</h1></section>", "notes": "remember"}))
        .await;

    r.expect(200);
    assert_eq!(
        r.data(),
        &json!({"id": id, "deck_id": deck, "position": {"horizontal": 1, "vertical": null}, "revision": 2})
    );
    let slide = app.get_slide(&alice.key, deck, id).await;
    assert_eq!(
        slide.data()["html"],
        format!("<section data-id=\"{id}\" class=\"c\"><h1>New</h1></section>")
    );
    assert_eq!(slide.data()["notes"], "remember");
    // Notes alone: html stays.
    app.update_slide(&alice.key, deck, id, json!({"notes": "again"}))
        .await
        .expect(200);
    let slide = app.get_slide(&alice.key, deck, id).await;
    assert_eq!(slide.data()["notes"], "again");
    assert!(
        slide.data()["html"]
            .as_str()
            .unwrap()
            .contains("<h1>New</h1>")
    );
    // Null clears the notes.
    app.update_slide(&alice.key, deck, id, json!({"notes": null}))
        .await
        .expect(200);
    assert!(app.get_slide(&alice.key, deck, id).await.data()["notes"].is_null());
    let listed = app.list_slides(&alice.key, deck, "").await;
    assert_eq!(listed.data()[1]["title"], "New");
    assert_eq!(listed.data()[1]["has_notes"], false);
}

#[tokio::test]
async fn a_rejected_update_leaves_the_deck_exactly_as_it_was() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_with(&app, &alice, 2).await;
    let slide_before = app.get_slide(&alice.key, deck, &ids[0]).await;
    let deck_before = app
        .get_deck(&alice.key, deck, "?include_deck_html=true")
        .await;

    for body in [
        json!({}),
        json!({"html": "<section><section>x</section></section>", "notes": "would change"}),
        json!({"html": "<p>x</p>"}),
        json!({"notes": "x".repeat(10_001)}),
        json!({"notes": 5}),
        json!({"html": "<section></section>", "extra": true}),
    ] {
        app.update_slide(&alice.key, deck, &ids[0], body)
            .await
            .expect_error(422);
    }
    app.update_slide(&alice.key, deck, "nope", json!({"notes": "x"}))
        .await
        .expect_error(404);

    assert_eq!(
        app.get_slide(&alice.key, deck, &ids[0]).await.data(),
        slide_before.data()
    );
    assert_eq!(
        app.get_deck(&alice.key, deck, "?include_deck_html=true")
            .await
            .data(),
        deck_before.data()
    );
}

#[tokio::test]
async fn remove_slides_removes_known_ids_and_lists_missing_ones() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_with(&app, &alice, 4).await;

    let r = app
        .remove_slides(
            &alice.key,
            deck,
            json!({"slide_ids": [ids[1], "ghost", ids[3]]}),
        )
        .await;

    r.expect(200);
    assert_eq!(r.data()["count"], 2);
    assert_eq!(r.data()["missing_slide_ids"], json!(["ghost"]));
    assert_eq!(
        app.shape(&alice.key, deck).await,
        vec![vec![ids[0].clone()], vec![ids[2].clone()]]
    );
    assert_eq!(
        app.get_deck(&alice.key, deck, "").await.data()["slide_count"],
        2
    );
    app.get_slide(&alice.key, deck, &ids[1])
        .await
        .expect_error(404);
}

#[tokio::test]
async fn remove_slides_rejects_bad_requests_without_changing_anything() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_with(&app, &alice, 2).await;
    let too_many: Vec<String> = (0..201).map(|i| format!("x{i}")).collect();

    app.remove_slides(&alice.key, deck, json!({"slide_ids": ids}))
        .await
        .expect_error(422);
    app.remove_slides(&alice.key, deck, json!({"slide_ids": []}))
        .await
        .expect_error(422);
    app.remove_slides(&alice.key, deck, json!({"slide_ids": [ids[0], ids[0]]}))
        .await
        .expect_error(422);
    app.remove_slides(&alice.key, deck, json!({"slide_ids": too_many}))
        .await
        .expect_error(422);
    app.remove_slides(&alice.key, deck, json!({}))
        .await
        .expect_error(422);
    app.remove_slides(&alice.key, deck, json!({"slide_ids": ["a", "b"]}))
        .await
        .expect_error(404);

    assert_eq!(app.shape(&alice.key, deck).await.len(), 2);
}

#[tokio::test]
async fn removing_from_a_group_of_two_turns_the_last_slide_horizontal() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, shape) = grouped_deck(&app, &alice).await;

    app.remove_slides(&alice.key, deck, json!({"slide_ids": [shape[1][0]]}))
        .await
        .expect(200);
    assert_eq!(
        app.shape(&alice.key, deck).await[1],
        vec![shape[1][1].clone(), shape[1][2].clone()]
    );
    app.remove_slides(&alice.key, deck, json!({"slide_ids": [shape[1][2]]}))
        .await
        .expect(200);

    let after = app.shape(&alice.key, deck).await;
    assert_eq!(
        after,
        vec![
            shape[0].clone(),
            vec![shape[1][1].clone()],
            shape[2].clone()
        ]
    );
    let slide = app.get_slide(&alice.key, deck, &shape[1][1]).await;
    assert_eq!(
        slide.data()["position"],
        json!({"horizontal": 1, "vertical": null})
    );
}

#[tokio::test]
async fn move_slides_puts_them_in_the_given_order_next_to_the_target() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_with(&app, &alice, 5).await;

    let r = app
        .move_slides(
            &alice.key,
            deck,
            json!({"slide_ids": [ids[4], ids[0], "ghost"], "insert_after_slide_id": ids[2]}),
        )
        .await;

    r.expect(200);
    assert_eq!(r.data()["count"], 2);
    assert_eq!(r.data()["missing_slide_ids"], json!(["ghost"]));
    let order: Vec<String> = app
        .shape(&alice.key, deck)
        .await
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(order, s(&[&ids[1], &ids[2], &ids[4], &ids[0], &ids[3]]));
    app.move_slides(
        &alice.key,
        deck,
        json!({"slide_ids": [ids[3]], "insert_before_slide_id": ids[1]}),
    )
    .await
    .expect(200);
    let order: Vec<String> = app
        .shape(&alice.key, deck)
        .await
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(order, s(&[&ids[3], &ids[1], &ids[2], &ids[4], &ids[0]]));
}

#[tokio::test]
async fn moved_slides_join_the_targets_group_and_leave_it_for_a_horizontal_target() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, shape) = grouped_deck(&app, &alice).await;
    let (a, b1, b2, b3, c) = (
        &shape[0][0],
        &shape[1][0],
        &shape[1][1],
        &shape[1][2],
        &shape[2][0],
    );

    // Join: a and c move into the group after b1.
    app.move_slides(
        &alice.key,
        deck,
        json!({"slide_ids": [c, a], "insert_after_slide_id": b1}),
    )
    .await
    .expect(200);
    assert_eq!(
        app.shape(&alice.key, deck).await,
        vec![s(&[b1, c, a, b2, b3])]
    );

    // Leave: the group moves out slide by slide to horizontal places... there is no horizontal
    // slide left, so first make one by adding at the end.
    let end = app.add_slide(&alice.key, deck, None).await;
    let end = end.data()["id"].as_str().unwrap().to_string();
    app.move_slides(
        &alice.key,
        deck,
        json!({"slide_ids": [b2, b3, c, a], "insert_before_slide_id": end}),
    )
    .await
    .expect(200);

    assert_eq!(
        app.shape(&alice.key, deck).await,
        vec![s(&[b1]), s(&[b2]), s(&[b3]), s(&[c]), s(&[a]), vec![end]]
    );
}

#[tokio::test]
async fn move_slides_rejects_bad_requests() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, ids) = deck_with(&app, &alice, 3).await;
    let too_many: Vec<String> = (0..201).map(|i| format!("x{i}")).collect();

    for body in [
        json!({"slide_ids": [ids[0]]}),
        json!({"slide_ids": [ids[0]], "insert_before_slide_id": ids[1], "insert_after_slide_id": ids[2]}),
        json!({"slide_ids": [ids[0], ids[1]], "insert_after_slide_id": ids[1]}),
        json!({"slide_ids": [], "insert_after_slide_id": ids[1]}),
        json!({"slide_ids": [ids[0], ids[0]], "insert_after_slide_id": ids[1]}),
        json!({"slide_ids": too_many, "insert_after_slide_id": ids[1]}),
    ] {
        app.move_slides(&alice.key, deck, body)
            .await
            .expect_error(422);
    }
    app.move_slides(
        &alice.key,
        deck,
        json!({"slide_ids": ["a", "b"], "insert_after_slide_id": ids[1]}),
    )
    .await
    .expect_error(404);
    app.move_slides(
        &alice.key,
        deck,
        json!({"slide_ids": [ids[0]], "insert_after_slide_id": "zz"}),
    )
    .await
    .expect_error(404);
    let order: Vec<String> = app
        .shape(&alice.key, deck)
        .await
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(order, ids);
}

#[tokio::test]
async fn deck_html_nests_vertical_groups() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let (deck, shape) = grouped_deck(&app, &alice).await;

    let r = app
        .get_deck(&alice.key, deck, "?include_deck_html=true")
        .await;

    let html = r.data()["deck_html"].as_str().unwrap();
    assert_eq!(
        html.matches("<section").count(),
        6,
        "five slides and one group wrapper"
    );
    let group_start = format!("<section><section data-id=\"{}\">", shape[1][0]);
    assert_eq!(html.matches(&group_start).count(), 1, "{html}");
    assert_eq!(html.matches("</section></section>").count(), 1);
    let a = html.find(&format!("data-id=\"{}\"", shape[0][0])).unwrap();
    let b3 = html.find(&format!("data-id=\"{}\"", shape[1][2])).unwrap();
    let c = html.find(&format!("data-id=\"{}\"", shape[2][0])).unwrap();
    let close = html.find("</section></section>").unwrap();
    assert!(a < html.find(&group_start).unwrap() && b3 < close && close < c);
    assert_eq!(r.data()["slide_count"], 5);
}

#[tokio::test]
async fn slide_operations_on_trashed_or_foreign_decks_answer_404() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let (deck, ids) = deck_with(&app, &alice, 2).await;

    app.list_slides(&bob.key, deck, "").await.expect_error(404);
    app.add_slide(&bob.key, deck, None).await.expect_error(404);
    app.remove_slides(&bob.key, deck, json!({"slide_ids": [ids[0]]}))
        .await
        .expect_error(404);
    app.update_slide(&bob.key, deck, &ids[0], json!({"notes": "x"}))
        .await
        .expect_error(404);
    app.move_slides(
        &bob.key,
        deck,
        json!({"slide_ids": [ids[0]], "insert_after_slide_id": ids[1]}),
    )
    .await
    .expect_error(404);
    app.trash_deck(&alice.key, deck).await.expect(204);
    app.list_slides(&alice.key, deck, "")
        .await
        .expect_error(404);
    app.add_slide(&alice.key, deck, None)
        .await
        .expect_error(404);
    app.get_slide(&alice.key, deck, &ids[0])
        .await
        .expect_error(404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_changes_to_one_deck_leave_it_valid() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let second_key = app
        .core
        .admin()
        .create_api_key("alice", "second client")
        .await
        .unwrap();
    let (deck, shape) = grouped_deck(&app, &alice).await;
    let (_, padding) = deck_with(&app, &alice, 1).await;
    drop(padding);
    let initial: Vec<String> = shape.into_iter().flatten().collect();
    let keys = [alice.key.clone(), second_key.expose().to_string()];

    // Two clients fire adds, moves and removes at the same deck at the same time.
    let mut handles = Vec::new();
    for i in 0..30usize {
        let key = keys[i % 2].clone();
        let base = app.base.clone();
        let ids = initial.clone();
        handles.push(tokio::spawn(async move {
            let client = reqwest::Client::new();
            let url = format!("{base}/v1/decks/{deck}/slides");
            let req = match i % 3 {
                0 => client
                    .post(&url)
                    .json(&json!({"insert_after_slide_id": ids[i % ids.len()]})),
                1 => client.patch(format!("{url}/move")).json(&json!({
                    "slide_ids": [ids[(i + 1) % ids.len()], ids[(i + 2) % ids.len()]],
                    "insert_before_slide_id": ids[(i + 4) % ids.len()]
                })),
                _ => client
                    .delete(&url)
                    .json(&json!({"slide_ids": [ids[(i / 3) % ids.len()]]})),
            };
            let resp = req
                .bearer_auth(key)
                .send()
                .await
                .expect("the server answers");
            let status = resp.status().as_u16();
            let body: Value = resp.json().await.unwrap_or(Value::Null);
            (i % 3, status, body)
        }));
    }
    let mut added = 0;
    let mut removed = 0;
    for h in handles {
        let (kind, status, body) = h.await.unwrap();
        assert!(
            [200, 201, 404, 422].contains(&status),
            "unexpected status {status}: {body}"
        );
        match (kind, status) {
            (0, 201) => added += 1,
            (2, 200) => removed += body["data"]["count"].as_u64().unwrap() as usize,
            _ => {}
        }
    }

    let shape = app.shape(&alice.key, deck).await;
    let total = shape.iter().map(Vec::len).sum::<usize>();
    assert_eq!(total, initial.len() + added - removed);
    assert_eq!(
        app.get_deck(&alice.key, deck, "").await.data()["slide_count"]
            .as_u64()
            .unwrap() as usize,
        total
    );
    let html = app
        .get_deck(&alice.key, deck, "?include_deck_html=true")
        .await;
    assert_eq!(
        html.data()["deck_html"]
            .as_str()
            .unwrap()
            .matches("data-id=")
            .count(),
        total
    );
}

/// Edits `slide`'s notes (`take`) and checks that the answer's position is where
/// `list_slides` finds the slide now; its horizontal index.
async fn edit_and_check(app: &TestApp, key: &str, deck: i64, slide: &str, take: u32) -> i64 {
    let r = app
        .update_slide(key, deck, slide, json!({"notes": format!("take {take}")}))
        .await;
    r.expect(200);
    let listed = app.list_slides(key, deck, "?per_page=200").await;
    let items = listed.data().as_array().unwrap().clone();
    let now = &items.iter().find(|s| s["id"] == slide).unwrap()["position"];
    assert_eq!(&r.data()["position"], now, "take {take}");
    r.data()["position"]["horizontal"].as_i64().unwrap()
}

/// A content edit answers its slide's place from the order of the revision before, carried
/// over without reading it: after every write that moves slides in between, the answer is
/// still where the slide is now.
#[tokio::test]
async fn update_slide_answers_the_place_after_the_moves_and_adds_before_it() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let key = alice.key.as_str();
    let (deck, ids) = deck_with(&app, &alice, 5).await;
    let target = ids[3].as_str();
    assert_eq!(edit_and_check(&app, key, deck, target, 1).await, 3);
    assert_eq!(edit_and_check(&app, key, deck, target, 2).await, 3);
    // Moved to the front.
    app.move_slides(
        key,
        deck,
        json!({"slide_ids": [target], "insert_before_slide_id": ids[0]}),
    )
    .await
    .expect(200);
    assert_eq!(edit_and_check(&app, key, deck, target, 3).await, 0);
    // Two slides added before it.
    for _ in 0..2 {
        app.add_slide(key, deck, Some(json!({"insert_before_slide_id": target})))
            .await
            .expect(201);
    }
    assert_eq!(edit_and_check(&app, key, deck, target, 4).await, 2);
    assert_eq!(edit_and_check(&app, key, deck, target, 5).await, 2);
    // The slide before it removed.
    let before = app.shape(key, deck).await[1][0].clone();
    app.remove_slides(key, deck, json!({"slide_ids": [before]}))
        .await
        .expect(200);
    assert_eq!(edit_and_check(&app, key, deck, target, 6).await, 1);
    // The deck as it was made (revision 1), restored: the slide is back in fourth place.
    app.call(
        reqwest::Method::POST,
        &format!("/v1/decks/{deck}/revisions/1/restore"),
        Some(key),
        None,
    )
    .await
    .expect(200);
    assert_eq!(edit_and_check(&app, key, deck, target, 7).await, 3);
}
