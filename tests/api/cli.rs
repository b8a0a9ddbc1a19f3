//! The `lectern` binary as the contract starts it: first-start bootstrap, admin commands
//! against a running server's data, and a clean exit on SIGTERM.

use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lectern");

async fn admin(data_dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .arg("admin")
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .output()
        .await
        .expect("the admin command runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[tokio::test]
async fn serve_bootstraps_admin_and_admin_commands_work_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("lectern serve starts");
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let (mut key, mut password, mut web) = (None, None, None);
    while let Some(line) = lines.next_line().await.unwrap() {
        let line = line.trim().to_string();
        if let Some(v) = line.strip_prefix("API key:") {
            key = Some(v.trim().to_string());
        } else if let Some(v) = line.strip_prefix("password:") {
            password = Some(v.trim().to_string());
        } else if let Some(v) = line.strip_prefix("web:") {
            web = Some(v.trim().to_string());
            break;
        }
    }
    let key = key.expect("the first start prints an API key");
    assert!(password.expect("the first start prints a password").len() >= 16);
    let web = web.expect("the first start prints the web address");
    let base = web.trim_end_matches("/login").to_string();
    let client = reqwest::Client::new();

    // The bootstrap key works.
    let me: serde_json::Value = client
        .get(format!("{base}/v1/user"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["data"]["username"], "admin");

    // Admin commands on the same data while the server runs.
    let (ok, id, err) = admin(
        dir.path(),
        &[
            "create-user",
            "--username",
            "carol",
            "--email",
            "c@example.org",
        ],
    )
    .await;
    assert!(ok, "{err}");
    assert!(
        id.parse::<i64>().is_ok(),
        "create-user prints the id alone: {id:?}"
    );
    let (ok, carol_key, err) = admin(
        dir.path(),
        &["create-api-key", "--username", "carol", "--label", "laptop"],
    )
    .await;
    assert!(ok, "{err}");
    assert!(carol_key.starts_with("lk_") && !carol_key.contains(char::is_whitespace));
    let me: serde_json::Value = client
        .get(format!("{base}/v1/user"))
        .bearer_auth(&carol_key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["data"]["id"].to_string(), id);
    let (ok, client_json, err) = admin(
        dir.path(),
        &[
            "create-oauth-client",
            "--name",
            "Tool",
            "--redirect-uri",
            "http://127.0.0.1/cb",
            "--redirect-uri",
            "https://x.example/cb",
        ],
    )
    .await;
    assert!(ok, "{err}");
    let c: serde_json::Value = serde_json::from_str(&client_json).unwrap();
    assert!(c["client_id"].is_string() && c["client_secret"].is_string());
    let (ok, public_json, _) = admin(
        dir.path(),
        &[
            "create-oauth-client",
            "--name",
            "Cli",
            "--redirect-uri",
            "http://127.0.0.1/cb",
            "--public",
        ],
    )
    .await;
    assert!(ok);
    let p: serde_json::Value = serde_json::from_str(&public_json).unwrap();
    assert!(p["client_secret"].is_null());

    // Bad input fails with a message and a non-zero exit.
    let (ok, _, err) = admin(
        dir.path(),
        &[
            "create-user",
            "--username",
            "carol",
            "--email",
            "c@example.org",
        ],
    )
    .await;
    assert!(!ok && err.contains("taken"), "{err}");
    let (ok, _, err) = admin(dir.path(), &["create-api-key", "--username", "nobody"]).await;
    assert!(!ok && err.contains("nobody"), "{err}");

    // SIGTERM: graceful exit with status 0.
    let pid = server.id().expect("the server is running");
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .await
        .unwrap();
    assert!(status.success());
    let exit = server.wait().await.unwrap();
    assert!(
        exit.success(),
        "lectern serve exits cleanly on SIGTERM: {exit:?}"
    );
}

#[tokio::test]
async fn a_second_start_does_not_bootstrap_again() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, _, err) = admin(
        dir.path(),
        &[
            "create-user",
            "--username",
            "first",
            "--email",
            "f@example.org",
        ],
    )
    .await;
    assert!(ok, "{err}");

    let mut server = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // The server logs "lectern is serving" on stderr once it listens.
    let mut err_lines = BufReader::new(server.stderr.take().unwrap()).lines();
    while let Some(line) = err_lines.next_line().await.unwrap() {
        if line.contains("lectern is serving") {
            break;
        }
    }
    server.start_kill().unwrap();
    let out = server.wait_with_output().await.unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("API key"));
}

