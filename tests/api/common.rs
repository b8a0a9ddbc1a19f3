//! `TestApp`: a running server on an ephemeral port with its own database, and a small typed
//! client with one helper per operation.

use std::sync::Arc;

use lectern::export::network::RenderNetwork;
use lectern::server;
use lectern::state::{AppShared, AppState, Timeouts};
use lectern_core::Lectern;
use lectern_core::secret::Secret;
use lectern_core::service::NewUser;
use reqwest::{Method, StatusCode, header::HeaderMap};
use serde_json::Value;
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A fresh PostgreSQL database for one test, dropped (with its connections) when this guard
/// is dropped.
pub struct PgDatabase {
    pub url: String,
    admin_url: String,
    name: String,
}

impl PgDatabase {
    /// Creates `lectern_test_<random>` on the server of `LECTERN_TEST_POSTGRES_URL`.
    pub async fn create() -> PgDatabase {
        use sqlx::Connection;
        let admin_url = std::env::var("LECTERN_TEST_POSTGRES_URL")
            .expect("LECTERN_TEST_POSTGRES_URL is set for PostgreSQL tests");
        let name = format!(
            "lectern_test_{}",
            lectern_core::secret::random_alphanumeric(12).to_lowercase()
        );
        let mut conn = sqlx::PgConnection::connect(&admin_url)
            .await
            .expect("PostgreSQL answers");
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .expect("a test database can be created");
        let base = admin_url.split('?').next().unwrap();
        let (server, _) = base.rsplit_once('/').expect("the URL names a database");
        PgDatabase {
            url: format!("{server}/{name}"),
            admin_url,
            name,
        }
    }

    /// Ends every connection to this database, as a restart of the server would: the
    /// application's pooled connections die under it.
    pub async fn terminate_connections(&self) -> u64 {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&self.admin_url)
            .await
            .expect("PostgreSQL answers");
        sqlx::query_scalar::<_, i64>(
            "SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = $1 AND pid <> pg_backend_pid()) AS t",
        )
        .bind(&self.name)
        .fetch_one(&mut conn)
        .await
        .expect("connections can be terminated") as u64
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        // Drop runs inside the test's runtime; the cleanup gets a runtime of its own.
        let cleanup = std::thread::spawn(move || {
            use sqlx::Connection;
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                if let Ok(mut conn) = sqlx::PgConnection::connect(&admin_url).await {
                    let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                    let _ = sqlx::query(sqlx::AssertSqlSafe(sql))
                        .execute(&mut conn)
                        .await;
                }
            });
        });
        let _ = cleanup.join();
    }
}

/// Whether this run tests the PostgreSQL backend (`LECTERN_TEST_BACKEND=postgres`).
pub fn testing_postgres() -> bool {
    std::env::var("LECTERN_TEST_BACKEND").as_deref() == Ok("postgres")
}

/// The `lectern` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_lectern");

/// Starts `lectern serve` as a process on `db_url`, an ephemeral port and `data_dir`, with
/// `extra` arguments; returns it (killed when dropped) and its base URL.
pub async fn serve(
    db_url: &str,
    data_dir: &std::path::Path,
    extra: &[&str],
) -> (tokio::process::Child, String) {
    let mut command = tokio::process::Command::new(BIN);
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--database-url", db_url])
        .arg("--data-dir")
        .arg(data_dir)
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    serve_command(command).await
}

/// Starts `command` (a `lectern serve` with its stdout piped); returns it and its base URL
/// once it listens.
pub async fn serve_command(
    mut command: tokio::process::Command,
) -> (tokio::process::Child, String) {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let mut child = command.spawn().expect("lectern serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    while let Some(line) = lines.next_line().await.unwrap() {
        if let Some(rest) = line.strip_prefix("lectern: listening on http://") {
            let addr = rest.split_whitespace().next().unwrap().to_string();
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return (child, format!("http://{addr}"));
        }
    }
    panic!("lectern serve exited before listening");
}

