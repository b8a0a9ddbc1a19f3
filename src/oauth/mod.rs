//! The OAuth 2.0 authorization server's HTTP side: the authorization endpoint with its
//! consent page, the token, revocation and registration endpoints, and the metadata
//! documents. The rules live in `lectern_core::oauth`.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use lectern_core::auth::{Resource, Scope};
use lectern_core::oauth::register::RegisterError;
use lectern_core::oauth::{
    AuthorizeError, AuthorizeParams, AuthorizeRequest, ClientAuth, OAuthError, TokenResponse,
};
use lectern_core::secret::Secret;
use lectern_core::store::ClientOrigin;
use serde_json::{Value, json};

use crate::http::extract::ClientAddress;
use crate::http::session::MaybeSession;
use crate::state::AppState;
use crate::web::page::{error_page, escape, hidden, page, see_other};

fn params(map: &HashMap<String, String>) -> AuthorizeParams {
    let get = |k: &str| map.get(k).cloned();
    AuthorizeParams {
        response_type: get("response_type"),
        client_id: get("client_id"),
        redirect_uri: get("redirect_uri"),
        scope: get("scope"),
        state: get("state"),
        code_challenge: get("code_challenge"),
        code_challenge_method: get("code_challenge_method"),
        resource: get("resource"),
    }
}

/// `redirect_uri` with `pairs` added to its query.
fn with_query(redirect_uri: &str, pairs: &[(&str, &str)]) -> String {
    let encoded = serde_urlencoded::to_string(pairs).expect("string pairs always encode");
    let sep = if redirect_uri.contains('?') { '&' } else { '?' };
    format!("{redirect_uri}{sep}{encoded}")
}

fn redirect_error(
    state: &AppState,
    redirect_uri: &str,
    st: Option<&str>,
    error: &OAuthError,
) -> Response {
    let mut pairs = vec![
        ("error", error.error),
        ("error_description", error.description.as_str()),
    ];
    if let Some(s) = st {
        pairs.push(("state", s));
    }
    pairs.push(("iss", state.core.issuer()));
    see_other(&with_query(redirect_uri, &pairs))
}

fn authorize_failure(state: &AppState, err: AuthorizeError) -> Response {
    match err {
        AuthorizeError::Page(message) => error_page(StatusCode::BAD_REQUEST, &message),
        AuthorizeError::Redirect {
            redirect_uri,
            state: st,
            error,
        } => redirect_error(state, &redirect_uri, st.as_deref(), &error),
    }
}

fn scope_text(scope: Scope) -> &'static str {
    match scope {
        Scope::Read => "read: view the presentations you can access",
        Scope::Manage => "manage: view, create, edit, share and trash presentations",
    }
}

fn consent_page(
    req: &AuthorizeRequest,
    form: &HashMap<String, String>,
    csrf: &str,
    username: &str,
) -> Response {
    let mut fields = hidden("csrf_token", csrf);
    for key in [
        "response_type",
        "client_id",
        "redirect_uri",
        "scope",
        "state",
        "code_challenge",
        "code_challenge_method",
        "resource",
    ] {
        if let Some(v) = form.get(key) {
            fields.push_str(&hidden(key, v));
        }
    }
    let scopes: String = req
        .scopes
        .iter()
        .map(|s| format!("<li>{}</li>", escape(scope_text(*s))))
        .collect();
    // An administrator's client is named by the administrator; a registered one names
    // itself, so its name is quoted, marked unverified, and followed by a warning.
    let client = match req.client_origin {
        ClientOrigin::Admin => format!(
            "<strong class=\"client-verified\">{}</strong> (added by this server's administrator)",
            escape(&req.client_name)
        ),
        ClientOrigin::Registered => format!(
            "An <strong>unverified</strong> application calling itself \
             <q class=\"client-unverified\">{}</q>",
            escape(&req.client_name)
        ),
    };
    let warning = match req.client_origin {
        ClientOrigin::Admin => "",
        ClientOrigin::Registered => {
            "<p role=\"alert\">Lectern has not verified this application or its name: anyone \
             can register one under any name. Allow it only if you started this yourself \
             and trust the address below.</p>"
        }
    };
    let body = format!(
        "<p>Signed in as <strong>{}</strong>.</p>\
         <p>{client} wants access to your Lectern account:</p><ul>{scopes}</ul>{warning}\
         <p>After you answer you go back to <strong>{}</strong>.</p>\
         <form method=\"post\" action=\"/oauth/authorize\">{fields}\
         <button type=\"submit\" name=\"decision\" value=\"approve\">Allow</button> \
         <button type=\"submit\" name=\"decision\" value=\"deny\" class=\"secondary\">Deny</button></form>",
        escape(username),
        escape(&req.redirect_host()),
    );
    page(StatusCode::OK, "Authorize access", &body)
}

