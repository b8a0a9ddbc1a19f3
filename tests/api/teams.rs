//! Teams: team accounts, team visibility, `list_team_decks` and `get_team_deck`.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{TestApp, TestUser};

async fn deck(app: &TestApp, user: &TestUser, title: &str, visibility: &str) -> i64 {
    let r = app
        .create_deck(&user.key, json!({"title": title, "visibility": visibility}))
        .await;
    r.expect(201);
    r.data()["id"].as_i64().unwrap()
}

async fn list(app: &TestApp, user: &TestUser, query: &str) -> crate::common::Resp {
    app.call(
        Method::GET,
        &format!("/v1/team/decks{query}"),
        Some(&user.key),
        None,
    )
    .await
}

async fn get(
    app: &TestApp,
    user: &TestUser,
    id: impl std::fmt::Display,
    query: &str,
) -> crate::common::Resp {
    app.call(
        Method::GET,
        &format!("/v1/team/decks/{id}{query}"),
        Some(&user.key),
        None,
    )
    .await
}

fn titles(r: &crate::common::Resp) -> Vec<String> {
    r.data()
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].as_str().unwrap().to_string())
        .collect()
}

struct World {
    app: TestApp,
    a1: TestUser,
    a2: TestUser,
    b1: TestUser,
    solo: TestUser,
    a1_team: i64,
    a1_self: i64,
    a1_trashed: i64,
    b1_team: i64,
}

/// Teams alpha (a1, a2) and beta (b1), and the teamless solo, each with decks of every
/// visibility.
async fn world() -> World {
    let app = TestApp::spawn().await;
    let a1 = app.team_user("a1", "alpha").await;
    let a2 = app.team_user("a2", "alpha").await;
    let b1 = app.team_user("b1", "beta").await;
    let solo = app.user("solo").await;
    let a1_team = deck(&app, &a1, "A1 team", "team").await;
    deck(&app, &a1, "A1 all", "all").await;
    let a1_self = deck(&app, &a1, "A1 self", "self").await;
    let a1_trashed = deck(&app, &a1, "A1 trashed", "team").await;
    app.trash_deck(&a1.key, a1_trashed).await.expect(204);
    deck(&app, &a2, "A2 team", "team").await;
    let b1_team = deck(&app, &b1, "B1 team", "team").await;
    deck(&app, &b1, "B1 all", "all").await;
    deck(&app, &solo, "Solo all", "all").await;
    World {
        app,
        a1,
        a2,
        b1,
        solo,
        a1_team,
        a1_self,
        a1_trashed,
        b1_team,
    }
}

#[tokio::test]
async fn team_accounts_show_their_team() {
    let w = world().await;

    let a1 = w.app.users_get(&w.a1.key).await;
    let solo = w.app.users_get(&w.solo.key).await;

    assert_eq!(a1.data()["account"]["type"], "team");
    let team = &a1.data()["team"];
    assert!(team["id"].is_i64());
    assert_eq!(team["name"], "alpha");
    assert_eq!(team["slug"], "alpha");
    assert_eq!(team["url"], format!("{}/teams/alpha", w.app.base));
    assert_eq!(
        w.app.users_get(&w.a2.key).await.data()["team"]["id"],
        team["id"]
    );
    assert_ne!(
        w.app.users_get(&w.b1.key).await.data()["team"]["id"],
        team["id"]
    );
    assert_eq!(solo.data()["account"]["type"], "personal");
    assert!(solo.data()["team"].is_null());
}

#[tokio::test]
async fn team_lists_show_the_teams_team_and_all_decks_newest_first() {
    let w = world().await;

    let a1 = list(&w.app, &w.a1, "").await;
    let a2 = list(&w.app, &w.a2, "").await;
    let b1 = list(&w.app, &w.b1, "").await;

    a1.expect(200);
    assert_eq!(titles(&a1), ["A2 team", "A1 all", "A1 team"]);
    assert_eq!(
        a1.json["meta"],
        json!({"page": 1, "per_page": 20, "total": 3})
    );
    assert_eq!(titles(&a2), titles(&a1));
    assert_eq!(titles(&b1), ["B1 all", "B1 team"]);
    let d = &a1.data()[2];
    assert_eq!(d["visibility"], "team");
    assert_eq!(
        d["owner"],
        json!({"id": w.a1.id, "name": "a1 name", "username": "a1"})
    );
    assert_eq!(d["url"], format!("{}/teams/alpha/a1/a1-team", w.app.base));
    let mut keys: Vec<&String> = d.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "description",
            "id",
            "owner",
            "revision",
            "thumbnail_url",
            "title",
            "url",
            "visibility"
        ]
    );
}

