//! The MCP server through real MCP clients: rmcp's Streamable HTTP client (the session-based
//! 2025-11-25 revision and the stateless 2026-07-28 one) against `/mcp`, and its child-process
//! client against `lectern mcp` on stdio.

use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::TokioChildProcess;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::common::{OPERATIONS, Resp, TestApp, account};

const EXTRA_TOOLS: [&str; 10] = [
    "get_slides",
    "search_decks",
    "get_slide_screenshot",
    "get_authoring_guide",
    "list_revisions",
    "get_revision",
    "restore_revision",
    "undo_last_change",
    "upload_image",
    "list_media",
];

pub(crate) type Client = RunningService<RoleClient, ()>;

pub(crate) fn transport(
    app: &TestApp,
    key: Option<&str>,
) -> StreamableHttpClientTransport<reqwest::Client> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", app.base));
    if let Some(key) = key {
        config = config.auth_header(key);
    }
    StreamableHttpClientTransport::from_config(config)
}

/// A client on the session-based 2025-11-25 revision (initialize handshake).
pub(crate) async fn session_client(app: &TestApp, key: &str) -> Client {
    ().serve(transport(app, Some(key)))
        .await
        .expect("the client initialises")
}

/// A client on the stateless 2026-07-28 revision (server/discover, no session).
async fn stateless_client(app: &TestApp, key: &str) -> Client {
    ().serve_with_lifecycle(
        transport(app, Some(key)),
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("the client discovers the server")
}

pub(crate) async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool} answers: {e}"))
}

/// The structured content of a successful call, checked against its text twin.
#[track_caller]
pub(crate) fn ok(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "the call failed: {result:?}");
    let structured = result
        .structured_content
        .clone()
        .expect("the result has structured content");
    let text = result
        .content
        .iter()
        .find_map(|c| c.as_text().map(|t| t.text.clone()))
        .expect("the result has a text block");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        structured,
        "the text is the same JSON"
    );
    structured
}

