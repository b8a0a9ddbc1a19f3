//! The media library (issue 17): uploads of every accepted type, both ways; what is refused;
//! the served files and their headers; dedupe, quota, delete; accounts kept apart; MCP
//! `upload_image` (base64 and `source_url` under the network rule); media in exports.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use lectern::export::network::RenderNetwork;
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::common::{Resp, TestApp, TestUser};
use crate::mcp::{call, failure, ok, session_client};

fn encoded(img: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

/// A `w` × `h` picture whose pixels depend on `seed` (different seeds, different bytes).
fn picture(w: u32, h: u32, seed: u32) -> DynamicImage {
    DynamicImage::ImageRgb8(RgbImage::from_fn(w, h, |x, y| {
        Rgb([
            (x * 7 + seed) as u8,
            (y * 5 + seed * 3) as u8,
            (seed * 11) as u8,
        ])
    }))
}

/// Pixels that do not compress: `bytes` of noise, as a PNG a little larger than that.
fn noise_png(bytes: usize, seed: u64) -> Vec<u8> {
    let w = 500u32;
    let h = (bytes / (3 * w as usize)) as u32 + 1;
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let img = RgbImage::from_fn(w, h, |_, _| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let v = (state >> 33) as u32;
        Rgb([v as u8, (v >> 8) as u8, (v >> 16) as u8])
    });
    encoded(DynamicImage::ImageRgb8(img), ImageFormat::Png)
}

