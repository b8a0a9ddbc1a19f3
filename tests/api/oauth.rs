//! OAuth 2.0 as a browser and a client drive it: a cookie-keeping HTTP client signs in
//! through the forms and approves; the `oauth2` crate exchanges the code with PKCE and
//! refreshes. Also the API-key page, sign-in throttling and CSRF.

use std::collections::HashMap;

use oauth2::basic::BasicClient;
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, Scope as OScope, TokenResponse, TokenUrl,
};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::{TestApp, TestUser};

const PASSWORD: &str = "a long password";

/// A browser: keeps cookies, does not follow redirects.
fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The `oauth2` crate's HTTP client, over reqwest.
async fn http(req: oauth2::HttpRequest) -> Result<oauth2::HttpResponse, reqwest::Error> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let (parts, body) = req.into_parts();
    let mut r = client
        .request(parts.method, parts.uri.to_string())
        .body(body);
    for (k, v) in &parts.headers {
        r = r.header(k, v);
    }
    let resp = r.send().await?;
    let mut out = oauth2::http::Response::builder().status(resp.status());
    for (k, v) in resp.headers() {
        out = out.header(k, v);
    }
    Ok(out.body(resp.bytes().await?.to_vec()).unwrap())
}

fn hidden_fields(html: &str) -> Vec<(String, String)> {
    html.split("<input type=\"hidden\" ")
        .skip(1)
        .map(|chunk| {
            let attr = |name: &str| {
                let start = chunk.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
                let end = start + chunk[start..].find('"').unwrap();
                chunk[start..end]
                    .replace("&amp;", "&")
                    .replace("&quot;", "\"")
                    .replace("&#39;", "'")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
            };
            (attr("name"), attr("value"))
        })
        .collect()
}

fn location(resp: &reqwest::Response) -> String {
    resp.headers()["location"].to_str().unwrap().to_string()
}

