//! Private share links (interface 2.10, 4.5): the input rules and the three operations.
//! A link's URL carries an unguessable token; its password is stored only as an argon2 hash.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::auth::{Caller, Scope};
use crate::deck::{Fields, Visibility};
use crate::ids::{DeckId, ShareId};
use crate::secret::{self, Secret};
use crate::service::Lectern;
use crate::store::{NewShareRecord, ShareRecord};
use crate::time::Timestamp;
use crate::{Error, Result};

/// Longest name and password, in characters (interface section 8).
pub const MAX_SHARE_TEXT: usize = 255;
/// Most live share links one deck may have (interface section 8).
pub const MAX_SHARES_PER_DECK: i64 = 100;
/// Length of a link's token (62^32 ≈ 2^190 possibilities).
const TOKEN_LEN: usize = 32;

/// A validated `create_deck_share` body.
#[derive(Debug)]
pub struct NewShare {
    pub name: String,
    pub password: Option<Secret>,
    pub expires_at: Option<Timestamp>,
    pub notify_on_view: bool,
}

fn text(fields: &mut Fields, key: &str) -> Result<Option<String>> {
    match fields.take(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() <= MAX_SHARE_TEXT => Ok(Some(s)),
        Some(Value::String(_)) => Err(Error::invalid(format!(
            "{key} must be at most {MAX_SHARE_TEXT} characters"
        ))),
        Some(_) => Err(Error::invalid(format!("{key} must be a string"))),
    }
}

impl NewShare {
    /// Parses an optional `create_deck_share` body.
    pub fn from_json(body: Option<Value>) -> Result<Self> {
        let mut fields = Fields::new(body, "request body")?;
        fields.reject_unknown(|k| {
            matches!(k, "name" | "password" | "expires_at" | "notify_on_view")
        })?;
        let name = text(&mut fields, "name")?.unwrap_or_default();
        let password = match text(&mut fields, "password")? {
            Some(p) if p.is_empty() => {
                return Err(Error::invalid(
                    "password must not be empty (omit it for none)",
                ));
            }
            p => p.map(Secret::new),
        };
        let expires_at = match fields.take("expires_at") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(Timestamp::parse_rfc3339(&s).ok_or_else(|| {
                Error::invalid(format!(
                    "expires_at must be an ISO 8601 date-time such as 2027-01-31T12:00:00Z, got {s:?}"
                ))
            })?),
            Some(_) => return Err(Error::invalid("expires_at must be a date-time string or null")),
        };
        let notify_on_view = match fields.take("notify_on_view") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => b,
            Some(_) => return Err(Error::invalid("notify_on_view must be true or false")),
        };
        Ok(NewShare {
            name,
            password,
            expires_at,
            notify_on_view,
        })
    }
}

/// The share link's viewer URLs.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ShareUrls {
    pub default: String,
    pub fullscreen: String,
}

/// A private share link (2.10).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ShareView {
    pub id: i64,
    pub deck_id: i64,
    pub name: String,
    pub url: String,
    pub urls: ShareUrls,
    pub password_protected: bool,
    pub expires_at: Option<Timestamp>,
    pub expired: bool,
    pub notify_on_view: bool,
    pub view_count: i64,
    pub first_viewed_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

impl Lectern {
    fn share_view(&self, s: ShareRecord, now: Timestamp) -> ShareView {
        let base = format!("{}/s/{}", self.public_url(), s.id);
        let url = format!("{base}?token={}", s.token);
        ShareView {
            urls: ShareUrls {
                default: url.clone(),
                fullscreen: format!("{base}/fullscreen?token={}", s.token),
            },
            url,
            id: s.id,
            deck_id: s.deck_id,
            name: s.name,
            password_protected: s.password_protected,
            expired: s.expires_at.is_some_and(|t| t <= now),
            expires_at: s.expires_at,
            notify_on_view: s.notify_on_view,
            view_count: s.view_count,
            first_viewed_at: s.first_viewed_at,
            created_at: s.created_at,
        }
    }

