//! The story: one scenario through all 21 operations of the interface, in the order a team
//! would meet them, run on both engines like every black-box test. It reads like the
//! interface: each step names its operation and checks what section 4 promises.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::TestApp;

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_team_writes_reorders_shares_exports_trashes_and_recovers_a_deck() {
    let app = TestApp::spawn().await;
    let ada = app.team_user("ada", "analytics").await;
    let bob = app.team_user("bob", "analytics").await;

    // users_get: Ada's account, in her team.
    let me = app.users_get(&ada.key).await;
    me.expect(200);
    assert_eq!(me.data()["username"], "ada");
    assert_eq!(me.data()["team"]["slug"], "analytics");

    // create_deck: three slides, the second with notes; the answer lists their ids in order.
    let created = app
        .create_deck(
            &ada.key,
            json!({
                "title": "Quarterly review", "visibility": "team", "theme_color": "black-mint",
                "slides": [
                    {"html": "<section><h1>Q3</h1></section>"},
                    {"html": "<section><h2>Revenue</h2></section>", "notes": "Up 12%"},
                    {"html": "<section><h2>Next</h2></section>"}
                ]
            }),
        )
        .await;
    created.expect(201);
    let deck = created.data()["id"].as_i64().unwrap();
    let slides = ids(&created.data()["slide_ids"]);
    assert_eq!(slides.len(), 3);

    // list_decks: the new deck, newest first, with its URL.
    let listed = app.list_decks(&ada.key, "").await;
    listed.expect(200);
    assert_eq!(listed.data()[0]["id"], deck);
    assert_eq!(listed.json["meta"]["total"], 1);

    // get_deck: the detail with the HTML of every slide.
    let detail = app
        .get_deck(&ada.key, deck, "?include_deck_html=true")
        .await;
    detail.expect(200);
    assert_eq!(detail.data()["slide_count"], 3);
    assert!(
        detail.data()["deck_html"]
            .as_str()
            .unwrap()
            .contains("Revenue")
    );

    // update_deck: a new title; the slug-based URL stays a URL.
    let updated = app
        .update_deck(
            &ada.key,
            deck,
            json!({"title": "Q3 review", "width": 1920, "height": 1080}),
        )
        .await;
    updated.expect(200);
    assert_eq!(updated.data()["title"], "Q3 review");
    assert_eq!(updated.data()["width"], 1920);

    // add_slide: after "Revenue", a horizontal slide, the new slide is horizontal too.
    let added = app
        .add_slide(&ada.key, deck, Some(json!({"html": "<section><h2>Costs</h2></section>", "insert_after_slide_id": slides[1]})))
        .await;
    added.expect(201);
    let costs = added.data()["id"].as_str().unwrap().to_string();
    assert_eq!(added.data()["position"]["horizontal"], 2);

    // move_slides: "Costs" goes first; moved after a horizontal slide it stays horizontal.
    let moved = app
        .move_slides(
            &ada.key,
            deck,
            json!({"slide_ids": [costs], "insert_before_slide_id": slides[0]}),
        )
        .await;
    moved.expect(200);
    assert_eq!(moved.data()["count"], 1);

    // list_slides: presentation order, one horizontal place each.
    let flat = |ids: &[&String]| ids.iter().map(|s| vec![s.to_string()]).collect::<Vec<_>>();
    assert_eq!(
        app.shape(&ada.key, deck).await,
        flat(&[&costs, &slides[0], &slides[1], &slides[2]])
    );

    // A vertical group comes from an imported deck ("--" separates the slides of a group);
    // add_slide after a grouped slide joins the group.
    let talk = app
        .import_markdown(&ada, "# Intro\n---\n# Part one\n--\n# Detail\n---\n# End\n")
        .await;
    let talk_shape = app.shape(&ada.key, talk).await;
    assert_eq!(
        talk_shape.iter().map(Vec::len).collect::<Vec<_>>(),
        [1, 2, 1]
    );
    let joined = app
        .add_slide(
            &ada.key,
            talk,
            Some(json!({"insert_after_slide_id": talk_shape[1][1]})),
        )
        .await;
    joined.expect(201);
    assert_eq!(
        joined.data()["position"],
        json!({"horizontal": 1, "vertical": 2})
    );

    // get_slide and update_slide: the notes are read and replaced through the slide.
    let slide = app.get_slide(&ada.key, deck, &slides[1]).await;
    slide.expect(200);
    assert_eq!(slide.data()["notes"], "Up 12%");
    assert!(
        slide.data()["html"]
            .as_str()
            .unwrap()
            .contains(&format!("data-id=\"{}\"", slides[1]))
    );
    app.update_slide(
        &ada.key,
        deck,
        &slides[1],
        json!({"notes": "Up 14% after the restatement"}),
    )
    .await
    .expect(200);
    assert_eq!(
        app.get_slide(&ada.key, deck, &slides[1]).await.data()["notes"],
        "Up 14% after the restatement"
    );

    // remove_slides: an unknown id is reported, not fatal.
    let removed = app
        .remove_slides(
            &ada.key,
            deck,
            json!({"slide_ids": [costs, "no-such-slide"]}),
        )
        .await;
    removed.expect(200);
    assert_eq!(removed.data()["count"], 1);
    assert_eq!(
        removed.data()["missing_slide_ids"],
        json!(["no-such-slide"])
    );
    assert_eq!(
        app.shape(&ada.key, deck).await,
        flat(&[&slides[0], &slides[1], &slides[2]])
    );
    // In the imported deck, removing two slides of the group of three leaves one, which
    // becomes a horizontal slide (3.3).
    let group = app.shape(&ada.key, talk).await[1].clone();
    app.remove_slides(&ada.key, talk, json!({"slide_ids": [group[1], group[2]]}))
        .await
        .expect(200);
    assert_eq!(
        app.shape(&ada.key, talk)
            .await
            .iter()
            .map(Vec::len)
            .collect::<Vec<_>>(),
        [1, 1, 1]
    );

    // create_deck_share, list_deck_shares, revoke_deck_share: a link for the board.
    let share = app
        .call(
            Method::POST,
            &format!("/v1/decks/{deck}/share"),
            Some(&ada.key),
            Some(json!({"name": "Board", "password": "q3 only"})),
        )
        .await;
    share.expect(201);
    assert_eq!(share.data()["password_protected"], true);
    assert!(share.data()["url"].as_str().unwrap().contains("token="));
    let shares = app
        .call(
            Method::GET,
            &format!("/v1/decks/{deck}/share"),
            Some(&ada.key),
            None,
        )
        .await;
    shares.expect(200);
    assert_eq!(shares.json["meta"]["total"], 1);
    app.call(
        Method::DELETE,
        &format!("/v1/decks/{deck}/share/{}", share.data()["id"]),
        Some(&ada.key),
        None,
    )
    .await
    .expect(204);

    // create_deck_export and get_deck_export: a ZIP, pending first, then completed with a
    // temporary download URL.
    let export = app
        .call(
            Method::POST,
            &format!("/v1/decks/{deck}/exports"),
            Some(&ada.key),
            Some(json!({"format": "zip"})),
        )
        .await;
    export.expect(202);
    assert_eq!(export.data()["status"], "pending");
    let export_path = format!("/v1/decks/{deck}/exports/{}", export.data()["id"]);
    let mut done = Value::Null;
    for _ in 0..300 {
        let polled = app
            .call(Method::GET, &export_path, Some(&ada.key), None)
            .await;
        polled.expect(200);
        if polled.data()["status"] != "pending" {
            done = polled.data().clone();
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(done["status"], "completed", "{done}");
    let download = reqwest::get(done["download_url"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(download.status(), 200);

    // list_team_decks and get_team_deck: Bob, in the same team, sees the team deck.
    let team = app
        .call(Method::GET, "/v1/team/decks", Some(&bob.key), None)
        .await;
    team.expect(200);
    assert_eq!(team.data()[0]["id"], deck);
    assert_eq!(team.data()[0]["owner"]["username"], "ada");
    let team_deck = app
        .call(
            Method::GET,
            &format!("/v1/team/decks/{deck}"),
            Some(&bob.key),
            None,
        )
        .await;
    team_deck.expect(200);
    assert_eq!(team_deck.data()["title"], "Q3 review");

    // trash_deck, list_trashed_decks, recover_deck: out of the lists and back.
    let listed_ids = |r: &crate::common::Resp| {
        r.data()
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_i64().unwrap())
            .collect::<Vec<_>>()
    };
    app.trash_deck(&ada.key, deck).await.expect(204);
    assert_eq!(listed_ids(&app.list_decks(&ada.key, "").await), [talk]);
    let trashed = app.list_trashed_decks(&ada.key, "").await;
    trashed.expect(200);
    assert_eq!(trashed.data()[0]["id"], deck);
    assert!(trashed.data()[0]["trashed_at"].is_string() && trashed.data()[0].get("url").is_none());
    app.call(
        Method::GET,
        &format!("/v1/team/decks/{deck}"),
        Some(&bob.key),
        None,
    )
    .await
    .expect_error(404);
    app.recover_deck(&ada.key, deck).await.expect(204);
    assert_eq!(
        listed_ids(&app.list_decks(&ada.key, "").await),
        [talk, deck]
    );
    assert_eq!(
        app.get_deck(&ada.key, deck, "").await.data()["slide_count"],
        3
    );
}
