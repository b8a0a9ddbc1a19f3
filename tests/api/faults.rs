//! Faults: `kill -9` of a server in the middle of a burst of writes (on SQLite, and on
//! PostgreSQL in that pass) loses no write that was answered 2xx and leaves every deck valid;
//! a PostgreSQL restart under load is survived without restarting Lectern.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::json;
use tokio::sync::mpsc;

use crate::common::{PgDatabase, account, send_json, serve, testing_postgres};

/// A database for one test: SQLite in `dir`, or a fresh PostgreSQL database.
async fn database(dir: &std::path::Path) -> (String, Option<PgDatabase>) {
    if testing_postgres() {
        let db = PgDatabase::create().await;
        (db.url.clone(), Some(db))
    } else {
        (
            format!("sqlite://{}", dir.join("lectern.db").display()),
            None,
        )
    }
}

/// Reads every slide of a deck and checks the order is well formed (contiguous horizontal
/// positions, contiguous vertical positions, no group of one); returns the slide ids.
async fn valid_slides(client: &reqwest::Client, base: &str, key: &str, deck: i64) -> Vec<String> {
    let mut ids = Vec::new();
    let mut stacks: Vec<(bool, usize)> = Vec::new();
    for page in 1.. {
        let (status, list) = send_json(
            client,
            Method::GET,
            format!("{base}/v1/decks/{deck}/slides?per_page=200&page={page}"),
            key,
            None,
        )
        .await
        .expect("the server answers");
        assert_eq!(status, 200, "{list}");
        let items = list["data"].as_array().unwrap();
        for s in items {
            let h = s["position"]["horizontal"].as_i64().unwrap() as usize;
            match s["position"]["vertical"].as_i64() {
                None | Some(0) => {
                    assert_eq!(h, stacks.len(), "deck {deck}: horizontal gap");
                    stacks.push((s["position"]["vertical"].is_i64(), 1));
                }
                Some(v) => {
                    let last = stacks.last_mut().expect("a group continues a stack");
                    assert_eq!(v as usize, last.1, "deck {deck}: vertical gap");
                    last.1 += 1;
                }
            }
            ids.push(s["id"].as_str().unwrap().to_string());
        }
        if items.len() < 200 {
            assert_eq!(list["meta"]["total"].as_u64().unwrap() as usize, ids.len());
            break;
        }
    }
    assert!(
        stacks.iter().all(|(grouped, n)| !grouped || *n >= 2),
        "deck {deck}: a vertical group of one slide"
    );
    ids
}

/// What a writer saw answered 2xx.
enum Ack {
    /// A slide added to a deck.
    Slide(String),
    /// A deck created with these slides.
    Deck(i64, Vec<String>),
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_kill_9_during_a_burst_of_writes_loses_no_answered_write() {
    kill_9_during_a_burst(8).await;
}

/// 32 writers at once: on SQLite their writes share transactions (group commit), and each
/// is answered only after the commit that holds it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_kill_9_during_a_burst_of_32_writers_loses_no_answered_write() {
    kill_9_during_a_burst(32).await;
}

/// `writers` clients add slides and create decks until 120 writes were answered; then the
/// server is killed, restarted on the same data, and every answered write is checked.
async fn kill_9_during_a_burst(writers_count: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (url, _pg) = database(dir.path()).await;
    let key = account(&url, "alice").await;
    let data = dir.path().join("data");
    let (mut server, base) = serve(&url, &data, &["--rate-limit", "0"]).await;
    let client = reqwest::Client::new();
    let (status, created) = send_json(
        &client,
        Method::POST,
        format!("{base}/v1/decks"),
        &key,
        Some(json!({"title": "Target", "slides": [{"html": "<section>1</section>"}, {"html": "<section>2</section>"}]})),
    )
    .await
    .unwrap();
    assert_eq!(status, 201);
    let target = created["data"]["id"].as_i64().unwrap();
    let anchors: Vec<String> = created["data"]["slide_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();

    // The writers add slides and create decks as fast as the server answers.
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, mut rx) = mpsc::unbounded_channel::<Ack>();
    let mut writers = Vec::new();
    for w in 0..writers_count {
        let (client, key, base, stop, tx) = (
            client.clone(),
            key.clone(),
            base.clone(),
            stop.clone(),
            tx.clone(),
        );
        let anchors = anchors.clone();
        writers.push(tokio::spawn(async move {
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                if (w + n).is_multiple_of(3) {
                    let body = json!({"title": format!("w{w}-{n}"), "slides": [{"html": "<section>a</section>"}, {"html": "<section>b</section>", "notes": "n"}]});
                    if let Ok((201, r)) =
                        send_json(&client, Method::POST, format!("{base}/v1/decks"), &key, Some(body)).await
                    {
                        let ids = r["data"]["slide_ids"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|v| v.as_str().unwrap().to_string())
                            .collect();
                        let _ = tx.send(Ack::Deck(r["data"]["id"].as_i64().unwrap(), ids));
                    }
                } else {
                    let body = json!({"html": format!("<section>w{w}-{n}</section>"), "insert_after_slide_id": anchors[n % 2]});
                    if let Ok((201, r)) = send_json(
                        &client,
                        Method::POST,
                        format!("{base}/v1/decks/{target}/slides"),
                        &key,
                        Some(body),
                    )
                    .await
                    {
                        let id = r["data"]["id"].as_str().unwrap().to_string();
                        let _ = tx.send(Ack::Slide(id));
                    }
                }
            }
        }));
    }
    drop(tx);

    // SIGKILL once 120 writes have been answered, while the writers keep going.
    let mut acked = Vec::new();
    while acked.len() < 120 {
        acked.push(rx.recv().await.expect("the writers are running"));
    }
    server.start_kill().expect("the server can be killed");
    server.wait().await.unwrap();
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.await.unwrap();
    }
    while let Ok(ack) = rx.try_recv() {
        acked.push(ack);
    }

    // A new server on the same data: every answered write is there, every deck valid.
    let (_server, base) = serve(&url, &data, &["--rate-limit", "0"]).await;
    let target_slides: HashSet<String> = valid_slides(&client, &base, &key, target)
        .await
        .into_iter()
        .collect();
    let (mut slides, mut decks) = (0, 0);
    for ack in &acked {
        match ack {
            Ack::Slide(id) => {
                slides += 1;
                assert!(target_slides.contains(id), "answered slide {id} was lost");
            }
            Ack::Deck(deck, ids) => {
                decks += 1;
                assert_eq!(&valid_slides(&client, &base, &key, *deck).await, ids);
            }
        }
    }
    assert!(slides > 0 && decks > 0, "both kinds of write were answered");
    // Every deck the database holds (including writes cut off mid-flight) is valid.
    let (status, list) = send_json(
        &client,
        Method::GET,
        format!("{base}/v1/decks?per_page=100"),
        &key,
        None,
    )
    .await
    .unwrap();
    assert_eq!(status, 200);
    let total = list["meta"]["total"].as_u64().unwrap();
    assert!(
        total as usize > decks,
        "{total} decks for {decks} answered creates"
    );
    for page in 1..=total.div_ceil(100) {
        let (_, list) = send_json(
            &client,
            Method::GET,
            format!("{base}/v1/decks?per_page=100&page={page}"),
            &key,
            None,
        )
        .await
        .unwrap();
        for d in list["data"].as_array().unwrap() {
            valid_slides(&client, &base, &key, d["id"].as_i64().unwrap()).await;
        }
    }
}