    /// `list_deck_shares` (4.5): the deck's live links, newest first.
    pub async fn list_deck_shares(
        &self,
        caller: &Caller,
        deck_id: DeckId,
    ) -> Result<Vec<ShareView>> {
        caller.require(Scope::Read)?;
        let deck = self.active_deck(caller, deck_id).await?;
        let now = Timestamp::now();
        Ok(self
            .store()
            .list_shares(deck.id)
            .await?
            .into_iter()
            .map(|s| self.share_view(s, now))
            .collect())
    }

    /// `create_deck_share` (4.5): only for decks with visibility `self` or `team`.
    pub async fn create_deck_share(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        new: NewShare,
    ) -> Result<ShareView> {
        caller.require(Scope::Manage)?;
        let deck = self.active_deck(caller, deck_id).await?;
        if deck.visibility == Visibility::All {
            return Err(Error::invalid(
                "share links are for private or team decks; this deck is already public (visibility 'all')",
            ));
        }
        let token = secret::random_alphanumeric(TOKEN_LEN);
        let password_hash = match &new.password {
            Some(p) => Some(secret::hash_password_async(p).await?),
            None => None,
        };
        let now = Timestamp::now();
        let record = self
            .store()
            .create_share(
                caller.user_id,
                deck.id,
                NewShareRecord {
                    name: new.name,
                    token_hash: secret::sha256_hex(&token),
                    token,
                    password_hash,
                    expires_at: new.expires_at,
                    notify_on_view: new.notify_on_view,
                    created_at: now,
                },
                Box::new(|working| {
                    // Links that still work hold places; revoked and expired ones do not.
                    if working >= MAX_SHARES_PER_DECK {
                        return Err(Error::invalid(format!(
                            "a deck has at most {MAX_SHARES_PER_DECK} working share links; revoke one first"
                        )));
                    }
                    Ok(())
                }),
            )
            .await?
            .ok_or_else(Error::deck_not_found)?;
        Ok(self.share_view(record, now))
    }

