//! Several `lectern serve` processes on one PostgreSQL database, driven in parallel: no lost
//! write, no duplicate slug, every slide order valid. Runs in the PostgreSQL pass of the
//! suite (`LECTERN_TEST_BACKEND=postgres`); SQLite serves one process by design.

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::common::{PgDatabase, testing_postgres};

const BIN: &str = env!("CARGO_BIN_EXE_lectern");

/// Starts `lectern serve` on `db_url` and an ephemeral port; returns it and its base URL.
async fn serve(db_url: &str, data_dir: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(BIN)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--database-url",
            db_url,
            "--data-dir",
        ])
        .arg(data_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("lectern serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    while let Some(line) = lines.next_line().await.unwrap() {
        if let Some(rest) = line.strip_prefix("lectern: listening on http://") {
            let addr = rest.split_whitespace().next().unwrap().to_string();
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return (child, format!("http://{addr}"));
        }
    }
    panic!("lectern serve exited before listening");
}

async fn admin(db_url: &str, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .arg("admin")
        .args(args)
        .args(["--database-url", db_url])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

async fn call(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    key: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut req = client.request(method, url).bearer_auth(key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.expect("the server answers");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_servers_on_one_database_lose_nothing() {
    if !testing_postgres() {
        eprintln!("skipped: runs in the PostgreSQL pass (LECTERN_TEST_BACKEND=postgres)");
        return;
    }
    let db = PgDatabase::create().await;
    admin(
        &db.url,
        &[
            "create-user",
            "--username",
            "alice",
            "--email",
            "a@example.org",
        ],
    )
    .await;
    let key = admin(&db.url, &["create-api-key", "--username", "alice"]).await;
    let dir = tempfile::tempdir().unwrap();
    let (_a, base_a) = serve(&db.url, dir.path()).await;
    let (_b, base_b) = serve(&db.url, dir.path()).await;
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
            call(
                &client,
                reqwest::Method::POST,
                format!("{base}/v1/decks"),
                &key,
                Some(json!({"title": "Same", "slides": slides})),
            )
            .await
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
                0 | 1 => call(&client, reqwest::Method::POST, url, &key, Some(json!({"insert_after_slide_id": ids[i % 10]}))).await,
                2 => call(&client, reqwest::Method::PATCH, format!("{url}/move"), &key, Some(json!({
                    "slide_ids": [ids[(i + 1) % 10], ids[(i + 5) % 10]], "insert_before_slide_id": ids[(i + 3) % 10]
                }))).await,
                _ => call(&client, reqwest::Method::DELETE, url, &key, Some(json!({"slide_ids": [ids[(i / 4) % 10]]}))).await,
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
            let (status, list) = call(
                &client,
                reqwest::Method::GET,
                format!("{base}/v1/decks/{deck}/slides?per_page=200"),
                &key,
                None,
            )
            .await;
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
            let (_, detail) = call(
                &client,
                reqwest::Method::GET,
                format!("{base}/v1/decks/{deck}"),
                &key,
                None,
            )
            .await;
            assert_eq!(detail["data"]["slide_count"].as_i64().unwrap(), count);
            orders.push(items.iter().map(|s| s["id"].clone()).collect::<Vec<_>>());
        }
        assert_eq!(orders[0], orders[1], "the servers disagree on deck {deck}");
    }
}
