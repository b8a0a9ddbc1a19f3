//! Several `lectern serve` processes on one PostgreSQL database, driven in parallel: no lost
//! write, no duplicate slug, every slide order valid. Runs in the PostgreSQL pass of the
//! suite (`LECTERN_TEST_BACKEND=postgres`); SQLite serves one process by design.

use serde_json::{Value, json};

use crate::common::{PgDatabase, account, admin, send_json, serve, testing_postgres};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_servers_on_one_database_lose_nothing() {
    if !testing_postgres() {
        eprintln!("skipped: runs in the PostgreSQL pass (LECTERN_TEST_BACKEND=postgres)");
        return;
    }
    let db = PgDatabase::create().await;
    let key = account(&db.url, "alice").await;
    let dir = tempfile::tempdir().unwrap();
    let (_a, base_a) = serve(&db.url, dir.path(), &[]).await;
    let (_b, base_b) = serve(&db.url, dir.path(), &[]).await;
    let bases = [base_a.clone(), base_b.clone()];
    let client = reqwest::Client::new();

    // Decks created at the same moment through both servers, all with one title.
    let mut creates = Vec::new();
    for i in 0..8 {
        let (client, key, base) = (client.clone(), key.clone(), bases[i % 2].clone());
        creates.push(tokio::spawn(async move {
            let slides: Vec<Value> = (0..10)
                .map(|n| json!({"html": format!("<section>{n}</section>")}))
                .collect();
            send_json(
                &client,
                reqwest::Method::POST,
                format!("{base}/v1/decks"),
                &key,
                Some(json!({"title": "Same", "slides": slides})),
            )
            .await
            .unwrap()
        }));
    }
    let mut decks: Vec<(i64, Vec<String>)> = Vec::new();
    let mut slugs = std::collections::HashSet::new();
    for c in creates {
        let (status, body) = c.await.unwrap();
        assert_eq!(status, 201, "{body}");
        assert!(
            slugs.insert(body["data"]["slug"].as_str().unwrap().to_string()),
            "duplicate slug"
        );
        let ids = body["data"]["slide_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        decks.push((body["data"]["id"].as_i64().unwrap(), ids));
    }

    // Adds, moves and removes on the same decks, through both servers at once.
    let mut tasks = Vec::new();
    for i in 0..80usize {
        let (client, key, base) = (client.clone(), key.clone(), bases[i % 2].clone());
        let (deck, ids) = decks[i % 2].clone();
        tasks.push(tokio::spawn(async move {
            let url = format!("{base}/v1/decks/{deck}/slides");
            let (status, body) = match i % 4 {
                0 | 1 => send_json(&client, reqwest::Method::POST, url, &key, Some(json!({"insert_after_slide_id": ids[i % 10]}))).await.unwrap(),
                2 => send_json(&client, reqwest::Method::PATCH, format!("{url}/move"), &key, Some(json!({
                    "slide_ids": [ids[(i + 1) % 10], ids[(i + 5) % 10]], "insert_before_slide_id": ids[(i + 3) % 10]
                }))).await.unwrap(),
                _ => send_json(&client, reqwest::Method::DELETE, url, &key, Some(json!({"slide_ids": [ids[(i / 4) % 10]]}))).await.unwrap(),
            };
            (deck, i % 4, status, body)
        }));
    }
    let mut expected: std::collections::HashMap<i64, i64> =
        decks.iter().map(|(d, _)| (*d, 10)).collect();
    for t in tasks {
        let (deck, kind, status, body) = t.await.unwrap();
        assert!(
            [200, 201, 404, 422].contains(&status),
            "unexpected {status}: {body}"
        );
        match (kind, status) {
            (0 | 1, 201) => *expected.get_mut(&deck).unwrap() += 1,
            (3, 200) => {
                *expected.get_mut(&deck).unwrap() -= body["data"]["count"].as_i64().unwrap()
            }
            _ => {}
        }
    }

    // Both servers see the same valid decks, with every answered write in them.
    for (deck, count) in expected {
        let mut orders = Vec::new();
        for base in &bases {
            let (status, list) = send_json(
                &client,
                reqwest::Method::GET,
                format!("{base}/v1/decks/{deck}/slides?per_page=200"),
                &key,
                None,
            )
            .await
            .unwrap();
            assert_eq!(status, 200);
            let items = list["data"].as_array().unwrap();
            assert_eq!(
                items.len() as i64,
                count,
                "deck {deck}: lost or phantom slides"
            );
            assert_eq!(list["meta"]["total"].as_i64().unwrap(), count);
            let mut h_expected = 0;
            for (n, s) in items.iter().enumerate() {
                let h = s["position"]["horizontal"].as_i64().unwrap();
                match s["position"]["vertical"].as_i64() {
                    None => {
                        assert_eq!(h, h_expected, "horizontal gap in deck {deck}");
                        h_expected += 1;
                    }
                    Some(v) => panic!("deck {deck} slide {n} is in a group ({v}) it never joined"),
                }
            }
            let (_, detail) = send_json(
                &client,
                reqwest::Method::GET,
                format!("{base}/v1/decks/{deck}"),
                &key,
                None,
            )
            .await
            .unwrap();
            assert_eq!(detail["data"]["slide_count"].as_i64().unwrap(), count);
            orders.push(items.iter().map(|s| s["id"].clone()).collect::<Vec<_>>());
        }
        assert_eq!(orders[0], orders[1], "the servers disagree on deck {deck}");
    }
}

/// Two servers on one database share a key's rate limit: what one server let through is
/// charged on the other within about a second (the exchange runs once a second).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_share_the_rate_limit() {
    if !testing_postgres() {
        eprintln!("skipped: runs in the PostgreSQL pass (LECTERN_TEST_BACKEND=postgres)");
        return;
    }
    let db = PgDatabase::create().await;
    let key = account(&db.url, "alice").await;
    let dir = tempfile::tempdir().unwrap();
    let (_a, base_a) = serve(&db.url, dir.path(), &["--rate-limit", "10"]).await;
    let (_b, base_b) = serve(&db.url, dir.path(), &["--rate-limit", "10"]).await;
    let client = reqwest::Client::new();
    let get = |base: &str| {
        client
            .get(format!("{base}/v1/user"))
            .bearer_auth(&key)
            .send()
    };
    // The whole budget spent on server A.
    for _ in 0..10 {
        assert_eq!(get(&base_a).await.unwrap().status(), 200);
    }
    assert_eq!(get(&base_a).await.unwrap().status(), 429);
    // Server B learns of it: alone it would allow ten more, but it refuses within a few
    // requests (one every 300 ms; A's counts reach B within about a second).
    let mut refused = false;
    for _ in 0..8 {
        let resp = get(&base_b).await.unwrap();
        if resp.status() == 429 {
            assert!(resp.headers().contains_key("retry-after"));
            refused = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    assert!(refused, "server B never charged what server A let through");
}

/// Every server caches the decks and API keys it reads. A change answered by one server is
/// never served stale by the other: a deck edited on A reads back edited on B at once, 100
/// times over, also after the database dropped every connection (the change watchers
/// listen again and read through meanwhile); an account that an admin command puts into a
/// team may make team decks on B at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_answered_by_one_server_is_never_served_stale_by_another() {
    if !testing_postgres() {
        eprintln!("skipped: runs in the PostgreSQL pass (LECTERN_TEST_BACKEND=postgres)");
        return;
    }
    let db = PgDatabase::create().await;
    let key = account(&db.url, "alice").await;
    let dir = tempfile::tempdir().unwrap();
    let (_a, base_a) = serve(&db.url, dir.path(), &[]).await;
    let (_b, base_b) = serve(&db.url, dir.path(), &[]).await;
    let client = reqwest::Client::new();
    let call = |method: reqwest::Method, url: String, body: Option<Value>| {
        let (client, key) = (client.clone(), key.clone());
        async move { send_json(&client, method, url, &key, body).await.unwrap() }
    };
    let (status, made) = call(
        reqwest::Method::POST,
        format!("{base_a}/v1/decks"),
        Some(json!({"title": "T0"})),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let deck = made["data"]["id"].as_i64().unwrap();
    let slide = made["data"]["slide_ids"][0].as_str().unwrap().to_string();
    for round in 1..=100 {
        if round == 50 {
            assert!(db.terminate_connections().await > 0);
        }
        // B reads the deck (and keeps it), A changes it, B reads it again at once.
        let before = call(
            reqwest::Method::GET,
            format!("{base_b}/v1/decks/{deck}"),
            None,
        )
        .await;
        assert_eq!(before.0, 200, "round {round}: {}", before.1);
        let title = format!("T{round}");
        let (status, body) = call(
            reqwest::Method::PATCH,
            format!("{base_a}/v1/decks/{deck}"),
            Some(json!({"title": title})),
        )
        .await;
        assert_eq!(status, 200, "round {round}: {body}");
        let (_, after) = call(
            reqwest::Method::GET,
            format!("{base_b}/v1/decks/{deck}"),
            None,
        )
        .await;
        assert_eq!(
            after["data"]["title"], title,
            "round {round}: B served a stale deck"
        );
        // A slide edit on A: B's answer carries the new revision and content.
        let html = format!("<section><p>r{round}</p></section>");
        let (status, edited) = call(
            reqwest::Method::PATCH,
            format!("{base_a}/v1/decks/{deck}/slides/{slide}"),
            Some(json!({"html": html})),
        )
        .await;
        assert_eq!(status, 200, "round {round}: {edited}");
        let (_, seen) = call(
            reqwest::Method::GET,
            format!("{base_b}/v1/decks/{deck}/slides/{slide}"),
            None,
        )
        .await;
        assert!(
            seen["data"]["html"]
                .as_str()
                .unwrap()
                .contains(&format!("r{round}<")),
            "round {round}: B served a stale slide: {seen}"
        );
    }

    // The key's account joins a team through an admin command (another process): B, which
    // has the key cached without a team, lets it make a team deck at once.
    let team_deck = || {
        call(
            reqwest::Method::POST,
            format!("{base_b}/v1/decks"),
            Some(json!({"title": "Team", "visibility": "team"})),
        )
    };
    assert_eq!(team_deck().await.0, 403);
    admin(
        &db.url,
        &["add-to-team", "--username", "alice", "--team", "crew"],
    )
    .await;
    let (status, body) = team_deck().await;
    assert_eq!(
        status, 201,
        "B kept the key's account without its team: {body}"
    );
}

/// The fence a cached read passes proves that every change notice committed before it was
/// applied: a notice committed on another connection has always been heard when the fence
/// passes right after, 200 times over (without the fence's round trip the notice is still
/// on its way).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fence_passes_only_after_the_notices_committed_before_it() {
    use lectern_core::store::cache::Fence;
    use sqlx::Connection;
    use std::sync::{Arc, Mutex};

    if !testing_postgres() {
        eprintln!("skipped: runs in the PostgreSQL pass (LECTERN_TEST_BACKEND=postgres)");
        return;
    }
    let db = PgDatabase::create().await;
    let heard = Arc::new(Mutex::new(Vec::<String>::new()));
    let notices = heard.clone();
    let fence = lectern_store_postgres::watch_changes(
        &db.url,
        move |payload| notices.lock().unwrap().push(payload.to_string()),
        |_| {},
        |_| {},
    )
    .await
    .unwrap();
    let mut other = sqlx::PgConnection::connect(&db.url).await.unwrap();
    for round in 0..200 {
        let payload = format!("deck:{round}");
        sqlx::query("SELECT pg_notify('lectern_changes', $1)")
            .bind(&payload)
            .execute(&mut other)
            .await
            .unwrap();
        assert!(fence.pass().await, "round {round}: the fence failed");
        assert!(
            heard.lock().unwrap().contains(&payload),
            "round {round}: the fence passed before the notice committed before it was heard"
        );
    }
}

/// Two `lectern serve` processes on one new database, alice's key, and a deck of hers
/// created through the first.
struct TwoServers {
    _db: PgDatabase,
    _dir: tempfile::TempDir,
    _servers: [tokio::process::Child; 2],
    a: String,
    b: String,
    key: String,
    client: reqwest::Client,
    /// The deck's create_deck answer (`data`).
    deck: Value,
}

/// [`TwoServers`] with a deck made from `body`; `None` outside the PostgreSQL pass.
async fn two_servers_and_a_deck(body: Value) -> Option<TwoServers> {
    if !testing_postgres() {
        eprintln!("skipped: runs in the PostgreSQL pass (LECTERN_TEST_BACKEND=postgres)");
        return None;
    }
    let db = PgDatabase::create().await;
    let key = account(&db.url, "alice").await;
    let dir = tempfile::tempdir().unwrap();
    let (server_a, a) = serve(&db.url, dir.path(), &[]).await;
    let (server_b, b) = serve(&db.url, dir.path(), &[]).await;
    let client = reqwest::Client::new();
    let (status, created) = send_json(
        &client,
        reqwest::Method::POST,
        format!("{a}/v1/decks"),
        &key,
        Some(body),
    )
    .await
    .unwrap();
    assert_eq!(status, 201, "{created}");
    Some(TwoServers {
        _db: db,
        _dir: dir,
        _servers: [server_a, server_b],
        a,
        b,
        key,
        client,
        deck: created["data"].clone(),
    })
}

/// A write through one server arrives as an event on a stream the other server holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_on_one_server_is_an_event_on_the_others_stream() {
    use crate::events::{Events, Resume};
    let Some(two) = two_servers_and_a_deck(json!({"title": "Across"})).await else {
        return;
    };
    let deck = two.deck["id"].as_i64().unwrap();
    let revision = two.deck["revision"].as_i64().unwrap();
    let mut on_b = Events::connect(&two.b, &two.key, deck, Resume::Now).await;
    for n in 1..=3 {
        let started = std::time::Instant::now();
        let (status, body) = send_json(
            &two.client,
            reqwest::Method::PATCH,
            format!("{}/v1/decks/{deck}", two.a),
            &two.key,
            Some(json!({"description": format!("change {n}")})),
        )
        .await
        .unwrap();
        assert_eq!(status, 200, "{body}");
        on_b.revision(revision + n, "update_deck").await;
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(1), "{took:?}");
        eprintln!("a write on server A reached server B's stream in {took:?}");
    }
}

