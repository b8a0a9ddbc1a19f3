//! `/mcp` spoken by hand: a JSON-RPC client over raw HTTP (reqwest, no MCP SDK) of the earlier
//! protocol revisions 2025-03-26 and 2025-06-18, which parses every `data:` line of an event
//! stream as JSON, as those clients do. With a session (the `Mcp-Session-Id` of `initialize`
//! sent back) and without one.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestApp;

/// A hand-written MCP client of one protocol revision.
struct RawClient {
    http: reqwest::Client,
    url: String,
    key: String,
    /// The revision it initialises with.
    version: &'static str,
    /// Whether it sends back the `Mcp-Session-Id` of `initialize`.
    keeps_session: bool,
    session: Option<String>,
    next_id: u64,
}

/// One answer: its status, and the JSON-RPC messages it carried.
struct Answer {
    status: StatusCode,
    session: Option<String>,
    messages: Vec<Value>,
    /// Events with an empty `data` line (resumability priming events of 2025-11-25), counted
    /// for a client of that revision; a client of an earlier one fails on them.
    empty_events: usize,
}

impl RawClient {
    fn new(app: &TestApp, key: &str, version: &'static str, keeps_session: bool) -> RawClient {
        RawClient {
            // A bound on a broken stream, not a wait: a finished answer ends the body.
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
            url: format!("{}/mcp", app.base),
            key: key.to_string(),
            version,
            keeps_session,
            session: None,
            next_id: 1,
        }
    }

    /// Whether the client's revision predates the priming events of 2025-11-25.
    fn predates_priming(&self) -> bool {
        self.version < "2025-11-25"
    }

    /// POSTs one message. Clients of 2025-06-18 and later send `MCP-Protocol-Version` after
    /// `initialize`; those of 2025-03-26 never do.
    async fn post(&mut self, message: Value) -> Answer {
        let mut req = self
            .http
            .post(&self.url)
            .bearer_auth(&self.key)
            .header("accept", "application/json, text/event-stream")
            .json(&message);
        if message["method"] != "initialize" && self.version != "2025-03-26" {
            req = req.header("mcp-protocol-version", self.version);
        }
        if let Some(session) = &self.session {
            req = req.header("mcp-session-id", session);
        }
        let r = req.send().await.unwrap();
        let status = r.status();
        let session = r
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_string());
        let content_type = r
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let body = r.text().await.unwrap();
        let mut messages = Vec::new();
        let mut empty_events = 0;
        if content_type.starts_with("text/event-stream") {
            for line in body.lines() {
                let Some(data) = line.strip_prefix("data:") else {
                    continue;
                };
                let data = data.strip_prefix(' ').unwrap_or(data);
                if data.is_empty() && !self.predates_priming() {
                    empty_events += 1;
                    continue;
                }
                // What a client of 2025-03-26 or 2025-06-18 does with every data line.
                let parsed = serde_json::from_str(data).unwrap_or_else(|e| {
                    panic!("{}: a data line is not JSON ({e}): {data:?}", self.version)
                });
                messages.push(parsed);
            }
        } else if content_type.starts_with("application/json") {
            messages.push(serde_json::from_str(&body).unwrap());
        }
        Answer {
            status,
            session,
            messages,
            empty_events,
        }
    }

    /// A request; its answer's one message, which must be the response to it.
    async fn request(&mut self, method: &str, params: Value) -> (Answer, Value) {
        let id = self.next_id;
        self.next_id += 1;
        let answer = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        assert_eq!(answer.status, 200, "{method} answers 200");
        let [response] = answer.messages.as_slice() else {
            panic!("{method}: one message, got {:?}", answer.messages);
        };
        assert_eq!(response["id"], id, "{method}: the response to the request");
        let response = response.clone();
        (answer, response)
    }

    /// `initialize` then `notifications/initialized`; the negotiated version.
    async fn initialize(&mut self) -> String {
        let (answer, response) = self
            .request(
                "initialize",
                json!({
                    "protocolVersion": self.version,
                    "capabilities": {},
                    "clientInfo": {"name": "raw-test-client", "version": "1.0"}
                }),
            )
            .await;
        if self.keeps_session {
            self.session = Some(answer.session.expect("initialize opens a session"));
        }
        let initialized = self
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(initialized.status, 202);
        response["result"]["protocolVersion"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// `tools/call`: the answer and the result.
    async fn call(&mut self, tool: &str, arguments: Value) -> (Answer, Value) {
        let (answer, response) = self
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await;
        let result = response["result"].clone();
        assert!(result.is_object(), "{tool}: a result: {response}");
        (answer, result)
    }
}

#[tokio::test]
async fn clients_of_2025_03_26_and_2025_06_18_get_only_json_data_lines_with_or_without_a_session() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Old clients").await;

    for version in ["2025-03-26", "2025-06-18"] {
        for keeps_session in [true, false] {
            let case = format!("{version}, session kept: {keeps_session}");
            let mut client = RawClient::new(&app, &alice.key, version, keeps_session);

            // The server answers with the client's own revision.
            assert_eq!(client.initialize().await, version, "{case}");

            let (_, guide) = client.call("get_authoring_guide", json!({})).await;
            assert!(
                guide["structuredContent"]["data"]["guide"]
                    .as_str()
                    .is_some_and(|g| g.contains("data-background")),
                "{case}: {guide}"
            );

            let (_, decks) = client.call("list_decks", json!({})).await;
            assert_eq!(decks["structuredContent"]["data"][0]["id"], deck, "{case}");
            assert_eq!(decks["isError"], false, "{case}");
        }
    }
}

