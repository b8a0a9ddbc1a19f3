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
    ApiKeyInfo, CodeRecord, CodeState, NewTokenRecord, OAuthClientRecord, RefreshState,
    SessionInfo, SessionRecord, TokenWrite,
};
use crate::time::Timestamp;
use crate::{Error, Result};

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
/// Failed sign-ins allowed before each further attempt must wait.
pub const FREE_LOGIN_FAILURES: i64 = 5;

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

/// `uri` without its port when it is an `http` loopback redirect (RFC 8252 7.3).
fn without_loopback_port(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("http://")?;
    let (authority, path) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let host = if authority.starts_with('[') {
        &authority[..=authority.find(']')?]
    } else {
        authority.split(':').next()?
    };
    matches!(host, "127.0.0.1" | "[::1]" | "localhost").then(|| format!("http://{host}{path}"))
}

/// Whether `given` is one of the registered redirect URIs: exactly, or differing only in the
/// port of a loopback redirect.
pub fn redirect_uri_matches(registered: &[String], given: &str) -> bool {
    registered.iter().any(|r| {
        r == given
            || matches!(
                (without_loopback_port(r), without_loopback_port(given)),
                (Some(a), Some(b)) if a == b
            )
    })
}

/// A checked authorization request, ready for the consent page.
#[derive(Debug, Clone)]
pub struct AuthorizeRequest {
    pub client_id: String,
    pub client_name: String,
    pub redirect_uri: String,
    pub scopes: Vec<Scope>,
    pub state: Option<String>,
    pub code_challenge: Option<String>,
    pub resource: Resource,
}

impl AuthorizeRequest {
    /// The redirect URI's host, shown on the consent page.
    pub fn redirect_host(&self) -> &str {
        let rest = self.redirect_uri.split_once("://").map_or("", |(_, r)| r);
        rest.split(['/', '?']).next().unwrap_or(rest)
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

/// A new web session: the cookie value (shown once) and its CSRF token.
#[derive(Debug)]
pub struct NewSession {
    pub token: Secret,
    pub csrf_token: String,
}

/// Why a sign-in failed.
#[derive(Debug)]
pub enum SignInError {
    /// Wrong username or password (the two are not told apart).
    Invalid,
    /// Too many failures: wait this many seconds.
    Throttled {
        retry_after: i64,
    },
    Fault(Error),
}

impl From<Error> for SignInError {
    fn from(e: Error) -> Self {
        SignInError::Fault(e)
    }
}

/// A fixed argon2 hash to verify against when the username is unknown, so both cases cost
/// the same time.
fn dummy_password_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| {
        secret::hash_password(&Secret::new("not a real password"))
            .expect("hashing a constant password works")
    })
}

/// A new access and refresh token and their records; `access_scope` is the access token's own
/// scope when it is narrower than the grant's.
fn token_pair(
    now: Timestamp,
    access_scope: Option<String>,
) -> (Secret, Secret, [NewTokenRecord; 2]) {
    let access = new_secret(ACCESS_PREFIX);
    let refresh = new_secret(REFRESH_PREFIX);
    let records = [
        NewTokenRecord {
            token_hash: secret::sha256_hex(access.expose()),
            kind: "access",
            created_at: now,
            expires_at: later(now, ACCESS_TOKEN_SECONDS),
            scope: access_scope,
        },
        NewTokenRecord {
            token_hash: secret::sha256_hex(refresh.expose()),
            kind: "refresh",
            created_at: now,
            expires_at: later(now, REFRESH_TOKEN_SECONDS),
            scope: None,
        },
    ];
    (access, refresh, records)
}

/// The scope of an access token from a refresh (RFC 6749 §6): the grant's, or the `asked`
/// part of it. Asking for a scope the grant does not hold is refused (`Invalid`).
pub fn refreshed_scope(grant_scope: &str, asked: Option<&[Scope]>) -> Result<String> {
    let sorted = |scopes: &mut Vec<Scope>| {
        scopes.sort_by_key(|s| s.as_str());
        scopes.dedup();
        scope_string(scopes)
    };
    let mut granted: Vec<Scope> = grant_scope
        .split_whitespace()
        .filter_map(Scope::parse)
        .collect();
    match asked {
        None => Ok(sorted(&mut granted)),
        Some(asked) if asked.iter().all(|s| granted.contains(s)) => Ok(sorted(&mut asked.to_vec())),
        Some(_) => Err(Error::invalid(format!(
            "a refresh may ask for the grant's scope ({grant_scope}) or less"
        ))),
    }
}

