//! The deck operations: create, list, get, update, trash, recover.

use serde_json::{Value, json};

use crate::common::TestApp;

const DECK_FIELDS: &[&str] = &[
    "id",
    "title",
    "description",
    "thumbnail_url",
    "url",
    "urls",
    "slug",
    "visibility",
    "slide_count",
    "width",
    "height",
    "margin",
    "transition",
    "background_transition",
    "rtl",
    "loop",
    "theme_font",
    "theme_color",
    "language",
    "created_at",
    "updated_at",
];

#[tokio::test]
async fn create_deck_without_a_body_makes_one_blank_slide_with_the_defaults() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    let r = app
        .call(reqwest::Method::POST, "/v1/decks", Some(&alice.key), None)
        .await;

    r.expect(201);
    let d = r.data();
    for field in DECK_FIELDS {
        assert!(d.get(*field).is_some(), "missing {field}");
    }
    for absent in ["css", "deck_html", "notes"] {
        assert!(
            d.get(absent).is_none(),
            "{absent} must not be in the create answer"
        );
    }
    assert_eq!(d["width"], 1280);
    assert_eq!(d["height"], 720);
    assert_eq!(d["margin"].as_f64(), Some(0.0));
    assert_eq!(d["theme_color"], "white-blue");
    assert_eq!(d["theme_font"], "montserrat");
    assert_eq!(d["visibility"], "self");
    assert_eq!(d["transition"], "slide");
    assert_eq!(d["background_transition"], "fade");
    assert_eq!(d["language"], "en");
    assert_eq!(d["slide_count"], 1);
    assert_eq!(d["slide_ids"].as_array().unwrap().len(), 1);
    let url = d["url"].as_str().unwrap();
    assert!(url.starts_with(&format!("{}/alice/", app.base)), "{url}");
    assert_eq!(d["urls"]["default"], url);
    assert_eq!(d["urls"]["fullscreen"], format!("{url}/fullscreen"));
    assert_eq!(d["urls"]["edit"], format!("{url}/edit"));
    assert_eq!(d["urls"]["present"], format!("{url}/present"));
}

#[tokio::test]
async fn create_deck_keeps_the_given_fields_and_slides_in_order() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let body = json!({
        "title": "Quarterly Review", "description": "Q3", "width": 1920, "height": 1080,
        "margin": 0.1, "theme_color": "black-mint", "theme_font": "news", "visibility": "all",
        "slides": [
            {"html": "<section><h1>One</h1></section>", "notes": "first"},
            {"html": "<section data-background-color=\"#000\" data-id=\"mine\">Two</section>"},
            {"notes": null},
        ]
    });

    let r = app.create_deck(&alice.key, body).await;

    r.expect(201);
    let d = r.data();
    assert_eq!(d["title"], "Quarterly Review");
    assert_eq!(d["slug"], "quarterly-review");
    assert_eq!(d["description"], "Q3");
    assert_eq!(
        (d["width"].as_i64(), d["height"].as_i64()),
        (Some(1920), Some(1080))
    );
    assert_eq!(d["margin"].as_f64(), Some(0.1));
    assert_eq!(d["theme_color"], "black-mint");
    assert_eq!(d["theme_font"], "news");
    assert_eq!(d["visibility"], "all");
    assert_eq!(d["slide_count"], 3);
    let ids: Vec<&str> = d["slide_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 3);
    assert!(
        !ids.contains(&"mine"),
        "a client data-id must not become the slide id"
    );

    // The answer to the creation is the deck as stored: get_deck reads the same, field for
    // field (the store builds it without reading the row back), and an empty css.
    let got = app.get_deck(&alice.key, d["id"].clone(), "").await;
    got.expect(200);
    let mut stored = got.data().as_object().unwrap().clone();
    assert_eq!(stored.remove("css"), Some(json!("")));
    let mut answered = d.as_object().unwrap().clone();
    answered.remove("slide_ids");
    assert_eq!(stored, answered);

    let html = app
        .get_deck(&alice.key, d["id"].clone(), "?include_deck_html=true")
        .await;
    html.expect(200);
    let deck_html = html.data()["deck_html"].as_str().unwrap();
    let expected = format!(
        "<section data-id=\"{}\"><h1>One</h1></section>\n<section data-id=\"{}\" data-background-color=\"#000\">Two</section>\n<section data-id=\"{}\"></section>",
        ids[0], ids[1], ids[2]
    );
    assert_eq!(deck_html, expected);
    assert!(
        !deck_html.contains("first"),
        "notes are not part of the deck HTML"
    );
}

