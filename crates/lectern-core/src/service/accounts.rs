//! Accounts and credentials: bearer authentication, `users_get`, creating accounts and
//! teams (admin), API keys by username, OAuth clients, the first start, and the rules for
//! usernames.

use super::*;

/// Usernames that would collide with the service's own paths: deck URLs are
/// `/{username}/{slug}` and profiles `/{username}`, so every first path segment the router
/// serves is reserved (a test in the router checks that none is missing), and so are a few
/// the service keeps for itself.
pub const RESERVED_USERNAMES: &[&str] = &[
    // Served by the router today.
    "v1",
    "oauth",
    "login",
    "logout",
    "users",
    "mcp",
    "healthz",
    "metrics",
    "assets",
    "s",
    "teams",
    "exports",
    "thumbnails",
    "media",
    // Kept for the service's own pages.
    "static",
    "api",
    "share",
    "team",
    "docs",
    "web",
    "new",
    "edit",
    "settings",
    "account",
    "help",
    "about",
    "home",
    "decks",
    "u",
];

/// A new account for `admin create-user`.
#[derive(Debug)]
pub struct NewUser {
    pub username: String,
    pub email: String,
    pub name: Option<String>,
    pub password: Option<Secret>,
    /// The team to join (created when missing): its slug.
    pub team: Option<String>,
}

/// What the first start prints once.
#[derive(Debug)]
pub struct Bootstrap {
    pub username: String,
    pub password: Secret,
    pub api_key: Secret,
}

/// A new OAuth client and, for a confidential one, its secret (shown once).
#[derive(Debug)]
pub struct CreatedOAuthClient {
    pub client_id: String,
    pub client_secret: Option<Secret>,
}

impl Lectern {
    /// Turns a bearer credential for the REST API into a caller, or 401.
    pub async fn authenticate_bearer(&self, presented: &str) -> Result<Caller> {
        self.authenticate_bearer_for(presented, crate::auth::Resource::Rest)
            .await
    }

    /// Turns a bearer credential into a caller of `resource`, or 401: an API key (good for
    /// every resource) or an OAuth access token issued for `resource` (RFC 8707 audience).
    pub async fn authenticate_bearer_for(
        &self,
        presented: &str,
        resource: crate::auth::Resource,
    ) -> Result<Caller> {
        if presented.starts_with("lat_") {
            return self.authenticate_access_token(presented, resource).await;
        }
        let unauthorized = || Error::Unauthorized("invalid API key or access token".into());
        let lookup = secret::api_key_lookup(presented).ok_or_else(unauthorized)?;
        let key = self
            .store
            .find_api_key(lookup)
            .await?
            .ok_or_else(unauthorized)?;
        if !secret::api_key_matches(presented, &key.hash) {
            return Err(unauthorized());
        }
        let now = Timestamp::now();
        let stale = key
            .last_used_at
            .is_none_or(|t| now.unix_micros() - t.unix_micros() >= KEY_TOUCH_INTERVAL_MICROS);
        if stale {
            self.store.touch_api_key(key.id, now).await?;
        }
        Ok(Caller {
            user_id: key.user_id,
            username: key.username,
            team_id: key.team_id,
            credential: Credential::ApiKey {
                key_id: key.id,
                label: key.label,
            },
            channel: Default::default(),
        })
    }

    /// `users_get` (4.2).
    pub async fn users_get(&self, caller: &Caller) -> Result<UserView> {
        caller.require(Scope::Read)?;
        let user = self
            .store
            .get_user(caller.user_id)
            .await?
            .ok_or_else(|| Error::Unauthorized("the account no longer exists".into()))?;
        let team = match user.team_id {
            Some(id) => self.store.get_team(id).await?,
            None => None,
        };
        Ok(self.user_view(user, team))
    }