/// GET `/oauth/authorize`: checks the request, signs the user in if needed, asks consent.
pub async fn authorize(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    uri: axum::http::Uri,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let req = match state.core.check_authorize(&params(&query)).await {
        Ok(req) => req,
        Err(e) => return authorize_failure(&state, e),
    };
    let Some((_, info)) = session else {
        let here = uri
            .path_and_query()
            .map_or("/oauth/authorize", |p| p.as_str());
        return see_other(&format!(
            "/login?{}",
            serde_urlencoded::to_string([("next", here)]).expect("string pairs always encode")
        ));
    };
    consent_page(&req, &query, &info.csrf_token, &info.username)
}

/// POST `/oauth/authorize`: the consent form's answer.
pub async fn authorize_decision(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    let Some((_, info)) = session else {
        return see_other("/login");
    };
    if !crate::http::session::csrf_matches(&info, form.get("csrf_token").map(String::as_str)) {
        return crate::web::page::csrf_refused();
    }
    let req = match state.core.check_authorize(&params(&form)).await {
        Ok(req) => req,
        Err(e) => return authorize_failure(&state, e),
    };
    if form.get("decision").map(String::as_str) != Some("approve") {
        let denied = OAuthError::new("access_denied", "the user denied the request");
        return redirect_error(&state, &req.redirect_uri, req.state.as_deref(), &denied);
    }
    match state.core.issue_code(info.user_id, &req).await {
        Ok(code) => {
            let mut pairs = vec![("code", code.expose())];
            if let Some(s) = &req.state {
                pairs.push(("state", s));
            }
            pairs.push(("iss", state.core.issuer()));
            see_other(&with_query(&req.redirect_uri, &pairs))
        }
        Err(e) => {
            tracing::error!(error = %e, "issuing an authorization code failed");
            let err = OAuthError::new("server_error", "the code could not be issued");
            redirect_error(&state, &req.redirect_uri, req.state.as_deref(), &err)
        }
    }
}

/// An RFC 6749 5.2 error answer (`no-store`; 401 with a Basic challenge for a client that
/// failed Basic authentication).
fn oauth_error(error: OAuthError, basic: bool) -> Response {
    let status = match error.error {
        "invalid_client" => StatusCode::UNAUTHORIZED,
        "server_error" => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    };
    if error.error == "server_error" {
        tracing::error!(error = %error.description, "token endpoint fault");
    }
    let mut response = (
        status,
        Json(json!({"error": error.error, "error_description": error.description})),
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    if status == StatusCode::UNAUTHORIZED && basic {
        headers.insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"lectern\""),
        );
    }
    response
}

/// The client's credentials: HTTP Basic (`client_secret_basic`) or form fields
/// (`client_secret_post`, or `client_id` alone for a public client).
fn client_auth(
    headers: &HeaderMap,
    form: &HashMap<String, String>,
) -> Result<ClientAuth, OAuthError> {
    let invalid = || OAuthError::new("invalid_client", "client authentication failed");
    if let Some(value) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        let (scheme, rest) = value.split_once(' ').ok_or_else(invalid)?;
        if !scheme.eq_ignore_ascii_case("basic") {
            return Err(invalid());
        }
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(rest.trim())
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(invalid)?;
        let (id, secret) = decoded.split_once(':').ok_or_else(invalid)?;
        let decode = |s: &str| -> Result<String, OAuthError> {
            serde_urlencoded::from_str::<Vec<(String, String)>>(&format!("v={s}"))
                .ok()
                .and_then(|v| v.into_iter().next().map(|(_, v)| v))
                .ok_or_else(invalid)
        };
        return Ok(ClientAuth {
            client_id: decode(id)?,
            secret: Some(Secret::new(decode(secret)?)),
            basic: true,
        });
    }
    let client_id = form.get("client_id").cloned().ok_or_else(invalid)?;
    Ok(ClientAuth {
        client_id,
        secret: form.get("client_secret").map(|s| Secret::new(s.clone())),
        basic: false,
    })
}

fn token_success(t: TokenResponse) -> Response {
    let mut response = Json(json!({
        "access_token": t.access_token.expose(),
        "token_type": "Bearer",
        "expires_in": t.expires_in,
        "refresh_token": t.refresh_token.expose(),
        "scope": t.scope,
    }))
    .into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    response
}