/// A JPEG with an EXIF block holding a GPS latitude and a marker text.
fn jpeg_with_gps() -> Vec<u8> {
    let plain = encoded(picture(64, 48, 1), ImageFormat::Jpeg);
    let mut tiff = Vec::new();
    tiff.extend_from_slice(b"II*\0");
    tiff.extend_from_slice(&8u32.to_le_bytes());
    tiff.extend_from_slice(&1u16.to_le_bytes());
    tiff.extend_from_slice(&0x8825u16.to_le_bytes()); // GPSInfo pointer
    tiff.extend_from_slice(&4u16.to_le_bytes());
    tiff.extend_from_slice(&1u32.to_le_bytes());
    tiff.extend_from_slice(&26u32.to_le_bytes());
    tiff.extend_from_slice(&0u32.to_le_bytes());
    tiff.extend_from_slice(&1u16.to_le_bytes());
    tiff.extend_from_slice(&1u16.to_le_bytes()); // GPSLatitudeRef
    tiff.extend_from_slice(&2u16.to_le_bytes());
    tiff.extend_from_slice(&2u32.to_le_bytes());
    tiff.extend_from_slice(b"N\0\0\0");
    tiff.extend_from_slice(&0u32.to_le_bytes());
    tiff.extend_from_slice(b"GPS-SECRET-PLACE");
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend_from_slice(&tiff);
    let mut out = plain[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((app1.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&app1);
    out.extend_from_slice(&plain[2..]);
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Uploads `bytes` as the raw body with `content_type`, optionally `?name=`.
async fn upload_raw(
    app: &TestApp,
    user: &TestUser,
    bytes: Vec<u8>,
    content_type: &str,
    name: Option<&str>,
) -> Resp {
    let path = match name {
        Some(n) => format!("/v1/media?name={n}"),
        None => "/v1/media".to_string(),
    };
    app.send(
        app.raw(Method::POST, &path)
            .bearer_auth(&user.key)
            .header("content-type", content_type)
            .body(bytes),
    )
    .await
}

/// Uploads `bytes` as `multipart/form-data` (`file` part named `file_name`, optional `name`).
async fn upload_form(
    app: &TestApp,
    user: &TestUser,
    bytes: Vec<u8>,
    file_name: &str,
    name: Option<&str>,
) -> Resp {
    let mut form = Form::new().part(
        "file",
        Part::bytes(bytes)
            .file_name(file_name.to_string())
            .mime_str("application/octet-stream")
            .unwrap(),
    );
    if let Some(n) = name {
        form = form.text("name", n.to_string());
    }
    app.send(
        app.raw(Method::POST, "/v1/media")
            .bearer_auth(&user.key)
            .multipart(form),
    )
    .await
}

/// GETs a media URL (no credential): status, headers, bytes.
async fn fetch(url: &str) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let r = reqwest::get(url).await.unwrap();
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    (status, headers, r.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn every_format_uploads_both_ways_and_is_served_with_safe_headers() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="teal"/></svg>"#.to_vec();
    let cases: Vec<(Vec<u8>, &str, &str, &str)> = vec![
        (
            encoded(picture(40, 30, 1), ImageFormat::Png),
            "image/png",
            "png",
            "chart.png",
        ),
        (
            encoded(picture(40, 30, 2), ImageFormat::Jpeg),
            "image/jpeg",
            "jpg",
            "photo.jpeg",
        ),
        (
            encoded(picture(40, 30, 3), ImageFormat::Gif),
            "image/gif",
            "gif",
            "anim.gif",
        ),
        (
            encoded(picture(40, 30, 4), ImageFormat::WebP),
            "image/webp",
            "webp",
            "pic.webp",
        ),
        (svg, "image/svg+xml", "svg", "logo.svg"),
    ];
    for (i, (bytes, content_type, ext, file_name)) in cases.into_iter().enumerate() {
        // Half by multipart, half as the raw body with a misleading Content-Type.
        let r = if i % 2 == 0 {
            upload_form(&app, &alice, bytes.clone(), file_name, None).await
        } else {
            upload_raw(&app, &alice, bytes.clone(), "text/plain", Some(file_name)).await
        };
        r.expect(201);
        let m = r.data();
        assert_eq!(m["content_type"], content_type, "{file_name}");
        // The name keeps the extension given when the type allows it (photo.jpeg stays).
        let given = file_name.rsplit_once('.').unwrap().1;
        assert_eq!(m["name"], file_name);
        assert!(
            given == ext || (given, ext) == ("jpeg", "jpg"),
            "{file_name}"
        );
        assert_eq!(
            (m["width"].as_i64(), m["height"].as_i64()),
            (Some(40), Some(30))
        );
        assert_eq!(
            m["sha256"],
            lectern_core::secret::sha256_hex_bytes(&bytes),
            "the hash of the uploaded bytes"
        );
        assert!(m["id"].is_string() && m["created_at"].is_string());
        let url = m["url"].as_str().unwrap();
        assert!(url.starts_with(&format!("{}/media/", app.base)));
        assert!(!url.contains("alice"), "the URL names no account: {url}");

        let (status, headers, served) = fetch(url).await;
        assert_eq!(status, 200);
        assert_eq!(headers["content-type"], content_type);
        assert_eq!(served.len() as i64, m["bytes"].as_i64().unwrap());
        assert_eq!(headers["x-content-type-options"], "nosniff");
        let cache = headers["cache-control"].to_str().unwrap();
        let max_age: u64 = cache
            .split("max-age=")
            .nth(1)
            .and_then(|v| v.split(',').next())
            .unwrap()
            .parse()
            .unwrap();
        assert!(max_age >= 86_400, "{cache}");
        let etag = headers["etag"].to_str().unwrap().to_string();
        if content_type == "image/svg+xml" {
            let csp = headers["content-security-policy"].to_str().unwrap();
            assert!(csp.starts_with("default-src 'none'"), "{csp}");
        }
        // Revalidation answers 304.
        let again = reqwest::Client::new()
            .get(url)
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304);
    }
    let list = app
        .call(Method::GET, "/v1/media?per_page=2", Some(&alice.key), None)
        .await;
    list.expect(200);
    assert_eq!(list.json["meta"]["total"], 5);
    assert_eq!(list.json["meta"]["per_page"], 2);
    assert_eq!(list.data().as_array().unwrap().len(), 2);
    // Newest first: the SVG was uploaded last.
    assert_eq!(list.data()[0]["content_type"], "image/svg+xml");
}

#[tokio::test]
async fn metadata_scripts_and_outside_references_do_not_survive() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;

    let jpeg = jpeg_with_gps();
    assert!(contains(&jpeg, b"GPS-SECRET-PLACE"));
    let r = upload_raw(&app, &alice, jpeg, "image/jpeg", None).await;
    r.expect(201);
    assert_eq!(r.data()["name"], "image.jpg");
    let (_, _, served) = fetch(r.data()["url"].as_str().unwrap()).await;
    assert!(served.starts_with(&[0xFF, 0xD8]));
    assert!(!contains(&served, b"Exif") && !contains(&served, b"GPS-SECRET-PLACE"));

    let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)" viewBox="0 0 10 10">
<script>alert(2)</script><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
<use xlink:href="https://evil.example/s.svg#a"/><a xlink:href="javascript:alert(3)"><circle r="4"/></a>
<rect width="5" height="5" fill="url(https://evil.example/t)" onclick="alert(4)"/></svg>"##;
    let r = upload_form(&app, &alice, svg.as_bytes().to_vec(), "x.svg", None).await;
    r.expect(201);
    assert!(r.data()["width"].is_null() && r.data()["height"].is_null());
    let (_, _, served) = fetch(r.data()["url"].as_str().unwrap()).await;
    let served = String::from_utf8(served).unwrap();
    for gone in [
        "script",
        "alert",
        "onload",
        "onclick",
        "foreignObject",
        "evil",
        "javascript",
    ] {
        assert!(!served.contains(gone), "{gone} survived: {served}");
    }
    assert!(served.contains("<circle r=\"4\">"), "{served}");
}