/// The JSON of a failed call: its one text part, `{"error": message, "status": N}`. An error
/// carries no structured content (clients check that against the tool's output schema).
#[track_caller]
pub(crate) fn error_json(result: &CallToolResult) -> Value {
    assert_eq!(
        result.is_error,
        Some(true),
        "the call succeeded: {result:?}"
    );
    assert_eq!(result.structured_content, None, "{result:?}");
    assert_eq!(result.content.len(), 1, "{result:?}");
    let text = result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .expect("the error is text");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The message and status of a failed call.
#[track_caller]
pub(crate) fn failure(result: &CallToolResult) -> (String, u16) {
    let error = error_json(result);
    let message = error["error"].as_str().expect("a message").to_string();
    let status = error["status"].as_u64().expect("a status") as u16;
    (message, status)
}

/// The message of a failed call.
#[track_caller]
fn err(result: &CallToolResult) -> String {
    failure(result).0
}

/// A failed call says what the REST API answered: the same message and status.
#[track_caller]
fn same_as_rest(result: &CallToolResult, rest: &Resp) {
    let (message, status) = failure(result);
    assert_eq!(message, rest.json["error"].as_str().unwrap());
    assert_eq!(status, rest.status.as_u16(), "{message}");
}

#[tokio::test]
async fn the_tool_list_has_every_operation_and_the_extra_tools_with_schemas_and_annotations() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let client = session_client(&app, &alice.key).await;

    let info = client.peer_info().expect("the server introduced itself");
    let server = info.server_info.clone().expect("server info");
    assert_eq!(server.name, "lectern");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    assert!(
        info.instructions
            .as_deref()
            .is_some_and(|i| i.contains("poll_after_seconds"))
    );

    let tools = client.list_all_tools().await.expect("tools/list answers");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for name in OPERATIONS.iter().chain(EXTRA_TOOLS.iter()) {
        assert!(names.contains(name), "{name} is listed");
    }
    assert_eq!(tools.len(), OPERATIONS.len() + EXTRA_TOOLS.len());
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        let output = tool.output_schema.as_ref().expect("an output schema");
        assert_eq!(output["type"], "object", "{}", tool.name);
        assert!(output["properties"]["data"].is_object(), "{}", tool.name);
        assert!(
            tool.description.as_ref().is_some_and(|d| d.len() > 40),
            "{} has a description",
            tool.name
        );
        let a = tool.annotations.as_ref().expect("annotations");
        assert!(
            a.read_only_hint.is_some()
                && a.destructive_hint.is_some()
                && a.idempotent_hint.is_some()
                && a.open_world_hint.is_some(),
            "{} sets every hint",
            tool.name
        );
    }
    let tool = |n: &str| tools.iter().find(|t| t.name == n).unwrap();
    let hints = |n: &str| tool(n).annotations.clone().unwrap();
    assert_eq!(hints("list_decks").read_only_hint, Some(true));
    assert_eq!(hints("create_deck").read_only_hint, Some(false));
    assert_eq!(hints("create_deck").idempotent_hint, Some(false));
    assert_eq!(hints("remove_slides").destructive_hint, Some(true));
    // Ids take a string or an integer; page sizes carry the interface's limits.
    let id = &tool("get_deck").input_schema["properties"]["id"]["anyOf"];
    assert_eq!(id[0]["type"], "integer");
    assert_eq!(id[1]["type"], "string");
    assert_eq!(
        tool("list_slides").input_schema["properties"]["per_page"]["maximum"],
        200
    );
    assert_eq!(
        tool("list_decks").input_schema["properties"]["per_page"]["maximum"],
        100
    );
    // Write tools take the REST bodies' fields with the same limits, plus the path ids.
    let create = &tool("create_deck").input_schema["properties"];
    assert_eq!(create["title"]["maxLength"], 255);
    assert_eq!(create["theme_color"]["enum"].as_array().unwrap().len(), 18);
    assert_eq!(
        create["slides"]["items"]["properties"]["notes"]["maxLength"],
        10000
    );
    let add = &tool("add_slide").input_schema;
    assert_eq!(add["required"], serde_json::json!(["deck_id"]));
    assert!(add["properties"]["insert_after_slide_id"].is_object());
    assert_eq!(
        tool("move_slides").input_schema["properties"]["slide_ids"]["maxItems"],
        200
    );
    assert_eq!(
        tool("create_deck_export").input_schema["required"],
        serde_json::json!(["deck_id", "format"])
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_deck_is_created_and_its_slides_added_and_moved_over_stateless_http() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let client = stateless_client(&app, &alice.key).await;

    let created = ok(&call(
        &client,
        "create_deck",
        json!({"title": "Launch", "slides": [
            {"html": "<section><h1>One</h1></section>", "notes": "hi"},
            {"html": "<section><h2>Two</h2></section>"}
        ]}),
    )
    .await);
    let deck = created["data"]["id"].as_i64().unwrap();
    let ids: Vec<String> = serde_json::from_value(created["data"]["slide_ids"].clone()).unwrap();
    assert_eq!(ids.len(), 2);

    // The id as a string works too.
    let added = ok(&call(
        &client,
        "add_slide",
        json!({"deck_id": deck.to_string(), "html": "<section><h2>Three</h2></section>", "insert_before_slide_id": ids[0]}),
    )
    .await);
    let three = added["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(added["data"]["position"]["horizontal"], 0);

    let moved = ok(&call(
        &client,
        "move_slides",
        json!({"deck_id": deck, "slide_ids": [three], "insert_after_slide_id": ids[1]}),
    )
    .await);
    assert_eq!(moved["data"]["count"], 1);
    assert_eq!(moved["data"]["missing_slide_ids"], json!([]));
    assert!(moved["data"]["revision"].as_i64().unwrap() > 1);

    let listed = ok(&call(&client, "list_slides", json!({"deck_id": deck})).await);
    let order: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["One", "Two", "Three"]);
    assert_eq!(
        listed["meta"],
        json!({"page": 1, "per_page": 50, "total": 3})
    );

    // The same data as REST.
    let rest = app.list_slides(&alice.key, deck, "").await;
    assert_eq!(rest.json, listed);

    let slides = ok(&call(
        &client,
        "get_slides",
        json!({"deck_id": deck, "slide_ids": [ids[0], "nope"]}),
    )
    .await);
    assert_eq!(slides["data"]["slides"][0]["notes"], "hi");
    assert_eq!(slides["data"]["missing_slide_ids"], json!(["nope"]));

    let found = ok(&call(&client, "search_decks", json!({"query": "three"})).await);
    assert_eq!(found["data"][0]["id"], deck);
    assert_eq!(found["data"][0]["matched_in"], "slides");
    assert_eq!(found["data"][0]["own"], true);
    let none = ok(&call(&client, "search_decks", json!({"query": "zebra"})).await);
    assert_eq!(none["meta"]["total"], 0);
    // LIKE wildcards are searched for literally.
    let wildcard = ok(&call(&client, "search_decks", json!({"query": "%_"})).await);
    assert_eq!(wildcard["meta"]["total"], 0);

    let guide = ok(&call(&client, "get_authoring_guide", json!({})).await);
    assert!(
        guide["data"]["guide"]
            .as_str()
            .unwrap()
            .contains("data-background")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn errors_are_tool_results_with_the_rest_api_message() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let client = session_client(&app, &alice.key).await;
    let deck = app.new_deck(&alice.key, "Mine").await;

    let missing = call(&client, "get_deck", json!({"id": 999_999})).await;
    let rest = app.get_deck(&alice.key, 999_999, "").await;
    rest.expect_error(404);
    same_as_rest(&missing, &rest);

    let bad_html = json!({"html": "<section><section>x</section></section>"});
    let mcp = call(
        &client,
        "add_slide",
        json!({"deck_id": deck, "html": bad_html["html"]}),
    )
    .await;
    let rest = app.add_slide(&alice.key, deck, Some(bad_html)).await;
    rest.expect_error(422);
    same_as_rest(&mcp, &rest);

    let paging = call(&client, "list_decks", json!({"per_page": 101})).await;
    let rest = app.list_decks(&alice.key, "?per_page=101").await;
    rest.expect_error(422);
    same_as_rest(&paging, &rest);

    // Another account's deck is missing, as on REST.
    let bob = app.user("bob").await;
    let bobs = app.new_deck(&bob.key, "Not yours").await;
    let other = call(&client, "update_deck", json!({"id": bobs, "title": "Mine"})).await;
    let rest = app
        .update_deck(&alice.key, bobs, json!({"title": "Mine"}))
        .await;
    rest.expect_error(404);
    same_as_rest(&other, &rest);

    let (bad_id, status) = failure(&call(&client, "get_deck", json!({"id": "twelve"})).await);
    assert!(bad_id.contains("must be an integer"), "{bad_id}");
    assert_eq!(status, 422);
    let (unknown, status) =
        failure(&call(&client, "get_deck", json!({"id": deck, "colour": "red"})).await);
    assert!(unknown.contains("colour"), "{unknown}");
    assert_eq!(status, 422);
    let readonly = call(&client, "update_deck", json!({"id": deck, "slug": "x"})).await;
    let rest = app
        .update_deck(&alice.key, deck, json!({"slug": "x"}))
        .await;
    rest.expect_error(422);
    same_as_rest(&readonly, &rest);
    assert!(err(&readonly).contains("read-only"));

    // Trash and recover answer null data.
    let trashed = ok(&call(&client, "trash_deck", json!({"id": deck})).await);
    assert_eq!(trashed["data"], Value::Null);
    err(&call(&client, "list_slides", json!({"deck_id": deck})).await);
    ok(&call(&client, "recover_deck", json!({"id": deck})).await);

    // An unknown tool is a protocol error.
    let unknown_tool = client
        .call_tool(CallToolRequestParams::new("drop_database"))
        .await;
    assert!(unknown_tool.is_err());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_export_is_created_and_polled_until_completed() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let client = session_client(&app, &alice.key).await;
    let deck = app.new_deck(&alice.key, "Export me").await;

    let created = ok(&call(
        &client,
        "create_deck_export",
        json!({"deck_id": deck, "format": "zip"}),
    )
    .await);
    assert_eq!(created["data"]["status"], "pending");
    assert_eq!(created["meta"]["poll_after_seconds"], 2);
    let export = created["data"]["id"].as_i64().unwrap();

    let mut status = Value::Null;
    for _ in 0..200 {
        status = ok(&call(
            &client,
            "get_deck_export",
            json!({"deck_id": deck, "id": export}),
        )
        .await);
        if status["data"]["status"] != "pending" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(status["data"]["status"], "completed", "{status}");
    let url = status["data"]["download_url"].as_str().unwrap();
    let zip = reqwest::get(url).await.unwrap();
    assert_eq!(zip.status(), 200);
    assert!(zip.bytes().await.unwrap().starts_with(b"PK"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_slide_screenshot_is_a_png_image() {
    if crate::common::chromium(module_path!()).is_none() {
        return;
    }
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let client = session_client(&app, &alice.key).await;
    let created = ok(&call(
        &client,
        "create_deck",
        json!({"slides": [{"html": "<section data-background-color=\"#123456\"><h1>Shot</h1></section>"}]}),
    )
    .await);
    let deck = created["data"]["id"].as_i64().unwrap();
    let slide = created["data"]["slide_ids"][0].as_str().unwrap();

    let shot = call(
        &client,
        "get_slide_screenshot",
        json!({"deck_id": deck, "slide_id": slide}),
    )
    .await;
    let data = ok(&shot);
    assert_eq!(data["data"]["mime_type"], "image/png");
    let image = shot
        .content
        .iter()
        .find_map(|c| c.as_image())
        .expect("an image block");
    assert_eq!(image.mime_type, "image/png");
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD
        .decode(&image.data)
        .unwrap();
    // The slide alone, at the deck's canvas size: its background to every corner, no
    // reveal.js arrows (bottom right) or progress bar (bottom).
    let picture = image::load_from_memory(&png).expect("a real PNG").to_rgb8();
    assert_eq!(picture.dimensions(), (1280, 720));
    assert_eq!(
        (
            data["data"]["width"].clone(),
            data["data"]["height"].clone()
        ),
        (json!(1280), json!(720))
    );
    let background = image::Rgb([0x12, 0x34, 0x56]);
    for (x, y) in [
        (0, 0),
        (1279, 0),
        (0, 719),
        (1279, 719),
        (1230, 680),
        (640, 717),
    ] {
        assert_eq!(picture.get_pixel(x, y), &background, "at {x},{y}");
    }
    let corner = (1180..1280).flat_map(|x| (620..720).map(move |y| (x, y)));
    let marked = corner
        .filter(|&(x, y)| picture.get_pixel(x, y) != &background)
        .count();
    assert_eq!(marked, 0, "something is drawn in the bottom right corner");

    // A deck of another canvas: the picture is that size.
    let tall = ok(&call(
        &client,
        "create_deck",
        json!({"width": 600, "height": 800, "slides": [{"html": "<section><h1>Tall</h1></section>"}]}),
    )
    .await);
    let shot = call(
        &client,
        "get_slide_screenshot",
        json!({"deck_id": tall["data"]["id"], "slide_id": tall["data"]["slide_ids"][0]}),
    )
    .await;
    let data = ok(&shot);
    let image = shot.content.iter().find_map(|c| c.as_image()).unwrap();
    let png = base64::engine::general_purpose::STANDARD
        .decode(&image.data)
        .unwrap();
    let picture = image::load_from_memory(&png).unwrap();
    assert_eq!((picture.width(), picture.height()), (600, 800));
    assert_eq!(
        (
            data["data"]["width"].clone(),
            data["data"]["height"].clone()
        ),
        (json!(600), json!(800))
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn team_decks_carry_the_owner_display_name_only() {
    let app = TestApp::spawn().await;
    let alice = app.team_user("alice", "acme").await;
    let bob = app.team_user("bob", "acme").await;
    let r = app
        .create_deck(
            &bob.key,
            json!({"title": "Team plan", "visibility": "team"}),
        )
        .await;
    r.expect(201);
    let deck = r.data()["id"].as_i64().unwrap();
    let client = session_client(&app, &alice.key).await;

    let list = ok(&call(&client, "list_team_decks", json!({})).await);
    assert_eq!(list["data"][0]["owner"], "bob name");
    let one = ok(&call(&client, "get_team_deck", json!({"id": deck})).await);
    assert_eq!(one["data"]["owner"], "bob name");
    assert_eq!(one["data"]["title"], "Team plan");

    let found = ok(&call(&client, "search_decks", json!({"query": "PLAN"})).await);
    assert_eq!(found["data"][0]["owner"], "bob name");
    assert_eq!(found["data"][0]["own"], false);
    assert_eq!(found["data"][0]["matched_in"], "title");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_read_scope_token_is_refused_on_manage_tools_and_rest_tokens_are_refused() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Mine").await;
    let read =
        crate::oauth::access_token(&app, Some(&format!("{}/mcp", app.base)), &["read"]).await;
    let client = session_client(&app, &read).await;

    let got = ok(&call(&client, "get_deck", json!({"id": deck})).await);
    assert_eq!(got["data"]["title"], "Mine");
    let refused = failure(&call(&client, "trash_deck", json!({"id": deck})).await);
    assert_eq!(
        refused,
        ("this operation needs the 'manage' scope".to_string(), 403)
    );
    client.cancel().await.unwrap();

    // A token for the REST API is not a credential for /mcp.
    let rest = crate::oauth::access_token(&app, None, &["read", "manage"]).await;
    let r = reqwest::Client::new()
        .post(format!("{}/mcp", app.base))
        .bearer_auth(&rest)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

/// The tools of the operations marked M in interface 4.1.
const MANAGE_TOOLS: [&str; 14] = [
    "create_deck",
    "update_deck",
    "trash_deck",
    "recover_deck",
    "add_slide",
    "remove_slides",
    "update_slide",
    "move_slides",
    "create_deck_share",
    "revoke_deck_share",
    "create_deck_export",
    "restore_revision",
    "undo_last_change",
    "upload_image",
];

#[tokio::test]
async fn a_read_scope_token_gets_403_on_every_manage_tool_whatever_its_arguments() {
    let app = TestApp::spawn().await;
    app.user("alice").await;
    let read =
        crate::oauth::access_token(&app, Some(&format!("{}/mcp", app.base)), &["read"]).await;
    let client = session_client(&app, &read).await;

    // The manage tools are the ones that are not read-only.
    let tools = client.list_all_tools().await.unwrap();
    let mut writing: Vec<&str> = tools
        .iter()
        .filter(|t| t.annotations.as_ref().unwrap().read_only_hint == Some(false))
        .map(|t| t.name.as_ref())
        .collect();
    writing.sort_unstable();
    let mut manage = MANAGE_TOOLS.to_vec();
    manage.sort_unstable();
    assert_eq!(writing, manage);

    let invalid = json!({
        "id": "not-an-id",
        "deck_id": [],
        "slide_id": 7,
        "slide_ids": "none",
        "title": 12,
        "format": "docx",
        "unknown_argument": true
    });
    for tool in MANAGE_TOOLS {
        for args in [json!({}), invalid.clone()] {
            let (message, status) = failure(&call(&client, tool, args.clone()).await);
            assert_eq!(status, 403, "{tool} with {args}: {message}");
            assert_eq!(message, "this operation needs the 'manage' scope");
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn no_credential_gets_401_with_the_protected_resource_metadata() {
    let app = TestApp::spawn().await;
    let r = reqwest::Client::new()
        .post(format!("{}/mcp", app.base))
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let challenge = r.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(
        challenge,
        format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"read manage\"",
            app.base
        )
    );
    let body: Value = r.json().await.unwrap();
    assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()));

    let bad = reqwest::Client::new()
        .post(format!("{}/mcp", app.base))
        .bearer_auth("lk_not_a_key")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 401);
    assert!(
        bad.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("error=\"invalid_token\"")
    );

    let meta: Value = reqwest::get(format!(
        "{}/.well-known/oauth-protected-resource/mcp",
        app.base
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(meta["resource"], format!("{}/mcp", app.base));
    assert_eq!(meta["authorization_servers"][0], app.base);
    let server: Value = reqwest::get(format!(
        "{}/.well-known/oauth-authorization-server",
        app.base
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(
        server["registration_endpoint"],
        format!("{}/oauth/register", app.base)
    );

    // The rmcp client without a credential fails to connect.
    assert!(().serve(transport(&app, None)).await.is_err());
}

#[tokio::test]
async fn a_foreign_origin_or_host_gets_403() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let send = |origin: Option<&'static str>, host: Option<&'static str>| {
        let mut r = reqwest::Client::new()
            .post(format!("{}/mcp", app.base))
            .bearer_auth(&alice.key)
            .header("accept", "application/json, text/event-stream")
            .json(&ping);
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        if let Some(h) = host {
            r = r.header("host", h);
        }
        r.send()
    };
    for (origin, host) in [
        (Some("https://evil.example"), None),
        (Some("null"), None),
        (None, Some("evil.example")),
        (None, Some("evil.example:80")),
    ] {
        let r = send(origin, host).await.unwrap();
        assert_eq!(r.status(), 403, "origin {origin:?} host {host:?}");
        let body: Value = r.json().await.unwrap();
        assert!(body["error"].as_str().is_some());
    }
    // A local page's origin is fine (a missing credential would be 401, not 403).
    let ok = send(Some("http://localhost:3000"), None).await.unwrap();
    assert_ne!(ok.status(), 403);
}

#[tokio::test]
async fn the_test_only_key_serves_credential_less_requests_on_loopback_only() {
    use tokio::io::AsyncBufReadExt;
    let dir = tempfile::tempdir().unwrap();
    let db_url = format!("sqlite://{}", dir.path().join("lectern.db").display());
    let key = account(&db_url, "alice").await;
    let serve = |public: Option<&str>| {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_lectern"));
        cmd.arg("--data-dir")
            .arg(dir.path())
            .arg("--listen")
            .arg("127.0.0.1:0")
            .arg("serve")
            .env_remove("LECTERN_DATABASE_URL")
            .env(lectern::mcp::TEST_KEY_ENV, &key)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        if let Some(p) = public {
            cmd.arg("--public-url").arg(p);
        }
        cmd.spawn().unwrap()
    };

    // Published under a non-loopback URL, the server refuses to start with the test key.
    let out = serve(Some("https://decks.example.org"))
        .wait_with_output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(lectern::mcp::TEST_KEY_ENV));

    let mut server = serve(None);
    let mut lines = tokio::io::BufReader::new(server.stdout.take().unwrap()).lines();
    let base = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the server prints its address");
        if let Some(rest) = line.strip_prefix("lectern: listening on ") {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    let client = ()
        .serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(format!("{base}/mcp")),
        ))
        .await
        .expect("a client without a credential connects");
    let me = ok(&call(&client, "users_get", json!({})).await);
    assert_eq!(me["data"]["username"], "alice");
    client.cancel().await.unwrap();

    // Never through a proxy.
    let r = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("x-forwarded-for", "203.0.113.9")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    server.kill().await.unwrap();
}

#[tokio::test]
async fn stdio_serves_the_same_tools_for_one_account() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let deck = app.new_deck(&alice.key, "Over stdio").await;
    let data_dir = tempfile::tempdir().unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_lectern"));
    cmd.arg("mcp")
        .arg("--database-url")
        .arg(&app.database_url)
        .arg("--data-dir")
        .arg(data_dir.path())
        .arg("--public-url")
        .arg(&app.base)
        .env("LECTERN_API_KEY", &alice.key)
        .env("RUST_LOG", "warn");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.expect("stdio MCP starts");
    let server = client.peer_info().unwrap().server_info.clone().unwrap();
    assert_eq!(server.name, "lectern");
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), OPERATIONS.len() + EXTRA_TOOLS.len());

    let me = ok(&call(&client, "users_get", json!({})).await);
    assert_eq!(me["data"]["username"], "alice");
    let decks = ok(&call(&client, "list_decks", json!({})).await);
    assert_eq!(decks["data"][0]["id"], deck);
    ok(&call(
        &client,
        "update_deck",
        json!({"id": deck, "title": "Renamed over stdio"}),
    )
    .await);
    let rest = app.get_deck(&alice.key, deck, "").await;
    assert_eq!(rest.data()["title"], "Renamed over stdio");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn stdio_refuses_an_unknown_key() {
    let app = TestApp::spawn().await;
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_lectern"))
        .arg("mcp")
        .arg("--database-url")
        .arg(&app.database_url)
        .arg("--api-key")
        .arg("lk_unknown")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "nothing but MCP on stdout");
    assert!(String::from_utf8_lossy(&out.stderr).contains("API key was refused"));
}

#[tokio::test]
async fn tool_calls_count_against_the_credentials_rate_limit() {
    let app = TestApp::spawn_limited(4, |core| core).await;
    let alice = app.user("alice").await;
    let client = stateless_client(&app, &alice.key).await;
    for _ in 0..3 {
        ok(&call(&client, "users_get", json!({})).await);
    }
    // One REST request spends the last of the same key's budget.
    app.users_get(&alice.key).await.expect(200);
    let (limited, status) = failure(&call(&client, "list_decks", json!({})).await);
    assert!(limited.starts_with("rate limit exceeded"), "{limited}");
    assert_eq!(status, 429);
    app.users_get(&alice.key).await.expect_error(429);
    // Another key has its own budget.
    let bob = app.user("bob").await;
    let other = stateless_client(&app, &bob.key).await;
    ok(&call(&other, "users_get", json!({})).await);
    client.cancel().await.unwrap();
    other.cancel().await.unwrap();
}

#[tokio::test]
async fn requests_without_a_valid_credential_are_limited_per_address() {
    let app = TestApp::spawn_limited(3, |core| core).await;
    let post = |key: Option<&str>| {
        let mut req = reqwest::Client::new()
            .post(format!("{}/mcp", app.base))
            .header("accept", "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        req.send()
    };
    for key in [None, Some("lk_wrong"), None] {
        assert_eq!(post(key).await.unwrap().status(), 401);
    }
    let limited = post(Some("lk_other")).await.unwrap();
    assert_eq!(limited.status(), 429);
    assert!(limited.headers().contains_key("retry-after"));
    let body: Value = limited.json().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("rate limit exceeded")
    );
    // A valid key is not held back by the address's budget.
    let alice = app.user("alice").await;
    let client = stateless_client(&app, &alice.key).await;
    ok(&call(&client, "users_get", json!({})).await);
    client.cancel().await.unwrap();
}
