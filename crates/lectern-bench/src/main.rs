//! `lectern-bench`: loads the release server over loopback and, in the same run, a bare axum
//! handler that answers the same JSON from memory (the baseline), then prints requests/s and
//! p50/p99 latency for both and their ratio.
//!
//! ```text
//! cargo run --release -p lectern-bench -- [SCENARIO ...] [--connections N] [--seconds T]
//!     [--rate-limit N] [--backend sqlite|postgres] [--servers N] [--compare PATH]
//! ```
//!
//! `--compare PATH` also loads a previous build (another `lectern-bench` binary, which serves
//! its own Lectern as `PATH __serve-lectern`) on a database of its own, in the same run, and
//! prints this build's requests/s as a ratio of it.
//!
//! Scenarios (all when none is named): `get_deck`, `list_decks`, `create_deck`;
//! `create_deck_same_title` (one run fills the account with decks of one title, the next is
//! measured); `list_slides_N` (first page of ten) and `move_slides_N` (10 slides moved per
//! request) on a deck of N = 10, 1000 or 10000 slides; `get_slide_N` and `update_slide_N`
//! (new notes of a slide from the middle) for N = 10 and 10000; `add_slide` (appends to one
//! deck); `update_slide` (new notes each time: every request is a revision); `update_deck`
//! (a new description each time); `history_10000`: a 1,000-slide deck after 10,000
//! single-slide edits, its database growth, listing and restoring revisions (see
//! `history.rs`); `editor_200`: the deck editor in headless Chromium on a 200-slide deck,
//! time to interactive and frames per second while dragging (see `editor.rs`);
//! `upload_media`: a 5 MB JPEG upload timed beside the same bytes posted to the baseline,
//! and 100 concurrent small uploads (see `media.rs`); `export_pdf_50`: the time from
//! `create_deck_export` to `completed` for a 50-slide PDF, cold (first, the browser starts)
//! and warm, beside decktape 3 printing the same deck page with the same Chromium
//! (`--decktape PATH`, installed by scripts/bench-exports.sh). Both servers run as child
//! processes of this binary (`__serve-lectern`, `__serve-baseline`) so that the load
//! generator, the server under test and the baseline are separate processes, as in
//! production. Each connection is one HTTP/1.1 keep-alive connection driven by its own
//! task.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

mod client;
mod editor;
mod exports;
mod history;
mod media;
mod pgdb;
mod results;

use client::{Target, get, load, once, patch, post, print_row};
use exports::{export_bench, pptx_bench, settle_thumbnails};
use pgdb::BenchDatabase;

const SCENARIOS: &[&str] = &[
    "get_deck",
    "list_decks",
    "create_deck",
    "create_deck_same_title",
    "list_slides_10",
    "list_slides_1000",
    "list_slides_10000",
    "move_slides_10",
    "move_slides_1000",
    "move_slides_10000",
    "add_slide",
    "add_slide_10",
    "add_slide_10000",
    "update_slide",
    "update_deck",
    "get_slide_10",
    "get_slide_10000",
    "update_slide_10",
    "update_slide_10000",
    "editor_200",
    "history_10000",
    "upload_media",
    "export_pdf_50",
    "export_pptx_50",
];

/// `--rate-limit N` for the server under test (default 0: off, as the load uses one key).
static RATE_LIMIT: std::sync::OnceLock<u32> = std::sync::OnceLock::new();

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    match args.first().map(String::as_str) {
        Some("__serve-lectern") => {
            runtime.block_on(serve_lectern(PathBuf::from(&args[1]), args.get(2).cloned()))
        }
        Some("__serve-baseline") => {
            runtime.block_on(serve_baseline(args[1].parse()?, PathBuf::from(&args[2])))
        }
        _ => runtime.block_on(bench(args)),
    }
}

