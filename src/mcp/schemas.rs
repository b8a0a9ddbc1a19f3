//! The MCP tools' input and output schemas. A tool that is a REST operation takes its
//! arguments and answer from the operation's OpenAPI entry ([`rest_input`], [`rest_output`],
//! [`rest_scope`]): the path ids, query parameters and JSON body fields with the same
//! limits, and the success body. Lectern's own tools describe theirs here.

use lectern_core::auth::Scope;
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

// ---- schema pieces ---------------------------------------------------------------------

/// Argument `name` of REST operation `operation_id`, as [`rest_input`] describes it: the
/// arguments Lectern's own tools share with an operation are described as it describes them.
fn rest_argument(operation_id: &str, name: &str) -> Value {
    rest_input(operation_id)["properties"][name].clone()
}

pub(super) fn slide_ids(max: u32, what: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": max, "uniqueItems": true, "description": what})
}

pub(super) fn input(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

pub(super) fn no_input() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

pub(super) fn slide_ref_input() -> Value {
    rest_input("get_slide")
}

pub(super) fn get_slides_input() -> Value {
    input(
        json!({"deck_id": rest_argument("list_slides", "deck_id"), "slide_ids": slide_ids(super::MAX_SLIDES_PER_CALL as u32, "Ids of the slides to read (1 to 10, unique)")}),
        &["deck_id", "slide_ids"],
    )
}

pub(super) fn search_input() -> Value {
    input(
        json!({
            "query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Words to find in deck titles and slide text (case-insensitive substring)"},
            "page": rest_argument("list_decks", "page"),
            "per_page": rest_argument("list_decks", "per_page"),
        }),
        &["query"],
    )
}

// ---- output schemas ----------------------------------------------------------------------

/// The REST API's OpenAPI description as JSON (built once).
pub(super) fn openapi() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        serde_json::to_value(crate::api::openapi::api_doc())
            .expect("the OpenAPI document serialises")
    })
}

/// Inlines `#/components/schemas/...` references (the schemas have no cycles).
pub(super) fn resolve(schema: &Value, doc: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref")
                && let Some(name) = r.strip_prefix("#/components/schemas/")
                && depth < 16
            {
                return resolve(&doc["components"]["schemas"][name], doc, depth + 1);
            }
            Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), resolve(v, doc, depth)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| resolve(v, doc, depth)).collect()),
        other => other.clone(),
    }
}

/// The operation `operation_id` of the OpenAPI description.
fn operation(operation_id: &str) -> &'static Value {
    let paths = openapi()["paths"]
        .as_object()
        .expect("the document has paths");
    paths
        .values()
        .filter_map(Value::as_object)
        .flat_map(|methods| methods.values())
        .find(|op| op["operationId"] == operation_id)
        .unwrap_or_else(|| panic!("operation {operation_id} is in the OpenAPI description"))
}

/// The scope operation `operation_id` needs: `manage` when its OAuth scopes name it.
pub(super) fn rest_scope(operation_id: &str) -> Scope {
    let security = operation(operation_id)["security"].as_array();
    let manage = security
        .into_iter()
        .flatten()
        .filter_map(|s| s["oauth2"].as_array())
        .any(|scopes| scopes.contains(&json!("manage")));
    if manage { Scope::Manage } else { Scope::Read }
}

/// Operation `operation_id`'s arguments as one tool input: its path parameters (ids also as
/// digits in a string, as REST reads them), its query parameters, `if_revision` for its
/// `If-Match`, and the fields of its JSON body, with their limits and descriptions.
pub(super) fn rest_input(operation_id: &str) -> Value {
    let doc = openapi();
    let op = operation(operation_id);
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in op["parameters"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().expect("parameters are named");
        let mut schema = resolve(&p["schema"], doc, 0);
        match p["in"].as_str() {
            Some("header") if name == "If-Match" => {
                properties.insert("if_revision".into(), if_revision());
                continue;
            }
            Some("path")
                if schema["type"] == "integer" && (name == "id" || name.ends_with("_id")) =>
            {
                // An integer, or its digits as a string (as REST reads path ids).
                let digits = json!({"type": "string", "pattern": "^\"?-?[0-9]+\"?$"});
                schema = json!({"anyOf": [{"type": "integer"}, digits]});
            }
            Some("path" | "query") => {}
            _ => panic!("{operation_id}: no tool argument for parameter {name}"),
        }
        if let Some(description) = p.get("description") {
            schema["description"] = description.clone();
        }
        if p["required"] == true {
            required.push(name.to_string());
        }
        properties.insert(name.into(), schema);
    }
    let body = &op["requestBody"]["content"]["application/json"]["schema"];
    if !body.is_null() {
        let body = object_member(resolve(body, doc, 0));
        for (name, schema) in body["properties"].as_object().into_iter().flatten() {
            properties.insert(name.clone(), schema.clone());
        }
        let names = body["required"].as_array().into_iter().flatten();
        required.extend(names.filter_map(Value::as_str).map(str::to_string));
    }
    let required: Vec<&str> = required.iter().map(String::as_str).collect();
    input(Value::Object(properties), &required)
}