const UNKNOWN_CODE: &str = "unknown or expired authorization code";
const UNKNOWN_REFRESH: &str = "unknown, expired or revoked refresh token";

/// What a token request repeats of its authorization request.
#[derive(Debug, Clone)]
pub struct CodeRequest {
    pub client_id: String,
    pub redirect_uri: Option<String>,
    pub verifier: Option<String>,
}

/// What a refresh request asks for.
#[derive(Debug, Clone)]
pub struct RefreshRequest {
    pub client_id: String,
    /// The scope asked for (`None`: the grant's).
    pub scope: Option<Vec<Scope>>,
}

/// Why a code or refresh token is refused, and what that refusal writes.
#[derive(Debug)]
pub struct Refusal {
    pub error: OAuthError,
    pub write: TokenWrite,
}

fn refuse(write: TokenWrite, error: &'static str, description: &str) -> Refusal {
    Refusal {
        error: OAuthError::new(error, description),
        write,
    }
}

/// The rules of a code exchange (RFC 6749 4.1.3, RFC 7636, and 10.5: a code used twice
/// revokes what it produced): `Ok` issues tokens; a refusal says what to write. Any failed
/// exchange uses the code up, so no second try with another verifier.
pub fn code_verdict(
    state: &CodeState,
    request: &CodeRequest,
    now: Timestamp,
) -> std::result::Result<(), Refusal> {
    let c = &state.code;
    if state.used_at.is_some() {
        return Err(refuse(
            TokenWrite::RevokeGrant,
            "invalid_grant",
            "the code was already used; the tokens it produced are revoked",
        ));
    }
    if c.expires_at <= now {
        return Err(refuse(TokenWrite::UseUp, "invalid_grant", UNKNOWN_CODE));
    }
    let mismatch = |d: &str| refuse(TokenWrite::UseUp, "invalid_grant", d);
    if c.client_id != request.client_id {
        return Err(mismatch("the code was issued to another client"));
    }
    if request.redirect_uri.as_deref() != Some(c.redirect_uri.as_str()) {
        return Err(mismatch(
            "redirect_uri differs from the authorization request",
        ));
    }
    match (&c.code_challenge, request.verifier.as_deref()) {
        (Some(challenge), Some(v)) => {
            if !valid_verifier(v) || !secret::constant_time_eq(&pkce_s256(v), challenge) {
                return Err(mismatch("the code_verifier does not match"));
            }
        }
        (Some(_), None) => return Err(mismatch("code_verifier is required")),
        (None, Some(_)) => return Err(mismatch("no code_challenge was sent for this code")),
        (None, None) => {}
    }
    Ok(())
}

/// The rules of a refresh (RFC 6749 6 and 10.4: refresh tokens rotate; one used twice
/// revokes its grant): `Ok` rotates, with the new access token's own scope when narrower
/// than the grant's; a refusal says what to write (a refused scope writes nothing, so the
/// presented token stays valid).
pub fn refresh_verdict(
    state: &RefreshState,
    request: &RefreshRequest,
    now: Timestamp,
) -> std::result::Result<Option<String>, Refusal> {
    if state.grant.client_id != request.client_id || state.revoked {
        return Err(refuse(
            TokenWrite::Nothing,
            "invalid_grant",
            UNKNOWN_REFRESH,
        ));
    }
    if state.used_at.is_some() {
        return Err(refuse(
            TokenWrite::RevokeGrant,
            "invalid_grant",
            "the refresh token was already used; the whole grant is revoked",
        ));
    }
    if state.expires_at <= now {
        return Err(refuse(
            TokenWrite::Nothing,
            "invalid_grant",
            UNKNOWN_REFRESH,
        ));
    }
    let scope = refreshed_scope(&state.grant.scope, request.scope.as_deref())
        .map_err(|e| refuse(TokenWrite::Nothing, "invalid_scope", &e.to_string()))?;
    let full = refreshed_scope(&state.grant.scope, None)
        .map_err(|e| refuse(TokenWrite::Nothing, "invalid_scope", &e.to_string()))?;
    Ok((scope != full).then_some(scope))
}

impl Lectern {
    // ---- web sign-in ----------------------------------------------------------------------

