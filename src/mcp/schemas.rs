//! The MCP tools' input and output schemas: input schemas are the REST API's request body
//! schemas (the same limits) plus the path ids; output schemas are its OpenAPI response
//! schemas wrapped as `{"data": ..., "meta": ...}`.

use serde_json::{Value, json};
use std::sync::OnceLock;

// ---- schema pieces ---------------------------------------------------------------------

pub(super) fn id_schema(what: &str) -> Value {
    json!({
        "description": format!("{what} (an integer; the same digits as a string are accepted)"),
        "anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^\"?-?[0-9]+\"?$"}]
    })
}

pub(super) fn deck_id() -> Value {
    id_schema("Deck id, as returned by list_decks or create_deck")
}

pub(super) fn slide_id() -> Value {
    json!({"type": "string", "minLength": 1, "description": "Slide id (opaque text from list_slides or add_slide; not the slide number)"})
}

pub(super) fn page() -> Value {
    json!({"type": "integer", "minimum": 1, "default": 1, "description": "Page number, from 1"})
}

pub(super) fn per_page(default: u32, max: u32) -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": max, "default": default, "description": format!("Items per page, 1 to {max}")})
}

pub(super) fn include_html() -> Value {
    json!({"type": "boolean", "default": false, "description": "Also return deck_html: every slide's <section> in presentation order (vertical groups wrapped in an outer <section>)"})
}

pub(super) fn slide_ids(max: u32, what: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": max, "uniqueItems": true, "description": what})
}