/// The object schema in `schema`, itself or the object member of its `oneOf`/`anyOf` (an
/// optional body is `null` or the object).
fn object_member(schema: Value) -> Value {
    if schema.get("properties").is_some() {
        return schema;
    }
    ["oneOf", "anyOf"]
        .iter()
        .filter_map(|k| schema[*k].as_array())
        .flatten()
        .find(|m| m.get("properties").is_some())
        .cloned()
        .expect("a request body is an object")
}

/// The success body schema of `operation_id` in the OpenAPI description, refs inlined.
pub(super) fn rest_output(operation_id: &str) -> Value {
    let responses = operation(operation_id)["responses"]
        .as_object()
        .expect("operations have responses");
    let (_, success) = responses
        .iter()
        .find(|(status, _)| status.starts_with('2'))
        .expect("operations have a success response");
    let schema = &success["content"]["application/json"]["schema"];
    if schema.is_null() {
        return json!({"type": "object", "properties": {"data": {"type": "null"}}, "required": ["data"]});
    }
    resolve(schema, openapi(), 0)
}

/// A team deck schema with `owner` as the owner's display name only (interface 2.6).
pub(super) fn owners_as_names(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if let Some(props) = map.get_mut("properties").and_then(Value::as_object_mut)
                && props.contains_key("owner")
            {
                props.insert(
                    "owner".into(),
                    json!({"type": "string", "description": "The owner's display name"}),
                );
            }
            map.values_mut().for_each(owners_as_names);
        }
        Value::Array(items) => items.iter_mut().for_each(owners_as_names),
        _ => {}
    }
}

pub(super) fn envelope(data: Value, meta: Option<Value>) -> Value {
    let mut props = serde_json::Map::new();
    props.insert("data".into(), data);
    if let Some(meta) = meta {
        props.insert("meta".into(), meta);
    }
    json!({"type": "object", "properties": props, "required": ["data"]})
}

pub(super) fn slide_view_schema() -> Value {
    rest_output("get_slide")["properties"]["data"].clone()
}

pub(super) fn get_slides_output() -> Value {
    envelope(
        json!({
            "type": "object",
            "properties": {
                "slides": {"type": "array", "items": slide_view_schema()},
                "missing_slide_ids": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["slides", "missing_slide_ids"]
        }),
        None,
    )
}

pub(super) fn search_output() -> Value {
    envelope(
        json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "title": {"type": "string"},
                    "description": {"type": "string"},
                    "thumbnail_url": {"type": "string"},
                    "url": {"type": "string"},
                    "visibility": {"type": "string"},
                    "owner": {"type": "string", "description": "The owner's display name"},
                    "own": {"type": "boolean", "description": "true: the caller's deck (use the deck tools); false: a team deck (use get_team_deck)"},
                    "matched_in": {"type": "string", "enum": ["title", "slides"]},
                },
                "required": ["id", "title", "description", "thumbnail_url", "url", "visibility", "owner", "own", "matched_in"]
            }
        }),
        Some(json!({
            "type": "object",
            "properties": {"page": {"type": "integer"}, "per_page": {"type": "integer"}, "total": {"type": "integer"}}
        })),
    )
}

pub(super) fn screenshot_output() -> Value {
    envelope(
        json!({
            "type": "object",
            "properties": {
                "deck_id": {"type": "integer"},
                "slide_id": {"type": "string"},
                "position": slide_view_schema()["properties"]["position"].clone(),
                "mime_type": {"type": "string"},
                "width": {"type": "integer"},
                "height": {"type": "integer"},
            },
            "required": ["deck_id", "slide_id", "mime_type"]
        }),
        None,
    )
}

pub(super) fn guide_output() -> Value {
    envelope(
        json!({"type": "object", "properties": {"guide": {"type": "string"}}, "required": ["guide"]}),
        None,
    )
}

// ---- the catalogue ---------------------------------------------------------------------

/// The optional `if_revision` of the write tools: the precondition REST takes as `If-Match`.
pub(super) fn if_revision() -> Value {
    json!({
        "type": "integer",
        "minimum": 1,
        "description": "Only write when the deck is still at this revision (from get_deck, get_slide or get_slides); otherwise the call fails with status 412 and the current revision, and nothing changes"
    })
}

pub(super) fn upload_image_input() -> Value {
    input(
        json!({
            "data": {"type": "string", "contentEncoding": "base64", "description": "The image file, base64-encoded (a data: URL prefix is accepted). Give this or source_url."},
            "source_url": {"type": "string", "format": "uri", "description": "An http: or https: URL of the image for the server to download (public addresses only unless the server allows more; at most 20 MiB, 20 s). Give this or data."},
            "name": {"type": "string", "maxLength": 255, "description": "The file's name (default: from source_url, else image.<ext>); reduced to a safe file name with the extension of the detected type"},
        }),
        &[],
    )
}

pub(super) fn undo_input() -> Value {
    input(
        json!({
            "deck_id": rest_argument("list_slides", "deck_id"),
            "force": {"type": "boolean", "default": false, "description": "Undo even when the newest change was made through another credential (another API key or OAuth grant), e.g. by a person or another assistant"},
            "if_revision": if_revision(),
        }),
        &["deck_id"],
    )
}