/// The PostgreSQL pass terminates every connection of the test's database (what the server
/// sees when PostgreSQL restarts); with `LECTERN_TEST_PG_RESTART` set to a command (e.g.
/// `pg_ctlcluster 15 main restart`, as `scripts/test.sh` does as root) it restarts the real
/// server instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_server_recovers_when_postgresql_restarts_under_load() {
    if !testing_postgres() {
        eprintln!("skipped: runs in the PostgreSQL pass (LECTERN_TEST_BACKEND=postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (url, pg) = database(dir.path()).await;
    let pg = pg.expect("a PostgreSQL database");
    let key = account(&url, "alice").await;
    let (mut server, base) = serve(&url, dir.path(), &["--rate-limit", "0"]).await;
    let client = reqwest::Client::new();

    // Four clients read and write without pause.
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, mut rx) = mpsc::unbounded_channel::<u16>();
    let mut load = Vec::new();
    for c in 0..4usize {
        let (client, key, base, stop, tx) = (
            client.clone(),
            key.clone(),
            base.clone(),
            stop.clone(),
            tx.clone(),
        );
        load.push(tokio::spawn(async move {
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let r = if (c + n).is_multiple_of(2) {
                    send_json(&client, Method::GET, format!("{base}/v1/decks"), &key, None).await
                } else {
                    send_json(
                        &client,
                        Method::POST,
                        format!("{base}/v1/decks"),
                        &key,
                        Some(json!({"title": format!("c{c}-{n}")})),
                    )
                    .await
                };
                let status = r.map(|(s, _)| s).expect("the server keeps answering");
                let _ = tx.send(status);
            }
        }));
    }
    drop(tx);
    let mut before = 0;
    while before < 50 {
        let s = rx.recv().await.unwrap();
        assert!((200..300).contains(&s), "status {s} before the restart");
        before += 1;
    }

    match std::env::var("LECTERN_TEST_PG_RESTART") {
        Ok(command) if !command.is_empty() => {
            let status = tokio::process::Command::new("sh")
                .args(["-c", &command])
                .status()
                .await
                .unwrap();
            assert!(status.success(), "{command} failed");
        }
        _ => {
            assert!(
                pg.terminate_connections().await > 0,
                "the server was connected"
            );
        }
    }

    // Requests during the outage may fail (5xx, JSON), never hang; then 100 answers in a
    // row succeed again, without restarting Lectern.
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut streak, mut failed) = (0, 0);
    while streak < 100 {
        assert!(Instant::now() < deadline, "no recovery within 60 s");
        let s = tokio::time::timeout(Duration::from_secs(35), rx.recv())
            .await
            .expect("requests do not hang")
            .unwrap();
        if (200..300).contains(&s) {
            streak += 1;
        } else {
            assert!(s >= 500, "unexpected status {s}");
            failed += 1;
            streak = 0;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for l in load {
        l.await.unwrap();
    }
    assert!(
        server.try_wait().unwrap().is_none(),
        "the same server process still runs"
    );
    eprintln!("recovered; {failed} requests failed during the outage");
}