/// A write tool's input: the REST request body's schema from the OpenAPI description (refs
/// inlined) plus the ids REST takes from the path, so both interfaces describe the same
/// fields with the same limits (the core's constants, see `api::bodies`).
pub(super) fn body_input(body: &str, ids: Value, required_ids: &[&str]) -> Value {
    let doc = openapi();
    let schema = resolve(&doc["components"]["schemas"][body], doc, 0);
    let mut properties = schema["properties"]
        .as_object()
        .cloned()
        .expect("every body schema has properties");
    properties.extend(ids.as_object().cloned().expect("ids are an object"));
    let mut required: Vec<Value> = required_ids.iter().map(|id| json!(id)).collect();
    required.extend(schema["required"].as_array().cloned().unwrap_or_default());
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
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

pub(super) fn paged_decks() -> Value {
    input(json!({"page": page(), "per_page": per_page(20, 100)}), &[])
}

pub(super) fn get_deck_input() -> Value {
    input(
        json!({"id": deck_id(), "include_deck_html": include_html()}),
        &["id"],
    )
}

pub(super) fn id_only() -> Value {
    input(json!({"id": deck_id()}), &["id"])
}

pub(super) fn deck_id_only() -> Value {
    input(json!({"deck_id": deck_id()}), &["deck_id"])
}

pub(super) fn create_deck_input() -> Value {
    body_input("CreateDeckBody", json!({}), &[])
}

pub(super) fn update_deck_input() -> Value {
    with_if_revision(body_input(
        "UpdateDeckBody",
        json!({"id": deck_id()}),
        &["id"],
    ))
}

pub(super) fn add_slide_input() -> Value {
    with_if_revision(body_input(
        "AddSlideBody",
        json!({"deck_id": deck_id()}),
        &["deck_id"],
    ))
}

pub(super) fn remove_slides_input() -> Value {
    with_if_revision(body_input(
        "RemoveSlidesBody",
        json!({"deck_id": deck_id()}),
        &["deck_id"],
    ))
}

pub(super) fn slide_ref_input() -> Value {
    input(
        json!({"deck_id": deck_id(), "slide_id": slide_id()}),
        &["deck_id", "slide_id"],
    )
}

pub(super) fn update_slide_input() -> Value {
    with_if_revision(body_input(
        "UpdateSlideBody",
        json!({"deck_id": deck_id(), "slide_id": slide_id()}),
        &["deck_id", "slide_id"],
    ))
}

pub(super) fn move_slides_input() -> Value {
    with_if_revision(body_input(
        "MoveSlidesBody",
        json!({"deck_id": deck_id()}),
        &["deck_id"],
    ))
}

pub(super) fn create_share_input() -> Value {
    body_input(
        "CreateShareBody",
        json!({"deck_id": deck_id()}),
        &["deck_id"],
    )
}

pub(super) fn revoke_share_input() -> Value {
    input(
        json!({"deck_id": deck_id(), "id": id_schema("Share link id, from list_deck_shares")}),
        &["deck_id", "id"],
    )
}

pub(super) fn create_export_input() -> Value {
    body_input(
        "CreateExportBody",
        json!({"deck_id": deck_id()}),
        &["deck_id"],
    )
}

pub(super) fn get_export_input() -> Value {
    input(
        json!({"deck_id": deck_id(), "id": id_schema("Export id, from create_deck_export")}),
        &["deck_id", "id"],
    )
}

pub(super) fn get_slides_input() -> Value {
    input(
        json!({"deck_id": deck_id(), "slide_ids": slide_ids(super::MAX_SLIDES_PER_CALL as u32, "Ids of the slides to read (1 to 10, unique)")}),
        &["deck_id", "slide_ids"],
    )
}

pub(super) fn search_input() -> Value {
    input(
        json!({
            "query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Words to find in deck titles and slide text (case-insensitive substring)"},
            "page": page(),
            "per_page": per_page(20, 100),
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

/// The success body schema of `operation_id` in the OpenAPI description, refs inlined.
pub(super) fn rest_output(operation_id: &str) -> Value {
    let doc = openapi();
    let paths = doc["paths"].as_object().expect("the document has paths");
    for item in paths.values() {
        for op in item.as_object().into_iter().flat_map(|m| m.values()) {
            if op["operationId"] == operation_id {
                let responses = op["responses"].as_object().expect("responses");
                for (status, resp) in responses {
                    if status.starts_with('2') {
                        let schema = &resp["content"]["application/json"]["schema"];
                        if schema.is_null() {
                            return json!({"type": "object", "properties": {"data": {"type": "null"}}, "required": ["data"]});
                        }
                        return resolve(schema, doc, 0);
                    }
                }
            }
        }
    }
    panic!("operation {operation_id} is in the OpenAPI description")
}

/// The team deck schemas with `owner` as the owner's display name only (interface 2.6).
pub(super) fn team_output(operation_id: &str) -> Value {
    fn owner_as_name(v: &mut Value) {
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
                for (_, child) in map.iter_mut() {
                    owner_as_name(child);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(owner_as_name),
            _ => {}
        }
    }
    let mut schema = rest_output(operation_id);
    owner_as_name(&mut schema);
    schema
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

/// `schema` with the optional `if_revision` argument.
pub(super) fn with_if_revision(mut schema: Value) -> Value {
    schema["properties"]["if_revision"] = if_revision();
    schema
}

pub(super) fn revision_number(what: &str) -> Value {
    json!({"type": "integer", "minimum": 1, "description": what})
}

pub(super) fn list_revisions_input() -> Value {
    input(
        json!({"deck_id": deck_id(), "page": page(), "per_page": per_page(20, 100)}),
        &["deck_id"],
    )
}

pub(super) fn get_revision_input() -> Value {
    input(
        json!({"deck_id": deck_id(), "revision": revision_number("A revision number from list_revisions")}),
        &["deck_id", "revision"],
    )
}

pub(super) fn restore_revision_input() -> Value {
    input(
        json!({
            "deck_id": deck_id(),
            "revision": revision_number("The revision to bring back"),
            "if_revision": if_revision(),
        }),
        &["deck_id", "revision"],
    )
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
            "deck_id": deck_id(),
            "force": {"type": "boolean", "default": false, "description": "Undo even when the newest change was made through another credential (another API key or OAuth grant), e.g. by a person or another assistant"},
            "if_revision": if_revision(),
        }),
        &["deck_id"],
    )
}