/// A PNG claiming `w` × `h` pixels that ends where its pixel data starts.
fn png_claiming(w: u32, h: u32) -> Vec<u8> {
    let mut real = encoded(picture(8, 8, 9), ImageFormat::Png);
    // IHDR's width and height sit at bytes 16..24; its CRC at 29..33.
    real[16..20].copy_from_slice(&w.to_be_bytes());
    real[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32(&real[12..29]);
    real[29..33].copy_from_slice(&crc.to_be_bytes());
    real
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[tokio::test]
async fn html_truncated_huge_and_oversized_files_are_refused_and_nothing_is_kept() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let png = encoded(picture(200, 200, 5), ImageFormat::Png);
    let jpeg = encoded(picture(200, 200, 5), ImageFormat::Jpeg);
    let html = b"<!DOCTYPE html><html><body><script>alert(1)</script></body></html>".to_vec();
    for (bytes, name) in [
        (html, "innocent.png"),
        (png[..png.len() / 2].to_vec(), "half.png"),
        (jpeg[..jpeg.len() * 3 / 4].to_vec(), "cut.jpg"),
        (png_claiming(30_000, 30_000), "bomb.png"),
        (b"plain text".to_vec(), "notes.txt"),
    ] {
        upload_form(&app, &alice, bytes.clone(), name, None)
            .await
            .expect_error(422);
        upload_raw(&app, &alice, bytes, "image/png", None)
            .await
            .expect_error(422);
    }
    let r = upload_raw(
        &app,
        &alice,
        png_claiming(30_000, 30_000),
        "image/png",
        None,
    )
    .await;
    assert!(
        r.json["error"].as_str().unwrap().contains("30000 × 30000"),
        "{}",
        r.text
    );
    upload_raw(&app, &alice, Vec::new(), "image/png", None)
        .await
        .expect_error(422);

    // Above 20 MiB: 413, both ways.
    let big = vec![0u8; 20 * 1024 * 1024 + 1];
    upload_raw(&app, &alice, big.clone(), "image/png", None)
        .await
        .expect_error(413);
    upload_form(&app, &alice, big, "big.png", None)
        .await
        .expect_error(413);

    // A multipart body without a file part.
    let r = app
        .send(
            app.raw(Method::POST, "/v1/media")
                .bearer_auth(&alice.key)
                .multipart(Form::new().text("name", "x")),
        )
        .await;
    r.expect_error(422);

    let list = app
        .call(Method::GET, "/v1/media", Some(&alice.key), None)
        .await;
    assert_eq!(list.json["meta"]["total"], 0);
}

#[tokio::test]
async fn the_same_bytes_are_stored_once_and_accounts_never_see_each_others_media() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let png = encoded(picture(30, 20, 7), ImageFormat::Png);

    let first = upload_form(&app, &alice, png.clone(), "first.png", None).await;
    first.expect(201);
    let again = upload_raw(&app, &alice, png.clone(), "image/png", Some("second.png")).await;
    again.expect(200);
    assert_eq!(again.data()["id"], first.data()["id"]);
    assert_eq!(again.data()["name"], "first.png", "the first name is kept");
    let list = app
        .call(Method::GET, "/v1/media", Some(&alice.key), None)
        .await;
    assert_eq!(list.json["meta"]["total"], 1);

    // Bob's upload of the same bytes is his own object.
    let bobs = upload_form(&app, &bob, png, "b.png", None).await;
    bobs.expect(201);
    assert_ne!(bobs.data()["id"], first.data()["id"]);
    assert_ne!(bobs.data()["url"], first.data()["url"]);

    let id = first.data()["id"].as_str().unwrap();
    let path = format!("/v1/media/{id}");
    app.call(Method::GET, &path, Some(&alice.key), None)
        .await
        .expect(200);
    app.call(Method::GET, &path, Some(&bob.key), None)
        .await
        .expect_error(404);
    app.call(Method::DELETE, &path, Some(&bob.key), None)
        .await
        .expect_error(404);
    let bob_list = app
        .call(Method::GET, "/v1/media", Some(&bob.key), None)
        .await;
    assert_eq!(bob_list.json["meta"]["total"], 1);
    assert_eq!(bob_list.data()[0]["id"], bobs.data()["id"]);

    // Delete: the row and the URL answer 404 (with nosniff); Bob's copy stays.
    let url = first.data()["url"].as_str().unwrap().to_string();
    assert_eq!(fetch(&url).await.0, 200);
    app.call(Method::DELETE, &path, Some(&alice.key), None)
        .await
        .expect(204);
    app.call(Method::GET, &path, Some(&alice.key), None)
        .await
        .expect_error(404);
    app.call(Method::DELETE, &path, Some(&alice.key), None)
        .await
        .expect_error(404);
    let (status, headers, _) = fetch(&url).await;
    assert_eq!(status, 404);
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(fetch(bobs.data()["url"].as_str().unwrap()).await.0, 200);
    // A made-up file name is 404 too.
    assert_eq!(
        fetch(&format!("{}/media/nothing.png", app.base)).await.0,
        404
    );
}

