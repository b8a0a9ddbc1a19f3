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
