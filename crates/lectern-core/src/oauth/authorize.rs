//! The authorization endpoint: checking an authorization request and issuing its code.

use super::*;

impl Lectern {
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
            client_origin: client.origin,
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
}
