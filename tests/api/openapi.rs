//! `/v1/openapi.json` and `/v1/docs`: the published description matches the interface (every
//! operation with its errors, request bodies with the interface's fields and no others,
//! both security schemes), and the reference page is rendered from it.

use reqwest::Method;
use serde_json::Value;

use crate::common::TestApp;

/// The request-body fields of interface section 4, by operation.
const BODIES: &[(&str, &[&str])] = &[
    (
        "create_deck",
        &[
            "title",
            "description",
            "width",
            "height",
            "margin",
            "theme_color",
            "theme_font",
            "visibility",
            "slides",
        ],
    ),
    (
        "update_deck",
        &[
            "title",
            "description",
            "width",
            "height",
            "margin",
            "theme_color",
            "theme_font",
            "visibility",
        ],
    ),
    (
        "add_slide",
        &[
            "html",
            "notes",
            "insert_before_slide_id",
            "insert_after_slide_id",
        ],
    ),
    ("remove_slides", &["slide_ids"]),
    (
        "group_slides",
        &["slide_ids", "below_slide_id", "after_stack_of_slide_id"],
    ),
    ("update_slide", &["html", "notes"]),
    ("present_deck", &["indexh", "indexv", "fragment", "live"]),
    ("set_presence", &["client", "slide_id", "editing", "left"]),
    (
        "move_slides",
        &[
            "slide_ids",
            "insert_before_slide_id",
            "insert_after_slide_id",
        ],
    ),
    (
        "create_deck_share",
        &["name", "password", "expires_at", "notify_on_view"],
    ),
    (
        "create_deck_export",
        &[
            "format",
            "margin",
            "slide_number",
            "slide_notes",
            "separate_fragments",
        ],
    ),
];

fn operations(doc: &Value) -> Vec<(String, &Value)> {
    doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|p| p.as_object().unwrap().values())
        .map(|op| (op["operationId"].as_str().unwrap().to_string(), op))
        .collect()
}

/// The object schema of a request body (through `$ref` and an optional-body `oneOf`).
fn body_schema<'a>(doc: &'a Value, op: &'a Value) -> &'a Value {
    let mut schema = &op["requestBody"]["content"]["application/json"]["schema"];
    if let Some(alts) = schema["oneOf"].as_array() {
        schema = alts.iter().find(|s| s["type"] != "null").unwrap();
    }
    let name = schema["$ref"].as_str().expect("a named body schema");
    &doc["components"]["schemas"][name.rsplit('/').next().unwrap()]
}

#[tokio::test]
async fn every_operation_documents_its_errors_scope_and_body() {
    let app = TestApp::spawn().await;
    let r = app.call(Method::GET, "/v1/openapi.json", None, None).await;
    r.expect(200);
    let doc = &r.json;
    assert_eq!(doc["servers"][0]["url"], app.base.as_str());
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["bearer"]["scheme"], "bearer");
    let flow = &schemes["oauth2"]["flows"]["authorizationCode"];
    assert_eq!(
        flow["authorizationUrl"],
        format!("{}/oauth/authorize", app.base)
    );
    assert_eq!(flow["tokenUrl"], format!("{}/oauth/token", app.base));
    assert!(flow["scopes"]["read"].is_string() && flow["scopes"]["manage"].is_string());

    let ops = operations(doc);
    assert_eq!(ops.len(), 33);
    for (id, op) in &ops {
        for status in ["401", "429", "200"] {
            let documented = op["responses"][status].is_object()
                || (status == "200"
                    && ["201", "202", "204"]
                        .iter()
                        .any(|s| op["responses"][*s].is_object()));
            assert!(documented, "{id} does not document {status}");
        }
        assert!(
            op["responses"]["429"]["headers"]["Retry-After"].is_object(),
            "{id}"
        );
        let scope = op["security"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|s| s["oauth2"][0].as_str())
            .unwrap_or_else(|| panic!("{id} names no OAuth scope"));
        let write = BODIES.iter().any(|(b, _)| b == id)
            || [
                "trash_deck",
                "recover_deck",
                "revoke_deck_share",
                "restore",
                "upload_media",
                "delete_media",
            ]
            .contains(&id.as_str());
        assert_eq!(scope, if write { "manage" } else { "read" }, "{id}");
        match BODIES.iter().find(|(b, _)| b == id) {
            Some((_, fields)) => {
                let schema = body_schema(doc, op);
                let mut names: Vec<&str> = schema["properties"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(String::as_str)
                    .collect();
                names.sort();
                let mut expected = fields.to_vec();
                expected.sort();
                assert_eq!(names, expected, "{id}: body fields");
                assert_eq!(schema["additionalProperties"], false, "{id}");
            }
            None if id == "upload_media" => {
                // The file, as a multipart form or as the raw body.
                let content = &op["requestBody"]["content"];
                let form = content["multipart/form-data"]["schema"]["$ref"]
                    .as_str()
                    .expect("a named form schema");
                let form = &doc["components"]["schemas"][form.rsplit('/').next().unwrap()];
                assert_eq!(form["properties"]["file"]["format"], "binary");
                assert!(content["application/octet-stream"].is_object());
            }
            None => assert!(op["requestBody"].is_null(), "{id} documents a body"),
        }
    }
    // Limits of the interface appear in the schemas.
    let remove = ops.iter().find(|(id, _)| id == "remove_slides").unwrap().1;
    let ids = &body_schema(doc, remove)["properties"]["slide_ids"];
    assert_eq!(
        (ids["minItems"].as_u64(), ids["maxItems"].as_u64()),
        (Some(1), Some(200))
    );
    let export = ops
        .iter()
        .find(|(id, _)| id == "create_deck_export")
        .unwrap()
        .1;
    let export = body_schema(doc, export);
    assert_eq!(export["required"], serde_json::json!(["format"]));
    assert_eq!(
        export["properties"]["margin"]["maximum"].as_f64(),
        Some(0.2)
    );
}

#[tokio::test]
async fn the_reference_page_is_rendered_from_the_document() {
    let app = TestApp::spawn().await;
    let r = app.call(Method::GET, "/v1/docs", None, None).await;
    r.expect(200);
    assert!(
        r.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let doc = app.call(Method::GET, "/v1/openapi.json", None, None).await;
    for (id, _) in operations(&doc.json) {
        assert!(
            r.text.contains(&format!("id=\"{id}\"")),
            "{id} missing from the page"
        );
    }
    // In the interface's order (section 4.1), not sorted by path.
    let at = |id: &str| r.text.find(&format!("id=\"{id}\"")).unwrap();
    assert!(at("users_get") < at("list_decks"));
    assert!(at("list_decks") < at("list_slides"));
    assert!(at("list_slides") < at("create_deck_export"));
    assert!(at("create_deck_export") < at("get_team_deck"));
    assert!(r.text.contains("insert_before_slide_id"));
    assert!(r.text.contains("max items 200"));
    assert!(r.text.contains("/oauth/authorize"));
}