    /// Checks a username and password and opens a session. Five failures in a row make each
    /// further attempt wait (30 s, doubling, at most 15 minutes) before it is even checked.
    pub async fn sign_in(
        &self,
        username: &str,
        password: &Secret,
    ) -> std::result::Result<NewSession, SignInError> {
        let now = Timestamp::now();
        let Some(login) = self.store().find_login(username).await? else {
            secret::verify_password(password, dummy_password_hash());
            return Err(SignInError::Invalid);
        };
        if login.failed_logins >= FREE_LOGIN_FAILURES {
            let doublings = (login.failed_logins - FREE_LOGIN_FAILURES).min(5) as u32;
            let wait = (30 * 2i64.pow(doublings)).min(15 * 60);
            let last = login.last_failed_login_at.map_or(0, |t| t.unix_micros());
            let until = last + wait * SECOND;
            if now.unix_micros() < until {
                return Err(SignInError::Throttled {
                    retry_after: (until - now.unix_micros()) / SECOND + 1,
                });
            }
        }
        let ok = login
            .password_hash
            .as_deref()
            .is_some_and(|h| secret::verify_password(password, h));
        if !ok {
            self.store()
                .set_login_failure(login.user_id, Some(now))
                .await?;
            return Err(SignInError::Invalid);
        }
        if login.failed_logins > 0 {
            self.store().set_login_failure(login.user_id, None).await?;
        }
        let token = new_secret(SESSION_PREFIX);
        let csrf_token = secret::random_alphanumeric(32);
        self.store()
            .create_session(SessionRecord {
                id_hash: secret::sha256_hex(token.expose()),
                user_id: login.user_id,
                csrf_token: csrf_token.clone(),
                created_at: now,
                expires_at: later(now, SESSION_SECONDS),
            })
            .await?;
        Ok(NewSession { token, csrf_token })
    }

    /// The live session behind a cookie value.
    pub async fn session(&self, token: &str) -> Result<Option<SessionInfo>> {
        if !token.starts_with(SESSION_PREFIX) {
            return Ok(None);
        }
        self.store()
            .find_session(&secret::sha256_hex(token), Timestamp::now())
            .await
    }

    /// Ends a session.
    pub async fn sign_out(&self, token: &str) -> Result<()> {
        self.store()
            .delete_session(&secret::sha256_hex(token))
            .await
    }

    /// The signed-in account's live API keys.
    pub async fn list_api_keys(&self, session: &SessionInfo) -> Result<Vec<ApiKeyInfo>> {
        self.store().list_api_keys(session.user_id).await
    }

    /// A new API key for the signed-in account, shown once.
    pub async fn create_api_key_for(&self, session: &SessionInfo, label: &str) -> Result<Secret> {
        let label = label.trim();
        if label.chars().count() > 100 {
            return Err(Error::invalid("the label must be at most 100 characters"));
        }
        self.create_api_key(&session.username, label).await
    }

    /// Revokes one of the signed-in account's keys; it answers 401 from now on.
    pub async fn revoke_api_key(&self, session: &SessionInfo, key_id: i64) -> Result<()> {
        if self
            .store()
            .revoke_api_key(session.user_id, key_id, Timestamp::now())
            .await?
        {
            Ok(())
        } else {
            Err(Error::not_found("no such API key"))
        }
    }

    // ---- OAuth: authorization endpoint ----------------------------------------------------

    /// The issuer identifier (RFC 8414, RFC 9207): the public URL.
    pub fn issuer(&self) -> &str {
        self.public_url()
    }