/// Runs `lectern admin <args>` on `db_url`; returns its stdout, trimmed.
pub async fn admin(db_url: &str, args: &[&str]) -> String {
    let out = tokio::process::Command::new(BIN)
        .arg("admin")
        .args(args)
        .args(["--database-url", db_url])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Sends a request with `key` as bearer credential and `body` as JSON to a server started
/// with [`serve`]; the answer's status and JSON body (`Null` when not JSON).
pub async fn send_json(
    client: &reqwest::Client,
    method: Method,
    url: String,
    key: &str,
    body: Option<Value>,
) -> Result<(u16, Value), reqwest::Error> {
    let mut req = client.request(method, url).bearer_auth(key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await?;
    let status = resp.status().as_u16();
    Ok((status, resp.json().await.unwrap_or(Value::Null)))
}

/// Creates the account `username` on `db_url` with `lectern admin` and returns a new API key
/// for it.
pub async fn account(db_url: &str, username: &str) -> String {
    let email = format!("{username}@example.org");
    admin(
        db_url,
        &["create-user", "--username", username, "--email", &email],
    )
    .await;
    admin(db_url, &["create-api-key", "--username", username]).await
}

/// Headless Chromium at `bin` as a person's browser: a throwaway profile, a `width` ×
/// `height` viewport. Close it with [`Headless::close`].
pub struct Headless {
    pub browser: chromiumoxide::Browser,
    events: tokio::task::JoinHandle<()>,
    _profile: TempDir,
}

impl Headless {
    pub async fn launch(bin: std::path::PathBuf, width: u32, height: u32) -> Headless {
        use futures::StreamExt;
        let profile = tempfile::tempdir().unwrap();
        let config = chromiumoxide::BrowserConfig::builder()
            .chrome_executable(bin)
            .no_sandbox()
            .new_headless_mode()
            .user_data_dir(profile.path())
            .window_size(width, height)
            .viewport(None)
            .args([
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ])
            .build()
            .unwrap();
        let (browser, mut handler) = chromiumoxide::Browser::launch(config)
            .await
            .expect("chromium starts");
        let events = tokio::spawn(async move { while let Some(Ok(_)) = handler.next().await {} });
        Headless {
            browser,
            events,
            _profile: profile,
        }
    }

    pub async fn close(mut self) {
        self.browser.close().await.ok();
        self.events.abort();
    }
}

/// The CSRF token of the first form on a page.
pub fn csrf_of(html: &str) -> String {
    let marker = "name=\"csrf_token\" value=\"";
    let start = html.find(marker).expect("the page has a CSRF field") + marker.len();
    html[start..start + html[start..].find('"').unwrap()].to_string()
}

/// The 21 operations of interface section 4.1, in its order.
/// The revision operations (an extension: issue 16), documented beside the interface's.
pub const REVISION_OPERATIONS: [&str; 4] = [
    "list_revisions",
    "get_revision",
    "restore",
    "list_slide_revisions",
];

/// The media operations (an extension: issue 17).
pub const MEDIA_OPERATIONS: [&str; 4] = ["upload_media", "list_media", "get_media", "delete_media"];

pub const OPERATIONS: [&str; 21] = [
    "users_get",
    "list_decks",
    "create_deck",
    "list_trashed_decks",
    "get_deck",
    "update_deck",
    "trash_deck",
    "recover_deck",
    "list_slides",
    "add_slide",
    "remove_slides",
    "get_slide",
    "update_slide",
    "move_slides",
    "list_deck_shares",
    "create_deck_share",
    "revoke_deck_share",
    "create_deck_export",
    "get_deck_export",
    "list_team_decks",
    "get_team_deck",
];

/// A server under test.
pub struct TestApp {
    pub base: String,
    /// The database URL, for admin commands run against this server's data.
    pub database_url: String,
    pub core: Lectern,
    client: reqwest::Client,
    // Dropped in this order: stop the server, then remove its database.
    _shutdown: oneshot::Sender<()>,
    _dir: TempDir,
    _pg: Option<PgDatabase>,
}

/// An account with an API key.
pub struct TestUser {
    pub id: i64,
    pub username: String,
    pub key: String,
}

/// An answer: status, headers, body text and body JSON (`Null` when empty or not JSON).
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub text: String,
    pub json: Value,
}

impl Resp {
    /// The `data` of a success envelope.
    pub fn data(&self) -> &Value {
        &self.json["data"]
    }

    /// Asserts the status, printing the body when it differs.
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Self {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.text
        );
        self
    }

    /// Asserts an error answer: the status and a JSON body with a non-empty `error` string.
    #[track_caller]
    pub fn expect_error(&self, status: u16) -> &Self {
        self.expect(status);
        let msg = self.json["error"].as_str().unwrap_or_default();
        assert!(
            !msg.is_empty(),
            "error body lacks an error message: {}",
            self.text
        );
        assert!(
            self.headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json"),
            "error is not JSON"
        );
        self
    }
}

