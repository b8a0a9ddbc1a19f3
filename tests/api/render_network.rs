//! What the export renderer (headless Chromium: PDF exports, thumbnails, MCP slide
//! screenshots) may load: never the server's own network, whatever the URL's spelling, and
//! no file outside the presentation; blocked resources leave the slide without them. These
//! tests need Chromium and skip without it, like the other browser tests.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use reqwest::Method;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::common::{TestApp, TestUser};

fn chromium_missing(test: &str) -> bool {
    crate::common::chromium(test).is_none()
}

/// Accepts connections on `listener` forever, counting them (and answering nothing).
fn count_connections(listener: TcpListener) -> Arc<AtomicUsize> {
    let count = Arc::new(AtomicUsize::new(0));
    let counted = count.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    count
}

/// Creates an export of `deck` and polls it until it leaves `pending`.
async fn export(app: &TestApp, user: &TestUser, deck: i64, body: Value) -> Value {
    app.finished_export(user, deck, body).await
}

/// A completed PDF export's file.
async fn pdf(app: &TestApp, user: &TestUser, deck: i64) -> Vec<u8> {
    let done = export(app, user, deck, json!({"format": "pdf"})).await;
    assert_eq!(done["status"], "completed", "{done}");
    let url = done["download_url"].as_str().unwrap();
    let bytes = reqwest::get(url).await.unwrap().bytes().await.unwrap();
    assert!(bytes.starts_with(b"%PDF"));
    bytes.to_vec()
}

/// How many raster images a PDF printed by Chromium embeds (Skia writes each as an image
/// XObject with an uncompressed dictionary).
fn pdf_images(pdf: &[u8]) -> usize {
    String::from_utf8_lossy(pdf)
        .matches("/Subtype /Image")
        .count()
}

#[tokio::test]
async fn slides_naming_the_servers_loopback_in_any_spelling_never_reach_it() {
    if chromium_missing("slides_naming_the_servers_loopback_in_any_spelling_never_reach_it") {
        return;
    }
    // Arrange: listeners standing in for the server's own services, on IPv4 and IPv6
    // loopback, and a deck naming them in every spelling and every place a slide can.
    let v4 = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = v4.local_addr().unwrap().port();
    let mut accepted = vec![count_connections(v4)];
    let mut hosts: Vec<String> = [
        "127.0.0.1",
        "localhost",
        "localhost.",
        "lectern-test.localhost",
        "2130706433",
        "0x7f.1",
        "127.1",
        "0177.0.0.1",
        "[::ffff:127.0.0.1]",
    ]
    .iter()
    .map(|h| format!("{h}:{port}"))
    .collect();
    match TcpListener::bind("[::1]:0").await {
        Ok(v6) => {
            hosts.push(format!("[::1]:{}", v6.local_addr().unwrap().port()));
            accepted.push(count_connections(v6));
        }
        Err(e) => eprintln!("note: no IPv6 loopback here ({e}); [::1] not tested"),
    }
    let mut urls: Vec<String> = hosts
        .iter()
        .enumerate()
        .map(|(i, h)| format!("http://{h}/img-{i}.png"))
        .collect();
    urls.push(format!("https://127.0.0.1:{port}/secure.png"));
    let everywhere: String = urls
        .iter()
        .map(|u| {
            format!(
                "<img src=\"{u}\" width=\"10\" height=\"10\">\
                 <div style=\"width:10px;height:10px;background:url({u})\"></div>\
                 <div style=\"background-image:url('{u}')\">x</div>\
                 <video poster=\"{u}\" src=\"{u}\" width=\"10\" height=\"10\"></video>"
            )
        })
        .collect();
    let mut slides = vec![json!({"html": format!(
        "<section data-background-image=\"{}\"><h1>Still renders</h1>{everywhere}</section>",
        urls[0]
    )})];
    for u in &urls[1..] {
        slides.push(json!({"html": format!("<section data-background-image=\"{u}\"><h2>Background</h2></section>")}));
    }
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let r = app
        .create_deck(&alice.key, json!({"title": "Probe", "slides": slides}))
        .await;
    r.expect(201);
    let deck = r.data()["id"].as_i64().unwrap();
    let slide_ids: Vec<String> = r.data()["slide_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();

    // Act: a PDF export, the thumbnail, and a screenshot of every slide over MCP.
    let file = pdf(&app, &alice, deck).await;
    let mut thumbnail = String::new();
    for _ in 0..600 {
        thumbnail = app.get_deck(&alice.key, deck, "").await.data()["thumbnail_url"]
            .as_str()
            .unwrap()
            .to_string();
        if thumbnail.ends_with(".png") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let client = ()
        .serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", app.base))
                .auth_header(alice.key.clone()),
        ))
        .await
        .expect("the MCP client initialises");
    for slide in &slide_ids {
        let args = json!({"deck_id": deck, "slide_id": slide});
        let shot = client
            .call_tool(
                CallToolRequestParams::new("get_slide_screenshot")
                    .with_arguments(args.as_object().unwrap().clone()),
            )
            .await
            .expect("get_slide_screenshot answers");
        assert_ne!(shot.is_error, Some(true), "the screenshot failed: {shot:?}");
        assert!(shot.content.iter().any(|c| c.as_image().is_some()));
    }
    client.cancel().await.unwrap();

    // Assert: everything completed, and nothing reached the listeners.
    assert!(thumbnail.ends_with(".png"), "no thumbnail was drawn");
    assert!(pdf_pages(&file) >= slide_ids.len(), "every slide printed");
    let reached: Vec<usize> = accepted.iter().map(|c| c.load(Ordering::SeqCst)).collect();
    assert!(
        reached.iter().all(|&n| n == 0),
        "the renderer connected to the server's loopback: {reached:?}"
    );
}

