//! Export files, thumbnails and media in an S3-compatible bucket (`--file-store s3://...`)
//! shared by two `lectern serve` processes on one PostgreSQL database. The bucket is a real
//! S3-compatible server, moto in server mode (`moto_server` from PyPI, which .ci/run
//! installs; `LECTERN_TEST_MOTO` may name it), started here. Runs in the PostgreSQL pass;
//! without moto it is skipped, except under CI.

use std::net::TcpListener;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{PgDatabase, account, send_json, serve_command, testing_postgres};

/// A moto S3 server on a port of its own; killed when dropped.
struct Moto {
    child: tokio::process::Child,
    port: u16,
}

impl Moto {
    fn program() -> Option<String> {
        let program = std::env::var("LECTERN_TEST_MOTO").unwrap_or_else(|_| "moto_server".into());
        let found = std::process::Command::new(&program)
            .arg("--help")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        found.then_some(program)
    }

    /// Starts moto on `port` (a free one when `None`), waits until it answers and makes the
    /// bucket `lectern`.
    async fn start(program: &str, port: Option<u16>) -> Moto {
        let port = port.unwrap_or_else(|| {
            TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port()
        });
        let child = tokio::process::Command::new(program)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("moto starts");
        let client = reqwest::Client::new();
        for _ in 0..200 {
            let made = client
                .put(format!("http://127.0.0.1:{port}/lectern"))
                .send()
                .await;
            if made.is_ok_and(|r| r.status().is_success()) {
                return Moto { child, port };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("moto never answered on port {port}");
    }

    async fn stop(mut self) -> u16 {
        self.child.kill().await.unwrap();
        self.port
    }
}

/// `lectern serve` on `db_url` with the bucket of moto on `port`.
async fn serve_on_bucket(
    db_url: &str,
    dir: &std::path::Path,
    port: u16,
) -> (tokio::process::Child, String) {
    let mut command = tokio::process::Command::new(crate::common::BIN);
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--database-url", db_url])
        .arg("--data-dir")
        .arg(dir)
        .args(["--file-store", "s3://lectern/files"])
        .env("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}"))
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    serve_command(command).await
}

/// Polls an export until it is no longer pending.
async fn finished(client: &reqwest::Client, base: &str, key: &str, deck: i64, id: i64) -> Value {
    for _ in 0..600 {
        let (status, body) = send_json(
            client,
            reqwest::Method::GET,
            format!("{base}/v1/decks/{deck}/exports/{id}"),
            key,
            None,
        )
        .await
        .unwrap();
        assert_eq!(status, 200, "{body}");
        if body["data"]["status"] != "pending" {
            return body["data"].clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("export {id} never finished");
}

/// The same URL on the other server.
fn on(base: &str, url: &str) -> String {
    let path = url.splitn(4, '/').nth(3).unwrap_or_default();
    format!("{base}/{path}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_servers_share_one_bucket_for_exports_thumbnails_and_media() {
    if !testing_postgres() {
        eprintln!("skipped: runs in the PostgreSQL pass (LECTERN_TEST_BACKEND=postgres)");
        return;
    }
    let Some(moto) = crate::common::needs(
        module_path!(),
        "moto_server (pip install 'moto[server]')",
        Moto::program(),
    ) else {
        return;
    };
    let s3 = Moto::start(&moto, None).await;
    let db = PgDatabase::create().await;
    let key = account(&db.url, "alice").await;
    // Each server has a data dir of its own: nothing is shared but the database and bucket.
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (_a, base_a) = serve_on_bucket(&db.url, dir_a.path(), s3.port).await;
    let (_b, base_b) = serve_on_bucket(&db.url, dir_b.path(), s3.port).await;
    let bases = [base_a.clone(), base_b.clone()];
    let client = reqwest::Client::new();
    let call = |method: reqwest::Method, url: String, body: Option<Value>| {
        let (client, key) = (client.clone(), key.clone());
        async move { send_json(&client, method, url, &key, body).await.unwrap() }
    };

    let (status, made) = call(
        reqwest::Method::POST,
        format!("{base_a}/v1/decks"),
        Some(json!({"title": "Shared", "slides": [{"html": "<section><h1>Cover</h1></section>"}]})),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let deck = made["data"]["id"].as_i64().unwrap();

    // 100 exports queued through both servers; each built by whichever worker took it.
    let mut ids = Vec::new();
    for i in 0..100 {
        let (status, body) = call(
            reqwest::Method::POST,
            format!("{}/v1/decks/{deck}/exports", bases[i % 2]),
            Some(json!({"format": "zip"})),
        )
        .await;
        assert_eq!(status, 202, "{body}");
        ids.push(body["data"]["id"].as_i64().unwrap());
    }
    let mut first_zip: Option<Vec<u8>> = None;
    for (i, id) in ids.iter().enumerate() {
        let done = finished(&client, &bases[i % 2], &key, deck, *id).await;
        assert_eq!(done["status"], "completed", "{done}");
        // Downloaded through the other server than the one that answered.
        let url = on(&bases[(i + 1) % 2], done["download_url"].as_str().unwrap());
        let resp = reqwest::get(&url).await.unwrap();
        assert_eq!(resp.status(), 200, "export {id} through {url}");
        let bytes = resp.bytes().await.unwrap().to_vec();
        assert!(bytes.starts_with(b"PK"), "export {id} is a ZIP");
        first_zip.get_or_insert(bytes);
    }
    // Neither server kept a file in its own directory.
    for dir in [&dir_a, &dir_b] {
        let local = dir.path().join("exports");
        let count = std::fs::read_dir(&local).map(|d| d.count()).unwrap_or(0);
        assert_eq!(count, 0, "files were written to {}", local.display());
    }

    // An image uploaded through A is served by B.
    let png = {
        let mut out = Vec::new();
        let img = image::RgbImage::from_pixel(4, 3, image::Rgb([200, 30, 30]));
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    };
    let uploaded = client
        .post(format!("{base_a}/v1/media"))
        .bearer_auth(&key)
        .header("content-type", "image/png")
        .body(png)
        .send()
        .await
        .unwrap();
    assert_eq!(uploaded.status(), 201);
    let media: Value = uploaded.json().await.unwrap();
    let media_url = on(&base_b, media["data"]["url"].as_str().unwrap());
    let served = reqwest::get(&media_url).await.unwrap();
    assert_eq!(served.status(), 200, "{media_url}");
    assert!(served.bytes().await.unwrap().starts_with(b"\x89PNG"));

    // A thumbnail drawn by either server's worker is served by both.
    if lectern::export::pdf::find_chromium(None).is_some() {
        let mut thumbnail = None;
        for _ in 0..300 {
            let (_, detail) = call(
                reqwest::Method::GET,
                format!("{base_a}/v1/decks/{deck}"),
                None,
            )
            .await;
            let url = detail["data"]["thumbnail_url"]
                .as_str()
                .unwrap()
                .to_string();
            if url.ends_with(".png") {
                thumbnail = Some(url);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let url = thumbnail.expect("a thumbnail was drawn");
        for base in &bases {
            let resp = reqwest::get(on(base, &url)).await.unwrap();
            assert_eq!(resp.status(), 200, "thumbnail through {base}");
            assert!(resp.bytes().await.unwrap().starts_with(b"\x89PNG"));
        }
    } else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI installs Chromium"
        );
        eprintln!("note: no Chromium here; thumbnails not checked");
    }

    // The object store stops: a new export fails with a reason; back, exports work again.
    let export_through = |base: String| {
        let call = &call;
        let (client, key) = (&client, &key);
        async move {
            let (_, queued) = call(
                reqwest::Method::POST,
                format!("{base}/v1/decks/{deck}/exports"),
                Some(json!({"format": "zip"})),
            )
            .await;
            let id = queued["data"]["id"].as_i64().unwrap();
            finished(client, &base, key, deck, id).await
        }
    };
    let port = s3.stop().await;
    let failed = export_through(base_b.clone()).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    let reason = failed["error"].as_str().unwrap_or_default();
    assert!(
        reason.contains("object store"),
        "the reason names the store: {failed}"
    );
    let _s3 = Moto::start(&moto, Some(port)).await;
    let done = export_through(base_a.clone()).await;
    assert_eq!(done["status"], "completed", "{done}");
    let resp = reqwest::get(on(&base_b, done["download_url"].as_str().unwrap()))
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let zip = resp.bytes().await.unwrap().to_vec();
    assert!(zip.starts_with(b"PK") && first_zip.is_some_and(|z| z.len() == zip.len()));
}

/// `admin migrate-files` copies a server's local files (exports, media) into the bucket; a
/// server started on the bucket then serves them. Runs in the SQLite pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_files_moves_local_files_into_the_bucket() {
    if testing_postgres() {
        eprintln!("skipped: runs in the SQLite pass");
        return;
    }
    let Some(moto) = crate::common::needs(
        module_path!(),
        "moto_server (pip install 'moto[server]')",
        Moto::program(),
    ) else {
        return;
    };
    let s3 = Moto::start(&moto, None).await;
    let dir = tempfile::tempdir().unwrap();
    let db_url = format!("sqlite://{}", dir.path().join("lectern.db").display());
    let key = account(&db_url, "alice").await;
    let client = reqwest::Client::new();

    // A server on local files: an uploaded image and a finished export.
    let (local, base) = crate::common::serve(&db_url, dir.path(), &[]).await;
    let uploaded = client
        .post(format!("{base}/v1/media"))
        .bearer_auth(&key)
        .header("content-type", "image/svg+xml")
        .body(r#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>"#)
        .send()
        .await
        .unwrap();
    assert_eq!(uploaded.status(), 201);
    let media: Value = uploaded.json().await.unwrap();
    let (_, made) = send_json(
        &client,
        reqwest::Method::POST,
        format!("{base}/v1/decks"),
        &key,
        Some(json!({"title": "Moved"})),
    )
    .await
    .unwrap();
    let deck = made["data"]["id"].as_i64().unwrap();
    let (_, queued) = send_json(
        &client,
        reqwest::Method::POST,
        format!("{base}/v1/decks/{deck}/exports"),
        &key,
        Some(json!({"format": "zip"})),
    )
    .await
    .unwrap();
    let export = queued["data"]["id"].as_i64().unwrap();
    assert_eq!(
        finished(&client, &base, &key, deck, export).await["status"],
        "completed"
    );
    drop(local);

    let out = tokio::process::Command::new(crate::common::BIN)
        .args([
            "admin",
            "migrate-files",
            "--database-url",
            &db_url,
            "--file-store",
            "s3://lectern/files",
        ])
        .arg("--data-dir")
        .arg(dir.path())
        .env("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{}", s3.port))
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let copied: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert!(
        copied >= 2,
        "the media file and the export file at least: {copied}"
    );
    // The local copies go away; the bucket serves.
    std::fs::remove_dir_all(dir.path().join("exports")).unwrap();
    let (_bucket, base) = serve_on_bucket(&db_url, dir.path(), s3.port).await;
    let media_url = on(&base, media["data"]["url"].as_str().unwrap());
    assert_eq!(
        reqwest::get(&media_url).await.unwrap().status(),
        200,
        "{media_url}"
    );
    let done = finished(&client, &base, &key, deck, export).await;
    let zip = reqwest::get(on(&base, done["download_url"].as_str().unwrap()))
        .await
        .unwrap();
    assert_eq!(zip.status(), 200);
    assert!(zip.bytes().await.unwrap().starts_with(b"PK"));
}

/// Retention on the bucket: the hourly cleanup deletes an old export's object, and the
/// export answers 404 from then on. Runs in the SQLite pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cleanup_deletes_old_export_files_from_the_bucket() {
    use lectern::export::files::{FileStore, ObjectFiles};
    use lectern::export::pdf::PdfRenderer;
    use lectern::export::worker::Exporter;
    use std::sync::Arc;

    if testing_postgres() {
        eprintln!("skipped: runs in the SQLite pass");
        return;
    }
    let Some(moto) = crate::common::needs(
        module_path!(),
        "moto_server (pip install 'moto[server]')",
        Moto::program(),
    ) else {
        return;
    };
    let s3 = Moto::start(&moto, None).await;
    let bucket = || {
        let builder = object_store::aws::AmazonS3Builder::new()
            .with_endpoint(format!("http://127.0.0.1:{}", s3.port))
            .with_allow_http(true)
            .with_region("us-east-1")
            .with_access_key_id("test")
            .with_secret_access_key("test");
        Arc::new(ObjectFiles::s3_with("s3://lectern/kept", builder).unwrap())
    };
    let files = bucket();
    let app = crate::common::TestApp::spawn_with(|core| core.with_files(bucket())).await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Kept a while").await;
    let done = app
        .finished_export(&alice, deck, json!({"format": "zip"}))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    let key = format!("{}.zip", done["id"]);
    assert!(
        files.get(&key).await.unwrap().is_some(),
        "the file is in the bucket"
    );
    assert_eq!(
        reqwest::get(done["download_url"].as_str().unwrap())
            .await
            .unwrap()
            .status(),
        200
    );

    let worker = Exporter {
        core: app.core.clone(),
        pdf: Arc::new(PdfRenderer::new(None)),
        wakeup: Default::default(),
    };
    assert_eq!(worker.cleanup(Duration::ZERO).await.unwrap(), 1);
    assert!(
        files.get(&key).await.unwrap().is_none(),
        "the cleanup deleted the object"
    );
    assert_eq!(
        reqwest::get(done["download_url"].as_str().unwrap())
            .await
            .unwrap()
            .status(),
        404
    );
}
