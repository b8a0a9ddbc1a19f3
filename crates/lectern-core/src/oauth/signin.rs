//! Web sign-in (with throttling after repeated failures), sessions, and the API-key page's
//! use cases.

use super::*;

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

/// `next` when a browser sent to it stays on this site: a path that starts with one `/`.
/// Browsers drop tabs and newlines from a URL and read `\` as `/`, so `/<tab>/evil.example`
/// and `/\evil.example` go to another host; a path with any control character, whitespace
/// or backslash is refused, as is one that starts with `//`. Percent escapes stay in the
/// path (`/%09/x` is the path `/%09/x`), so they are harmless.
pub fn same_origin_path(next: &str) -> Option<&str> {
    let bad_char = |c: char| c.is_control() || c.is_whitespace() || c == '\\';
    let ok = next.starts_with('/') && !next.starts_with("//") && !next.chars().any(bad_char);
    ok.then_some(next)
}

/// A fixed argon2 hash to verify against when the username is unknown, so both cases cost
/// the same time.
pub(crate) fn dummy_password_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| {
        secret::hash_password(&Secret::new("not a real password"))
            .expect("hashing a constant password works")
    })
}

impl Lectern {
    /// Checks a username and password from a client at `address` and opens a session.
    ///
    /// Before any password is checked, the try is counted twice, each count one store
    /// operation, so parallel tries cannot all pass: against the address (at most
    /// [`GuessLimits::login_per_address`](crate::guard::GuessLimits) a window, any account)
    /// and as a failure of the account from that address, which five failures in a row make
    /// wait (30 s, doubling, at most 15 minutes; [`crate::guard::login_wait`]). The right
    /// password forgets the failures. A stranger's failures lock the stranger's address out,
    /// never the owner's. The password is checked on the password threads
    /// ([`secret::verify_password_async`]).
    pub async fn sign_in(
        &self,
        username: &str,
        password: &Secret,
        address: std::net::IpAddr,
    ) -> std::result::Result<NewSession, SignInError> {
        let now = Timestamp::now();
        let address = crate::guard::address_key(address);
        let limits = self.guess_limits();
        if let Err(refused) = self
            .count_try(
                &format!("login:{address}"),
                limits.login_per_address,
                limits.login_window,
            )
            .await?
        {
            return Err(SignInError::Throttled {
                retry_after: refused.retry_after,
            });
        }
        let Some(login) = self.store().find_login(username).await? else {
            let password = password.clone();
            // Unknown and known names cost the same time.
            let _ = secret::on_password_thread(move || {
                secret::verify_password(&password, dummy_password_hash())
            })
            .await;
            return Err(SignInError::Invalid);
        };
        let decide = Box::new(move |f: crate::store::LoginFailures| {
            crate::guard::login_wait(f.failures, f.last_failed_at, now)
        });
        if let Some(retry_after) = self
            .store()
            .reserve_login(login.user_id, &address, now, decide)
            .await?
        {
            return Err(SignInError::Throttled { retry_after });
        }
        let ok = match login.password_hash.as_deref() {
            Some(h) => secret::verify_password_async(password, h).await,
            None => false,
        };
        if !ok {
            return Err(SignInError::Invalid);
        }
        self.store()
            .clear_login_failures(login.user_id, &address)
            .await?;
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

    /// The caller a signed-in person acts as in the browser (web pages, the editor): the
    /// session's account with every scope; the deck history names it `via: web`. The web
    /// adapter checks the form's CSRF token before it calls a write with it.
    pub fn web_caller(&self, session: &SessionInfo) -> crate::auth::Caller {
        crate::auth::Caller {
            user_id: session.user_id,
            username: session.username.clone(),
            team_id: session.team_id,
            credential: crate::auth::Credential::Session,
            channel: crate::auth::Channel::Rest,
        }
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
}

#[cfg(test)]
mod tests {
    use super::same_origin_path;

    #[test]
    fn only_paths_that_stay_on_the_site_are_followed_after_sign_in() {
        for good in [
            "/",
            "/users/api",
            "/oauth/authorize?client_id=x&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb",
            "/%09/evil.example",
            "/%5Cevil.example",
            "/%2F%2Fevil.example",
            "/a//b",
            "/a/b?next=//evil.example",
            "/ann/deck-1#slide-2",
        ] {
            assert_eq!(same_origin_path(good), Some(good), "{good:?}");
        }
        for bad in [
            "",
            "//evil.example",
            "///evil.example",
            "/\\evil.example",
            "\\\\evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r/evil.example",
            "\t//evil.example",
            "/\u{0}/evil.example",
            "/\u{7f}/evil.example",
            "/ /evil.example",
            "/\u{a0}/evil.example",
            "/\u{3000}/evil.example",
            "/a\\b",
            "/ok\n",
            "https://evil.example",
            "http:/evil.example",
            "//evil.example/%2F",
            "javascript:alert(1)",
            "JAVASCRIPT:alert(1)",
            "data:text/html,x",
            "evil.example",
            "./x",
            "?next=/",
        ] {
            assert_eq!(same_origin_path(bad), None, "{bad:?}");
        }
    }
}
