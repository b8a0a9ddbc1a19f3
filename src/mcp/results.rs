//! What a tool call answers: a success as `{"data", "meta"}` (structured content and the
//! same JSON as text, or a PNG image), a failure as an `isError` result whose one text part is
//! `{"error", "status"}`.

use base64::Engine;
use lectern_core::Error;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::{Value, json};

use super::to_value;
use super::tools::Op;

/// A successful tool result.
pub(super) enum Output {
    /// `{"data": ..., "meta": ...}` as structured content and as text.
    Json { data: Value, meta: Option<Value> },
    /// A PNG image, with `{"data": ...}` describing it.
    Image { png: Vec<u8>, data: Value },
}

impl Output {
    pub(super) fn data(data: impl Serialize) -> Output {
        Output::Json {
            data: to_value(&data),
            meta: None,
        }
    }

    pub(super) fn with_meta(data: impl Serialize, meta: Value) -> Output {
        Output::Json {
            data: to_value(&data),
            meta: Some(meta),
        }
    }

    pub(super) fn page<T: Serialize>(page: lectern_core::service::Page<T>) -> Output {
        Output::Json {
            data: to_value(&page.items),
            meta: Some(to_value(&page.meta)),
        }
    }

    pub(super) fn into_result(self) -> CallToolResult {
        match self {
            Output::Json { data, meta } => {
                let mut envelope = json!({ "data": data });
                if let Some(meta) = meta {
                    envelope["meta"] = meta;
                }
                CallToolResult::structured(envelope)
            }
            Output::Image { png, data } => {
                let envelope = json!({ "data": data });
                let mut result = CallToolResult::structured(envelope);
                let image = base64::engine::general_purpose::STANDARD.encode(png);
                result
                    .content
                    .insert(0, ContentBlock::image(image, "image/png"));
                result
            }
        }
    }
}

/// Why a tool call failed: a core error (the REST API's message and status) or a tool-level one.
pub(super) enum Failure {
    Core(Error),
    /// A failure of the MCP adapter itself, with the HTTP status REST would give it.
    Tool {
        status: u16,
        message: String,
    },
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

impl Failure {
    /// The `isError: true` result: one text part, the JSON `{"error": message, "status": N}`
    /// (the message is REST's `error`, N the status the REST operation answers), so an agent
    /// tells a missing deck from an invalid argument. No structured content: clients check
    /// structured content against the tool's output schema, errors included, and an error
    /// matches no tool's success shape.
    pub(super) fn into_result(self, op: Op) -> CallToolResult {
        let mut revision = None;
        let (status, message) = match self {
            Failure::Core(e) => {
                let status = e.status();
                if let Error::PreconditionFailed { revision: r } = e {
                    revision = Some(r);
                }
                let message = match e {
                    Error::Internal(cause) => {
                        let chain = lectern_core::error::cause_chain(cause.as_ref());
                        tracing::error!(error = %chain, tool = op.name(), "MCP tool call failed with an internal error");
                        "internal server error".to_string()
                    }
                    e => e.to_string(),
                };
                (status, message)
            }
            Failure::Tool { status, message } => (status, message),
        };
        let mut content = json!({ "error": message, "status": status });
        if let Some(r) = revision {
            // 412: the deck's current revision, to read again and retry.
            content["revision"] = json!(r);
        }
        CallToolResult::error(vec![ContentBlock::text(content.to_string())])
    }
}
