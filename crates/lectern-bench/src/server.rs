//! The processes under load: Lectern (`__serve-lectern`, one or several on one database)
//! and the bare-axum baseline (`__serve-baseline`), each a child process of the bench, and
//! the fixture the scenarios start from.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::client::{Target, get, once, patch, post};
use crate::exports::settle_thumbnails;
use crate::pgdb::BenchDatabase;
use crate::{RATE_LIMIT, big_deck, path_str, slide_ids};

/// Child: the real server on an ephemeral port, on the SQLite database in `data_dir` or on
/// `database_url`.
pub(crate) async fn serve_lectern(
    data_dir: PathBuf,
    database_url: Option<String>,
) -> anyhow::Result<()> {
    // The log of `lectern serve` (its lines go nowhere: the parent drops this stderr), so that
    // the server measured makes the spans and fields the real one makes.
    lectern::cli::log::init();
    let opts = lectern::cli::StorageOptions {
        listen: "127.0.0.1:0".into(),
        data_dir,
        database_url,
        public_url: None,
        smtp_url: None,
        chrome_path: None,
        smtp_from: "Lectern <lectern@localhost>".into(),
        render_network: Default::default(),
        // Off unless the parent passed `--rate-limit` (the load comes from one key).
        rate_limit: std::env::var("LECTERN_RATE_LIMIT")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
        history_days: 90,
        file_store: "local".into(),
        export_workers: 1,
        metrics_token: None,
        media_quota_mb: 1024,
    };
    lectern::cli::serve::run(&opts).await
}