#[tokio::test]
async fn credentials_scopes_and_the_rate_limit_apply() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let png = encoded(picture(10, 10, 1), ImageFormat::Png);
    let r = app
        .send(app.raw(Method::POST, "/v1/media").body(png.clone()))
        .await;
    r.expect_error(401);
    let read = crate::oauth::access_token(&app, None, &["read"]).await;
    let r = app
        .send(
            app.raw(Method::POST, "/v1/media")
                .bearer_auth(&read)
                .body(png.clone()),
        )
        .await;
    r.expect_error(403);
    app.call(Method::GET, "/v1/media", Some(&read), None)
        .await
        .expect(200);
    let r = upload_raw(&app, &alice, png, "image/png", None).await;
    r.expect(201);
    assert!(r.headers.contains_key("ratelimit-remaining"));
}

#[tokio::test]
async fn a_server_with_a_small_quota_refuses_the_upload_that_would_pass_it() {
    let dir = tempfile::tempdir().unwrap();
    let pg = if crate::common::testing_postgres() {
        Some(crate::common::PgDatabase::create().await)
    } else {
        None
    };
    let db = match &pg {
        Some(pg) => pg.url.clone(),
        None => format!("sqlite://{}", dir.path().join("lectern.db").display()),
    };
    let (_server, base) = crate::common::serve(&db, dir.path(), &["--media-quota-mb", "1"]).await;
    let key = crate::common::account(&db, "quota").await;
    let client = reqwest::Client::new();
    let send = |bytes: Vec<u8>| {
        client
            .post(format!("{base}/v1/media"))
            .bearer_auth(&key)
            .body(bytes)
            .send()
    };
    let first = noise_png(600_000, 1);
    let second = noise_png(600_000, 2);
    assert_eq!(send(first.clone()).await.unwrap().status(), 201);
    // The same bytes again are not counted twice.
    assert_eq!(send(first).await.unwrap().status(), 200);
    let refused = send(second).await.unwrap();
    assert_eq!(refused.status(), 413);
    let body: Value = refused.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("quota"), "{body}");
    // A small one still fits.
    let small = encoded(picture(20, 20, 3), ImageFormat::Png);
    assert_eq!(send(small).await.unwrap().status(), 201);

    // Racing uploads cannot pass the quota together: of four 200 KB files with ~440 KB
    // left, at most two are stored.
    let racers = (10..14).map(|seed| send(noise_png(200_000, seed)));
    let statuses: Vec<u16> = futures::future::join_all(racers)
        .await
        .into_iter()
        .map(|r| r.unwrap().status().as_u16())
        .collect();
    let created = statuses.iter().filter(|s| **s == 201).count();
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 413),
        "{statuses:?}"
    );
    assert!((1..=2).contains(&created), "{statuses:?}");
    let list: Value = client
        .get(format!("{base}/v1/media?per_page=100"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let stored: i64 = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["bytes"].as_i64().unwrap())
        .sum();
    assert!(
        stored <= 1024 * 1024,
        "{stored} bytes stored under a 1 MiB quota"
    );
}

