//! Web sign-in, the API-key page's use cases, and the OAuth 2.0 authorization server
//! (RFC 6749 with PKCE, RFC 7009 revocation, RFC 7591 registration, RFC 8707 resources,
//! RFC 9207 `iss`). The HTTP adapters in `src/web` and `src/oauth` only parse and render.
//!
//! Lifetimes: access tokens 1 hour, refresh tokens 30 days (rotated on every use),
//! authorization codes 5 minutes (single use), web sessions 14 days.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use crate::auth::{Caller, Credential, Resource, Scope};
use crate::secret::{self, Secret};
use crate::service::Lectern;
use crate::store::{
    ApiKeyInfo, ClientOrigin, CodeRecord, CodeState, NewTokenRecord, OAuthClientRecord,
    RefreshState, SessionInfo, SessionRecord, TokenWrite,
};
use crate::time::Timestamp;
use crate::{Error, Result};

mod authorize;
pub mod register;
mod signin;
mod tokens;

pub use signin::{NewSession, SignInError, same_origin_path};
pub use tokens::{
    CodeRequest, RefreshRequest, Refusal, code_verdict, refresh_verdict, refreshed_scope,
};

const SECOND: i64 = 1_000_000;
/// Access token lifetime, in seconds.
pub const ACCESS_TOKEN_SECONDS: i64 = 3600;
/// Refresh token lifetime, in seconds.
pub const REFRESH_TOKEN_SECONDS: i64 = 30 * 24 * 3600;
/// Authorization code lifetime, in seconds.
pub const CODE_SECONDS: i64 = 5 * 60;
/// Web session lifetime, in seconds.
pub const SESSION_SECONDS: i64 = 14 * 24 * 3600;
/// The scope of an authorization request that names none.
pub const DEFAULT_SCOPE: &str = "read";
pub use crate::guard::FREE_LOGIN_FAILURES;

/// Token prefixes: access, refresh, code, session.
const ACCESS_PREFIX: &str = "lat_";
const REFRESH_PREFIX: &str = "lrt_";
const CODE_PREFIX: &str = "lac_";
const SESSION_PREFIX: &str = "lss_";

fn new_secret(prefix: &str) -> Secret {
    Secret::new(format!("{prefix}{}", secret::random_alphanumeric(43)))
}

fn later(now: Timestamp, seconds: i64) -> Timestamp {
    Timestamp::from_unix_micros(now.unix_micros() + seconds * SECOND)
}

/// An OAuth protocol error (RFC 6749 4.1.2.1 and 5.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError {
    pub error: &'static str,
    pub description: String,
}

impl OAuthError {
    pub fn new(error: &'static str, description: impl Into<String>) -> Self {
        OAuthError {
            error,
            description: description.into(),
        }
    }
}

impl From<Error> for OAuthError {
    fn from(e: Error) -> Self {
        match e {
            Error::Internal(_) => OAuthError::new("server_error", e.to_string()),
            other => OAuthError::new("invalid_request", other.to_string()),
        }
    }
}

