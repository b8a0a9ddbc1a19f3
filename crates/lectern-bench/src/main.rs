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
//! `history.rs`); `editor_200` and `editor_1000`: the deck editor in headless Chromium on
//! a 200- or 1,000-slide deck, time to interactive and frames per second while dragging (see
//! `editor.rs`);
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
use std::time::Duration;

use anyhow::{Context, bail};

mod client;
mod editor;
mod exports;
mod history;
mod media;
mod pgdb;
mod results;
mod server;

use client::{get, load, once, post, print_row};
use exports::{export_bench, pptx_bench};
use server::{Server, serve_baseline, serve_lectern, spawn_child};

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
    "editor_1000",
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
        if let Some(count) = scenario.strip_prefix("editor_") {
            let (username, password) = &server.login;
            let login = (username.as_str(), password.as_str());
            editor::editor_bench(server.addr(), &server.key, login, count.parse()?).await?;
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
