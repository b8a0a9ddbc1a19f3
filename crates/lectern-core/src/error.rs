//! The one error type of the application core. Every adapter (REST, MCP, CLI) maps it to its
//! own surface; [`Error::status`] is the one status decision REST answers with
//! (`src/http/error.rs`) and MCP tool errors carry (`src/mcp/mod.rs`).

use std::fmt;

use crate::auth::Scope;

/// Why an operation failed, in the terms of the interface (section 7).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No valid credential (401).
    #[error("{0}")]
    Unauthorized(String),
    /// The credential or account cannot perform the operation (403).
    #[error("{0}")]
    Forbidden(String),
    /// The credential lacks the scope the operation needs (403 with an
    /// `insufficient_scope` challenge); holds the scope needed.
    #[error("this operation needs the '{}' scope", .0.as_str())]
    InsufficientScope(Scope),
    /// The resource does not exist or belongs to someone else (404).
    #[error("{0}")]
    NotFound(String),
    /// Invalid parameters or body (422).
    #[error("{0}")]
    Invalid(String),
    /// Someone else got there first: a name or slug already taken, a row created by a
    /// concurrent request. The interface has no 409, so it answers 422 like other refusals.
    #[error("{0}")]
    Conflict(String),
    /// The upload is larger than a limit allows: the file size, or the account's media
    /// quota (413).
    #[error("{0}")]
    TooLarge(String),
    /// A write's precondition (`If-Match`, `if_revision`) does not hold: the deck is at
    /// `revision` now (412).
    #[error("the deck has changed: it is at revision {revision} now; read it again and retry")]
    PreconditionFailed { revision: i64 },
    /// The server is too busy to take the request now (503 with `Retry-After`): every
    /// image decoder stayed taken while the request waited.
    #[error("{message}")]
    Busy {
        message: String,
        /// Seconds after which a retry is likely to be served.
        retry_after_secs: u64,
    },
    /// A fault that is not the caller's: storage down, a bug. Logged, answered generically.
    #[error("internal error: {0}")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// A fault and its causes, outermost first, as one log line: `a: b: c`. Every adapter logs
/// an [`Error::Internal`] with it before answering generically.
pub fn cause_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut chain = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        chain.push_str(": ");
        chain.push_str(&s.to_string());
        source = s.source();
    }
    chain
}

/// Shorthand for results of the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The HTTP status of this error (interface section 7): the REST status, and the `status`
    /// of an MCP tool error, so that both interfaces tell the same failure the same way.
    pub fn status(&self) -> u16 {
        match self {
            Error::Unauthorized(_) => 401,
            Error::Forbidden(_) | Error::InsufficientScope(_) => 403,
            Error::NotFound(_) => 404,
            Error::PreconditionFailed { .. } => 412,
            Error::TooLarge(_) => 413,
            Error::Invalid(_) | Error::Conflict(_) => 422,
            Error::Internal(_) => 500,
            Error::Busy { .. } => 503,
        }
    }

    /// A 422 with the given message.
    pub fn invalid(msg: impl fmt::Display) -> Self {
        Error::Invalid(msg.to_string())
    }

    /// A 404 with the given message.
    pub fn not_found(msg: impl fmt::Display) -> Self {
        Error::NotFound(msg.to_string())
    }

    /// A 403 with the given message.
    pub fn forbidden(msg: impl fmt::Display) -> Self {
        Error::Forbidden(msg.to_string())
    }

    /// Wraps any fault as an internal error.
    pub fn internal(err: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Error::Internal(err.into())
    }

    /// The standard "deck not found" answer, used for missing decks and other accounts' decks
    /// alike so that a deck's existence never leaks.
    pub fn deck_not_found() -> Self {
        Error::NotFound("deck not found".into())
    }
}
