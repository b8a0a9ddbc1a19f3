//! The REST error boundary: every failure leaves as a status and `{"error": "..."}`.
//! A fault (5xx) is logged here, once, with its cause chain, inside the request's span (which
//! carries the request id); the client only learns that something went wrong.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lectern_core::Error;
use lectern_core::auth::Scope;
use serde::Serialize;

/// The error body (interface 2.12).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: String,
    /// 412 only: the deck's current revision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
}

/// An error answer of the REST API.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// Set for 401 answers: the `WWW-Authenticate` challenge.
    challenge: Option<&'static str>,
    /// Set for 412 answers: the deck's current revision.
    revision: Option<i64>,
    /// Set for 503 answers: seconds before a retry (`Retry-After`).
    retry_after: Option<u64>,
}

impl ApiError {
    /// An answer with this status and message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            challenge: None,
            revision: None,
            retry_after: None,
        }
    }

    /// 422: the request parameters or body are invalid.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    /// 401 with a bearer challenge; `invalid_token` when a credential was presented.
    pub fn unauthorized(message: impl Into<String>, presented: bool) -> Self {
        ApiError {
            challenge: Some(if presented {
                "Bearer realm=\"lectern\", error=\"invalid_token\""
            } else {
                "Bearer realm=\"lectern\""
            }),
            ..Self::new(StatusCode::UNAUTHORIZED, message)
        }
    }
}

impl From<Error> for ApiError {
    fn from(err: Error) -> Self {
        let status = StatusCode::from_u16(err.status()).expect("the core's statuses are valid");
        match err {
            Error::Unauthorized(m) => ApiError::unauthorized(m, true),
            Error::InsufficientScope(scope) => ApiError {
                challenge: Some(match scope {
                    Scope::Read => {
                        "Bearer realm=\"lectern\", error=\"insufficient_scope\", scope=\"read\""
                    }
                    Scope::Manage => {
                        "Bearer realm=\"lectern\", error=\"insufficient_scope\", scope=\"manage\""
                    }
                }),
                ..ApiError::new(status, Error::InsufficientScope(scope).to_string())
            },
            Error::Forbidden(m)
            | Error::NotFound(m)
            | Error::Invalid(m)
            | Error::Conflict(m)
            | Error::TooLarge(m) => ApiError::new(status, m),
            Error::PreconditionFailed { revision } => ApiError {
                revision: Some(revision),
                ..ApiError::new(status, err.to_string())
            },
            Error::Busy {
                message,
                retry_after_secs,
            } => ApiError {
                retry_after: Some(retry_after_secs),
                ..ApiError::new(status, message)
            },
            Error::Internal(cause) => {
                let chain = lectern_core::error::cause_chain(cause.as_ref());
                tracing::error!(error = %chain, "request failed with an internal error");
                ApiError::new(status, "internal server error")
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            Json(ErrorBody {
                error: self.message,
                revision: self.revision,
            }),
        )
            .into_response();
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if let Some(challenge) = self.challenge {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
        }
        response
    }
}