/// Signs `browser` in through the login form.
async fn sign_in(
    app: &TestApp,
    browser: &reqwest::Client,
    username: &str,
    password: &str,
) -> reqwest::Response {
    let form = browser
        .get(format!("{}/login", app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut fields = hidden_fields(&form);
    fields.push(("username".into(), username.into()));
    fields.push(("password".into(), password.into()));
    browser
        .post(format!("{}/login", app.base))
        .form(&fields)
        .send()
        .await
        .unwrap()
}

/// Opens the authorize URL, signs in if asked, and answers the consent page. Returns the
/// final redirect's query parameters.
async fn consent(
    app: &TestApp,
    browser: &reqwest::Client,
    url: &str,
    decision: &str,
) -> HashMap<String, String> {
    let mut resp = browser.get(url).send().await.unwrap();
    if resp.status() == StatusCode::SEE_OTHER && location(&resp).starts_with("/login") {
        let next: HashMap<String, String> =
            serde_urlencoded::from_str(location(&resp).split_once('?').unwrap().1).unwrap();
        let form = browser
            .get(format!("{}{}", app.base, location(&resp)))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let mut fields = hidden_fields(&form);
        fields.push(("username".into(), "alice".into()));
        fields.push(("password".into(), PASSWORD.into()));
        let signed_in = browser
            .post(format!("{}/login", app.base))
            .form(&fields)
            .send()
            .await
            .unwrap();
        assert_eq!(location(&signed_in), next["next"]);
        resp = browser
            .get(format!("{}{}", app.base, next["next"]))
            .send()
            .await
            .unwrap();
    }
    assert_eq!(resp.status(), StatusCode::OK, "the consent page shows");
    assert_eq!(resp.headers()["referrer-policy"], "no-referrer");
    assert!(
        resp.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    let page = resp.text().await.unwrap();
    assert!(
        page.contains("127.0.0.1"),
        "the consent page shows the redirect host"
    );
    let mut fields = hidden_fields(&page);
    fields.push(("decision".into(), decision.into()));
    let answer = browser
        .post(format!("{}/oauth/authorize", app.base))
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::SEE_OTHER);
    let loc = location(&answer);
    assert!(loc.starts_with("http://127.0.0.1:"), "{loc}");
    serde_urlencoded::from_str(loc.split_once('?').unwrap().1).unwrap()
}

type Client = oauth2::Client<
    oauth2::basic::BasicErrorResponse,
    oauth2::basic::BasicTokenResponse,
    oauth2::basic::BasicTokenIntrospectionResponse,
    oauth2::StandardRevocableToken,
    oauth2::basic::BasicRevocationErrorResponse,
    oauth2::EndpointSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
>;

struct Setup {
    app: TestApp,
    alice: TestUser,
    client: Client,
    redirect: String,
}

/// A server, the account alice (password set) and a public client registered through
/// `/oauth/register` with a loopback redirect.
async fn setup() -> Setup {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let reg = reqwest::Client::new()
        .post(format!("{}/oauth/register", app.base))
        .json(&json!({"client_name": "Test CLI", "redirect_uris": ["http://127.0.0.1/callback"], "token_endpoint_auth_method": "none"}))
        .send()
        .await
        .unwrap();
    assert_eq!(reg.status(), StatusCode::CREATED);
    let reg: Value = reg.json().await.unwrap();
    // A loopback redirect may use any port (RFC 8252).
    let redirect = "http://127.0.0.1:49152/callback".to_string();
    let client = BasicClient::new(ClientId::new(reg["client_id"].as_str().unwrap().into()))
        .set_auth_uri(AuthUrl::new(format!("{}/oauth/authorize", app.base)).unwrap())
        .set_token_uri(TokenUrl::new(format!("{}/oauth/token", app.base)).unwrap())
        .set_redirect_uri(RedirectUrl::new(redirect.clone()).unwrap());
    Setup {
        app,
        alice,
        client,
        redirect,
    }
}

/// The whole flow for `scopes`; returns the token response.
async fn tokens(s: &Setup, scopes: &[&str]) -> oauth2::basic::BasicTokenResponse {
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut req = s
        .client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge);
    for scope in scopes {
        req = req.add_scope(OScope::new(scope.to_string()));
    }
    let (url, csrf) = req.url();
    let back = consent(&s.app, &browser(), url.as_str(), "approve").await;
    assert_eq!(&back["state"], csrf.secret());
    assert_eq!(back["iss"], s.app.base);
    s.client
        .exchange_code(AuthorizationCode::new(back["code"].clone()))
        .set_pkce_verifier(verifier)
        .request_async(&http)
        .await
        .expect("the code exchanges for tokens")
}

/// An access token for the account `alice` (created by the caller with the test password)
/// through the whole flow: a public client registered at `/oauth/register`, sign-in, consent,
/// and the code exchange with PKCE. `resource`: the RFC 8707 resource (None: the REST API).
pub(crate) async fn access_token(app: &TestApp, resource: Option<&str>, scopes: &[&str]) -> String {
    let reg: Value = reqwest::Client::new()
        .post(format!("{}/oauth/register", app.base))
        .json(&json!({"client_name": "MCP test", "redirect_uris": ["http://127.0.0.1/callback"], "token_endpoint_auth_method": "none"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let client = BasicClient::new(ClientId::new(reg["client_id"].as_str().unwrap().into()))
        .set_auth_uri(AuthUrl::new(format!("{}/oauth/authorize", app.base)).unwrap())
        .set_token_uri(TokenUrl::new(format!("{}/oauth/token", app.base)).unwrap())
        .set_redirect_uri(RedirectUrl::new("http://127.0.0.1:49152/callback".into()).unwrap());
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut req = client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge);
    for scope in scopes {
        req = req.add_scope(OScope::new(scope.to_string()));
    }
    if let Some(resource) = resource {
        req = req.add_extra_param("resource", resource.to_string());
    }
    let (url, _) = req.url();
    let code = consent(app, &browser(), url.as_str(), "approve").await["code"].clone();
    client
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .request_async(&http)
        .await
        .expect("the code exchanges for tokens")
        .access_token()
        .secret()
        .clone()
}

async fn status(
    app: &TestApp,
    method: Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> reqwest::Response {
    let mut r = reqwest::Client::new()
        .request(method, format!("{}{path}", app.base))
        .bearer_auth(token);
    if let Some(b) = body {
        r = r.json(&b);
    }
    r.send().await.unwrap()
}

#[tokio::test]
async fn read_tokens_read_and_manage_tokens_manage_in_every_group() {
    let s = setup().await;
    let deck = s.app.new_deck(&s.alice.key, "Mine").await;
    let read = tokens(&s, &["read"]).await;
    let manage = tokens(&s, &["manage"]).await;
    assert_eq!(read.scopes().unwrap()[0].as_str(), "read");
    let (r, m) = (read.access_token().secret(), manage.access_token().secret());

    // R operations: read suffices.
    for path in [
        "/v1/user".to_string(),
        "/v1/decks".to_string(),
        format!("/v1/decks/{deck}"),
        format!("/v1/decks/{deck}/slides"),
        // A read-only token may listen to a deck's events.
        format!("/v1/decks/{deck}/events"),
    ] {
        assert_eq!(
            status(&s.app, Method::GET, &path, r, None).await.status(),
            200,
            "{path}"
        );
        assert_eq!(
            status(&s.app, Method::GET, &path, m, None).await.status(),
            200,
            "manage implies read: {path}"
        );
    }
    // M operations: read is refused with 403 and an insufficient_scope challenge.
    let m_ops = [
        (Method::POST, "/v1/decks".to_string(), Some(json!({}))),
        (
            Method::PATCH,
            format!("/v1/decks/{deck}"),
            Some(json!({"title": "x"})),
        ),
        (Method::POST, format!("/v1/decks/{deck}/slides"), None),
    ];
    for (method, path, body) in m_ops.clone() {
        let resp = status(&s.app, method, &path, r, body).await;
        assert_eq!(resp.status(), 403, "{path}");
        assert!(
            resp.headers()["www-authenticate"]
                .to_str()
                .unwrap()
                .contains("insufficient_scope")
        );
        let err: Value = resp.json().await.unwrap();
        assert!(err["error"].as_str().unwrap().contains("manage"));
    }
    for (method, path, body) in m_ops {
        let resp = status(&s.app, method, &path, m, body).await;
        assert!(resp.status().is_success(), "{path}: {}", resp.status());
    }
}

/// The scope is known before the body is read: every manage operation answers a read-only
/// token 403 whatever its body (malformed, the wrong type, missing, or not JSON at all).
#[tokio::test]
async fn a_read_only_token_gets_403_on_every_manage_operation_whatever_the_body() {
    let s = setup().await;
    let deck = s.app.new_deck(&s.alice.key, "Mine").await;
    let read = tokens(&s, &["read"]).await;
    let token = read.access_token().secret();
    let m_ops = [
        (Method::POST, "/v1/decks".to_string()),
        (Method::PATCH, format!("/v1/decks/{deck}")),
        (Method::POST, format!("/v1/decks/{deck}/trash")),
        (Method::POST, format!("/v1/decks/{deck}/recover")),
        (Method::POST, format!("/v1/decks/{deck}/slides")),
        (Method::DELETE, format!("/v1/decks/{deck}/slides")),
        (Method::PATCH, format!("/v1/decks/{deck}/slides/s1")),
        (Method::PATCH, format!("/v1/decks/{deck}/slides/move")),
        (Method::POST, format!("/v1/decks/{deck}/share")),
        (Method::DELETE, format!("/v1/decks/{deck}/share/1")),
        (Method::POST, format!("/v1/decks/{deck}/exports")),
    ];
    let bodies: [(&str, &str); 4] = [
        ("application/json", "{not json"),
        ("application/json", "[1, 2]"),
        ("text/plain", "hello"),
        ("application/json", ""),
    ];
    for (method, path) in &m_ops {
        for (content_type, body) in bodies {
            let resp = reqwest::Client::new()
                .request(method.clone(), format!("{}{path}", s.app.base))
                .bearer_auth(token)
                .header("content-type", content_type)
                .body(body)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), 403, "{method} {path} with {body:?}");
            let err: Value = resp.json().await.unwrap();
            assert!(err["error"].as_str().unwrap().contains("manage"), "{err}");
        }
    }
    // A bad path id too.
    let resp = status(
        &s.app,
        Method::PATCH,
        "/v1/decks/abc",
        token,
        Some(json!({"title": 5})),
    )
    .await;
    assert_eq!(resp.status(), 403);
    // And nothing changed.
    let decks = s.app.list_decks(&s.alice.key, "").await;
    assert_eq!(decks.data().as_array().unwrap().len(), 1);
    assert_eq!(decks.data()[0]["title"], "Mine");
}

#[tokio::test]
async fn refresh_tokens_rotate_and_a_reused_one_revokes_the_grant() {
    let s = setup().await;
    let first = tokens(&s, &["read", "manage"]).await;
    let old_refresh = first.refresh_token().unwrap().clone();

    let second = s
        .client
        .exchange_refresh_token(&old_refresh)
        .request_async(&http)
        .await
        .expect("a refresh works");
    assert_ne!(
        second.refresh_token().unwrap().secret(),
        old_refresh.secret()
    );
    assert_eq!(
        status(
            &s.app,
            Method::GET,
            "/v1/user",
            second.access_token().secret(),
            None
        )
        .await
        .status(),
        200
    );

    let reuse = s
        .client
        .exchange_refresh_token(&old_refresh)
        .request_async(&http)
        .await;
    assert!(reuse.is_err(), "a used refresh token is refused");
    assert_eq!(
        status(
            &s.app,
            Method::GET,
            "/v1/user",
            second.access_token().secret(),
            None
        )
        .await
        .status(),
        401
    );
    let next = s
        .client
        .exchange_refresh_token(second.refresh_token().unwrap())
        .request_async(&http)
        .await;
    assert!(next.is_err(), "the whole grant is revoked");
}

/// RFC 6749 §6: a refresh may narrow the scope for its access token (the grant keeps its
/// own); a wider or unknown scope is refused before anything changes, so the presented
/// refresh token still works.
#[tokio::test]
async fn a_refresh_may_narrow_the_scope_and_a_refused_scope_costs_nothing() {
    let s = setup().await;
    let deck = s.app.new_deck(&s.alice.key, "Mine").await;
    let first = tokens(&s, &["read", "manage"]).await;

    let narrow = s
        .client
        .exchange_refresh_token(first.refresh_token().unwrap())
        .add_scope(OScope::new("read".into()))
        .request_async(&http)
        .await
        .expect("a narrower scope is allowed");
    let narrow_token = narrow.access_token().secret();
    let get = status(
        &s.app,
        Method::GET,
        &format!("/v1/decks/{deck}"),
        narrow_token,
        None,
    )
    .await;
    let patch = status(
        &s.app,
        Method::PATCH,
        &format!("/v1/decks/{deck}"),
        narrow_token,
        Some(json!({"title": "x"})),
    )
    .await;
    let full = s
        .client
        .exchange_refresh_token(narrow.refresh_token().unwrap())
        .request_async(&http)
        .await
        .expect("a refresh without scope");

    assert_eq!(narrow.scopes().unwrap().len(), 1);
    assert_eq!(narrow.scopes().unwrap()[0].as_str(), "read");
    assert_eq!(get.status(), 200);
    assert_eq!(patch.status(), 403, "the narrowed token cannot manage");
    let full_scopes: Vec<&str> = full.scopes().unwrap().iter().map(|s| s.as_str()).collect();
    assert_eq!(full_scopes, ["manage", "read"], "the grant keeps its scope");
    assert_eq!(
        status(
            &s.app,
            Method::PATCH,
            &format!("/v1/decks/{deck}"),
            full.access_token().secret(),
            Some(json!({"title": "y"})),
        )
        .await
        .status(),
        200
    );

    // A scope the grant lacks, and an unknown one: invalid_scope, and the token stays valid.
    let read_only = tokens(&s, &["read"]).await;
    let refresh = read_only.refresh_token().unwrap();
    for asked in ["manage", "admin"] {
        let refused = reqwest::Client::new()
            .post(format!("{}/oauth/token", s.app.base))
            .form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh.secret().as_str()),
                ("client_id", s.client.client_id().as_str()),
                ("scope", asked),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 400, "{asked}");
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["error"], "invalid_scope", "{asked}");
    }
    let again = s
        .client
        .exchange_refresh_token(refresh)
        .request_async(&http)
        .await
        .expect("the refresh token survived the refused requests");
    assert_eq!(again.scopes().unwrap()[0].as_str(), "read");
    let reuse = s
        .client
        .exchange_refresh_token(refresh)
        .request_async(&http)
        .await;
    assert!(reuse.is_err(), "and it works once only");
}