#[tokio::test]
async fn a_hundred_concurrent_uploads_all_succeed() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let uploads = (0..100u32).map(|i| {
        let bytes = encoded(picture(32, 24, i), ImageFormat::Png);
        let req = app
            .raw(Method::POST, "/v1/media")
            .bearer_auth(&alice.key)
            .body(bytes);
        async move { req.send().await.unwrap().status().as_u16() }
    });
    let statuses = futures::future::join_all(uploads).await;
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
    let list = app
        .call(Method::GET, "/v1/media", Some(&alice.key), None)
        .await;
    assert_eq!(list.json["meta"]["total"], 100);
}

/// A one-file HTTP server answering every request with `body` as `image/png`.
async fn image_server(body: Vec<u8>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let body = body.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: image/png\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&body).await;
            });
        }
    });
    format!("http://{addr}/images/diagram.png?size=large")
}

#[tokio::test]
async fn mcp_upload_image_takes_base64_or_a_source_url_under_the_network_rule() {
    use base64::Engine as _;
    let png = encoded(picture(48, 36, 8), ImageFormat::Png);
    let source = image_server(encoded(picture(50, 40, 9), ImageFormat::Png)).await;

    // The default rule: public addresses only, so the test server on loopback is refused.
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let client = session_client(&app, &alice.key).await;
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    let media = ok(&call(
        &client,
        "upload_image",
        json!({"data": data, "name": "plot.png"}),
    )
    .await)["data"]
        .clone();
    assert_eq!(media["name"], "plot.png");
    assert_eq!(media["width"], 48);
    let rest = app
        .call(
            Method::GET,
            &format!("/v1/media/{}", media["id"].as_str().unwrap()),
            Some(&alice.key),
            None,
        )
        .await;
    assert_eq!(rest.data()["url"], media["url"]);
    let (message, status) =
        failure(&call(&client, "upload_image", json!({"source_url": source})).await);
    assert_eq!(status, 422, "{message}");
    assert!(message.contains("not allowed"), "{message}");
    let (_, status) = failure(&call(&client, "upload_image", json!({})).await);
    assert_eq!(status, 422);
    let (_, status) =
        failure(&call(&client, "upload_image", json!({"data": "%%%not base64"})).await);
    assert_eq!(status, 422);
    let listed = ok(&call(&client, "list_media", json!({})).await)["data"].clone();
    assert_eq!(listed.as_array().unwrap().len(), 1);

    // `--render-network any`: the same URL is fetched, named after its path.
    let open = TestApp::spawn_with_network(RenderNetwork::Any).await;
    let bob = open.user("bob").await;
    let client = session_client(&open, &bob.key).await;
    let media =
        ok(&call(&client, "upload_image", json!({"source_url": source})).await)["data"].clone();
    assert_eq!(media["name"], "diagram.png");
    assert_eq!(
        (media["width"].as_i64(), media["height"].as_i64()),
        (Some(50), Some(40))
    );
}