/// SIGTERM while a request is being uploaded: the server stops accepting connections, finishes
/// the request (201, the deck is stored) and then exits 0.
#[tokio::test]
async fn a_request_in_flight_at_sigterm_is_finished() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("lectern.db").display());
    let key = crate::common::account(&url, "alice").await;
    let (mut server, base) = crate::common::serve(&url, dir.path(), &[]).await;
    let addr = base.trim_start_matches("http://").to_string();

    // Half a request: headers and the first part of the body.
    let body = br#"{"title": "Finished after SIGTERM"}"#;
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "POST /v1/decks HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body[..10]).await.unwrap();
    stream.flush().await.unwrap();
    // Let the server start on it (the handler then waits for the rest of the body; nothing
    // outside the process can observe that moment, so this is a pause, not a poll), then stop it.
    let pid = server.id().unwrap().to_string();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .await
            .unwrap()
            .success()
    );
    // New connections are refused once the server has stopped accepting.
    let mut refused = false;
    for _ in 0..50 {
        if tokio::net::TcpStream::connect(&addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(refused, "the listener still accepts after SIGTERM");
    // The rest of the body: the request completes.
    stream.write_all(&body[10..]).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    assert!(answer.contains("Finished after SIGTERM"), "{answer}");
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), server.wait())
        .await
        .expect("the server exits once the request is done")
        .unwrap();
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn account_names_that_are_paths_of_the_service_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "thumbnails",
        "exports",
        "teams",
        "assets",
        "v1",
        "login",
        "media",
    ] {
        let (ok, out, err) = admin(
            dir.path(),
            &[
                "create-user",
                "--username",
                name,
                "--email",
                "x@example.org",
            ],
        )
        .await;
        assert!(!ok, "{name}: {out}");
        assert!(err.contains("reserved"), "{name}: {err}");
    }
    let (ok, _, err) = admin(
        dir.path(),
        &[
            "create-user",
            "--username",
            "thumbnail",
            "--email",
            "x@example.org",
        ],
    )
    .await;
    assert!(ok, "a name that is not a path is fine: {err}");
}

#[tokio::test]
async fn a_second_server_on_the_same_sqlite_data_dir_is_refused_and_the_first_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = Command::new(BIN);
    first
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let (mut first, base) = crate::common::serve_command(first).await;

    // The second start on the same data dir ends at once, non-zero, saying why.
    let second = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .kill_on_drop(true)
        .output();
    let second = tokio::time::timeout(std::time::Duration::from_secs(30), second)
        .await
        .expect("the second server exits instead of serving")
        .unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "{err}");
    assert!(
        err.contains("already serving the SQLite database")
            && err.contains(&first.id().unwrap().to_string()),
        "the message names the reason and the other server: {err}"
    );
    assert!(!String::from_utf8_lossy(&second.stdout).contains("listening"));

    // The first one still answers, and admin commands still work on its data.
    let health = reqwest::get(format!("{base}/healthz")).await.unwrap();
    assert_eq!(health.status(), 200);
    let (ok, _, err) = admin(
        dir.path(),
        &[
            "create-user",
            "--username",
            "dora",
            "--email",
            "d@example.org",
        ],
    )
    .await;
    assert!(ok, "{err}");
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first server runs on"
    );
}

/// With `--metrics-token`, `/metrics` answers only the bearer of that token (401 JSON for
/// anyone else); `/healthz` still needs nothing.
#[tokio::test]
async fn metrics_behind_a_token_answer_only_its_bearer() {
    let dir = tempfile::tempdir().unwrap();
    let db_url = format!("sqlite://{}", dir.path().join("lectern.db").display());
    let (_server, base) = crate::common::serve(
        &db_url,
        dir.path(),
        &["--metrics-token", "scrape-me-0123456789"],
    )
    .await;
    let client = reqwest::Client::new();
    for token in [None, Some("wrong"), Some("scrape-me-012345678")] {
        let mut req = client.get(format!("{base}/metrics"));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let r = req.send().await.unwrap();
        assert_eq!(r.status(), 401, "{token:?}");
        let body: serde_json::Value = r.json().await.unwrap();
        assert!(body["error"].as_str().unwrap().contains("metrics token"));
    }
    let r = client
        .get(format!("{base}/metrics"))
        .bearer_auth("scrape-me-0123456789")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("http_requests_total"));
    let health = client.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
}
