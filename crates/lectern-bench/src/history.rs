//! The history scenario (`history_10000`): a deck of 1,000 slides gets 10,000 single-slide
//! edits, each a revision; then the SQLite database's growth is compared with the size of the
//! edited HTML, and listing revisions and restoring one are timed.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use sqlx::Connection;

use crate::client::{Target, connect, get, once, patch, post};
use crate::exports::median;

const SLIDES: usize = 1000;
const EDITS: usize = 10_000;
/// Concurrent editors (each a keep-alive connection).
const EDITORS: usize = 8;

/// Bytes the SQLite database at `data_dir/lectern.db` uses, after moving the WAL into it.
async fn database_bytes(data_dir: &Path) -> anyhow::Result<i64> {
    let url = format!("sqlite://{}", data_dir.join("lectern.db").display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await?;
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(&mut conn)
        .await?;
    let used: i64 = sqlx::query_scalar(
        "SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count())",
    )
    .fetch_one(&mut conn)
    .await?;
    let page: i64 = sqlx::query_scalar("SELECT page_size FROM pragma_page_size()")
        .fetch_one(&mut conn)
        .await?;
    Ok(used * page)
}

/// Milliseconds of `n` runs of `target`, one at a time on one connection: their median.
async fn median_ms(addr: SocketAddr, target: &Target, n: usize) -> anyhow::Result<f64> {
    use http_body_util::BodyExt;
    let mut sender = connect(addr).await?;
    let mut times = Vec::new();
    for _ in 0..n {
        sender.ready().await?;
        let started = Instant::now();
        let resp = sender
            .send_request(crate::client::build(addr, target)?)
            .await?;
        let status = resp.status();
        resp.into_body().collect().await?;
        if !status.is_success() {
            bail!("{} {} answered {status}", target.method, target.path);
        }
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(times))
}

pub async fn history_bench(addr: SocketAddr, key: &str, data_dir: &Path) -> anyhow::Result<()> {
    let slides: Vec<serde_json::Value> = (0..SLIDES)
        .map(|i| serde_json::json!({"html": format!("<section><h2>Slide {i}</h2><p>Text of slide {i}.</p></section>"), "notes": format!("Notes {i}")}))
        .collect();
    let (deck, ids) = crate::create_deck(addr, key, "History", slides).await?;
    let before = database_bytes(data_dir).await?;

    // 10,000 edits, each of one slide (spread over the deck), each new HTML of ~300 bytes.
    let started = Instant::now();
    let mut editors = Vec::new();
    for e in 0..EDITORS {
        let (ids, key) = (ids.clone(), key.to_string());
        editors.push(tokio::spawn(async move {
            use http_body_util::BodyExt;
            let mut sender = connect(addr).await?;
            let mut edited = 0usize;
            for n in (e..EDITS).step_by(EDITORS) {
                let slide = &ids[(n * 7919) % SLIDES];
                let html = format!(
                    "<section><h2>Edit {n}</h2><p>{}</p><p>Revision {n} of this slide, written by editor {e}.</p></section>",
                    "A sentence a person might write on a slide. ".repeat(4)
                );
                edited += html.len();
                let target = patch(
                    &format!("/v1/decks/{deck}/slides/{slide}"),
                    &key,
                    &serde_json::json!({"html": html}),
                );
                sender.ready().await?;
                let resp = sender.send_request(crate::client::build(addr, &target)?).await?;
                let status = resp.status();
                resp.into_body().collect().await?;
                if !status.is_success() {
                    bail!("update_slide answered {status}");
                }
            }
            anyhow::Ok(edited)
        }));
    }
    let mut edited = 0;
    for editor in editors {
        edited += editor.await??;
    }
    let took = started.elapsed();
    let after = database_bytes(data_dir).await?;
    let growth = after - before;
    println!(
        "history_10000 {EDITS} edits of a {SLIDES}-slide deck in {:.1} s ({:.0} edits/s, {EDITORS} connections)",
        took.as_secs_f64(),
        EDITS as f64 / took.as_secs_f64()
    );
    println!(
        "history_10000 database {before} -> {after} bytes: grew {growth} bytes for {edited} bytes of edited HTML = {:.2}x (goal < 3x)",
        growth as f64 / edited as f64
    );

    let list = get(&format!("/v1/decks/{deck}/revisions"), key);
    let list_ms = median_ms(addr, &list, 50).await?;
    let baseline = get(&format!("/v1/decks/{deck}"), key);
    let get_ms = median_ms(addr, &baseline, 50).await?;
    println!(
        "history_10000 list_revisions (first page of {} revisions): median {list_ms:.2} ms over HTTP (get_deck beside it: {get_ms:.2} ms; goal < 5 ms)",
        EDITS + 1
    );

    let first = get(&format!("/v1/decks/{deck}/revisions/1"), key);
    let first_ms = median_ms(addr, &first, 5).await?;
    println!(
        "history_10000 get_revision 1 (the {SLIDES}-slide deck before {EDITS} edits): median {first_ms:.1} ms"
    );

    // Undo-like: the revision before the newest (one slide differs). Every restore is a new
    // revision, so "newest - 1" is always one edit away.
    let mut undo = Vec::new();
    for _ in 0..5 {
        let rev = newest(addr, key, deck).await? - 1;
        let restore = post(
            &format!("/v1/decks/{deck}/revisions/{rev}/restore"),
            key,
            &serde_json::json!({}),
        );
        undo.push(median_ms(addr, &restore, 1).await?);
    }
    // The whole deck: back to revision 1 (every edited slide differs), then forward to the
    // state before that restore, and so on.
    let mut whole = Vec::new();
    for _ in 0..3 {
        let rev = newest(addr, key, deck).await?;
        for target_rev in [1, rev] {
            let restore = post(
                &format!("/v1/decks/{deck}/revisions/{target_rev}/restore"),
                key,
                &serde_json::json!({}),
            );
            whole.push(median_ms(addr, &restore, 1).await?);
        }
    }
    println!(
        "history_10000 restore of the {SLIDES}-slide deck: one slide back (median of 5) {:.1} ms; every slide back (median of 6) {:.1} ms (goal < 100 ms)",
        median(undo),
        median(whole)
    );
    Ok(())
}

/// The deck's newest revision.
async fn newest(addr: SocketAddr, key: &str, deck: i64) -> anyhow::Result<i64> {
    let (_, bytes) = once(addr, &get(&format!("/v1/decks/{deck}"), key)).await?;
    let v: serde_json::Value = serde_json::from_slice(&bytes)?;
    v["data"]["revision"].as_i64().context("revision")
}