#[tokio::test]
async fn exports_carry_the_owners_uploaded_images_without_the_network() {
    // `--render-network none`: an image reaching the PDF can only have come from the store.
    let app = TestApp::spawn_with_network(RenderNetwork::None).await;
    let alice = app.user("alice").await;
    let client = session_client(&app, &alice.key).await;
    use base64::Engine as _;
    let shown = encoded(picture(320, 200, 4), ImageFormat::Png);
    let shown = ok(&call(
        &client,
        "upload_image",
        json!({"data": base64::engine::general_purpose::STANDARD.encode(&shown)}),
    )
    .await)["data"]
        .clone();
    let background = upload_raw(
        &app,
        &alice,
        encoded(picture(64, 64, 5), ImageFormat::Jpeg),
        "image/jpeg",
        None,
    )
    .await;
    let gone = upload_raw(
        &app,
        &alice,
        encoded(picture(16, 16, 6), ImageFormat::Png),
        "image/png",
        None,
    )
    .await;
    let (shown_url, bg_url, gone_url) = (
        shown["url"].as_str().unwrap().to_string(),
        background.data()["url"].as_str().unwrap().to_string(),
        gone.data()["url"].as_str().unwrap().to_string(),
    );
    let deck = app.new_deck(&alice.key, "With pictures").await;
    let added = ok(&call(
        &client,
        "add_slide",
        json!({"deck_id": deck, "html": format!(
            r#"<section><h2>Chart</h2><img src="{shown_url}" width="320" height="200"></section>"#
        )}),
    )
    .await)["data"]
        .clone();
    assert!(added["id"].is_string());
    app.add_slide(
        &alice.key,
        deck,
        Some(json!({"html": format!(
            r#"<section data-background-image="{bg_url}"><div style="background-image: url('{gone_url}')">x</div></section>"#
        )})),
    )
    .await
    .expect(201);
    app.call(
        Method::DELETE,
        &format!("/v1/media/{}", gone.data()["id"].as_str().unwrap()),
        Some(&alice.key),
        None,
    )
    .await
    .expect(204);

    // ZIP: the images beside index.html, the slides pointing at them; the deleted one left out.
    let zip = app
        .finished_export(&alice, deck, json!({"format": "zip"}))
        .await;
    assert_eq!(zip["status"], "completed", "{zip}");
    let bytes = reqwest::get(zip["download_url"].as_str().unwrap())
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes.to_vec())).unwrap();
    let names: Vec<String> = archive
        .file_names()
        .map(|n| n.unwrap().to_string())
        .collect();
    let local = |url: &str| format!("media/{}", url.rsplit('/').next().unwrap());
    assert!(names.contains(&local(&shown_url)), "{names:?}");
    assert!(names.contains(&local(&bg_url)), "{names:?}");
    assert!(!names.contains(&local(&gone_url)), "{names:?}");
    let mut index = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("index.html").unwrap(), &mut index).unwrap();
    assert!(index.contains(&format!("src=\"{}\"", local(&shown_url))));
    assert!(index.contains(&format!("data-background-image=\"{}\"", local(&bg_url))));
    assert!(!index.contains(&shown_url) && !index.contains(&bg_url));

    // PDF: printed with no network at all, the uploaded picture is in it.
    if crate::common::chromium(module_path!()).is_none() {
        return;
    }
    let pdf = app
        .finished_export(&alice, deck, json!({"format": "pdf"}))
        .await;
    assert_eq!(pdf["status"], "completed", "{pdf}");
    let bytes = reqwest::get(pdf["download_url"].as_str().unwrap())
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let images = String::from_utf8_lossy(&bytes)
        .matches("/Subtype /Image")
        .count();
    assert!(images >= 1, "the PDF shows no image");
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut chunk = kind.to_vec();
    chunk.extend_from_slice(data);
    out.extend_from_slice(&chunk);
    out.extend_from_slice(&crc32(&chunk).to_be_bytes());
}