#[tokio::test]
async fn create_deck_rejects_each_invalid_field_with_422_and_creates_nothing() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let cases = [
        json!({"width": 0}),
        json!({"width": -5}),
        json!({"width": 12.5}),
        json!({"width": "1280"}),
        json!({"height": 0}),
        json!({"height": null}),
        json!({"margin": -0.01}),
        json!({"margin": 1.5}),
        json!({"margin": "0.1"}),
        json!({"theme_color": "hot-pink"}),
        json!({"theme_color": 3}),
        json!({"theme_font": "comic-sans"}),
        json!({"visibility": "public"}),
        json!({"title": 42}),
        json!({"description": false}),
        json!({"slides": []}),
        json!({"slides": "x"}),
        json!({"slides": [1]}),
        json!({"slides": [{"html": "<div>no section</div>"}]}),
        json!({"slides": [{"html": "<section><section>nested</section></section>"}]}),
        json!({"slides": [{"html": "<section>a</section><section>b</section>"}]}),
        json!({"slides": [{"html": "text <section></section>"}]}),
        json!({"slides": [{"html": "<section onclick=\"alert(1)\"></section>"}]}),
        json!({"slides": [{"html": 5}]}),
        json!({"slides": [{"notes": "x".repeat(10_001)}]}),
        json!({"slides": [{"notes": 7}]}),
        json!({"slides": [{"html": "<section></section>", "position": 1}]}),
        json!({"slides": [{}, {"html": "<p>second is bad</p>"}]}),
        json!({"unknown_field": 1}),
        json!({"slug": "mine"}),
    ];

    for body in cases {
        let r = app.create_deck(&alice.key, body.clone()).await;
        assert_eq!(r.status.as_u16(), 422, "{body}: {}", r.text);
        r.expect_error(422);
    }
    assert_eq!(
        app.list_decks(&alice.key, "").await.json["meta"]["total"],
        0
    );
}

#[tokio::test]
async fn create_deck_accepts_the_limits_exactly() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    let r = app
        .create_deck(
            &alice.key,
            json!({"width": 1, "height": 1, "margin": 1, "slides": [{"notes": "é".repeat(10_000)}]}),
        )
        .await;

    r.expect(201);
    assert_eq!(r.data()["margin"].as_f64(), Some(1.0));
}

#[tokio::test]
async fn team_visibility_needs_a_team_account() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let id = app.new_deck(&alice.key, "Mine").await;

    app.create_deck(&alice.key, json!({"visibility": "team"}))
        .await
        .expect_error(403);
    app.update_deck(&alice.key, id, json!({"visibility": "team"}))
        .await
        .expect_error(403);
}

#[tokio::test]
async fn slugs_are_unique_per_owner() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;

    let a1 = app.create_deck(&alice.key, json!({"title": "Intro"})).await;
    let a2 = app
        .create_deck(&alice.key, json!({"title": "Intro!"}))
        .await;
    let b1 = app.create_deck(&bob.key, json!({"title": "Intro"})).await;

    assert_eq!(a1.data()["slug"], "intro");
    assert_eq!(a2.data()["slug"], "intro-2");
    assert_eq!(b1.data()["slug"], "intro");
    assert_ne!(a1.data()["url"], a2.data()["url"]);
    // A deck titled "Intro 3" holds intro-3: the next "Intro" skips it.
    let a3 = app
        .create_deck(&alice.key, json!({"title": "Intro 3"}))
        .await;
    let a4 = app.create_deck(&alice.key, json!({"title": "Intro"})).await;
    assert_eq!(a3.data()["slug"], "intro-3");
    assert_eq!(a4.data()["slug"], "intro-4");
    let mut slugs: Vec<String> = Vec::new();
    for _ in 0..5 {
        let d = app.create_deck(&alice.key, json!({"title": "Intro"})).await;
        slugs.push(d.data()["slug"].as_str().unwrap().to_string());
    }
    assert_eq!(
        slugs,
        ["intro-5", "intro-6", "intro-7", "intro-8", "intro-9"]
    );
}

#[tokio::test]
async fn list_decks_is_newest_first_and_paged() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(app.new_deck(&alice.key, &format!("Deck {i}")).await);
    }
    app.new_deck(&bob.key, "Not alice's").await;

    let all = app.list_decks(&alice.key, "").await;
    let page2 = app.list_decks(&alice.key, "?page=2&per_page=2").await;
    let page3 = app.list_decks(&alice.key, "?page=3&per_page=2").await;
    let beyond = app.list_decks(&alice.key, "?page=9&per_page=2").await;

    all.expect(200);
    let listed: Vec<i64> = all
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_i64().unwrap())
        .collect();
    let mut newest_first = ids.clone();
    newest_first.reverse();
    assert_eq!(listed, newest_first);
    assert_eq!(
        all.json["meta"],
        json!({"page": 1, "per_page": 20, "total": 5})
    );
    let summary = &all.data()[0];
    let mut keys: Vec<&String> = summary.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "description",
            "id",
            "revision",
            "thumbnail_url",
            "title",
            "url"
        ]
    );
    assert_eq!(page2.data().as_array().unwrap().len(), 2);
    assert_eq!(page2.data()[0]["id"], newest_first[2]);
    assert_eq!(
        page2.json["meta"],
        json!({"page": 2, "per_page": 2, "total": 5})
    );
    assert_eq!(page3.data().as_array().unwrap().len(), 1);
    assert_eq!(beyond.data(), &json!([]));
    assert_eq!(beyond.json["meta"]["total"], 5);
}