/// Child: the real server on an ephemeral port, on the SQLite database in `data_dir` or on
/// `database_url`.
async fn serve_lectern(data_dir: PathBuf, database_url: Option<String>) -> anyhow::Result<()> {
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
async fn serve_baseline(status: u16, body_file: PathBuf) -> anyhow::Result<()> {
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
async fn spawn_child(
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
struct Server {
    children: Vec<Child>,
    addrs: Vec<SocketAddr>,
    key: String,
    /// The bootstrap account's username and password (for the browser scenario).
    login: (String, String),
    /// The last of 20 fixture decks of 5 slides each.
    deck_id: i64,
    /// The SQLite data dir (the history scenario measures its database).
    data_dir: PathBuf,
    pg: Option<BenchDatabase>,
}

impl Server {
    /// Starts `servers` Lectern processes of `program` (default: this build) on a fresh
    /// database (SQLite in `data_dir`, or a new PostgreSQL database on `postgres_url`) and
    /// creates the fixture.
    async fn start(
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

    fn addr(&self) -> SocketAddr {
        self.addrs[0]
    }

    /// The resident memory of each server process now and at its peak, in MB, from
    /// `/proc` (the process alone: Chromium, its child, is not counted).
    fn memory(&self) -> Vec<(f64, f64)> {
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
    async fn stop(self) -> anyhow::Result<()> {
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
    async fn target(&self, scenario: &str) -> anyhow::Result<Target> {
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

/// What `--help` prints: how to run the program and its scenarios.
fn usage() -> String {
    format!(
        "lectern-bench: loads the release server and a bare-axum baseline in the same run\n\n\
         usage: lectern-bench [SCENARIO ...] [--connections N] [--seconds T] [--rate-limit N]\n\
         \x20                    [--backend sqlite|postgres] [--servers N] [--postgres-url URL]\n\
         \x20                    [--compare PATH] [--decktape PATH] [--results FILE]\n\n\
         load figures are appended to FILE (default bench/results.md; - for none)\n\n\
         scenarios (all when none is named):\n  {}\n",
        SCENARIOS.join("\n  ")
    )
}

async fn bench(args: Vec<String>) -> anyhow::Result<()> {
    let mut connections = 32usize;
    let mut seconds = 10u64;
    let mut scenarios = Vec::new();
    let mut backend = "sqlite".to_string();
    let mut decktape: Option<String> = None;
    let mut compare: Option<PathBuf> = None;
    let mut servers = 1usize;
    let mut results_file = Some(PathBuf::from("bench/results.md"));
    let mut postgres_url = std::env::var("LECTERN_BENCH_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--help" | "-h" => {
                print!("{}", usage());
                return Ok(());
            }
            "--backend" => backend = it.next().context("--backend sqlite|postgres")?,
            "--servers" => servers = it.next().context("--servers N")?.parse()?,
            "--postgres-url" => postgres_url = it.next().context("--postgres-url URL")?,
            "--decktape" => decktape = Some(it.next().context("--decktape PATH")?),
            "--compare" => compare = Some(it.next().context("--compare PATH")?.into()),
            "--results" => {
                let file = it.next().context("--results FILE")?;
                results_file = (file != "-").then(|| file.into());
            }
            "--connections" | "-c" => {
                connections = it.next().context("--connections N")?.parse()?
            }
            "--seconds" | "-s" => seconds = it.next().context("--seconds T")?.parse()?,
            "--rate-limit" => {
                let n: u32 = it.next().context("--rate-limit N")?.parse()?;
                RATE_LIMIT.set(n).ok();
            }
            name if SCENARIOS.contains(&name) => scenarios.push(name.to_string()),
            other => bail!(
                "unknown argument {other:?}; scenarios: {}",
                SCENARIOS.join(", ")
            ),
        }
    }
    if scenarios.is_empty() {
        scenarios = SCENARIOS.iter().map(|s| s.to_string()).collect();
    }
    if servers == 0 || (servers > 1 && backend != "postgres") {
        bail!("--servers above 1 needs --backend postgres (SQLite serves one process)");
    }
    let pg_url = match backend.as_str() {
        "sqlite" => None,
        "postgres" => Some(postgres_url.as_str()),
        other => bail!("unknown backend {other:?}: sqlite or postgres"),
    };
    let duration = Duration::from_secs(seconds);
    let dir = tempfile::tempdir()?;
    let server = Server::start(None, dir.path().join("data"), pg_url, servers).await?;
    let previous = match &compare {
        Some(program) => {
            Some(Server::start(Some(program), dir.path().join("previous"), pg_url, servers).await?)
        }
        None => None,
    };
    println!(
        "lectern-bench: {connections} connections, {seconds} s per run, loopback, release build, \
         backend {backend}, {servers} lectern server(s){}",
        compare
            .as_ref()
            .map(|p| format!(", previous build {}", p.display()))
            .unwrap_or_default()
    );
    println!(
        "{:<12} {:<9} {:>10} {:>10} {:>9} {:>9} {:>7}",
        "scenario", "server", "requests", "req/s", "p50 ms", "p99 ms", "errors"
    );
    let mut results =
        results::Results::new(&backend, servers, connections, seconds, compare.is_some());
    for scenario in &scenarios {
        if scenario == "export_pdf_50" {
            export_bench(server.addr(), &server.key, decktape.as_deref()).await?;
            continue;
        }
        if scenario == "export_pptx_50" {
            pptx_bench(server.addr(), &server.key).await?;
            continue;
        }
        if scenario == "editor_200" {
            let (username, password) = &server.login;
            editor::editor_bench(server.addr(), &server.key, username, password).await?;
            continue;
        }
        if scenario == "history_10000" {
            if pg_url.is_some() {
                bail!("history_10000 measures the SQLite file; run it with --backend sqlite");
            }
            history::history_bench(server.addr(), &server.key, &server.data_dir).await?;
            continue;
        }
        if scenario == "upload_media" {
            let body_file = dir.path().join("upload_media.json");
            std::fs::write(&body_file, b"{}")?;
            let (_baseline, base_addr, _) =
                spawn_child(None, &["__serve-baseline", "201", path_str(&body_file)?]).await?;
            media::media_bench(server.addr(), &server.key, base_addr).await?;
            continue;
        }
        let target = server.target(scenario).await?;
        // The baseline answers exactly what Lectern answers to this request.
        let (status, sample) = once(server.addr(), &target).await?;
        let body_file = dir.path().join(format!("{scenario}.json"));
        std::fs::write(&body_file, &sample)?;
        let (_baseline, base_addr, _) = spawn_child(
            None,
            &[
                "__serve-baseline",
                &status.to_string(),
                path_str(&body_file)?,
            ],
        )
        .await?;

        if scenario == "create_deck_same_title" {
            // First as many decks of that title as one run makes, then the measured run.
            let fill = load(&server.addrs, &target, connections, duration).await?;
            println!(
                "{:<12} {} decks titled \"Same title\" made before the measured run",
                scenario, fill.requests
            );
        }
        let baseline = load(&[base_addr], &target, connections, duration).await?;
        print_row(scenario, "baseline", &baseline);
        let lectern = load(&server.addrs, &target, connections, duration).await?;
        print_row(scenario, "lectern", &lectern);
        for (rss, peak) in server.memory() {
            println!("{scenario:<12} lectern server RSS {rss:.1} MB, peak so far {peak:.1} MB");
        }
        println!(
            "{:<12} lectern/baseline: {:.2} of the requests/s, p50 {:.2}x, p99 {:.2}x",
            scenario,
            lectern.rps() / baseline.rps(),
            lectern.p50.as_secs_f64() / baseline.p50.as_secs_f64().max(1e-9),
            lectern.p99.as_secs_f64() / baseline.p99.as_secs_f64().max(1e-9),
        );
        let mut before = None;
        if let Some(previous) = &previous {
            let target = previous.target(scenario).await?;
            let outcome = load(&previous.addrs, &target, connections, duration).await?;
            print_row(scenario, "previous", &outcome);
            println!(
                "{:<12} lectern/previous: {:.2} of the requests/s, p50 {:.2}x, p99 {:.2}x",
                scenario,
                lectern.rps() / outcome.rps(),
                lectern.p50.as_secs_f64() / outcome.p50.as_secs_f64().max(1e-9),
                lectern.p99.as_secs_f64() / outcome.p99.as_secs_f64().max(1e-9),
            );
            before = Some(outcome);
        }
        results.load(scenario, &lectern, &baseline, before.as_ref());
    }
    if let Some(file) = &results_file {
        results.append_to(file)?;
        println!("lectern-bench: figures appended to {}", file.display());
    }
    server.stop().await?;
    if let Some(previous) = previous {
        previous.stop().await?;
    }
    Ok(())
}

/// The ids of a deck's slides (first page of 200), and the deck id.
async fn slide_ids(addr: SocketAddr, key: &str, deck: i64) -> anyhow::Result<(i64, Vec<String>)> {
    let (_, bytes) = once(
        addr,
        &get(&format!("/v1/decks/{deck}/slides?per_page=200"), key),
    )
    .await?;
    let v: serde_json::Value = serde_json::from_slice(&bytes)?;
    let ids = v["data"]
        .as_array()
        .context("list_slides data")?
        .iter()
        .filter_map(|s| s["id"].as_str().map(str::to_string))
        .collect();
    Ok((deck, ids))
}

/// Creates a deck of `n` slides; returns its id and slide ids in order.
async fn big_deck(addr: SocketAddr, key: &str, n: usize) -> anyhow::Result<(i64, Vec<String>)> {
    let slides: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({"html": format!("<section><h2>Slide {i}</h2><p>Text of slide {i}.</p></section>")}))
        .collect();
    create_deck(addr, key, "Big", slides).await
}

/// Creates a deck of `slides`; returns its id and slide ids in order.
pub(crate) async fn create_deck(
    addr: SocketAddr,
    key: &str,
    title: &str,
    slides: Vec<serde_json::Value>,
) -> anyhow::Result<(i64, Vec<String>)> {
    let n = slides.len();
    let body = serde_json::json!({"title": title, "slides": slides});
    let (status, bytes) = once(addr, &post("/v1/decks", key, &body)).await?;
    if status != 201 {
        bail!("creating a deck of {n} slides answered {status}");
    }
    let v: serde_json::Value = serde_json::from_slice(&bytes)?;
    let ids = v["data"]["slide_ids"]
        .as_array()
        .context("slide_ids")?
        .iter()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect();
    Ok((v["data"]["id"].as_i64().context("deck id")?, ids))
}

fn path_str(p: &Path) -> anyhow::Result<&str> {
    p.to_str().context("utf-8 temp path")
}