#[tokio::test]
async fn codes_are_single_use_and_bound_to_the_verifier() {
    let s = setup().await;
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, _) = s
        .client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .url();
    let code = consent(&s.app, &browser(), url.as_str(), "approve").await["code"].clone();
    let (challenge2, _) = PkceCodeChallenge::new_random_sha256();
    let (url2, _) = s
        .client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge2)
        .url();
    let code2 = consent(&s.app, &browser(), url2.as_str(), "approve").await["code"].clone();

    // Wrong verifier.
    let wrong = PkceCodeVerifier::new("x".repeat(43));
    let err = s
        .client
        .exchange_code(AuthorizationCode::new(code2.clone()))
        .set_pkce_verifier(wrong)
        .request_async(&http)
        .await;
    assert!(format!("{err:?}").contains("invalid_grant"), "{err:?}");
    // No verifier at all for a code bound to a challenge.
    let raw = reqwest::Client::new()
        .post(format!("{}/oauth/token", s.app.base))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code2.as_str()),
            ("redirect_uri", s.redirect.as_str()),
            ("client_id", s.client.client_id().as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 400);
    assert_eq!(raw.headers()["cache-control"], "no-store");

    // First use works; the second fails and revokes what the first issued.
    let first = s
        .client
        .exchange_code(AuthorizationCode::new(code.clone()))
        .set_pkce_verifier(PkceCodeVerifier::new(verifier.secret().clone()))
        .request_async(&http)
        .await
        .unwrap();
    let token = first.access_token().secret().clone();
    assert_eq!(
        status(&s.app, Method::GET, "/v1/user", &token, None)
            .await
            .status(),
        200
    );
    let again = s
        .client
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .request_async(&http)
        .await;
    assert!(format!("{again:?}").contains("invalid_grant"));
    assert_eq!(
        status(&s.app, Method::GET, "/v1/user", &token, None)
            .await
            .status(),
        401
    );
}