#[tokio::test]
async fn paging_parameters_out_of_range_answer_422() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    for query in [
        "?page=0",
        "?page=-1",
        "?page=x",
        "?per_page=0",
        "?per_page=101",
        "?per_page=1.5",
        "?per_page=",
    ] {
        app.list_decks(&alice.key, query).await.expect_error(422);
        app.list_trashed_decks(&alice.key, query)
            .await
            .expect_error(422);
    }
    app.list_decks(&alice.key, "?per_page=100&page=1")
        .await
        .expect(200);
    app.list_decks(&alice.key, "?per_page=1").await.expect(200);
}

#[tokio::test]
async fn get_deck_accepts_numeric_and_quoted_ids() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let id = app.new_deck(&alice.key, "Ids").await;

    let plain = app.get_deck(&alice.key, id, "").await;
    let quoted = app.get_deck(&alice.key, format!("%22{id}%22"), "").await;
    let words = app.get_deck(&alice.key, "twelve", "").await;
    let float = app.get_deck(&alice.key, "1.5", "").await;
    let missing = app.get_deck(&alice.key, 999_999, "").await;

    plain.expect(200);
    assert_eq!(plain.data()["id"], id);
    assert!(plain.data()["css"].is_string());
    assert!(plain.data().get("deck_html").is_none());
    assert!(plain.data().get("slide_ids").is_none());
    quoted.expect(200);
    assert_eq!(quoted.data()["id"], id);
    words.expect_error(422);
    float.expect_error(422);
    missing.expect_error(404);
}

#[tokio::test]
async fn include_deck_html_must_be_a_boolean() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let id = app.new_deck(&alice.key, "Html").await;

    let off = app
        .get_deck(&alice.key, id, "?include_deck_html=false")
        .await;
    let on = app
        .get_deck(&alice.key, id, "?include_deck_html=true")
        .await;
    let bad = app
        .get_deck(&alice.key, id, "?include_deck_html=maybe")
        .await;

    assert!(off.data().get("deck_html").is_none());
    let html = on.data()["deck_html"].as_str().unwrap();
    assert!(html.starts_with("<section data-id=\""), "{html}");
    bad.expect_error(422);
}

#[tokio::test]
async fn another_accounts_deck_answers_404_everywhere() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let mallory = app.user("mallory").await;
    let id = app.new_deck(&alice.key, "Private").await;

    app.get_deck(&mallory.key, id, "").await.expect_error(404);
    app.update_deck(&mallory.key, id, json!({"title": "pwned"}))
        .await
        .expect_error(404);
    app.trash_deck(&mallory.key, id).await.expect_error(404);
    app.recover_deck(&mallory.key, id).await.expect_error(404);
    assert_eq!(
        app.list_decks(&mallory.key, "").await.json["meta"]["total"],
        0
    );

    let still = app.get_deck(&alice.key, id, "").await;
    still.expect(200);
    assert_eq!(still.data()["title"], "Private");
}

#[tokio::test]
async fn update_deck_changes_only_the_given_fields() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let created = app
        .create_deck(&alice.key, json!({"title": "Before", "width": 800}))
        .await;
    let id = created.data()["id"].as_i64().unwrap();

    let r = app
        .update_deck(
            &alice.key,
            id,
            json!({"title": "After", "description": "d", "margin": 0.25, "theme_color": "sea-yellow",
                   "theme_font": "sketch", "visibility": "all", "height": 600}),
        )
        .await;

    r.expect(200);
    let d = r.data();
    assert_eq!(d["title"], "After");
    assert_eq!(d["description"], "d");
    assert_eq!(d["width"], 800);
    assert_eq!(d["height"], 600);
    assert_eq!(d["margin"].as_f64(), Some(0.25));
    assert_eq!(d["theme_color"], "sea-yellow");
    assert_eq!(d["theme_font"], "sketch");
    assert_eq!(d["visibility"], "all");
    assert!(d.get("css").is_none());
    assert!(d["updated_at"].as_str() > created.data()["updated_at"].as_str());
    assert_eq!(d["created_at"], created.data()["created_at"]);
    let again = app.get_deck(&alice.key, id, "").await;
    assert_eq!(again.data()["title"], "After");
    // The answer is the deck as it was then stored: the same values a read finds,
    // revision and updated_at included.
    for (key, value) in d.as_object().unwrap() {
        if key != "thumbnail_url" {
            assert_eq!(&again.data()[key], value, "{key}");
        }
    }
    assert_eq!(d["revision"], 2);
}