impl TestApp {
    /// Starts a server on a fresh database (SQLite, or PostgreSQL when
    /// `LECTERN_TEST_BACKEND=postgres`); it stops when the `TestApp` is dropped.
    pub async fn spawn() -> TestApp {
        Self::spawn_with(|core| core).await
    }

    /// Like [`TestApp::spawn`], with the core adjusted by `configure` (e.g. a notifier).
    pub async fn spawn_with(configure: impl FnOnce(Lectern) -> Lectern) -> TestApp {
        Self::spawn_limited(lectern::cli::storage::DEFAULT_RATE_LIMIT, configure).await
    }

    /// Like [`TestApp::spawn_with`], allowing `rate_limit` requests per minute per
    /// credential (`0`: no limit).
    pub async fn spawn_limited(
        rate_limit: u32,
        configure: impl FnOnce(Lectern) -> Lectern,
    ) -> TestApp {
        Self::spawn_full(
            rate_limit,
            RenderNetwork::default(),
            Timeouts::default(),
            configure,
        )
        .await
    }

    /// Like [`TestApp::spawn`], waiting on clients for `timeouts`.
    pub async fn spawn_with_timeouts(timeouts: Timeouts) -> TestApp {
        let limit = lectern::cli::storage::DEFAULT_RATE_LIMIT;
        Self::spawn_full(limit, RenderNetwork::default(), timeouts, |c| c).await
    }

    /// Like [`TestApp::spawn`], with the renderer's (and server fetches') network rule.
    pub async fn spawn_with_network(network: RenderNetwork) -> TestApp {
        let limit = lectern::cli::storage::DEFAULT_RATE_LIMIT;
        Self::spawn_full(limit, network, Timeouts::default(), |c| c).await
    }

    async fn spawn_full(
        rate_limit: u32,
        network: RenderNetwork,
        timeouts: Timeouts,
        configure: impl FnOnce(Lectern) -> Lectern,
    ) -> TestApp {
        let dir = tempfile::tempdir().expect("a temp dir can be created");
        let pg = if testing_postgres() {
            Some(PgDatabase::create().await)
        } else {
            None
        };
        let url = match &pg {
            Some(db) => db.url.clone(),
            None => format!("sqlite://{}", dir.path().join("lectern.db").display()),
        };
        let store = lectern::cli::storage::open_store(&url)
            .await
            .expect("the test database opens");
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("an ephemeral port is free");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let files: Arc<dyn lectern::export::files::FileStore> = Arc::new(
            lectern::export::files::LocalFiles::new(dir.path().join("exports"))
                .expect("the export dir can be created"),
        );
        let core = configure(Lectern::new(store, &base).with_files(files.clone()));
        let (tx, rx) = oneshot::channel::<()>();
        let chromium = lectern::export::pdf::find_chromium(None);
        let state = AppState::new(AppShared {
            core: core.clone(),
            export_wakeup: Default::default(),
            renderer: Arc::new(
                lectern::export::pdf::PdfRenderer::new(chromium).with_network(network),
            ),
            mcp: Default::default(),
            rate_limits: lectern::http::rate_limit::RateLimits::new(rate_limit, false),
            deck_bodies: Default::default(),
            timeouts,
            metrics_token: None,
        });
        server::spawn_export_workers(&state, 1);
        tokio::spawn(async move {
            server::serve(listener, state, async {
                let _ = rx.await;
            })
            .await
            .expect("the test server runs");
        });
        TestApp {
            base,
            database_url: url,
            core,
            client: reqwest::Client::new(),
            _dir: dir,
            _pg: pg,
            _shutdown: tx,
        }
    }

    /// Creates an account and an API key for it.
    pub async fn user(&self, username: &str) -> TestUser {
        self.user_in(username, None).await
    }

    /// Creates an account in team `team` (created when missing) and an API key for it.
    pub async fn team_user(&self, username: &str, team: &str) -> TestUser {
        self.user_in(username, Some(team)).await
    }

    async fn user_in(&self, username: &str, team: Option<&str>) -> TestUser {
        let id = self
            .core
            .admin()
            .create_user(NewUser {
                username: username.into(),
                email: format!("{username}@example.org"),
                name: Some(format!("{username} name")),
                password: Some(Secret::new("a long password")),
                team: team.map(str::to_string),
            })
            .await
            .expect("the test account is created");
        let key = self
            .core
            .admin()
            .create_api_key(username, "tests")
            .await
            .expect("the test key is created");
        TestUser {
            id,
            username: username.into(),
            key: key.expose().to_string(),
        }
    }