#[tokio::test]
async fn team_lists_page_like_the_other_lists() {
    let w = world().await;

    let p2 = list(&w.app, &w.a1, "?page=2&per_page=2").await;

    assert_eq!(titles(&p2), ["A1 team"]);
    assert_eq!(
        p2.json["meta"],
        json!({"page": 2, "per_page": 2, "total": 3})
    );
    for q in ["?page=0", "?per_page=101", "?per_page=x"] {
        list(&w.app, &w.a1, q).await.expect_error(422);
    }
}

#[tokio::test]
async fn get_team_deck_shows_team_decks_with_their_owner() {
    let w = world().await;

    let r = get(&w.app, &w.a2, w.a1_team, "?include_deck_html=true").await;

    r.expect(200);
    let d = r.data();
    assert_eq!(d["title"], "A1 team");
    // The team deck's revision as a strong entity tag, as get_deck sends it.
    assert_eq!(
        r.headers["etag"],
        format!("\"{}-{}\"", w.a1_team, d["revision"]).as_str()
    );
    assert_eq!(
        d["owner"],
        json!({"id": w.a1.id, "name": "a1 name", "username": "a1"})
    );
    assert!(
        d["deck_html"]
            .as_str()
            .unwrap()
            .starts_with("<section data-id=")
    );
    assert!(d["css"].is_string());
    assert_eq!(
        d["urls"]["present"],
        format!("{}/teams/alpha/a1/a1-team/present", w.app.base)
    );
    assert!(
        get(&w.app, &w.a2, w.a1_team, "")
            .await
            .data()
            .get("deck_html")
            .is_none()
    );
    get(&w.app, &w.a2, format!("%22{}%22", w.a1_team), "")
        .await
        .expect(200);
}

#[tokio::test]
async fn self_trashed_and_other_team_decks_answer_404_and_teamless_accounts_403() {
    let w = world().await;

    get(&w.app, &w.a2, w.a1_self, "").await.expect_error(404);
    get(&w.app, &w.a1, w.a1_self, "").await.expect_error(404);
    get(&w.app, &w.a2, w.a1_trashed, "").await.expect_error(404);
    get(&w.app, &w.a2, w.b1_team, "").await.expect_error(404);
    get(&w.app, &w.b1, w.a1_team, "").await.expect_error(404);
    get(&w.app, &w.a2, 999_999, "").await.expect_error(404);
    get(&w.app, &w.a2, "abc", "").await.expect_error(422);
    list(&w.app, &w.solo, "").await.expect_error(403);
    get(&w.app, &w.solo, w.a1_team, "").await.expect_error(403);
    // Nothing of another team leaks through the own-deck operations either.
    w.app
        .get_deck(&w.a2.key, w.a1_team, "")
        .await
        .expect_error(404);
}

#[tokio::test]
async fn team_visibility_is_for_team_accounts_only() {
    let w = world().await;

    w.app
        .create_deck(&w.a1.key, json!({"visibility": "team"}))
        .await
        .expect(201);
    w.app
        .create_deck(&w.solo.key, json!({"visibility": "team"}))
        .await
        .expect_error(403);
    let solo_deck = deck(&w.app, &w.solo, "Solo", "self").await;
    w.app
        .update_deck(&w.solo.key, solo_deck, json!({"visibility": "team"}))
        .await
        .expect_error(403);
}

#[tokio::test]
async fn leaving_a_team_takes_effect_at_once() {
    let w = world().await;
    assert_eq!(list(&w.app, &w.a2, "").await.status.as_u16(), 200);

    w.app.core.admin().remove_from_team("a2").await.unwrap();

    list(&w.app, &w.a2, "").await.expect_error(403);
    get(&w.app, &w.a2, w.a1_team, "").await.expect_error(403);
    assert_eq!(
        titles(&list(&w.app, &w.a1, "").await),
        ["A1 all", "A1 team"]
    );
    assert_eq!(w.app.users_get(&w.a2.key).await.data()["team"], Value::Null);
    // Joining another team takes the member's own team decks along.
    w.app.core.admin().add_to_team("a2", "beta").await.unwrap();
    assert_eq!(
        titles(&list(&w.app, &w.a2, "").await),
        ["B1 all", "B1 team", "A2 team"]
    );
}