    /// Checks an authorization request. Unknown clients and redirect URIs are reported for
    /// an error page; everything else goes back to the client.
    pub async fn check_authorize(
        &self,
        p: &AuthorizeParams,
    ) -> std::result::Result<AuthorizeRequest, AuthorizeError> {
        let client_id = p
            .client_id
            .as_deref()
            .ok_or_else(|| AuthorizeError::Page("the request names no client_id".into()))?;
        let client = self
            .store()
            .find_oauth_client(client_id)
            .await
            .map_err(|e| AuthorizeError::Page(e.to_string()))?
            .ok_or_else(|| AuthorizeError::Page(format!("unknown client {client_id:?}")))?;
        let redirect_uri = match &p.redirect_uri {
            Some(uri) if redirect_uri_matches(&client.redirect_uris, uri) => uri.clone(),
            Some(uri) => {
                return Err(AuthorizeError::Page(format!(
                    "the redirect URI {uri:?} is not registered for this client"
                )));
            }
            None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
            None => {
                return Err(AuthorizeError::Page(
                    "the request needs a redirect_uri (the client registered several)".into(),
                ));
            }
        };
        let back = |error: OAuthError| AuthorizeError::Redirect {
            redirect_uri: redirect_uri.clone(),
            state: p.state.clone(),
            error,
        };
        if p.response_type.as_deref() != Some("code") {
            return Err(back(OAuthError::new(
                "unsupported_response_type",
                "only response_type=code is supported",
            )));
        }
        let scopes = parse_scope(p.scope.as_deref()).map_err(back)?;
        let resource = match &p.resource {
            None => Resource::Rest,
            Some(uri) => Resource::parse(uri, self.public_url()).ok_or_else(|| {
                back(OAuthError::new(
                    "invalid_target",
                    format!("unknown resource {uri:?}"),
                ))
            })?,
        };
        let code_challenge = match (&p.code_challenge, p.code_challenge_method.as_deref()) {
            (None, None) if client.secret_hash.is_some() => None,
            (None, _) => {
                return Err(back(OAuthError::new(
                    "invalid_request",
                    "PKCE is required: send code_challenge with code_challenge_method=S256",
                )));
            }
            (Some(c), Some("S256"))
                if c.len() == 43
                    && c.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
            {
                Some(c.clone())
            }
            (Some(_), Some("S256")) => {
                return Err(back(OAuthError::new(
                    "invalid_request",
                    "code_challenge must be a base64url SHA-256 (43 characters)",
                )));
            }
            (Some(_), _) => {
                return Err(back(OAuthError::new(
                    "invalid_request",
                    "only code_challenge_method=S256 is supported (plain is refused)",
                )));
            }
        };
        Ok(AuthorizeRequest {
            client_id: client.client_id,
            client_name: client.name,
            redirect_uri,
            scopes,
            state: p.state.clone(),
            code_challenge,
            resource,
        })
    }

    /// Issues a code for an approved request; returns it (shown once, in the redirect).
    pub async fn issue_code(&self, user_id: i64, req: &AuthorizeRequest) -> Result<Secret> {
        let code = new_secret(CODE_PREFIX);
        let now = Timestamp::now();
        self.store()
            .create_code(CodeRecord {
                code_hash: secret::sha256_hex(code.expose()),
                client_id: req.client_id.clone(),
                user_id,
                redirect_uri: req.redirect_uri.clone(),
                scope: scope_string(&req.scopes),
                resource: req.resource.uri(self.public_url()),
                code_challenge: req.code_challenge.clone(),
                created_at: now,
                expires_at: later(now, CODE_SECONDS),
            })
            .await?;
        Ok(code)
    }

    // ---- OAuth: token, revocation, registration -------------------------------------------

    /// Authenticates the client of a token or revocation request.
    pub async fn authenticate_client(
        &self,
        auth: &ClientAuth,
    ) -> std::result::Result<OAuthClientRecord, OAuthError> {
        let invalid = || OAuthError::new("invalid_client", "client authentication failed");
        let client = self
            .store()
            .find_oauth_client(&auth.client_id)
            .await?
            .ok_or_else(invalid)?;
        match (&client.secret_hash, &auth.secret) {
            (Some(hash), Some(given)) if secret::api_key_matches(given.expose(), hash) => {
                Ok(client)
            }
            (None, None) => Ok(client),
            _ => Err(invalid()),
        }
    }

    /// The `authorization_code` grant. The store reads and locks the code; [`code_verdict`]
    /// decides, and the store carries the decision out in the same transaction.
    pub async fn exchange_code(
        &self,
        auth: &ClientAuth,
        code: &str,
        redirect_uri: Option<&str>,
        verifier: Option<&str>,
    ) -> std::result::Result<TokenResponse, OAuthError> {
        let client = self.authenticate_client(auth).await?;
        let now = Timestamp::now();
        let (access, refresh, records) = token_pair(now, None);
        let request = CodeRequest {
            client_id: client.client_id.clone(),
            redirect_uri: redirect_uri.map(str::to_string),
            verifier: verifier.map(str::to_string),
        };
        let asked = request.clone();
        let state = self
            .store()
            .exchange_code(
                &secret::sha256_hex(code),
                now,
                Box::new(
                    move |state: &CodeState| match code_verdict(state, &asked, now) {
                        Ok(()) => TokenWrite::Issue(Box::new(records)),
                        Err(refusal) => refusal.write,
                    },
                ),
            )
            .await?
            .ok_or_else(|| OAuthError::new("invalid_grant", UNKNOWN_CODE))?;
        code_verdict(&state, &request, now).map_err(|r| r.error)?;
        Ok(TokenResponse {
            access_token: access,
            refresh_token: refresh,
            expires_in: ACCESS_TOKEN_SECONDS,
            scope: state.code.scope,
        })
    }