fn pdf_pages(pdf: &[u8]) -> usize {
    let text = String::from_utf8_lossy(pdf);
    text.match_indices("/Type /Page")
        .filter(|(i, _)| !text[i + 11..].starts_with('s'))
        .count()
}

#[tokio::test]
async fn files_outside_the_presentation_are_not_loaded_but_data_urls_are() {
    if chromium_missing("files_outside_the_presentation_are_not_loaded_but_data_urls_are") {
        return;
    }
    // Arrange: a red PNG (40x30) on the server's disk, named by file:// URLs in every place a slide
    // can name an image; and, as the control, the same PNG as a data: URL.
    let dir = tempfile::tempdir().unwrap();
    let png = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/red.png"
    ))
    .unwrap();
    let on_disk = dir.path().join("secret.png");
    std::fs::write(&on_disk, &png).unwrap();
    let file_url = format!("file://{}", on_disk.display());
    use base64::Engine;
    let data_url = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&png)
    );
    // A file: URL where reveal.js itself loads it is refused when stored (422); in the
    // places below the sanitizer and the renderer's rules apply.
    let slide = |url: &str| {
        let background = if url.starts_with("data:") {
            format!(" data-background-image=\"{url}\"")
        } else {
            String::new()
        };
        format!(
            "<section{background}><h1>Files</h1>\
             <img src=\"{url}\" width=\"40\" height=\"30\">\
             <img src=\"file:///etc/hostname\" width=\"40\" height=\"30\">\
             <div style=\"width:400px;height:300px;background:url({url})\"></div>\
             <div style=\"width:40px;height:30px;background:url(file:///etc/passwd)\"></div>\
             <video poster=\"{url}\" width=\"40\" height=\"30\"></video></section>"
        )
    };
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let refused = format!("<section data-background-image=\"{file_url}\"></section>");
    app.create_deck(&alice.key, json!({"slides": [{"html": refused}]}))
        .await
        .expect_error(422);
    let mut decks = Vec::new();
    for url in [&file_url, &data_url] {
        let r = app
            .create_deck(&alice.key, json!({"slides": [{"html": slide(url)}]}))
            .await;
        r.expect(201);
        decks.push(r.data()["id"].as_i64().unwrap());
    }

    // Act
    let from_files = pdf(&app, &alice, decks[0]).await;
    let from_data = pdf(&app, &alice, decks[1]).await;

    // Assert: the data: image is printed, no file is.
    assert!(pdf_images(&from_data) > 0, "the data: URL image is printed");
    assert_eq!(
        pdf_images(&from_files),
        0,
        "a file outside the presentation was printed"
    );
}

#[tokio::test]
async fn render_network_takes_public_none_or_any_and_none_still_prints_the_presentation() {
    // Only the three documented values are accepted.
    for bad in ["all", "private", ""] {
        let out = tokio::process::Command::new(crate::common::BIN)
            .args(["serve", "--render-network", bad])
            .output()
            .await
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad:?} was accepted");
        assert!(
            stderr.contains("[possible values: public, none, any]"),
            "{stderr}"
        );
    }
    if chromium_missing(
        "render_network_takes_public_none_or_any_and_none_still_prints_the_presentation",
    ) {
        return;
    }
    // Arrange: `lectern serve` with the setting from its environment variable, and a slide
    // with a data: image beside a URL of a local listener.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = count_connections(listener);
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("lectern.db").display());
    let key = crate::common::account(&url, "alice").await;
    let mut server = tokio::process::Command::new(crate::common::BIN);
    server
        .env("LECTERN_RENDER_NETWORK", "none")
        .args(["serve", "--listen", "127.0.0.1:0", "--database-url", &url])
        .arg("--data-dir")
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let (_server, base) = crate::common::serve_command(server).await;
    let png = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/red.png"
    ))
    .unwrap();
    use base64::Engine;
    let data_url = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&png)
    );
    let html = format!(
        "<section><h1>Offline</h1><div style=\"width:400px;height:300px;background:url({data_url})\"></div>\
         <img src=\"http://127.0.0.1:{port}/x.png\"></section>"
    );
    let client = reqwest::Client::new();
    let (status, deck) = crate::common::send_json(
        &client,
        Method::POST,
        format!("{base}/v1/decks"),
        &key,
        Some(json!({"slides": [{"html": html}]})),
    )
    .await
    .unwrap();
    assert_eq!(status, 201, "{deck}");
    let deck = deck["data"]["id"].as_i64().unwrap();

    // Act
    let (status, created) = crate::common::send_json(
        &client,
        Method::POST,
        format!("{base}/v1/decks/{deck}/exports"),
        &key,
        Some(json!({"format": "pdf"})),
    )
    .await
    .unwrap();
    assert_eq!(status, 202, "{created}");
    let id = created["data"]["id"].as_i64().unwrap();
    let mut done = Value::Null;
    for _ in 0..600 {
        let (_, r) = crate::common::send_json(
            &client,
            Method::GET,
            format!("{base}/v1/decks/{deck}/exports/{id}"),
            &key,
            None,
        )
        .await
        .unwrap();
        done = r["data"].clone();
        if done["status"] != "pending" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    // Assert
    assert_eq!(done["status"], "completed", "{done}");
    let file = reqwest::get(done["download_url"].as_str().unwrap())
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert!(pdf_images(&file) > 0, "the data: image is printed");
    assert_eq!(accepted.load(Ordering::SeqCst), 0);
}