/// A valid 16-bit RGBA PNG of `w` × `h` black pixels: 8 bytes a pixel once decoded, about
/// a thousandth of that on the wire. The zlib stream is made of one deflate block of 1 MiB
/// of zeros repeated (a block that only refers back to zeros means the same after any
/// zeros), so the test never holds the pixels.
fn png16_bomb(w: u32, h: u32) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    let raw_len = u64::from(h) * (1 + u64::from(w) * 8);
    let chunk = 1usize << 20;
    let zeros = vec![0u8; chunk];
    let mut deflate = Compress::new(Compression::best(), false);
    let mut block = |input: &[u8], flush| {
        let mut out = Vec::with_capacity(input.len() / 100 + 1024);
        deflate.compress_vec(input, &mut out, flush).unwrap();
        out
    };
    let first = block(&zeros, FlushCompress::Sync);
    let repeated = block(&zeros, FlushCompress::Sync);
    let whole = raw_len / chunk as u64;
    let rest = block(
        &zeros[..(raw_len % chunk as u64) as usize],
        FlushCompress::Sync,
    );
    let end = block(&[], FlushCompress::Finish);
    let mut zlib = vec![0x78, 0xDA];
    zlib.extend_from_slice(&first);
    for _ in 1..whole {
        zlib.extend_from_slice(&repeated);
    }
    zlib.extend_from_slice(&rest);
    zlib.extend_from_slice(&end);
    // Adler-32 of zeros: a stays 1, b adds 1 per byte.
    let b = (raw_len % 65521) as u32;
    zlib.extend_from_slice(&((b << 16) | 1).to_be_bytes());

    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[16, 6, 0, 0, 0]);
    png_chunk(&mut png, b"IHDR", &ihdr);
    for part in zlib.chunks(1 << 16) {
        png_chunk(&mut png, b"IDAT", part);
    }
    png_chunk(&mut png, b"IEND", &[]);
    png
}

/// A GIF of `frames` frames, each one colour over the whole `w` × `h` canvas: one frame
/// encoded, its blocks repeated.
fn gif_bomb(w: u32, h: u32, frames: usize) -> Vec<u8> {
    use image::codecs::gif::GifEncoder;
    let frame = image::RgbaImage::from_pixel(w, h, image::Rgba([200, 30, 30, 255]));
    let mut one = Vec::new();
    GifEncoder::new_with_speed(&mut one, 30)
        .encode_frame(image::Frame::new(frame))
        .unwrap();
    // Header and screen (13 bytes), the global colour table, then the frame's blocks.
    let table = if one[10] & 0x80 != 0 {
        3 << ((one[10] & 7) + 1)
    } else {
        0
    };
    assert_eq!(one.last(), Some(&0x3B));
    let (head, blocks) = one.split_at(13 + table);
    let blocks = &blocks[..blocks.len() - 1];
    let mut gif = head.to_vec();
    for _ in 0..frames {
        gif.extend_from_slice(blocks);
    }
    gif.push(0x3B);
    gif
}

