//! `editor_200` and `editor_1000`: the deck editor in headless Chromium (the system's, as
//! the PDF exports use) on a deck of 200 (or 1,000) slides in block markup (three blocks
//! each). It signs in through the form as the bootstrap account, then:
//!
//! - loads the editor five times and takes, from the page's own Performance API, the time
//!   from navigation start to the editor showing the deck (every slide listed with its
//!   thumbnail, the first slide on the canvas, "All changes saved"; goal under 1.5 s for 200
//!   slides, 3 s for 1,000);
//! - drags a block across the canvas with real mouse events for two seconds and counts the
//!   frames the page painted meanwhile (`requestAnimationFrame`);
//! - reports the size of the editor's script, raw and gzipped.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchMouseEventParams, DispatchMouseEventType, MouseButton,
};
use futures::StreamExt;

/// Runs the scenario on a deck of `count` slides.
pub(crate) async fn editor_bench(
    addr: SocketAddr,
    key: &str,
    (username, password): (&str, &str),
    count: usize,
) -> anyhow::Result<()> {
    let name = format!("editor_{count}");
    let Some(chromium) = lectern::export::pdf::find_chromium(None) else {
        bail!("{name} needs Chromium (apt-get install chromium)");
    };
    let slides: Vec<serde_json::Value> = (0..count)
        .map(|i| {
            serde_json::json!({"html": format!(
                "<section><div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"h{i}\" style=\"left:80px;top:40px;width:800px;height:120px\">\
                 <div class=\"sl-block-content\"><h2>Slide {i}</h2></div></div>\
                 <div class=\"sl-block\" data-block-type=\"text\" data-block-id=\"p{i}\" style=\"left:80px;top:200px;width:800px;height:300px\">\
                 <div class=\"sl-block-content\"><ul><li>First point of slide {i}</li><li>Second point</li></ul></div></div>\
                 <div class=\"sl-block\" data-block-type=\"shape\" data-block-id=\"s{i}\" style=\"left:700px;top:520px;width:200px;height:120px\">\
                 <div class=\"sl-block-content\" style=\"width:100%;height:100%;background-color:#2a76dd\"></div></div></section>"
            )})
        })
        .collect();
    let (deck, _) = crate::create_deck(addr, key, "Editor bench", slides).await?;
    let (status, body) = crate::once(addr, &crate::get(&format!("/v1/decks/{deck}"), key)).await?;
    if status != 200 {
        bail!("get_deck answered {status}");
    }
    let edit = serde_json::from_slice::<serde_json::Value>(&body)?["data"]["urls"]["edit"]
        .as_str()
        .context("urls.edit")?
        .to_string();
    // The deck's URLs carry the server's public URL; the page is loaded from this address.
    let path = &edit[edit.find("://").map_or(0, |i| i + 3)..];
    let edit = format!("http://{addr}{}", &path[path.find('/').unwrap_or(0)..]);

    let profile = tempfile::tempdir()?;
    let config = chromiumoxide::BrowserConfig::builder()
        .chrome_executable(chromium)
        .no_sandbox()
        .new_headless_mode()
        .user_data_dir(profile.path())
        .window_size(1280, 800)
        .viewport(None)
        .args([
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .build()
        .map_err(anyhow::Error::msg)?;
    let (mut browser, mut handler) = chromiumoxide::Browser::launch(config).await?;
    let events = tokio::spawn(async move { while let Some(Ok(_)) = handler.next().await {} });
    let result = measure(&browser, addr, &edit, (username, password), count).await;
    browser.close().await.ok();
    events.abort();
    result?;

    let (_, script) = crate::once(addr, &crate::get("/assets/editor.js", key)).await?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gz, &script)?;
    let gzipped = gz.finish()?.len();
    println!(
        "{name:<12} the editor's script: {:.1} KB, {:.1} KB gzipped (goal < 300 KB gzipped)",
        script.len() as f64 / 1000.0,
        gzipped as f64 / 1000.0
    );
    Ok(())
}

async fn measure(
    browser: &chromiumoxide::Browser,
    addr: SocketAddr,
    edit: &str,
    (username, password): (&str, &str),
    count: usize,
) -> anyhow::Result<()> {
    let name = format!("editor_{count}");
    let page = browser.new_page("about:blank").await?;
    page.goto(format!("http://{addr}/login")).await?;
    page.wait_for_navigation().await?;
    page.find_element("input[name=username]")
        .await?
        .click()
        .await?
        .type_str(username)
        .await?;
    page.find_element("input[name=password]")
        .await?
        .click()
        .await?
        .type_str(password)
        .await?;
    page.find_element("button[type=submit]")
        .await?
        .click()
        .await?;
    wait(&page, "document.title.includes('Your decks')").await?;

    // Interactive: every slide listed with its thumbnail, the first on the canvas, saved.
    let ready = format!(
        "document.querySelectorAll('.slide-item .thumb').length === {count} \
         && document.querySelectorAll('.canvas-board > .sl-block').length === 3 \
         && document.getElementById('save-state').textContent === 'All changes saved'"
    );
    let mut loads = Vec::new();
    for _ in 0..5 {
        page.goto(edit).await?;
        // Polled from inside the page, so the moment it holds is the page's own clock.
        let ms: f64 = page
            .evaluate(format!(
                "new Promise(done => {{ const check = () => ({ready}) ? done(performance.now()) \
                 : requestAnimationFrame(check); check(); }})"
            ))
            .await?
            .into_value()?;
        loads.push(ms);
    }
    loads.sort_by(f64::total_cmp);
    println!(
        "{name:<12} interactive after (navigation start to the deck shown, 5 loads): median {:.0} ms, slowest {:.0} ms (goal < {} ms)",
        loads[loads.len() / 2],
        loads[loads.len() - 1],
        if count > 200 { 3000 } else { 1500 }
    );

    // A drag across the canvas for two seconds, one mouse move per 8 ms.
    let rect: Vec<f64> = page
        .evaluate(
            "(() => { document.getElementById('canvas').scrollIntoView(); const r = document.querySelector('.canvas-board > .sl-block[data-block-type=shape]').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()",
        )
        .await?
        .into_value()?;
    page.evaluate(
        "window.__frames = 0; (function count() { window.__frames += 1; requestAnimationFrame(count); })();",
    )
    .await?;
    let (x, y) = (rect[0], rect[1]);
    mouse(&page, DispatchMouseEventType::MousePressed, x, y).await?;
    let start_frames: f64 = page.evaluate("window.__frames").await?.into_value()?;
    let started = Instant::now();
    let mut step = 0u32;
    while started.elapsed() < Duration::from_secs(2) {
        step += 1;
        let t = f64::from(step % 120) / 120.0;
        let dx = if (step / 120).is_multiple_of(2) {
            t
        } else {
            1.0 - t
        };
        mouse(
            &page,
            DispatchMouseEventType::MouseMoved,
            x - 300.0 * dx,
            y - 200.0 * dx,
        )
        .await?;
        tokio::time::sleep(Duration::from_millis(8)).await;
    }
    let end_frames: f64 = page.evaluate("window.__frames").await?.into_value()?;
    let seconds = started.elapsed().as_secs_f64();
    // The block followed the mouse (it is not where it started).
    let left: String = page
        .evaluate(
            "document.querySelector('.canvas-board > .sl-block[data-block-type=shape]').style.left",
        )
        .await?
        .into_value()?;
    if left == "700px" {
        bail!("the dragged block did not move");
    }
    mouse(&page, DispatchMouseEventType::MouseReleased, x, y).await?;
    println!(
        "{name:<12} dragging a block: {:.0} frames per second over {seconds:.1} s ({step} mouse moves) (goal >= 50)",
        (end_frames - start_frames) / seconds
    );
    Ok(())
}

async fn mouse(page: &Page, kind: DispatchMouseEventType, x: f64, y: f64) -> anyhow::Result<()> {
    let mut event = DispatchMouseEventParams::new(kind, x, y);
    event.button = Some(MouseButton::Left);
    event.buttons = Some(1);
    event.click_count = Some(1);
    page.execute(event).await?;
    Ok(())
}

/// Waits (up to 20 s) until `js` is true in the page.
async fn wait(page: &Page, js: &str) -> anyhow::Result<()> {
    for _ in 0..400 {
        if let Ok(v) = page.evaluate(js).await
            && v.into_value::<bool>().unwrap_or(false)
        {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    bail!("the page never got to: {js}")
}
