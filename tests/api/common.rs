//! `TestApp`: a running server on an ephemeral port with its own database, and a small typed
//! client with one helper per operation.

use lectern::app::{self, AppState};
use lectern_core::Lectern;
use lectern_core::secret::Secret;
use lectern_core::service::NewUser;
use reqwest::{Method, StatusCode, header::HeaderMap};
use serde_json::Value;
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A server under test.
pub struct TestApp {
    pub base: String,
    pub core: Lectern,
    client: reqwest::Client,
    _dir: TempDir,
    _shutdown: oneshot::Sender<()>,
}

/// An account with an API key.
pub struct TestUser {
    pub id: i64,
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
    /// Starts a server on a fresh database; it stops when the `TestApp` is dropped.
    pub async fn spawn() -> TestApp {
        let dir = tempfile::tempdir().expect("a temp dir can be created");
        let url = format!("sqlite://{}", dir.path().join("lectern.db").display());
        let store = lectern::cli::storage::open_store(&url)
            .await
            .expect("the test database opens");
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("an ephemeral port is free");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let core = Lectern::new(store, &base);
        let (tx, rx) = oneshot::channel::<()>();
        let state = AppState { core: core.clone() };
        tokio::spawn(async move {
            app::serve(listener, state, async {
                let _ = rx.await;
            })
            .await
            .expect("the test server runs");
        });
        TestApp {
            base,
            core,
            client: reqwest::Client::new(),
            _dir: dir,
            _shutdown: tx,
        }
    }

    /// Creates an account and an API key for it.
    pub async fn user(&self, username: &str) -> TestUser {
        let id = self
            .core
            .create_user(NewUser {
                username: username.into(),
                email: format!("{username}@example.org"),
                name: Some(format!("{username} name")),
                password: Some(Secret::new("a long password")),
            })
            .await
            .expect("the test account is created");
        let key = self
            .core
            .create_api_key(username, "tests")
            .await
            .expect("the test key is created");
        TestUser {
            id,
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