#[tokio::test]
async fn update_deck_rejects_read_only_unknown_and_invalid_keys_without_changing_anything() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let id = app.new_deck(&alice.key, "Stable").await;
    let before = app.get_deck(&alice.key, id, "").await;
    let cases: Vec<Value> = vec![
        json!({"id": 5}),
        json!({"slug": "x"}),
        json!({"url": "x"}),
        json!({"slide_count": 3}),
        json!({"created_at": "2020-01-01T00:00:00Z"}),
        json!({"css": "body{}"}),
        json!({"transition": "zoom"}),
        json!({"language": "de"}),
        json!({"slides": [{}]}),
        json!({"whatever": true}),
        json!({"title": "New", "width": 0}),
        json!({"title": "New", "margin": 2}),
        json!({"title": "New", "theme_font": "x"}),
        json!("a string"),
    ];

    for body in cases {
        let r = app.update_deck(&alice.key, id, body.clone()).await;
        assert_eq!(r.status.as_u16(), 422, "{body}: {}", r.text);
        r.expect_error(422);
    }
    let after = app.get_deck(&alice.key, id, "").await;
    assert_eq!(after.data(), before.data());
}

#[tokio::test]
async fn update_deck_on_a_missing_or_bad_id() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    app.update_deck(&alice.key, 424242, json!({"title": "x"}))
        .await
        .expect_error(404);
    app.update_deck(&alice.key, "abc", json!({"title": "x"}))
        .await
        .expect_error(422);
}

#[tokio::test]
async fn trash_and_recover_move_a_deck_between_the_lists() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let keep = app.new_deck(&alice.key, "Keep").await;
    let first = app.new_deck(&alice.key, "First trashed").await;
    let second = app.new_deck(&alice.key, "Second trashed").await;

    let t1 = app.trash_deck(&alice.key, first).await;
    let t2 = app.trash_deck(&alice.key, second).await;

    t1.expect(204);
    assert!(t1.text.is_empty());
    t2.expect(204);
    let active = app.list_decks(&alice.key, "").await;
    assert_eq!(active.json["meta"]["total"], 1);
    assert_eq!(active.data()[0]["id"], keep);
    let trashed = app.list_trashed_decks(&alice.key, "").await;
    trashed.expect(200);
    assert_eq!(
        trashed.json["meta"],
        json!({"page": 1, "per_page": 20, "total": 2})
    );
    assert_eq!(
        trashed.data()[0]["id"],
        second,
        "most recently trashed first"
    );
    assert_eq!(trashed.data()[1]["id"], first);
    let t = &trashed.data()[0];
    assert!(t.get("url").is_none());
    assert!(t["trashed_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(t["title"], "Second trashed");
    for field in ["description", "thumbnail_url"] {
        assert!(t[field].is_string());
    }
    app.get_deck(&alice.key, first, "").await.expect_error(404);
    app.update_deck(&alice.key, first, json!({"title": "x"}))
        .await
        .expect_error(404);

    let r = app.recover_deck(&alice.key, first).await;

    r.expect(204);
    assert!(r.text.is_empty());
    app.get_deck(&alice.key, first, "").await.expect(200);
    assert_eq!(
        app.list_decks(&alice.key, "").await.json["meta"]["total"],
        2
    );
    assert_eq!(
        app.list_trashed_decks(&alice.key, "").await.json["meta"]["total"],
        1
    );
}

#[tokio::test]
async fn trash_and_recover_are_idempotent_and_check_the_id() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let id = app.new_deck(&alice.key, "Twice").await;

    app.trash_deck(&alice.key, id).await.expect(204);
    let trashed_at = app.list_trashed_decks(&alice.key, "").await.data()[0]["trashed_at"].clone();
    app.trash_deck(&alice.key, id).await.expect(204);
    assert_eq!(
        app.list_trashed_decks(&alice.key, "").await.data()[0]["trashed_at"],
        trashed_at
    );
    app.recover_deck(&alice.key, id).await.expect(204);
    app.recover_deck(&alice.key, id).await.expect(204);
    app.trash_deck(&alice.key, 777).await.expect_error(404);
    app.recover_deck(&alice.key, "x").await.expect_error(422);
}