/// An audience page served by one server follows a presenter announced through the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_audience_on_one_server_follows_a_presenter_on_the_other() {
    let Some(two) = two_servers_and_a_deck(
        json!({"title": "Across", "visibility": "all", "slides": [{}, {}, {}]}),
    )
    .await
    else {
        return;
    };
    let deck = two.deck["id"].as_i64().unwrap();
    let page = reqwest::Url::parse(two.deck["url"].as_str().unwrap()).unwrap();
    // Signed out, on server B: the deck page's follow stream.
    let mut follow = two
        .client
        .get(format!("{}{}/follow", two.b, page.path()))
        .send()
        .await
        .unwrap();
    assert_eq!(follow.status(), 200);
    for h in 1..=3 {
        let started = std::time::Instant::now();
        let (status, body) = send_json(
            &two.client,
            reqwest::Method::PUT,
            format!("{}/v1/decks/{deck}/presenter", two.a),
            &two.key,
            Some(json!({"indexh": h, "indexv": 0, "fragment": -1, "live": true})),
        )
        .await
        .unwrap();
        assert_eq!(status, 204, "{body}");
        let mut text = String::new();
        while !text.contains("\n\n") {
            let chunk = tokio::time::timeout(std::time::Duration::from_secs(2), follow.chunk())
                .await
                .expect("the presenter's move within 2 s")
                .unwrap()
                .expect("the stream stays open");
            text.push_str(std::str::from_utf8(&chunk).unwrap());
        }
        assert!(text.contains("event: presenter"), "{text}");
        assert!(text.contains(&format!("\"indexh\":{h}")), "{text}");
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(1), "{took:?}");
        eprintln!("a presenter's move on server A reached an audience on B in {took:?}");
    }
}