/// Child: reads each request's body and answers it with `status` and the bytes of
/// `body_file`, from memory.
pub(crate) async fn serve_baseline(status: u16, body_file: PathBuf) -> anyhow::Result<()> {
    let body = bytes::Bytes::from(std::fs::read(&body_file)?);
    let status = axum::http::StatusCode::from_u16(status)?;
    let app = axum::Router::new().fallback(move |request: axum::body::Body| {
        let body = body.clone();
        async move {
            let _ = axum::body::to_bytes(request, usize::MAX).await;
            (status, [("content-type", "application/json")], body)
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("lectern: listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}

/// Starts a child (`program`, default this binary) and waits for its `lectern: listening on
/// URL` line; returns it, the address, and the lines printed before it.
pub(crate) async fn spawn_child(
    program: Option<&Path>,
    args: &[&str],
) -> anyhow::Result<(Child, SocketAddr, Vec<String>)> {
    let program = match program {
        Some(p) => p.to_path_buf(),
        None => std::env::current_exe()?,
    };
    let mut child = Command::new(program)
        .args(args)
        .env(
            "LECTERN_RATE_LIMIT",
            RATE_LIMIT.get().copied().unwrap_or(0).to_string(),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let mut lines = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
    let mut before = Vec::new();
    while let Some(line) = lines.next_line().await? {
        if let Some(url) = line.trim().strip_prefix("lectern: listening on http://") {
            let addr = url.split_whitespace().next().unwrap_or_default();
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return Ok((child, addr.parse()?, before));
        }
        before.push(line);
    }
    bail!("the child server exited before it listened")
}

/// Lectern under test: its processes (one, or several on one PostgreSQL database), the
/// bootstrap account's key, and a fixture deck.
pub(crate) struct Server {
    pub(crate) children: Vec<Child>,
    pub(crate) addrs: Vec<SocketAddr>,
    pub(crate) key: String,
    /// The bootstrap account's username and password (for the browser scenario).
    pub(crate) login: (String, String),
    /// The last of 20 fixture decks of 5 slides each.
    pub(crate) deck_id: i64,
    /// The SQLite data dir (the history scenario measures its database).
    pub(crate) data_dir: PathBuf,
    pub(crate) pg: Option<BenchDatabase>,
}

impl Server {
    /// Starts `servers` Lectern processes of `program` (default: this build) on a fresh
    /// database (SQLite in `data_dir`, or a new PostgreSQL database on `postgres_url`) and
    /// creates the fixture.
    pub(crate) async fn start(
        program: Option<&Path>,
        data_dir: PathBuf,
        postgres_url: Option<&str>,
        servers: usize,
    ) -> anyhow::Result<Server> {
        let pg = match postgres_url {
            Some(url) => Some(BenchDatabase::create(url).await?),
            None => None,
        };
        let mut args = vec![
            "__serve-lectern".to_string(),
            path_str(&data_dir)?.to_string(),
        ];
        if let Some(db) = &pg {
            args.push(db.url.clone());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // The first server bootstraps the account and prints its key; the others share it.
        let (first, addr, printed) = spawn_child(program, &args).await?;
        let mut children = vec![first];
        let mut addrs = vec![addr];
        for _ in 1..servers {
            let (child, addr, _) = spawn_child(program, &args).await?;
            children.push(child);
            addrs.push(addr);
        }
        let key = printed
            .iter()
            .find_map(|l| l.trim().strip_prefix("API key:"))
            .context("the fresh server printed no API key")?
            .trim()
            .to_string();
        let password = printed
            .iter()
            .find_map(|l| l.trim().strip_prefix("password:"))
            .unwrap_or_default()
            .trim()
            .to_string();
        let username = printed
            .iter()
            .find_map(|l| {
                l.split('\'')
                    .nth(1)
                    .filter(|_| l.contains("created the account"))
            })
            .unwrap_or_default()
            .to_string();
        let slides: Vec<serde_json::Value> = (0..5)
            .map(|i| serde_json::json!({"html": format!("<section><h2>Slide {i}</h2><p>Some text for slide {i}.</p></section>"), "notes": "Remember this."}))
            .collect();
        let mut deck_id = 0;
        for i in 0..20 {
            let body = serde_json::json!({"title": format!("Deck {i}"), "slides": slides});
            let (status, bytes) = once(addr, &post("/v1/decks", &key, &body)).await?;
            if status != 201 {
                bail!("fixture deck creation answered {status}");
            }
            deck_id = serde_json::from_slice::<serde_json::Value>(&bytes)?["data"]["id"]
                .as_i64()
                .unwrap_or(0);
        }
        settle_thumbnails(addr, &key).await?;
        Ok(Server {
            children,
            addrs,
            key,
            login: (username, password),
            deck_id,
            data_dir,
            pg,
        })
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addrs[0]
    }

    /// The resident memory of each server process now and at its peak, in MB, from
    /// `/proc` (the process alone: Chromium, its child, is not counted).
    pub(crate) fn memory(&self) -> Vec<(f64, f64)> {
        self.children
            .iter()
            .filter_map(|c| {
                let status = std::fs::read_to_string(format!("/proc/{}/status", c.id()?)).ok()?;
                let kb = |field: &str| {
                    status
                        .lines()
                        .find_map(|l| l.strip_prefix(field))
                        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
                        .unwrap_or(0.0)
                };
                Some((kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0))
            })
            .collect()
    }

    /// Stops the servers with SIGTERM and waits for them: a server that shuts down closes
    /// its Chromium, which a SIGKILL would leave running, orphaned, its CPU in the figures
    /// of the runs that follow.
    pub(crate) async fn stop(self) -> anyhow::Result<()> {
        for mut child in self.children {
            if let Some(pid) = child.id() {
                let _ = Command::new("kill")
                    .args(["-TERM", &pid.to_string()])
                    .status()
                    .await;
                let _ = tokio::time::timeout(Duration::from_secs(40), child.wait()).await;
            }
        }
        if let Some(db) = self.pg {
            db.drop_database().await?;
        }
        Ok(())
    }

    /// The request a load scenario repeats, made ready on this server.
    pub(crate) async fn target(&self, scenario: &str) -> anyhow::Result<Target> {
        let (addr, key, deck_id) = (self.addr(), self.key.as_str(), self.deck_id);
        Ok(match scenario {
            "get_deck" => get(&format!("/v1/decks/{deck_id}"), key),
            "list_decks" => get("/v1/decks", key),
            "create_deck" => post(
                "/v1/decks",
                key,
                &serde_json::json!({"title": "Bench", "slides": [{"html": "<section><h1>Hello</h1></section>"}]}),
            ),
            "create_deck_same_title" => post(
                "/v1/decks",
                key,
                &serde_json::json!({"title": "Same title", "slides": [{"html": "<section><h1>Hello</h1></section>"}]}),
            ),
            "add_slide" => post(
                &format!("/v1/decks/{deck_id}/slides"),
                key,
                &serde_json::json!({"html": "<section><h2>Added</h2></section>"}),
            ),
            "update_slide" => {
                // New notes every time (%N% counts requests): a write that changes nothing
                // would make no revision.
                let (_, ids) = slide_ids(addr, key, deck_id).await?;
                Target {
                    vary: true,
                    ..patch(
                        &format!("/v1/decks/{deck_id}/slides/{}", ids[0]),
                        key,
                        &serde_json::json!({"notes": "Remember this, take %N%."}),
                    )
                }
            }
            "update_deck" => Target {
                // A new description every time, so every request writes (and is a revision).
                vary: true,
                ..patch(
                    &format!("/v1/decks/{deck_id}"),
                    key,
                    &serde_json::json!({"description": "Revised, take %N%."}),
                )
            },
            other => {
                let (kind, n) = other.rsplit_once('_').context("scenario name")?;
                let (deck, ids) = big_deck(addr, key, n.parse()?).await?;
                if kind == "list_slides" {
                    // Pages of ten: the same page on every deck size.
                    get(&format!("/v1/decks/{deck}/slides?per_page=10"), key)
                } else if kind == "add_slide" {
                    // At the end of a deck that starts with n slides (and grows).
                    post(
                        &format!("/v1/decks/{deck}/slides"),
                        key,
                        &serde_json::json!({"html": "<section><h2>Added</h2></section>"}),
                    )
                } else if kind == "get_slide" {
                    // A slide from the middle of the deck.
                    get(
                        &format!("/v1/decks/{deck}/slides/{}", ids[ids.len() / 2]),
                        key,
                    )
                } else if kind == "update_slide" {
                    // New notes for a slide from the middle, every request a revision.
                    Target {
                        vary: true,
                        ..patch(
                            &format!("/v1/decks/{deck}/slides/{}", ids[ids.len() / 2]),
                            key,
                            &serde_json::json!({"notes": "Remember this, take %N%."}),
                        )
                    }
                } else {
                    // Ten slides from the front (nine on a deck of ten: the target stays) move
                    // to just after a later slide: the same work every time.
                    let moved: Vec<&String> = ids.iter().take(10.min(ids.len() - 1)).collect();
                    let target = &ids[(ids.len() / 2).max(moved.len())];
                    patch(
                        &format!("/v1/decks/{deck}/slides/move"),
                        key,
                        &serde_json::json!({"slide_ids": moved, "insert_after_slide_id": target}),
                    )
                }
            }
        })
    }
}