/// Parses a space-separated scope list; absent or empty gives [`DEFAULT_SCOPE`].
pub fn parse_scope(raw: Option<&str>) -> std::result::Result<Vec<Scope>, OAuthError> {
    let raw = raw
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(DEFAULT_SCOPE);
    let mut scopes = Vec::new();
    for name in raw.split_whitespace() {
        let scope = Scope::parse(name)
            .ok_or_else(|| OAuthError::new("invalid_scope", format!("unknown scope {name:?}")))?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    scopes.sort_by_key(|s| s.as_str());
    Ok(scopes)
}

/// The scopes as one space-separated string.
pub fn scope_string(scopes: &[Scope]) -> String {
    scopes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The S256 code challenge of a verifier (RFC 7636 4.2).
pub fn pkce_s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Whether a code verifier has the RFC 7636 form: 43-128 unreserved characters.
pub fn valid_verifier(verifier: &str) -> bool {
    (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// A redirect URI as a browser would follow it: an absolute `http(s)` URL with a host, no
/// user information and no fragment, parsed by the WHATWG rules (the `url` crate), so that
/// what is compared is where the browser goes, not how the text is spelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedirectUri(url::Url);

impl RedirectUri {
    /// Parses `raw`, or says why it cannot be a redirect URI.
    pub fn parse(raw: &str) -> std::result::Result<Self, String> {
        let bad = |why: &str| format!("redirect URI {raw:?} {why}");
        if raw
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
        {
            return Err(bad("has whitespace, a control character or a backslash"));
        }
        let url = url::Url::parse(raw).map_err(|e| bad(&format!("is not a URL ({e})")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("must be an http or https URL"));
        }
        if url.host().is_none() {
            return Err(bad("has no host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("must not carry user information (user@host)"));
        }
        if url.fragment().is_some() {
            return Err(bad("must not have a fragment"));
        }
        Ok(RedirectUri(url))
    }

    /// The host the browser goes to, with its port when one is given: the consent page
    /// names it.
    pub fn authority(&self) -> String {
        let host = self.0.host_str().unwrap_or_default();
        match self.0.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        }
    }

    /// Whether this is an `http` redirect to a loopback literal (RFC 8252 7.3), whose port
    /// the client chooses when it runs.
    fn is_loopback(&self) -> bool {
        self.0.scheme() == "http"
            && match self.0.host() {
                Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
                Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
                Some(url::Host::Domain(d)) => d == "localhost",
                None => false,
            }
    }

    /// Whether a browser sent to `self` lands where `registered` says: same scheme, host,
    /// path and query, and the same port unless both are loopback redirects.
    fn lands_on(&self, registered: &RedirectUri) -> bool {
        let (a, b) = (&self.0, &registered.0);
        a.scheme() == b.scheme()
            && a.host() == b.host()
            && a.path() == b.path()
            && a.query() == b.query()
            && (a.port_or_known_default() == b.port_or_known_default()
                || (self.is_loopback() && registered.is_loopback()))
    }
}

/// Whether `given` is one of the registered redirect URIs: the same URL, or differing only
/// in the port of a loopback redirect. Anything that does not parse as a redirect URI
/// (user information, a fragment, another scheme) matches nothing.
pub fn redirect_uri_matches(registered: &[String], given: &str) -> bool {
    let Ok(given) = RedirectUri::parse(given) else {
        return false;
    };
    registered
        .iter()
        .filter_map(|r| RedirectUri::parse(r).ok())
        .any(|r| given.lands_on(&r))
}

/// A checked authorization request, ready for the consent page.
#[derive(Debug, Clone)]
pub struct AuthorizeRequest {
    pub client_id: String,
    pub client_name: String,
    /// Whether the administrator made the client (`Admin`) or it registered itself, so
    /// that its name is unverified (`Registered`).
    pub client_origin: ClientOrigin,
    pub redirect_uri: String,
    pub scopes: Vec<Scope>,
    pub state: Option<String>,
    pub code_challenge: Option<String>,
    pub resource: Resource,
}

impl AuthorizeRequest {
    /// The redirect URI's host (and port), shown on the consent page.
    pub fn redirect_host(&self) -> String {
        RedirectUri::parse(&self.redirect_uri)
            .map(|u| u.authority())
            .unwrap_or_default()
    }
}

/// Why an authorization request failed.
#[derive(Debug, Clone)]
pub enum AuthorizeError {
    /// Unknown client or redirect URI: show an error page, never redirect.
    Page(String),
    /// Anything else: redirect back with `error` (and `state`, `iss`).
    Redirect {
        redirect_uri: String,
        state: Option<String>,
        error: OAuthError,
    },
}

/// The parameters of `/oauth/authorize`, as received.
#[derive(Debug, Clone, Default)]
pub struct AuthorizeParams {
    pub response_type: Option<String>,
    pub client_id: Option<String>,
    pub redirect_uri: Option<String>,
    pub scope: Option<String>,
    pub state: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    pub resource: Option<String>,
}

/// How a client authenticated at the token or revocation endpoint.
#[derive(Debug, Clone)]
pub struct ClientAuth {
    pub client_id: String,
    pub secret: Option<Secret>,
    /// Whether the credentials came in an HTTP Basic header.
    pub basic: bool,
}

/// A successful token response (RFC 6749 5.1).
#[derive(Debug, Clone)]
pub struct TokenResponse {
    pub access_token: Secret,
    pub refresh_token: Secret,
    pub expires_in: i64,
    pub scope: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_matches_the_rfc_7636_example() {
        assert_eq!(
            pkce_s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert!(valid_verifier(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        ));
        assert!(!valid_verifier("short"));
    }

    #[test]
    fn redirect_uris_match_exactly_or_by_loopback_port() {
        let reg = vec![
            "http://127.0.0.1/cb".to_string(),
            "https://app.example/cb".to_string(),
        ];
        assert!(redirect_uri_matches(&reg, "https://app.example/cb"));
        assert!(redirect_uri_matches(&reg, "http://127.0.0.1:53124/cb"));
        assert!(!redirect_uri_matches(&reg, "http://127.0.0.1:53124/other"));
        assert!(!redirect_uri_matches(&reg, "https://app.example/cb/"));
        assert!(!redirect_uri_matches(&reg, "https://app.example:444/cb"));
        assert!(!redirect_uri_matches(&reg, "http://127.0.0.2:8/cb"));
        let v6 = vec!["http://[::1]:1/x".to_string()];
        assert!(redirect_uri_matches(&v6, "http://[::1]:9999/x"));
    }

    #[test]
    fn redirect_uris_with_user_information_or_tricks_match_nothing() {
        let reg = vec![
            "http://127.0.0.1:9000/callback".to_string(),
            "https://app.example/cb?x=1".to_string(),
        ];
        for given in [
            "http://127.0.0.1:9000@evil.example/callback",
            "http://127.0.0.1@evil.example/callback",
            "http://user:pw@127.0.0.1:9000/callback",
            "http://127.0.0.1:9000\\@evil.example/callback",
            "http://127.0.0.1:9000/callback#frag",
            "http://127.0.0.1:9000/callback/../other",
            "http://127.0.0.1:9000/call%62ack",
            "http://127.0.0.1.evil.example:9000/callback",
            "https://127.0.0.1:9000/callback",
            "http://127.0.0.1:9000/callback?x=1",
            "https://app.example/cb",
            "https://app.example/cb?x=1&y=2",
            "https://app.example.evil/cb?x=1",
            "https://evil.example/?https://app.example/cb?x=1",
            "javascript://127.0.0.1:9000/callback",
            " http://127.0.0.1:9000/callback",
            "http://127.0.0.1:9000/callback\t",
        ] {
            assert!(!redirect_uri_matches(&reg, given), "{given} matched");
        }
        assert!(redirect_uri_matches(
            &reg,
            "http://127.0.0.1:40000/callback"
        ));
        assert!(redirect_uri_matches(&reg, "https://app.example/cb?x=1"));
        assert!(redirect_uri_matches(&reg, "https://APP.example:443/cb?x=1"));
    }

    #[test]
    fn registration_refuses_redirect_uris_a_browser_would_not_follow_as_written() {
        for raw in [
            "http://a@b.example/cb",
            "https://b.example/cb#x",
            "ftp://b.example/cb",
            "https://",
            "not a url",
            "https://b.example/c b",
        ] {
            assert!(RedirectUri::parse(raw).is_err(), "{raw} parsed");
        }
        let ok = RedirectUri::parse("http://127.0.0.1:8123/cb").unwrap();
        assert_eq!(ok.authority(), "127.0.0.1:8123");
    }

    fn code_state(used: bool, expires_in: i64) -> CodeState {
        let now = Timestamp::now();
        CodeState {
            code: CodeRecord {
                code_hash: "h".into(),
                client_id: "cli".into(),
                user_id: 1,
                redirect_uri: "http://127.0.0.1/cb".into(),
                scope: "manage read".into(),
                resource: "r".into(),
                code_challenge: Some(pkce_s256(&"v".repeat(43))),
                created_at: now,
                expires_at: later(now, expires_in),
            },
            used_at: used.then_some(now),
            grant_id: used.then_some(7),
        }
    }

    fn code_request(client: &str, verifier: &str) -> CodeRequest {
        CodeRequest {
            client_id: client.into(),
            redirect_uri: Some("http://127.0.0.1/cb".into()),
            verifier: Some(verifier.into()),
        }
    }

    #[test]
    fn a_code_is_exchanged_once_by_its_client_with_its_verifier() {
        let now = Timestamp::now();
        let good = code_request("cli", &"v".repeat(43));
        assert!(code_verdict(&code_state(false, 60), &good, now).is_ok());
        let verdict = |state: &CodeState, req: &CodeRequest| {
            let r = code_verdict(state, req, now).unwrap_err();
            (r.error.error, r.write)
        };
        assert!(matches!(
            verdict(&code_state(true, 60), &good),
            ("invalid_grant", TokenWrite::RevokeGrant)
        ));
        assert!(matches!(
            verdict(&code_state(false, -1), &good),
            ("invalid_grant", TokenWrite::UseUp)
        ));
        assert!(matches!(
            verdict(
                &code_state(false, 60),
                &code_request("other", &"v".repeat(43))
            ),
            ("invalid_grant", TokenWrite::UseUp)
        ));
        assert!(matches!(
            verdict(
                &code_state(false, 60),
                &code_request("cli", &"w".repeat(43))
            ),
            ("invalid_grant", TokenWrite::UseUp)
        ));
    }

    fn refresh_state(used: bool, revoked: bool, expires_in: i64) -> RefreshState {
        RefreshState {
            token_id: 1,
            grant: crate::store::GrantRecord {
                id: 2,
                client_id: "cli".into(),
                user_id: 3,
                scope: "manage read".into(),
                resource: "r".into(),
            },
            used_at: used.then(Timestamp::now),
            revoked,
            expires_at: later(Timestamp::now(), expires_in),
        }
    }

    #[test]
    fn a_refresh_token_rotates_once_for_its_client_within_its_grant() {
        let now = Timestamp::now();
        let ask = |client: &str, scope: Option<Vec<Scope>>| RefreshRequest {
            client_id: client.into(),
            scope,
        };
        let live = refresh_state(false, false, 60);
        assert_eq!(
            refresh_verdict(&live, &ask("cli", None), now).unwrap(),
            None
        );
        assert_eq!(
            refresh_verdict(&live, &ask("cli", Some(vec![Scope::Read])), now).unwrap(),
            Some("read".to_string())
        );
        let verdict = |state: &RefreshState, req: &RefreshRequest| {
            let r = refresh_verdict(state, req, now).unwrap_err();
            (r.error.error, r.write)
        };
        assert!(matches!(
            verdict(&refresh_state(true, false, 60), &ask("cli", None)),
            ("invalid_grant", TokenWrite::RevokeGrant)
        ));
        for refused in [
            refresh_state(false, true, 60),
            refresh_state(false, false, -1),
        ] {
            assert!(matches!(
                verdict(&refused, &ask("cli", None)),
                ("invalid_grant", TokenWrite::Nothing)
            ));
        }
        assert!(matches!(
            verdict(&live, &ask("other", None)),
            ("invalid_grant", TokenWrite::Nothing)
        ));
        let narrow = RefreshState {
            grant: crate::store::GrantRecord {
                scope: "read".into(),
                ..live.grant.clone()
            },
            ..live.clone()
        };
        assert!(matches!(
            verdict(&narrow, &ask("cli", Some(vec![Scope::Manage]))),
            ("invalid_scope", TokenWrite::Nothing)
        ));
    }

    #[test]
    fn a_refresh_may_narrow_the_scope_but_never_widen_it() {
        assert_eq!(refreshed_scope("manage read", None).unwrap(), "manage read");
        assert_eq!(
            refreshed_scope("manage read", Some(&[Scope::Read])).unwrap(),
            "read"
        );
        assert_eq!(
            refreshed_scope("read manage", Some(&[Scope::Read, Scope::Manage])).unwrap(),
            "manage read"
        );
        assert!(refreshed_scope("read", Some(&[Scope::Manage])).is_err());
        assert!(refreshed_scope("read", Some(&[Scope::Read, Scope::Manage])).is_err());
    }

    #[test]
    fn scopes_parse_with_a_default() {
        assert_eq!(parse_scope(None).unwrap(), vec![Scope::Read]);
        assert_eq!(
            parse_scope(Some("manage read read")).unwrap(),
            vec![Scope::Manage, Scope::Read]
        );
        assert_eq!(
            parse_scope(Some("write")).unwrap_err().error,
            "invalid_scope"
        );
    }
}