    /// `revoke_deck_share` (4.5).
    pub async fn revoke_deck_share(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        share_id: ShareId,
    ) -> Result<()> {
        caller.require(Scope::Manage)?;
        let deck = self.active_deck(caller, deck_id).await?;
        let not_found = || Error::not_found("share link not found");
        let share_id = share_id.stored().ok_or_else(not_found)?;
        if self
            .store()
            .revoke_share(deck.id, share_id, Timestamp::now())
            .await?
        {
            Ok(())
        } else {
            Err(not_found())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn share_bodies_are_checked() {
        let ok = NewShare::from_json(Some(json!({
            "name": "Board", "password": "pw", "expires_at": "2030-01-01T00:00:00+02:00", "notify_on_view": true
        })))
        .unwrap();
        assert_eq!(ok.name, "Board");
        assert!(ok.notify_on_view);
        assert!(ok.expires_at.is_some());
        assert!(NewShare::from_json(None).unwrap().password.is_none());
        for bad in [
            json!({"name": "x".repeat(256)}),
            json!({"password": "x".repeat(256)}),
            json!({"password": ""}),
            json!({"expires_at": "tomorrow"}),
            json!({"expires_at": 5}),
            json!({"notify_on_view": "yes"}),
            json!({"name": 3}),
            json!({"other": 1}),
        ] {
            assert!(NewShare::from_json(Some(bad.clone())).is_err(), "{bad}");
        }
        assert!(NewShare::from_json(Some(json!({"name": "é".repeat(255)}))).is_ok());
    }
}

/// How long a share link's password cookie keeps a visitor in, in seconds.
pub const SHARE_PASS_SECONDS: i64 = 12 * 3600;

/// Why a share link does not open.
#[derive(Debug, PartialEq, Eq)]
pub enum ShareProblem {
    /// Unknown link or wrong token (404).
    NotFound,
    /// Revoked by its owner (410).
    Revoked,
    /// Past its `expires_at` (410).
    Expired,
}

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

fn pass_mac(access: &crate::store::ShareAccess, expires: i64) -> Option<String> {
    use hmac::{KeyInit, Mac};
    // The key is the link's own argon2 hash: secret, server-side, and different per link.
    let key = access.password_hash.as_deref()?;
    let mut mac = HmacSha256::new_from_slice(key.as_bytes()).ok()?;
    mac.update(format!("{}:{}:{expires}", access.id, access.token).as_bytes());
    Some(
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}

impl Lectern {
    /// The link behind `/s/{id}?token=...`, if the token is right and the link is live.
    pub async fn open_share(
        &self,
        share_id: Option<ShareId>,
        token: &str,
    ) -> Result<std::result::Result<crate::store::ShareAccess, ShareProblem>> {
        let Some(id) = share_id.and_then(ShareId::stored) else {
            return Ok(Err(ShareProblem::NotFound));
        };
        let Some(access) = self.store().find_share_access(id).await? else {
            return Ok(Err(ShareProblem::NotFound));
        };
        if !secret::constant_time_eq(&access.token, token) {
            return Ok(Err(ShareProblem::NotFound));
        }
        if access.revoked_at.is_some() {
            return Ok(Err(ShareProblem::Revoked));
        }
        if access.expires_at.is_some_and(|t| t <= Timestamp::now()) {
            return Ok(Err(ShareProblem::Expired));
        }
        Ok(Ok(access))
    }

    /// The signed cookie value that lets a visitor who gave the right password back in.
    pub fn share_pass(&self, access: &crate::store::ShareAccess) -> Option<String> {
        let expires = Timestamp::now().unix_micros() / 1_000_000 + SHARE_PASS_SECONDS;
        pass_mac(access, expires).map(|mac| format!("{expires}.{mac}"))
    }

    /// Whether a cookie value from [`Lectern::share_pass`] is valid for this link now.
    pub fn share_pass_ok(&self, access: &crate::store::ShareAccess, cookie: &str) -> bool {
        let Some((expires, mac)) = cookie.split_once('.') else {
            return false;
        };
        let Ok(expires) = expires.parse::<i64>() else {
            return false;
        };
        expires > Timestamp::now().unix_micros() / 1_000_000
            && pass_mac(access, expires).is_some_and(|m| secret::constant_time_eq(&m, mac))
    }

    /// Checks a visitor's password for a link, from a client at `address`. Each try is
    /// counted first, against the link (from anyone) and against the address (on any link),
    /// a few a window each ([`crate::guard::GuessLimits`]); past either, the try is refused
    /// unchecked, the right password too, until the window ends.
    pub async fn try_share_password(
        &self,
        access: &crate::store::ShareAccess,
        password: &Secret,
        address: std::net::IpAddr,
    ) -> Result<std::result::Result<bool, crate::guard::TooManyTries>> {
        let limits = self.guess_limits();
        let address = crate::guard::address_key(address);
        let by_link = self
            .count_try(
                &format!("share:{}", access.id),
                limits.share_per_link,
                limits.share_window,
            )
            .await?;
        let by_address = self
            .count_try(
                &format!("share-from:{address}"),
                limits.share_per_address,
                limits.share_window,
            )
            .await?;
        if let Err(refused) = by_link.and(by_address) {
            return Ok(Err(refused));
        }
        Ok(Ok(match access.password_hash.as_deref() {
            Some(h) => secret::verify_password_async(password, h).await,
            None => false,
        }))
    }

    /// Counts a view (once per visitor session; the caller decides) and tells the owner about
    /// the first one when the link asks for it.
    pub async fn record_share_view(&self, access: &crate::store::ShareAccess) -> Result<()> {
        let count = self
            .store()
            .count_share_view(access.id, Timestamp::now())
            .await?;
        if count == 1
            && access.notify_on_view
            && let Some(deck) = self.store().find_deck(access.deck_id).await?
            && let Some(owner) = self.store().get_user(deck.owner_id).await?
        {
            self.notifier()
                .first_view(&owner, &deck.title, &access.name);
        }
        Ok(())
    }

    /// The deck of a live link, for its page (no visibility check: the link is the right).
    pub async fn shared_deck(
        &self,
        access: &crate::store::ShareAccess,
    ) -> Result<crate::service::viewer::ViewedDeck> {
        let deck = self
            .store()
            .find_deck(access.deck_id)
            .await?
            .filter(|d| d.trashed_at.is_none())
            .ok_or_else(Error::deck_not_found)?;
        self.viewed(deck, false).await
    }
}