    /// Sends a request; `body` goes as JSON with the JSON content type.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
    ) -> Resp {
        let mut req = self
            .client
            .request(method, format!("{}{}", self.base, path));
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        Self::read(req.send().await.expect("the server answers")).await
    }

    /// Sends a request built by the caller (odd headers, raw bodies).
    pub async fn send(&self, req: reqwest::RequestBuilder) -> Resp {
        Self::read(req.send().await.expect("the server answers")).await
    }

    /// A raw request builder for `path`.
    pub fn raw(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, format!("{}{}", self.base, path))
    }

    async fn read(resp: reqwest::Response) -> Resp {
        let status = resp.status();
        let headers = resp.headers().clone();
        let text = resp.text().await.expect("the body is readable");
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Resp {
            status,
            headers,
            text,
            json,
        }
    }

    /// A browser-like client (cookies kept, redirects not followed), signed in as `user`
    /// through the sign-in form when one is given (landing where the form sends it).
    pub async fn browser(&self, user: Option<&TestUser>) -> reqwest::Client {
        let b = reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        if let Some(u) = user {
            let form = b
                .get(format!("{}/login", self.base))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            let r = b
                .post(format!("{}/login", self.base))
                .form(&[
                    ("username", u.username.as_str()),
                    ("password", "a long password"),
                    ("csrf_token", &csrf_of(&form)),
                ])
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::SEE_OTHER, "signing in failed");
        }
        b
    }

    /// The CSRF token of `client`'s session, as the home page carries it.
    pub async fn session_csrf(&self, client: &reqwest::Client) -> String {
        let home = client.get(format!("{}/", self.base)).send().await.unwrap();
        csrf_of(&home.text().await.unwrap())
    }

    /// Creates an export of `deck` with `body` and polls it until it is no longer pending;
    /// the export object.
    pub async fn finished_export(&self, user: &TestUser, deck: i64, body: Value) -> Value {
        let r = self
            .call(
                Method::POST,
                &format!("/v1/decks/{deck}/exports"),
                Some(&user.key),
                Some(body),
            )
            .await;
        r.expect(202);
        let id = r.data()["id"].clone();
        for _ in 0..1200 {
            let r = self
                .call(
                    Method::GET,
                    &format!("/v1/decks/{deck}/exports/{id}"),
                    Some(&user.key),
                    None,
                )
                .await;
            if r.data()["status"] != "pending" {
                return r.data().clone();
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("the export never finished");
    }

    /// The file of a finished export of `deck` with `body` (`{"format": ...}`).
    pub async fn exported_file(&self, user: &TestUser, deck: i64, body: Value) -> Vec<u8> {
        let done = self.finished_export(user, deck, body).await;
        assert_eq!(done["status"], "completed", "{done}");
        let url = done["download_url"].as_str().unwrap();
        reqwest::get(url)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap()
            .to_vec()
    }

    // One helper per operation.

    pub async fn users_get(&self, key: &str) -> Resp {
        self.call(Method::GET, "/v1/user", Some(key), None).await
    }

    pub async fn list_decks(&self, key: &str, query: &str) -> Resp {
        self.call(Method::GET, &format!("/v1/decks{query}"), Some(key), None)
            .await
    }

    pub async fn list_trashed_decks(&self, key: &str, query: &str) -> Resp {
        self.call(
            Method::GET,
            &format!("/v1/decks/trashed{query}"),
            Some(key),
            None,
        )
        .await
    }

    pub async fn create_deck(&self, key: &str, body: Value) -> Resp {
        self.call(Method::POST, "/v1/decks", Some(key), Some(body))
            .await
    }

    /// Creates a deck titled `title` and returns its id.
    pub async fn new_deck(&self, key: &str, title: &str) -> i64 {
        let r = self
            .create_deck(key, serde_json::json!({ "title": title }))
            .await;
        r.expect(201);
        r.data()["id"]
            .as_i64()
            .expect("the new deck has an integer id")
    }

    pub async fn get_deck(&self, key: &str, id: impl std::fmt::Display, query: &str) -> Resp {
        self.call(
            Method::GET,
            &format!("/v1/decks/{id}{query}"),
            Some(key),
            None,
        )
        .await
    }

    pub async fn update_deck(&self, key: &str, id: impl std::fmt::Display, body: Value) -> Resp {
        self.call(
            Method::PATCH,
            &format!("/v1/decks/{id}"),
            Some(key),
            Some(body),
        )
        .await
    }

    pub async fn trash_deck(&self, key: &str, id: impl std::fmt::Display) -> Resp {
        self.call(
            Method::POST,
            &format!("/v1/decks/{id}/trash"),
            Some(key),
            None,
        )
        .await
    }

    pub async fn list_slides(&self, key: &str, deck: impl std::fmt::Display, query: &str) -> Resp {
        self.call(
            Method::GET,
            &format!("/v1/decks/{deck}/slides{query}"),
            Some(key),
            None,
        )
        .await
    }

    pub async fn add_slide(
        &self,
        key: &str,
        deck: impl std::fmt::Display,
        body: Option<Value>,
    ) -> Resp {
        self.call(
            Method::POST,
            &format!("/v1/decks/{deck}/slides"),
            Some(key),
            body,
        )
        .await
    }

    pub async fn remove_slides(
        &self,
        key: &str,
        deck: impl std::fmt::Display,
        body: Value,
    ) -> Resp {
        self.call(
            Method::DELETE,
            &format!("/v1/decks/{deck}/slides"),
            Some(key),
            Some(body),
        )
        .await
    }

    pub async fn get_slide(&self, key: &str, deck: impl std::fmt::Display, slide: &str) -> Resp {
        self.call(
            Method::GET,
            &format!("/v1/decks/{deck}/slides/{slide}"),
            Some(key),
            None,
        )
        .await
    }

    pub async fn update_slide(
        &self,
        key: &str,
        deck: impl std::fmt::Display,
        slide: &str,
        body: Value,
    ) -> Resp {
        self.call(
            Method::PATCH,
            &format!("/v1/decks/{deck}/slides/{slide}"),
            Some(key),
            Some(body),
        )
        .await
    }

    pub async fn move_slides(&self, key: &str, deck: impl std::fmt::Display, body: Value) -> Resp {
        self.call(
            Method::PATCH,
            &format!("/v1/decks/{deck}/slides/move"),
            Some(key),
            Some(body),
        )
        .await
    }

    /// The deck's slides as stacks of ids (one id = a horizontal slide, more = a vertical
    /// group), read with `list_slides`; also checks that the positions are well formed.
    pub async fn shape(&self, key: &str, deck: i64) -> Vec<Vec<String>> {
        let r = self.list_slides(key, deck, "?per_page=200").await;
        r.expect(200);
        let mut stacks: Vec<(bool, Vec<String>)> = Vec::new();
        for s in r.data().as_array().unwrap() {
            let h = s["position"]["horizontal"].as_i64().unwrap();
            let v = s["position"]["vertical"].as_i64();
            let id = s["id"].as_str().unwrap().to_string();
            match v {
                None | Some(0) => {
                    assert_eq!(h as usize, stacks.len(), "horizontal positions have a gap");
                    stacks.push((v.is_some(), vec![id]));
                }
                Some(v) => {
                    let (_, last) = stacks.last_mut().expect("a group continues a stack");
                    assert_eq!(v as usize, last.len(), "vertical positions have a gap");
                    last.push(id);
                }
            }
        }
        for (grouped, stack) in &stacks {
            assert!(
                !grouped || stack.len() >= 2,
                "a vertical group of one slide"
            );
        }
        stacks.into_iter().map(|(_, s)| s).collect()
    }

    /// Imports a Markdown deck for `user` through the core (as `admin import-deck` does).
    pub async fn import_markdown(&self, user: &TestUser, markdown: &str) -> i64 {
        self.core
            .admin()
            .import_deck(
                &user.username,
                markdown.as_bytes().to_vec(),
                lectern_core::service::ImportFormat::Markdown,
            )
            .await
            .expect("the import works")
            .deck
    }

    pub async fn recover_deck(&self, key: &str, id: impl std::fmt::Display) -> Resp {
        self.call(
            Method::POST,
            &format!("/v1/decks/{id}/recover"),
            Some(key),
            None,
        )
        .await
    }
}

/// `found`, or `None` after printing that `test` is skipped for want of `tool`. Under
/// `CI=true` (.ci/run installs every tool) a missing tool fails the test instead.
pub fn needs<T>(test: &str, tool: &str, found: Option<T>) -> Option<T> {
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{test}: {tool} is required under CI"
        );
        eprintln!("SKIPPED: {test} ({tool} is not installed)");
    }
    found
}

/// Chromium for a browser test ([`needs`]).
pub fn chromium(test: &str) -> Option<std::path::PathBuf> {
    needs(
        test,
        "Chromium (apt-get install chromium)",
        lectern::export::pdf::find_chromium(None),
    )
}