    /// The `refresh_token` grant: rotates the refresh token. The store reads and locks the
    /// token and its grant; [`refresh_verdict`] decides (client, reuse, expiry, scope), and
    /// the store carries the decision out in the same transaction. RFC 6749 §6: the request
    /// may ask for the grant's scope or a narrower one; the new access token then carries the
    /// narrower scope while the grant (and so the next refresh) keeps its own. A wider or
    /// unknown scope is `invalid_scope` and the presented refresh token stays valid.
    pub async fn refresh(
        &self,
        auth: &ClientAuth,
        refresh_token: &str,
        scope: Option<&str>,
    ) -> std::result::Result<TokenResponse, OAuthError> {
        let client = self.authenticate_client(auth).await?;
        let asked = match scope.filter(|s| !s.trim().is_empty()) {
            Some(raw) => Some(parse_scope(Some(raw))?),
            None => None,
        };
        let now = Timestamp::now();
        let (access, refresh, records) = token_pair(now, None);
        let request = RefreshRequest {
            client_id: client.client_id.clone(),
            scope: asked,
        };
        let asked = request.clone();
        let state = self
            .store()
            .rotate_refresh_token(
                &secret::sha256_hex(refresh_token),
                now,
                Box::new(
                    move |state: &RefreshState| match refresh_verdict(state, &asked, now) {
                        Ok(own_scope) => {
                            let mut records = records;
                            records[0].scope = own_scope;
                            TokenWrite::Issue(Box::new(records))
                        }
                        Err(refusal) => refusal.write,
                    },
                ),
            )
            .await?
            .ok_or_else(|| OAuthError::new("invalid_grant", UNKNOWN_REFRESH))?;
        let own_scope = refresh_verdict(&state, &request, now).map_err(|r| r.error)?;
        Ok(TokenResponse {
            access_token: access,
            refresh_token: refresh,
            expires_in: ACCESS_TOKEN_SECONDS,
            scope: own_scope.unwrap_or(refreshed_scope(&state.grant.scope, None)?),
        })
    }

    /// RFC 7009: revokes a token of the authenticated client (unknown tokens are fine).
    pub async fn revoke(
        &self,
        auth: &ClientAuth,
        token: &str,
    ) -> std::result::Result<(), OAuthError> {
        let client = self.authenticate_client(auth).await?;
        self.store()
            .revoke_token(
                &secret::sha256_hex(token),
                &client.client_id,
                Timestamp::now(),
            )
            .await?;
        Ok(())
    }

    /// RFC 7591: registers a public client (no secret; PKCE required).
    pub async fn register_public_client(
        &self,
        name: &str,
        redirect_uris: &[String],
    ) -> std::result::Result<String, OAuthError> {
        let created = self
            .create_oauth_client(name, redirect_uris, true)
            .await
            .map_err(|e| OAuthError::new("invalid_client_metadata", e.to_string()))?;
        Ok(created.client_id)
    }

    /// Authenticates an OAuth access token for `resource`.
    pub(crate) async fn authenticate_access_token(
        &self,
        presented: &str,
        resource: Resource,
    ) -> Result<Caller> {
        let unauthorized =
            || Error::Unauthorized("invalid, expired or revoked access token".into());
        if !presented.starts_with(ACCESS_PREFIX) {
            return Err(unauthorized());
        }
        let token = self
            .store()
            .find_access_token(&secret::sha256_hex(presented), Timestamp::now())
            .await?
            .ok_or_else(unauthorized)?;
        if token.resource != resource.uri(self.public_url()) {
            return Err(Error::Unauthorized(
                "this access token is for another resource".into(),
            ));
        }
        let scopes = token
            .scope
            .split_whitespace()
            .filter_map(Scope::parse)
            .collect();
        Ok(Caller {
            user_id: token.user_id,
            username: token.username,
            team_id: token.team_id,
            credential: Credential::OAuth {
                token_id: token.token_id,
                scopes,
            },
        })
    }
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