#[tokio::test]
async fn bad_authorization_requests() {
    let s = setup().await;
    let b = browser();
    sign_in(&s.app, &b, "alice", PASSWORD).await;
    let client_id = s.client.client_id().as_str();
    let authorize = |extra: &str| {
        format!(
            "{}/oauth/authorize?response_type=code&client_id={client_id}&state=xyz{extra}",
            s.app.base
        )
    };
    let challenge = PkceCodeChallenge::new_random_sha256().0;
    let pkce = format!(
        "&code_challenge={}&code_challenge_method=S256",
        challenge.as_str()
    );

    // Unknown client and unregistered redirect URI: an error page, never a redirect.
    let unknown = b.get(format!("{}/oauth/authorize?response_type=code&client_id=nope&redirect_uri=http://127.0.0.1/callback", s.app.base)).send().await.unwrap();
    assert_eq!(unknown.status(), 400);
    assert!(unknown.headers().get("location").is_none());
    let mismatch = b
        .get(authorize(&format!(
            "&redirect_uri=https://evil.example/callback{pkce}"
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(mismatch.status(), 400);
    assert!(mismatch.headers().get("location").is_none());

    // Redirect errors carry error, state and iss.
    let redirect = "&redirect_uri=http://127.0.0.1:5555/callback";
    for (extra, error) in [
        (
            format!(
                "{redirect}&code_challenge={}&code_challenge_method=plain",
                challenge.as_str()
            ),
            "invalid_request",
        ),
        (redirect.to_string(), "invalid_request"),
        (format!("{redirect}{pkce}&scope=admin"), "invalid_scope"),
        (
            format!("{redirect}{pkce}&resource=https://other.example/api"),
            "invalid_target",
        ),
    ] {
        let resp = b.get(authorize(&extra)).send().await.unwrap();
        assert_eq!(resp.status(), 303, "{extra}");
        let q: HashMap<String, String> =
            serde_urlencoded::from_str(location(&resp).split_once('?').unwrap().1).unwrap();
        assert_eq!(q["error"], error, "{extra}");
        assert_eq!(q["state"], "xyz");
        assert_eq!(q["iss"], s.app.base);
    }

    // Deny.
    let (url, csrf) = s
        .client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(PkceCodeChallenge::new_random_sha256().0)
        .url();
    let denied = consent(&s.app, &b, url.as_str(), "deny").await;
    assert_eq!(denied["error"], "access_denied");
    assert_eq!(&denied["state"], csrf.secret());
}

#[tokio::test]
async fn redirect_uris_with_user_information_are_refused_at_authorize_token_and_register() {
    let s = setup().await;
    let b = browser();
    sign_in(&s.app, &b, "alice", PASSWORD).await;
    let client_id = s.client.client_id().as_str();
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let evil = [
        "http://127.0.0.1:9000@evil.example/callback",
        "http://127.0.0.1@evil.example/callback",
        "http://x:y@127.0.0.1:9000/callback",
        "http://127.0.0.1:9000/callback#@evil.example",
    ];
    for uri in evil {
        let query = serde_urlencoded::to_string([
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", uri),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ])
        .unwrap();
        let resp = b
            .get(format!("{}/oauth/authorize?{query}", s.app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 400, "{uri}");
        assert!(resp.headers().get("location").is_none(), "{uri}");
        let page = resp.text().await.unwrap();
        assert!(!page.contains("name=\"decision\""), "no consent for {uri}");
    }

    // A code issued for the registered redirect cannot be exchanged naming another one.
    let (url, _) = s
        .client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .url();
    let back = consent(&s.app, &b, url.as_str(), "approve").await;
    let token = reqwest::Client::new()
        .post(format!("{}/oauth/token", s.app.base))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", back["code"].as_str()),
            ("client_id", client_id),
            (
                "redirect_uri",
                "http://127.0.0.1:49152@evil.example/callback",
            ),
            ("code_verifier", verifier.secret().as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(token.status(), 400);
    let body: Value = token.json().await.unwrap();
    assert_eq!(body["error"], "invalid_grant");

    // Registration refuses such URIs outright.
    for uri in evil {
        let reg = reqwest::Client::new()
            .post(format!("{}/oauth/register", s.app.base))
            .json(&json!({"client_name": "x", "redirect_uris": [uri], "token_endpoint_auth_method": "none"}))
            .send()
            .await
            .unwrap();
        assert_eq!(reg.status(), 400, "{uri}");
    }
}

#[tokio::test]
async fn a_confidential_client_authenticates_with_basic_and_tokens_expire() {
    let s = setup().await;
    let made = s
        .app
        .core
        .admin()
        .create_oauth_client("Server app", &["http://127.0.0.1/cb".to_string()], false)
        .await
        .unwrap();
    let client = BasicClient::new(ClientId::new(made.client_id.clone()))
        .set_client_secret(ClientSecret::new(
            made.client_secret.as_ref().unwrap().expose().to_string(),
        ))
        .set_auth_uri(AuthUrl::new(format!("{}/oauth/authorize", s.app.base)).unwrap())
        .set_token_uri(TokenUrl::new(format!("{}/oauth/token", s.app.base)).unwrap())
        .set_redirect_uri(RedirectUrl::new("http://127.0.0.1:9/cb".into()).unwrap());
    let (url, _) = client
        .authorize_url(CsrfToken::new_random)
        .add_scope(OScope::new("read".into()))
        .url();
    let code = consent(&s.app, &browser(), url.as_str(), "approve").await["code"].clone();

    let bad_secret = BasicClient::new(ClientId::new(made.client_id.clone()))
        .set_client_secret(ClientSecret::new("wrong".into()))
        .set_token_uri(TokenUrl::new(format!("{}/oauth/token", s.app.base)).unwrap())
        .set_redirect_uri(RedirectUrl::new("http://127.0.0.1:9/cb".into()).unwrap());
    let refused = bad_secret
        .exchange_code(AuthorizationCode::new("lac_whatever".into()))
        .request_async(&http)
        .await;
    assert!(
        format!("{refused:?}").contains("invalid_client"),
        "{refused:?}"
    );
    let t = client
        .exchange_code(AuthorizationCode::new(code))
        .request_async(&http)
        .await
        .expect("no PKCE needed for a confidential client");
    let access = t.access_token().secret().clone();
    assert_eq!(
        status(&s.app, Method::GET, "/v1/decks", &access, None)
            .await
            .status(),
        200
    );

    // Expired: move the token's expiry into the past in the database.
    expire_tokens(&s.app).await;
    let expired = status(&s.app, Method::GET, "/v1/decks", &access, None).await;
    assert_eq!(expired.status(), 401);
    assert!(
        expired.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer")
    );
}

async fn expire_tokens(app: &TestApp) {
    use sqlx::Connection;
    let sql = "UPDATE oauth_tokens SET expires_at = 0";
    if app.database_url.starts_with("sqlite:") {
        let mut c = sqlx::SqliteConnection::connect(&app.database_url)
            .await
            .unwrap();
        sqlx::query(sql).execute(&mut c).await.unwrap();
    } else {
        let mut c = sqlx::PgConnection::connect(&app.database_url)
            .await
            .unwrap();
        sqlx::query(sql).execute(&mut c).await.unwrap();
    }
}

#[tokio::test]
async fn tokens_for_the_mcp_resource_are_refused_by_the_rest_api_and_revocation_works() {
    let s = setup().await;
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, _) = s
        .client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_extra_param("resource", format!("{}/mcp", s.app.base))
        .url();
    let code = consent(&s.app, &browser(), url.as_str(), "approve").await["code"].clone();
    let mcp = s
        .client
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .request_async(&http)
        .await
        .unwrap();
    assert_eq!(
        status(
            &s.app,
            Method::GET,
            "/v1/user",
            mcp.access_token().secret(),
            None
        )
        .await
        .status(),
        401
    );

    let rest = tokens(&s, &["read"]).await;
    let token = rest.access_token().secret().clone();
    let revoked = reqwest::Client::new()
        .post(format!("{}/oauth/revoke", s.app.base))
        .form(&[
            ("token", rest.refresh_token().unwrap().secret().as_str()),
            ("client_id", s.client.client_id().as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 200);
    assert_eq!(
        status(&s.app, Method::GET, "/v1/user", &token, None)
            .await
            .status(),
        401
    );
}

#[tokio::test]
async fn metadata_documents_describe_the_server() {
    let s = setup().await;
    let meta: Value = reqwest::get(format!(
        "{}/.well-known/oauth-authorization-server",
        s.app.base
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(meta["issuer"], s.app.base);
    assert_eq!(
        meta["token_endpoint"],
        format!("{}/oauth/token", s.app.base)
    );
    assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(meta["authorization_response_iss_parameter_supported"], true);
    let prm: Value = reqwest::get(format!(
        "{}/.well-known/oauth-protected-resource",
        s.app.base
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(prm["resource"], format!("{}/v1", s.app.base));
    assert_eq!(prm["authorization_servers"], json!([s.app.base]));
}

#[tokio::test]
async fn the_api_key_page_creates_and_revokes_keys() {
    let s = setup().await;
    let b = browser();
    assert_eq!(
        location(
            &b.get(format!("{}/users/api", s.app.base))
                .send()
                .await
                .unwrap()
        ),
        "/login?next=/users/api"
    );
    assert_eq!(sign_in(&s.app, &b, "alice", PASSWORD).await.status(), 303);
    let page = b
        .get(format!("{}/users/api", s.app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut fields: Vec<(String, String)> = hidden_fields(&page).into_iter().take(1).collect();
    fields.push(("label".into(), "laptop <b>".into()));

    // Create: the key is shown once.
    let created = b
        .post(format!("{}/users/api", s.app.base))
        .form(&fields)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let start = created.find("id=\"new-key\">").unwrap() + "id=\"new-key\">".len();
    let key = &created[start..start + created[start..].find('<').unwrap()];
    assert!(created.contains("laptop &lt;b&gt;"), "labels are escaped");
    assert_eq!(s.app.users_get(key).await.status.as_u16(), 200);
    let listed = b
        .get(format!("{}/users/api", s.app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!listed.contains(key), "the key is not shown again");
    assert!(listed.contains(&key[..11]), "its prefix is listed");

    // Revoke: 401 at once.
    let key_id = listed
        .split("action=\"/users/api/")
        .skip(1)
        .map(|c| c.split('/').next().unwrap().to_string())
        .max_by_key(|id| id.parse::<i64>().unwrap())
        .unwrap();
    let revoke = b
        .post(format!("{}/users/api/{key_id}/revoke", s.app.base))
        .form(&fields[..1])
        .send()
        .await
        .unwrap();
    assert_eq!(revoke.status(), 303);
    s.app.users_get(key).await.expect_error(401);
    s.app.users_get(&s.alice.key).await.expect(200);
}

#[tokio::test]
async fn forms_without_their_csrf_token_are_refused() {
    let s = setup().await;
    let b = browser();
    let no_csrf = b
        .post(format!("{}/login", s.app.base))
        .form(&[("username", "alice"), ("password", PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(no_csrf.status(), 403);
    sign_in(&s.app, &b, "alice", PASSWORD).await;
    let create = b
        .post(format!("{}/users/api", s.app.base))
        .form(&[("label", "x")])
        .send()
        .await
        .unwrap();
    assert_eq!(create.status(), 403);
    let consent = b
        .post(format!("{}/oauth/authorize", s.app.base))
        .form(&[
            ("decision", "approve"),
            ("client_id", s.client.client_id().as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(consent.status(), 403);
}

#[tokio::test]
async fn repeated_sign_in_failures_are_slowed_down() {
    let s = setup().await;
    let b = browser();
    for _ in 0..5 {
        assert_eq!(
            sign_in(&s.app, &b, "alice", "wrong password")
                .await
                .status(),
            401
        );
    }
    let throttled = sign_in(&s.app, &b, "alice", PASSWORD).await;
    assert_eq!(
        throttled.status(),
        429,
        "even the right password waits after five failures"
    );
    assert!(throttled.headers().contains_key("retry-after"));
    assert_eq!(sign_in(&s.app, &b, "nobody", PASSWORD).await.status(), 401);
}