    pub(crate) fn user_view(&self, user: UserRecord, team: Option<TeamRecord>) -> UserView {
        UserView {
            id: user.id,
            profile_url: format!("{}/{}", self.public_url, user.username),
            username: user.username,
            name: user.name,
            email: user.email,
            description: user.description,
            thumbnail_url: String::new(),
            website_url: user.website_url,
            twitter_handle: user.twitter_handle,
            account: AccountView {
                kind: if user.team_id.is_some() {
                    "team"
                } else {
                    "personal"
                }
                .into(),
                billing_period: "none".into(),
            },
            team: team.map(|t| TeamView {
                url: self.team_url(&t.slug),
                id: t.id,
                name: t.name,
                slug: t.slug,
            }),
            created_at: user.created_at,
            updated_at: user.updated_at,
        }
    }

    /// `admin create-user`: validates and stores an account, returning its id.
    pub(crate) async fn create_user(&self, new: NewUser) -> Result<i64> {
        validate_username(&new.username)?;
        let email = new.email.trim();
        if email.is_empty()
            || !email.contains('@')
            || email.chars().any(char::is_whitespace)
            || email.len() > 254
        {
            return Err(Error::invalid(format!(
                "{:?} is not an email address",
                new.email
            )));
        }
        let password_hash = match &new.password {
            Some(pw) if pw.expose().chars().count() < 8 => {
                return Err(Error::invalid("password must be at least 8 characters"));
            }
            Some(pw) => Some(secret::hash_password_async(pw).await?),
            None => None,
        };
        let team_id = match &new.team {
            Some(slug) => Some(self.team_for_slug(slug).await?.id),
            None => None,
        };
        self.store
            .create_user(NewUserRecord {
                name: new.name.unwrap_or_else(|| new.username.clone()),
                username: new.username,
                email: email.to_string(),
                password_hash,
                team_id,
                created_at: Timestamp::now(),
            })
            .await
    }

    /// The team with this slug, created (named after the slug) when missing.
    pub(crate) async fn team_for_slug(&self, slug: &str) -> Result<TeamRecord> {
        validate_slug_name("team", slug)?;
        self.store
            .find_or_create_team(slug, slug, Timestamp::now())
            .await
    }

    /// `admin add-to-team`: moves the account into the team (created when missing).
    pub(crate) async fn add_to_team(&self, username: &str, team_slug: &str) -> Result<()> {
        let user = self.user_named(username).await?;
        let team = self.team_for_slug(team_slug).await?;
        self.store
            .set_user_team(user.id, Some(team.id), Timestamp::now())
            .await?;
        Ok(())
    }

    /// `admin remove-from-team`: the account leaves its team; it loses access at once.
    pub(crate) async fn remove_from_team(&self, username: &str) -> Result<()> {
        let user = self.user_named(username).await?;
        if user.team_id.is_none() {
            return Err(Error::invalid(format!("{username:?} is not in a team")));
        }
        self.store
            .set_user_team(user.id, None, Timestamp::now())
            .await?;
        Ok(())
    }

    pub(crate) async fn user_named(&self, username: &str) -> Result<UserRecord> {
        self.store
            .find_user_by_username(username)
            .await?
            .ok_or_else(|| Error::not_found(format!("no account named {username:?}")))
    }

    pub(crate) fn team_url(&self, team_slug: &str) -> String {
        format!("{}/teams/{team_slug}", self.public_url)
    }

    /// `admin create-api-key`: a new key for the account, shown only this once.
    pub(crate) async fn create_api_key(&self, username: &str, label: &str) -> Result<Secret> {
        let user = self
            .store
            .find_user_by_username(username)
            .await?
            .ok_or_else(|| Error::not_found(format!("no account named {username:?}")))?;
        self.issue_api_key(user.id, label).await
    }

    pub(crate) async fn issue_api_key(&self, user_id: i64, label: &str) -> Result<Secret> {
        let key = NewApiKey::generate();
        self.store
            .create_api_key(NewApiKeyRecord {
                user_id,
                label: label.to_string(),
                lookup: key.lookup,
                hash: key.hash,
                created_at: Timestamp::now(),
            })
            .await?;
        Ok(key.key)
    }

