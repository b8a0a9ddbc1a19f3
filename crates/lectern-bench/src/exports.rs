//! The export scenario: the time from `create_deck_export` to `completed` for a 50-slide PDF,
//! beside decktape printing the same deck page.

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use tokio::process::Command;

use crate::client::{get, once, post};

/// Waits until the server has drawn the fixture decks' thumbnails (when it has a Chromium),
/// so that background drawing does not run during a measurement.
pub async fn settle_thumbnails(addr: SocketAddr, key: &str) -> anyhow::Result<()> {
    let chromium = [
        "/usr/lib/chromium/chromium",
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
    ]
    .iter()
    .any(|p| std::path::Path::new(p).exists());
    if !chromium {
        return Ok(());
    }
    for _ in 0..600 {
        let (_, bytes) = once(addr, &get("/v1/decks?per_page=100", key)).await?;
        let v: serde_json::Value = serde_json::from_slice(&bytes)?;
        let pending = v["data"]
            .as_array()
            .map(|a| {
                a.iter()
                    .any(|d| d["thumbnail_url"].as_str().unwrap_or("").ends_with(".svg"))
            })
            .unwrap_or(false);
        if !pending {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("the server never finished drawing thumbnails")
}

/// Seconds from `create_deck_export` (PDF) to `completed` (polled every 10 ms).
pub async fn export_once(addr: SocketAddr, key: &str, deck: i64) -> anyhow::Result<f64> {
    export_format_once(addr, key, deck, "pdf").await
}

/// Seconds from `create_deck_export` in `format` to `completed` (polled every 10 ms).
async fn export_format_once(
    addr: SocketAddr,
    key: &str,
    deck: i64,
    format: &str,
) -> anyhow::Result<f64> {
    let started = Instant::now();
    let (status, bytes) = once(
        addr,
        &post(
            &format!("/v1/decks/{deck}/exports"),
            key,
            &serde_json::json!({"format": format}),
        ),
    )
    .await?;
    if status != 202 {
        bail!("create_deck_export answered {status}");
    }
    let id = serde_json::from_slice::<serde_json::Value>(&bytes)?["data"]["id"]
        .as_i64()
        .context("export id")?;
    loop {
        let (_, bytes) = once(addr, &get(&format!("/v1/decks/{deck}/exports/{id}"), key)).await?;
        let v: serde_json::Value = serde_json::from_slice(&bytes)?;
        match v["data"]["status"].as_str() {
            Some("completed") => return Ok(started.elapsed().as_secs_f64()),
            Some("failed") => bail!("the export failed: {}", v["data"]["error"]),
            _ => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// `export_pptx_50`: a 50-slide deck in block markup (a title and a text block with
/// formatting, a shape, and on every tenth slide a code block that Chromium draws) exported
/// to PowerPoint, cold and warm (median of 5).
pub async fn pptx_bench(addr: SocketAddr, key: &str) -> anyhow::Result<()> {
    let block = |kind: &str, (l, t, w, h): (i32, i32, i32, i32), content: &str, style: &str| {
        format!(
            r#"<div class="sl-block" data-block-type="{kind}" style="left: {l}px; top: {t}px; width: {w}px; height: {h}px;"><div class="sl-block-content" style="{style}">{content}</div></div>"#
        )
    };
    let slides: Vec<serde_json::Value> = (0..50)
        .map(|i| {
            let mut html = String::from("<section>");
            html += &block("text", (80, 40, 800, 100), &format!("<h2>Slide {i}</h2>"), "");
            html += &block(
                "text",
                (80, 180, 700, 300),
                &format!("<p>Point {i} with <strong>bold</strong> and <em>italic</em> words.</p><ul><li>One</li><li>Two</li></ul>"),
                "font-size: 28px;",
            );
            html += &block("shape", (900, 500, 200, 120), "", "width: 100%; height: 100%; background-color: #3377aa;");
            if i % 10 == 0 {
                html += &block("code", (80, 520, 600, 120), "<pre><code>let x = 1;</code></pre>", "");
            }
            html += "</section>";
            serde_json::json!({"html": html, "notes": format!("Note {i}")})
        })
        .collect();
    let body = serde_json::json!({"title": "PowerPoint bench", "slides": slides});
    let (status, bytes) = once(addr, &post("/v1/decks", key, &body)).await?;
    if status != 201 {
        bail!("creating the 50-slide deck answered {status}");
    }
    let created: serde_json::Value = serde_json::from_slice(&bytes)?;
    let deck = created["data"]["id"].as_i64().context("deck id")?;
    let cold = export_format_once(addr, key, deck, "pptx").await?;
    let mut warm = Vec::new();
    for _ in 0..5 {
        warm.push(export_format_once(addr, key, deck, "pptx").await?);
    }
    println!(
        "export_pptx_50 lectern  cold {:>8.3} s   warm (median of 5) {:>8.3} s",
        cold,
        median(warm)
    );
    Ok(())
}

/// The export scenario: Lectern cold and warm, and decktape on the same deck page.
pub async fn export_bench(
    addr: SocketAddr,
    key: &str,
    decktape: Option<&str>,
) -> anyhow::Result<()> {
    let slides: Vec<serde_json::Value> = (0..50)
        .map(|i| serde_json::json!({"html": format!("<section><h2>Slide {i}</h2><p>Point {i} of the talk, with some text.</p></section>"), "notes": format!("Note {i}")}))
        .collect();
    let body = serde_json::json!({"title": "Export bench", "visibility": "all", "slides": slides});
    let (status, bytes) = once(addr, &post("/v1/decks", key, &body)).await?;
    if status != 201 {
        bail!("creating the 50-slide deck answered {status}");
    }
    let created: serde_json::Value = serde_json::from_slice(&bytes)?;
    let deck = created["data"]["id"].as_i64().context("deck id")?;
    let cold = export_once(addr, key, deck).await?;
    let mut warm = Vec::new();
    for _ in 0..5 {
        warm.push(export_once(addr, key, deck).await?);
    }
    let warm = median(warm);
    println!(
        "export_pdf_50 lectern   cold {:>8.3} s   warm (median of 5) {:>8.3} s",
        cold, warm
    );
    let Some(decktape) = decktape else {
        println!(
            "export_pdf_50 decktape  not run (pass --decktape PATH; scripts/bench-exports.sh installs it)"
        );
        return Ok(());
    };
    let chromium = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .context("decktape needs Chromium")?;
    let url = format!(
        "{}/fullscreen",
        created["data"]["url"].as_str().context("deck url")?
    );
    let dir = tempfile::tempdir()?;
    let mut runs = Vec::new();
    for n in 0..4 {
        let out = dir.path().join(format!("decktape-{n}.pdf"));
        let started = Instant::now();
        let status = Command::new(decktape)
            .args([
                "reveal",
                "--size",
                "1280x720",
                "--chrome-path",
                chromium,
                "--chrome-arg=--no-sandbox",
                "--chrome-arg=--disable-gpu",
            ])
            .arg(&url)
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await?;
        if !status.success() {
            bail!("decktape failed ({status})");
        }
        runs.push(started.elapsed().as_secs_f64());
    }
    let decktape_cold = runs[0];
    let decktape_warm = median(runs[1..].to_vec());
    println!(
        "export_pdf_50 decktape  cold {:>8.3} s   warm (median of 3) {:>8.3} s",
        decktape_cold, decktape_warm
    );
    println!(
        "export_pdf_50 decktape/lectern warm: {:.1}x",
        decktape_warm / warm
    );
    Ok(())
}