/// A GIF whose canvas is `w` × `h` and whose `frames` frames are one pixel each: the
/// decoder draws every frame on a whole canvas.
fn gif_canvas_bomb(w: u16, h: u16, frames: usize) -> Vec<u8> {
    let mut gif = b"GIF89a".to_vec();
    gif.extend_from_slice(&w.to_le_bytes());
    gif.extend_from_slice(&h.to_le_bytes());
    gif.extend_from_slice(&[0x80, 0, 0]); // a global table of two colours
    gif.extend_from_slice(&[0, 0, 0, 255, 255, 255]);
    for _ in 0..frames {
        gif.extend_from_slice(&[0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]); // 1 × 1 at 0,0
        gif.extend_from_slice(&[2, 2, 0x44, 0x01, 0]); // LZW: clear, 0, end
    }
    gif.push(0x3B);
    gif
}

/// The peak resident memory of process `pid`, in bytes (`VmHWM`).
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("Linux reports VmHWM");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kib * 1024
}

#[tokio::test]
async fn six_concurrent_decompression_bombs_are_refused_without_exhausting_memory() {
    let dir = tempfile::tempdir().unwrap();
    let pg = if crate::common::testing_postgres() {
        Some(crate::common::PgDatabase::create().await)
    } else {
        None
    };
    let db = match &pg {
        Some(pg) => pg.url.clone(),
        None => format!("sqlite://{}", dir.path().join("lectern.db").display()),
    };
    let (server, base) = crate::common::serve(&db, dir.path(), &[]).await;
    let key = crate::common::account(&db, "bombs").await;
    let pid = server.id().expect("the server runs");

    // 392 MB of 16-bit pixels each; 16 M-pixel frames (64 MB drawn) by the dozen; and
    // a 49 M-pixel canvas (196 MB drawn per frame) of one-pixel frames.
    let png = png16_bomb(7000, 7000);
    let gif = gif_bomb(4000, 4000, 40);
    let canvas = gif_canvas_bomb(7000, 7000, 5000);
    for (name, bomb) in [("png", &png), ("gif", &gif), ("canvas", &canvas)] {
        assert!(
            bomb.len() < 1_000_000,
            "{name} is small on the wire: {}",
            bomb.len()
        );
    }
    let before = peak_rss(pid);
    let client = reqwest::Client::new();
    let uploads = [&png, &png, &gif, &gif, &canvas, &canvas].map(|bomb| {
        client
            .post(format!("{base}/v1/media"))
            .bearer_auth(&key)
            .body(bomb.clone())
            .send()
    });
    for (i, answer) in futures::future::join_all(uploads)
        .await
        .into_iter()
        .enumerate()
    {
        let answer = answer.expect("the server answers (it was not killed)");
        let status = answer.status();
        let body: Value = answer.json().await.unwrap();
        assert_eq!(status, 422, "upload {i}: {body}");
        assert!(body["error"].is_string(), "{body}");
    }
    let peak = peak_rss(pid);
    assert!(
        peak < 1024 * 1024 * 1024,
        "the server peaked at {} MiB (before the uploads: {} MiB)",
        peak / (1024 * 1024),
        before / (1024 * 1024)
    );
    eprintln!(
        "peak RSS {} MiB (before the uploads: {} MiB); bombs: png {} B, gif {} B, canvas {} B",
        peak / (1024 * 1024),
        before / (1024 * 1024),
        png.len(),
        gif.len(),
        canvas.len()
    );
}

#[tokio::test]
async fn an_upload_that_finds_every_decoder_busy_answers_503_with_retry_after() {
    // No decoder free, and no wait: as when every one stays taken too long.
    let app = TestApp::spawn_with(|core| {
        core.with_media_decoders(0, std::time::Duration::from_millis(50))
    })
    .await;
    let alice = app.user("alice").await;
    let png = encoded(picture(20, 20, 1), ImageFormat::Png);
    let answer = app
        .send(
            app.raw(Method::POST, "/v1/media")
                .bearer_auth(&alice.key)
                .body(png),
        )
        .await;
    answer.expect_error(503);
    let retry: u64 = answer.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1);
}
