//! `/v1/docs`: the API reference page, rendered on the server from the same OpenAPI document
//! `/v1/openapi.json` serves (so the two never disagree), without any script.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use crate::api::openapi::document;
use crate::state::AppState;
use crate::web::page::{escape, page};

const METHODS: [&str; 5] = ["get", "post", "patch", "put", "delete"];

/// GET `/v1/docs`.
pub async fn api_reference(State(state): State<AppState>) -> Response {
    let public_url = state.core.public_url();
    let openapi = document(public_url);
    // The paths in the document's own order (the interface's): a JSON object would sort them.
    let order: Vec<String> = openapi.paths.paths.keys().cloned().collect();
    let doc = serde_json::to_value(openapi)
        .expect("the OpenAPI document is plain data and always serialises");
    page(
        StatusCode::OK,
        "Lectern API reference",
        &render(&doc, &order, public_url),
    )
}

/// The page body for an OpenAPI document, its paths in `order`.
fn render(doc: &Value, order: &[String], public_url: &str) -> String {
    let mut out = String::new();
    if let Some(text) = doc["info"]["description"].as_str() {
        out.push_str(&format!("<p>{}</p>", escape(text)));
    }
    out.push_str(&format!(
        "<p>Base URL <code>{url}</code>. Machine-readable description: \
         <a href=\"{url}/v1/openapi.json\">/v1/openapi.json</a> (OpenAPI 3.1).</p>\
         <h2>Authentication</h2><p>Send <code>Authorization: Bearer &lt;credential&gt;</code> with \
         an API key (made on <a href=\"{url}/users/api\">/users/api</a>) or an OAuth 2.0 access \
         token (authorization code flow with PKCE S256 at <code>{url}/oauth/authorize</code> and \
         <code>{url}/oauth/token</code>; scopes <code>read</code> and <code>manage</code>). \
         Errors are JSON: <code>{{\"error\": \"...\"}}</code>.</p>",
        url = escape(public_url)
    ));
    let mut ops: Vec<(String, String, &Value)> = Vec::new();
    for path in order {
        let item = &doc["paths"][path.as_str()];
        for method in METHODS {
            if let Some(op) = item.get(method) {
                ops.push((method.to_uppercase(), path.clone(), op));
            }
        }
    }
    out.push_str("<h2>Operations</h2><ul>");
    for (method, path, op) in &ops {
        let id = op["operationId"].as_str().unwrap_or_default();
        out.push_str(&format!(
            "<li><a href=\"#{id}\"><code>{id}</code></a>: {} <code>{}</code></li>",
            escape(method),
            escape(path),
            id = escape(id)
        ));
    }
    out.push_str("</ul>");
    for (method, path, op) in &ops {
        out.push_str(&operation(doc, method, path, op));
    }
    out
}

/// One operation: what it does, its scope, parameters, body and answers.
fn operation(doc: &Value, method: &str, path: &str, op: &Value) -> String {
    let id = op["operationId"].as_str().unwrap_or_default();
    let mut out = format!(
        "<section id=\"{id}\"><h3><code>{id}</code>: {} <code>{}</code></h3>",
        escape(method),
        escape(path),
        id = escape(id)
    );
    for key in ["summary", "description"] {
        if let Some(text) = op[key].as_str() {
            out.push_str(&format!("<p>{}</p>", escape(text)));
        }
    }
    let scopes: Vec<&str> = op["security"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|req| req["oauth2"].as_array())
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !scopes.is_empty() {
        out.push_str(&format!(
            "<p>OAuth scope: <code>{}</code> (API keys may call every operation).</p>",
            escape(&scopes.join(" "))
        ));
    }
    if let Some(params) = op["parameters"].as_array().filter(|p| !p.is_empty()) {
        out.push_str("<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th>required</th><th>description</th></tr>");
        for p in params {
            out.push_str(&format!(
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(p["name"].as_str().unwrap_or_default()),
                escape(p["in"].as_str().unwrap_or_default()),
                escape(&type_of(doc, &p["schema"])),
                if p["required"].as_bool() == Some(true) {
                    "yes"
                } else {
                    "no"
                },
                escape(p["description"].as_str().unwrap_or_default())
            ));
        }
        out.push_str("</table>");
    }
    let body = &op["requestBody"];
    if !body.is_null() {
        let schema = &body["content"]["application/json"]["schema"];
        out.push_str(&format!(
            "<h4>Request body ({}, JSON)</h4>",
            if body["required"].as_bool() == Some(true) {
                "required"
            } else {
                "optional"
            }
        ));
        out.push_str(&fields(doc, schema));
    }
    out.push_str("<h4>Responses</h4><ul>");
    if let Some(responses) = op["responses"].as_object() {
        for (status, resp) in responses {
            let schema = &resp["content"]["application/json"]["schema"];
            let shape = if schema.is_null() {
                String::new()
            } else {
                format!(": <code>{}</code>", escape(&type_of(doc, schema)))
            };
            out.push_str(&format!(
                "<li><strong>{}</strong> {}{shape}</li>",
                escape(status),
                escape(resp["description"].as_str().unwrap_or_default())
            ));
        }
    }
    out.push_str("</ul></section>");
    out
}

/// Follows a `$ref` into `components.schemas`.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => {
            let name = r.rsplit('/').next().unwrap_or_default();
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

/// The table of an object schema's properties.
fn fields(doc: &Value, schema: &Value) -> String {
    let schema = match schema["oneOf"].as_array() {
        // `Option<Body>`: the body or null.
        Some(alternatives) => alternatives
            .iter()
            .find(|s| s["type"] != "null")
            .unwrap_or(schema),
        None => schema,
    };
    let schema = resolve(doc, schema);
    let Some(props) = schema["properties"].as_object() else {
        return format!("<p><code>{}</code></p>", escape(&type_of(doc, schema)));
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut out = String::from(
        "<table><tr><th>field</th><th>type</th><th>required</th><th>description</th></tr>",
    );
    for (name, prop) in props {
        out.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(name),
            escape(&type_of(doc, prop)),
            if required.contains(&name.as_str()) {
                "yes"
            } else {
                "no"
            },
            escape(prop["description"].as_str().unwrap_or_default())
        ));
    }
    out.push_str("</table>");
    out
}

/// A short type description with the limits: `integer >= 1`, `string (max 255)`, ...
fn type_of(doc: &Value, schema: &Value) -> String {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.rsplit('/').next().unwrap_or_default();
        let target = resolve(doc, schema);
        if let Some(values) = target["enum"].as_array() {
            return one_of_values(values);
        }
        return name.to_string();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alternatives) = schema[key].as_array() {
            return alternatives
                .iter()
                .map(|s| type_of(doc, s))
                .collect::<Vec<_>>()
                .join(" or ");
        }
    }
    if let Some(values) = schema["enum"].as_array() {
        return one_of_values(values);
    }
    let mut kind = match &schema["type"] {
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".into(),
    };
    if kind.starts_with("array") {
        kind = format!("array of {}", type_of(doc, &schema["items"]));
    }
    if let Some(f) = schema["format"].as_str() {
        kind.push_str(&format!(" ({f})"));
    }
    let limits: Vec<String> = [
        ("minimum", ">="),
        ("maximum", "<="),
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minItems", "min items"),
        ("maxItems", "max items"),
    ]
    .iter()
    .filter_map(|(key, label)| schema.get(*key).map(|v| format!("{label} {v}")))
    .collect();
    if !limits.is_empty() {
        kind.push_str(&format!(", {}", limits.join(", ")));
    }
    kind
}

fn one_of_values(values: &[Value]) -> String {
    format!(
        "one of {}",
        values
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}
