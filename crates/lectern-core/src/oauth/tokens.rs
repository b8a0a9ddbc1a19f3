//! The token endpoint: the code exchange and refresh rules (decided here, carried out by the
//! store), revocation, client authentication, dynamic registration, and access tokens.

use super::*;

/// A new access and refresh token and their records; `access_scope` is the access token's own
/// scope when it is narrower than the grant's.
pub(crate) fn token_pair(
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

pub(crate) const UNKNOWN_CODE: &str = "unknown or expired authorization code";
pub(crate) const UNKNOWN_REFRESH: &str = "unknown, expired or revoked refresh token";

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

pub(crate) fn refuse(write: TokenWrite, error: &'static str, description: &str) -> Refusal {
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

    /// RFC 7591: registers a public client (no secret; PKCE required) for a client at
    /// `address`: at most [`GuessLimits::register_per_address`](crate::guard::GuessLimits)
    /// a window (counted before anything is stored), with the metadata's sizes bounded
    /// ([`super::register::Registration::parse`]). The client is stored as
    /// [`ClientOrigin::Registered`]: its name is only what it says of itself.
    pub async fn register_public_client(
        &self,
        body: &[u8],
        address: std::net::IpAddr,
    ) -> std::result::Result<super::register::Registered, super::register::RegisterError> {
        use super::register::{RegisterError, Registered, Registration};
        let registration = Registration::parse(body).map_err(RegisterError::Metadata)?;
        let limits = self.guess_limits();
        let key = format!("register:{}", crate::guard::address_key(address));
        self.count_try(&key, limits.register_per_address, limits.register_window)
            .await
            .map_err(|e| RegisterError::Metadata(e.into()))?
            .map_err(RegisterError::TooMany)?;
        let created = self
            .create_oauth_client(
                &registration.client_name,
                &registration.redirect_uris,
                true,
                ClientOrigin::Registered,
            )
            .await
            .map_err(|e| {
                RegisterError::Metadata(OAuthError::new("invalid_client_metadata", e.to_string()))
            })?;
        Ok(Registered {
            client_id: created.client_id,
            client_name: registration.client_name,
            redirect_uris: registration.redirect_uris,
        })
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
                grant_id: token.grant_id,
                client: token.client_name,
                scopes,
            },
            channel: Default::default(),
        })
    }
}