/// POST `/oauth/token`: the `authorization_code` and `refresh_token` grants.
pub async fn token(
    State(state): State<AppState>,
    headers: HeaderMap,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    let auth = match client_auth(&headers, &form) {
        Ok(auth) => auth,
        Err(e) => return oauth_error(e, headers.contains_key(header::AUTHORIZATION)),
    };
    let get = |k: &str| form.get(k).map(String::as_str);
    let result = match get("grant_type") {
        Some("authorization_code") => match get("code") {
            Some(code) => {
                state
                    .core
                    .exchange_code(&auth, code, get("redirect_uri"), get("code_verifier"))
                    .await
            }
            None => Err(OAuthError::new("invalid_request", "code is required")),
        },
        Some("refresh_token") => match get("refresh_token") {
            Some(rt) => state.core.refresh(&auth, rt, get("scope")).await,
            None => Err(OAuthError::new(
                "invalid_request",
                "refresh_token is required",
            )),
        },
        Some(other) => Err(OAuthError::new(
            "unsupported_grant_type",
            format!("grant_type {other:?} is not supported"),
        )),
        None => Err(OAuthError::new("invalid_request", "grant_type is required")),
    };
    match result {
        Ok(t) => token_success(t),
        Err(e) => oauth_error(e, auth.basic),
    }
}

/// POST `/oauth/revoke` (RFC 7009): 200 whether or not the token was known.
pub async fn revoke(
    State(state): State<AppState>,
    headers: HeaderMap,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    let auth = match client_auth(&headers, &form) {
        Ok(auth) => auth,
        Err(e) => return oauth_error(e, headers.contains_key(header::AUTHORIZATION)),
    };
    let Some(token) = form.get("token") else {
        return oauth_error(
            OAuthError::new("invalid_request", "token is required"),
            auth.basic,
        );
    };
    match state.core.revoke(&auth, token).await {
        Ok(()) => StatusCode::OK.into_response(),
        Err(e) => oauth_error(e, auth.basic),
    }
}

/// POST `/oauth/register` (RFC 7591): registers a public client. Limited per client address
/// and in its sizes (`Lectern::register_public_client`): 400 `invalid_client_metadata` or
/// `invalid_redirect_uri`, 429 with `Retry-After`.
pub async fn register(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    body: axum::body::Body,
) -> Response {
    let no_store = |mut r: Response| {
        r.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        r
    };
    // One byte past the limit is enough to know the body is too large.
    let limit = lectern_core::oauth::register::MAX_REGISTRATION_BYTES + 1;
    let body = match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let e = OAuthError::new(
                "invalid_client_metadata",
                format!("the registration must be at most {} bytes", limit - 1),
            );
            return no_store(oauth_error(e, false));
        }
    };
    match state.core.register_public_client(&body, address).await {
        Err(RegisterError::Metadata(e)) => no_store(oauth_error(e, false)),
        Err(RegisterError::TooMany(refused)) => {
            let mut r = (
                StatusCode::TOO_MANY_REQUESTS,
                Json(json!({
                    "error": "too_many_requests",
                    "error_description": format!(
                        "too many registrations from this address; retry in {} s",
                        refused.retry_after
                    ),
                })),
            )
                .into_response();
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(refused.retry_after));
            no_store(r)
        }
        Ok(client) => {
            let mut r = (
                StatusCode::CREATED,
                Json(json!({
                    "client_id": client.client_id,
                    "client_id_issued_at": lectern_core::time::Timestamp::now().unix_micros() / 1_000_000,
                    "client_name": client.client_name,
                    "redirect_uris": client.redirect_uris,
                    "token_endpoint_auth_method": "none",
                    "grant_types": ["authorization_code", "refresh_token"],
                    "response_types": ["code"],
                })),
            )
                .into_response();
            r.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            r
        }
    }
}

/// GET `/.well-known/oauth-authorization-server` (RFC 8414).
pub async fn server_metadata(State(state): State<AppState>) -> Json<Value> {
    let base = state.core.public_url();
    Json(json!({
        "issuer": state.core.issuer(),
        "authorization_endpoint": format!("{base}/oauth/authorize"),
        "token_endpoint": format!("{base}/oauth/token"),
        "revocation_endpoint": format!("{base}/oauth/revoke"),
        "registration_endpoint": format!("{base}/oauth/register"),
        "scopes_supported": ["read", "manage"],
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "authorization_response_iss_parameter_supported": true,
    }))
}

/// GET `/.well-known/oauth-protected-resource` (RFC 9728), for the REST API.
pub async fn resource_metadata(State(state): State<AppState>) -> Json<Value> {
    let base = state.core.public_url();
    Json(json!({
        "resource": Resource::Rest.uri(base),
        "authorization_servers": [state.core.issuer()],
        "scopes_supported": ["read", "manage"],
        "bearer_methods_supported": ["header"],
    }))
}