    /// `admin create-oauth-client`: stores a client; a confidential one gets a secret.
    pub(crate) async fn create_oauth_client(
        &self,
        name: &str,
        redirect_uris: &[String],
        public: bool,
        origin: ClientOrigin,
    ) -> Result<CreatedOAuthClient> {
        if name.trim().is_empty() {
            return Err(Error::invalid("the client needs a name"));
        }
        if redirect_uris.is_empty() {
            return Err(Error::invalid("the client needs at least one redirect URI"));
        }
        for uri in redirect_uris {
            crate::oauth::RedirectUri::parse(uri).map_err(Error::invalid)?;
        }
        let client_id = format!("lc_{}", secret::random_alphanumeric(24));
        let client_secret = (!public).then(|| Secret::new(secret::random_alphanumeric(48)));
        self.store
            .create_oauth_client(NewOAuthClientRecord {
                client_id: client_id.clone(),
                name: name.to_string(),
                origin,
                secret_hash: client_secret
                    .as_ref()
                    .map(|s| secret::sha256_hex(s.expose())),
                redirect_uris: redirect_uris.to_vec(),
                created_at: Timestamp::now(),
            })
            .await?;
        Ok(CreatedOAuthClient {
            client_id,
            client_secret,
        })
    }

    /// On a first start with no accounts, creates `admin` with a random password and one
    /// API key. `None` when accounts exist (or another server just made them).
    pub(crate) async fn bootstrap(&self) -> Result<Option<Bootstrap>> {
        if self.store.count_users().await? > 0 {
            return Ok(None);
        }
        let password = Secret::new(secret::random_alphanumeric(20));
        let created = self
            .store
            .create_user(NewUserRecord {
                username: "admin".into(),
                email: "admin@localhost".into(),
                name: "Administrator".into(),
                password_hash: Some(secret::hash_password_async(&password).await?),
                team_id: None,
                created_at: Timestamp::now(),
            })
            .await;
        let user_id = match created {
            Ok(id) => id,
            // Another process bootstrapped at the same moment.
            Err(Error::Conflict(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        let api_key = self.issue_api_key(user_id, "bootstrap").await?;
        Ok(Some(Bootstrap {
            username: "admin".into(),
            password,
            api_key,
        }))
    }
}

/// Checks a team slug or similar name: the same rules as a username.
pub(crate) fn validate_slug_name(what: &str, name: &str) -> Result<()> {
    validate_username(name).map_err(|_| {
        Error::invalid(format!(
            "{what} {name:?} must be 1-40 lowercase letters, digits, '-' or '_', starting with a letter or digit"
        ))
    })
}

/// Whether `name` has the form of a username: 1–40 lowercase letters, digits, `-` or `_`,
/// starting with a letter or digit (reserved names included).
pub fn is_username_shaped(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 40
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        && name.as_bytes()[0].is_ascii_alphanumeric()
}

/// Checks a new username: username-shaped ([`is_username_shaped`]) and not one of the
/// service's own path names ([`RESERVED_USERNAMES`]).
pub fn validate_username(username: &str) -> Result<()> {
    if !is_username_shaped(username) {
        return Err(Error::invalid(format!(
            "username {username:?} must be 1-40 lowercase letters, digits, '-' or '_', starting with a letter or digit"
        )));
    }
    if RESERVED_USERNAMES.contains(&username) {
        return Err(Error::invalid(format!(
            "username {username:?} is reserved: /{username} is a path of the service itself"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames() {
        assert!(validate_username("alice").is_ok());
        assert!(validate_username("a-1_b").is_ok());
        for bad in [
            "",
            "Alice",
            "-a",
            "a b",
            "v1",
            "oauth",
            "thumbnails",
            &"a".repeat(41),
            "ä",
        ] {
            assert!(validate_username(bad).is_err(), "{bad:?}");
        }
    }
}
