//! Web sessions over cookies: reading and setting them, and the extractor that finds the
//! signed-in account. The cookie holds an opaque random token; the database holds its hash.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use lectern_core::store::SessionInfo;

use crate::state::AppState;

/// The session cookie.
pub const SESSION_COOKIE: &str = "lectern_session";
/// The pre-sign-in CSRF cookie of the login form (double-submit).
pub const LOGIN_CSRF_COOKIE: &str = "lectern_login_csrf";

/// The value of cookie `name`, if the request carries it.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// A `Set-Cookie` value: HttpOnly, SameSite=Lax (the OAuth redirect back from another site
/// is a top-level GET), Secure when the public URL is https. `max_age` 0 deletes.
pub fn set_cookie(state: &AppState, name: &str, value: &str, max_age: i64) -> HeaderValue {
    let secure = if state.core.public_url().starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}"
    ))
    .expect("cookie names and random tokens are valid header text")
}

/// The signed-in account, if any: the cookie value and the session.
pub struct MaybeSession(pub Option<(String, SessionInfo)>);

impl FromRequestParts<AppState> for MaybeSession {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let Some(token) = cookie(&parts.headers, SESSION_COOKIE) else {
            return Ok(MaybeSession(None));
        };
        match state.core.session(token).await {
            Ok(Some(info)) => Ok(MaybeSession(Some((token.to_string(), info)))),
            Ok(None) => Ok(MaybeSession(None)),
            Err(e) => {
                tracing::error!(error = %e, "session lookup failed");
                Ok(MaybeSession(None))
            }
        }
    }
}

/// Whether `sent` (a form field or the `X-CSRF-Token` header) is the session's CSRF token,
/// compared in constant time; a missing or empty token never is.
pub fn csrf_matches(session: &SessionInfo, sent: Option<&str>) -> bool {
    let sent = sent.unwrap_or("");
    !sent.is_empty() && lectern_core::secret::constant_time_eq(sent, &session.csrf_token)
}

/// `next` when it is a path on this site (no open redirects; the rule is
/// `lectern_core::oauth::same_origin_path`), else `/`.
pub fn safe_next(next: Option<&str>) -> &str {
    next.and_then(lectern_core::oauth::same_origin_path)
        .unwrap_or("/")
}