#[tokio::test]
async fn a_client_of_2025_11_25_still_gets_the_priming_event() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let mut client = RawClient::new(&app, &alice.key, "2025-11-25", true);
    assert_eq!(client.initialize().await, "2025-11-25");

    let (answer, result) = client.call("list_decks", json!({})).await;
    assert_eq!(result["isError"], false);
    assert_eq!(answer.empty_events, 1, "the resumability priming event");
}

#[tokio::test]
async fn a_session_answers_only_the_credential_that_opened_it() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let deck = app.new_deck(&alice.key, "Alice's").await;
    let mut owner = RawClient::new(&app, &alice.key, "2025-06-18", true);
    owner.initialize().await;
    let session = owner.session.clone().expect("a session");

    // Bob, with Alice's session id: not served, whatever he asks.
    let mut intruder = RawClient::new(&app, &bob.key, "2025-06-18", true);
    intruder.session = Some(session.clone());
    let answer = intruder
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "list_decks", "arguments": {}}}))
        .await;
    assert_eq!(answer.status, 404);
    assert!(answer.messages.iter().all(|m| m.get("result").is_none()));
    let delete = |key: &str| {
        reqwest::Client::new()
            .delete(format!("{}/mcp", app.base))
            .bearer_auth(key)
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .send()
    };
    let refused = delete(&bob.key).await.unwrap();
    assert_eq!(refused.status(), 404);
    let body: Value = refused.json().await.unwrap();
    assert!(body["error"].is_string(), "{body}");
    // Another key of Alice's own account is another credential too.
    let other_key = app
        .core
        .admin()
        .create_api_key(&alice.username, "second")
        .await
        .unwrap()
        .expose()
        .to_string();
    assert_eq!(delete(&other_key).await.unwrap().status(), 404);

    // The session still serves Alice, and she may end it.
    let (_, decks) = owner.call("list_decks", json!({})).await;
    assert_eq!(decks["structuredContent"]["data"][0]["id"], deck);
    // 204: the Python SDK logs any other status as a failed termination.
    assert_eq!(delete(&alice.key).await.unwrap().status(), 204);
    let after = owner
        .post(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}))
        .await;
    assert_eq!(after.status, 404, "an ended session is gone");
}

#[tokio::test]
async fn mcp_with_a_trailing_slash_is_mcp_and_upload_image_says_it_reaches_out() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let initialize = reqwest::Client::new()
        .post(format!("{}/mcp/", app.base))
        .bearer_auth(&alice.key)
        .header("accept", "application/json, text/event-stream")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "slash", "version": "1"}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(initialize.status(), 200);
    assert!(initialize.headers().contains_key("mcp-session-id"));

    let mut client = RawClient::new(&app, &alice.key, "2025-06-18", true);
    client.initialize().await;
    let answer = client
        .post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    let tools = answer.messages[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    let hint = |name: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap()["annotations"]["openWorldHint"].clone()
    };
    assert_eq!(hint("upload_image"), true, "it downloads source_url");
    assert_eq!(hint("list_decks"), false);
}
