//! The use cases. [`Lectern`] is the one application core that REST handlers, MCP tools,
//! web pages and admin commands call: each method checks the caller's scope, validates,
//! and makes one ownership-scoped store call.

use std::sync::Arc;

use crate::auth::{Caller, Credential, Scope};
use crate::deck::{DeckPatch, MAX_TITLE_CHARS, NewDeck, NewSlide, Visibility, defaults, slugify};
use crate::html::{Notes, SlideHtml};
use crate::ids::DeckId;
use crate::import::ImportedDeck;
use crate::layout::{self, Position, SlideSlot};
use crate::params::{PageMeta, Paging};
use crate::secret::{self, NewApiKey, Secret};
use crate::slide::{AddSlide, MoveSlides, RemoveSlides, UpdateSlide};
use crate::store::{
    DeckListKind, DeckRecord, NewApiKeyRecord, NewDeckRecord, NewOAuthClientRecord, NewSlideRecord,
    NewUserRecord, SlideContent, SlideContentPatch, SlideEdit, SlideEditFn, SlideHtmlRecord, Store,
    TeamRecord, UserRecord,
};
use crate::time::Timestamp;
use crate::views::{
    AccountView, CreatedDeck, DeckMeta, DeckSearchHit, DeckSummary, DeckUrls, DeckView, OwnerView,
    SlideCount, SlidePlace, SlideSummary, SlideView, TeamDeckSummary, TeamDeckView, TeamView,
    TrashedDeckSummary, UserView,
};
use crate::{Error, Result};

/// How often at most a key's `last_used_at` is written (reads stay read-only otherwise).
const KEY_TOUCH_INTERVAL_MICROS: i64 = 60 * 1_000_000;

/// Longest `search_decks` query, in characters.
pub const MAX_SEARCH_CHARS: usize = 200;

/// Length of generated slide ids (62^16 ≈ 2^95 possibilities).
const SLIDE_ID_LEN: usize = 16;

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

/// A page of results and its `meta`.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub meta: PageMeta,
}

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

/// The application core; cheap to clone.
#[derive(Clone)]
pub struct Lectern {
    store: Arc<dyn Store>,
    /// Public URL without a trailing slash; every URL returned starts with it.
    public_url: Arc<str>,
    /// Who hears about first views through share links.
    notifier: Arc<dyn crate::store::Notifier>,
}

impl Lectern {
    /// Builds the core over a store.
    pub fn new(store: Arc<dyn Store>, public_url: &str) -> Self {
        Lectern {
            store,
            public_url: public_url.trim_end_matches('/').into(),
            notifier: Arc::new(crate::store::LogNotifier),
        }
    }

    /// The same core telling `notifier` about first views through share links.
    pub fn with_notifier(mut self, notifier: Arc<dyn crate::store::Notifier>) -> Self {
        self.notifier = notifier;
        self
    }

    /// The share-link notifier.
    pub(crate) fn notifier(&self) -> &dyn crate::store::Notifier {
        self.notifier.as_ref()
    }

    /// The store (for the other use-case modules of the core).
    pub(crate) fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// The public URL, without a trailing slash.
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// Whether storage answers.
    pub async fn health(&self) -> Result<()> {
        self.store.ping().await
    }

    /// Exports waiting for a worker, across all servers (`/metrics`).
    pub async fn export_queue_depth(&self) -> Result<i64> {
        self.store.export_queue_depth().await
    }

    /// Whether other servers share this database, and with it the rate-limit counts.
    pub fn shares_rate_limits(&self) -> bool {
        self.store.shares_rate_limits()
    }

    /// Swaps rate-limit counts with the other servers on this database. See
    /// [`Store::exchange_rate_usage`].
    pub async fn exchange_rate_usage(
        &self,
        server: &str,
        bucket: i64,
        mine: &[(String, u64)],
    ) -> Result<Vec<crate::store::RateUsage>> {
        self.store.exchange_rate_usage(server, bucket, mine).await
    }

    // ---- accounts -------------------------------------------------------------------------

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
            credential: Credential::ApiKey { key_id: key.id },
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

    fn user_view(&self, user: UserRecord, team: Option<TeamRecord>) -> UserView {
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
            Some(pw) => Some(secret::hash_password(pw)?),
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
    async fn team_for_slug(&self, slug: &str) -> Result<TeamRecord> {
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

    async fn user_named(&self, username: &str) -> Result<UserRecord> {
        self.store
            .find_user_by_username(username)
            .await?
            .ok_or_else(|| Error::not_found(format!("no account named {username:?}")))
    }

    fn team_url(&self, team_slug: &str) -> String {
        format!("{}/teams/{team_slug}", self.public_url)
    }

    // ---- team decks -------------------------------------------------------------------------

    /// The caller's team, or 403 for an account without one.
    async fn caller_team(&self, caller: &Caller) -> Result<TeamRecord> {
        let forbidden = || Error::forbidden("this account is not in a team");
        let team_id = caller.team_id.ok_or_else(forbidden)?;
        self.store.get_team(team_id).await?.ok_or_else(forbidden)
    }

    /// `list_team_decks` (4.7): the team members' `team` and `all` decks, newest first.
    pub async fn list_team_decks(
        &self,
        caller: &Caller,
        paging: Paging,
    ) -> Result<Page<TeamDeckSummary>> {
        caller.require(Scope::Read)?;
        let team = self.caller_team(caller).await?;
        let (rows, total) = self.store.list_team_decks(team.id, false, paging).await?;
        Ok(Page {
            items: self.team_deck_summaries(&team, rows),
            meta: paging.meta(total),
        })
    }

    /// Team deck summaries with their team addresses.
    pub(crate) fn team_deck_summaries(
        &self,
        team: &TeamRecord,
        rows: Vec<crate::store::TeamDeckListRecord>,
    ) -> Vec<TeamDeckSummary> {
        let base = self.team_url(&team.slug);
        rows.into_iter()
            .map(|d| TeamDeckSummary {
                url: format!("{base}/{}/{}", d.owner_username, d.slug),
                thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
                id: d.id,
                title: d.title,
                description: d.description,
                visibility: d.visibility,
                owner: OwnerView {
                    id: d.owner_id,
                    name: d.owner_name,
                    username: d.owner_username,
                },
            })
            .collect()
    }

    /// `search_decks` (MCP): the caller's own decks outside the trash and their team's
    /// `team` and `all` decks whose title or slide HTML contains `query` (case-insensitive).
    pub async fn search_decks(
        &self,
        caller: &Caller,
        query: &str,
        paging: Paging,
    ) -> Result<Page<DeckSearchHit>> {
        caller.require(Scope::Read)?;
        let query = query.trim();
        if query.is_empty() || query.chars().count() > MAX_SEARCH_CHARS {
            return Err(Error::invalid(format!(
                "query must be 1 to {MAX_SEARCH_CHARS} characters"
            )));
        }
        let team = match caller.team_id {
            Some(id) => self.store.get_team(id).await?,
            None => None,
        };
        let (rows, total) = self
            .store
            .search_decks(caller.user_id, team.as_ref().map(|t| t.id), query, paging)
            .await?;
        let items = rows
            .into_iter()
            .map(|r| {
                let d = r.deck;
                let own = d.owner_id == caller.user_id;
                let url = match (&team, own) {
                    (Some(team), false) => format!(
                        "{}/{}/{}",
                        self.team_url(&team.slug),
                        d.owner_username,
                        d.slug
                    ),
                    _ => self.deck_url(&d.owner_username, &d.slug),
                };
                DeckSearchHit {
                    thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
                    id: d.id,
                    title: d.title,
                    description: d.description,
                    url,
                    visibility: d.visibility,
                    owner: d.owner_name,
                    own,
                    matched_in: if r.title_matched { "title" } else { "slides" },
                }
            })
            .collect();
        Ok(Page {
            items,
            meta: paging.meta(total),
        })
    }

    /// `get_team_deck` (4.7). A `self` deck, another team's deck, a trashed one and a missing
    /// one all answer 404.
    pub async fn get_team_deck(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        include_deck_html: bool,
    ) -> Result<TeamDeckView> {
        caller.require(Scope::Read)?;
        let team = self.caller_team(caller).await?;
        let id = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        let deck = self
            .store
            .get_team_deck(team.id, id)
            .await?
            .ok_or_else(Error::deck_not_found)?;
        let deck_html = if include_deck_html {
            Some(render_deck_html(
                &self.store.deck_slides_html(deck.id).await?,
            ))
        } else {
            None
        };
        let owner = OwnerView {
            id: deck.owner_id,
            name: deck.owner_name.clone(),
            username: deck.owner_username.clone(),
        };
        Ok(TeamDeckView {
            deck: DeckView {
                meta: self.deck_meta_at(&deck, &self.team_url(&team.slug)),
                css: deck.css,
                deck_html,
            },
            owner,
        })
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

    async fn issue_api_key(&self, user_id: i64, label: &str) -> Result<Secret> {
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
    ) -> Result<CreatedOAuthClient> {
        if name.trim().is_empty() {
            return Err(Error::invalid("the client needs a name"));
        }
        if redirect_uris.is_empty() {
            return Err(Error::invalid("the client needs at least one redirect URI"));
        }
        for uri in redirect_uris {
            let ok = (uri.starts_with("https://") || uri.starts_with("http://"))
                && !uri.contains('#')
                && !uri.chars().any(char::is_whitespace);
            if !ok {
                return Err(Error::invalid(format!(
                    "redirect URI {uri:?} must be an absolute http(s) URL without a fragment"
                )));
            }
        }
        let client_id = format!("lc_{}", secret::random_alphanumeric(24));
        let client_secret = (!public).then(|| Secret::new(secret::random_alphanumeric(48)));
        self.store
            .create_oauth_client(NewOAuthClientRecord {
                client_id: client_id.clone(),
                name: name.to_string(),
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
                password_hash: Some(secret::hash_password(&password)?),
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

    // ---- decks ----------------------------------------------------------------------------

    /// `list_decks` (4.3): the caller's decks outside the trash, newest first.
    pub async fn list_decks(&self, caller: &Caller, paging: Paging) -> Result<Page<DeckSummary>> {
        caller.require(Scope::Read)?;
        let (rows, total) = self
            .store
            .list_decks(caller.user_id, DeckListKind::Active, paging)
            .await?;
        Ok(Page {
            items: rows
                .into_iter()
                .map(|d| DeckSummary {
                    url: self.deck_url(&caller.username, &d.slug),
                    thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
                    id: d.id,
                    title: d.title,
                    description: d.description,
                })
                .collect(),
            meta: paging.meta(total),
        })
    }

    /// `list_trashed_decks` (4.3): the caller's trashed decks, most recently trashed first.
    pub async fn list_trashed_decks(
        &self,
        caller: &Caller,
        paging: Paging,
    ) -> Result<Page<TrashedDeckSummary>> {
        caller.require(Scope::Read)?;
        let (rows, total) = self
            .store
            .list_decks(caller.user_id, DeckListKind::Trashed, paging)
            .await?;
        let items = rows
            .into_iter()
            .map(|d| TrashedDeckSummary {
                thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
                id: d.id,
                title: d.title,
                description: d.description,
                trashed_at: d
                    .trashed_at
                    .expect("the store lists only decks with trashed_at set as trashed"),
            })
            .collect();
        Ok(Page {
            items,
            meta: paging.meta(total),
        })
    }

    /// `create_deck` (4.3).
    pub async fn create_deck(&self, caller: &Caller, mut new: NewDeck) -> Result<CreatedDeck> {
        caller.require(Scope::Manage)?;
        self.check_visibility(caller, new.visibility)?;
        let stacks = std::mem::take(&mut new.slides)
            .into_iter()
            .map(|s| vec![s])
            .collect();
        let (record, slide_ids) = self.insert_deck(caller.user_id, new, stacks).await?;
        Ok(CreatedDeck {
            meta: self.deck_meta(&record),
            slide_ids,
        })
    }

    /// `admin import-deck`: a new deck for `username` from an imported presentation, with the
    /// creation defaults; returns its id.
    pub(crate) async fn import_deck(&self, username: &str, imported: ImportedDeck) -> Result<i64> {
        let user = self
            .store
            .find_user_by_username(username)
            .await?
            .ok_or_else(|| Error::not_found(format!("no account named {username:?}")))?;
        let mut new = NewDeck::from_json(None)?;
        let title: String = imported.title.chars().take(MAX_TITLE_CHARS).collect();
        if !title.trim().is_empty() {
            new.title = title;
        }
        let (record, _) = self.insert_deck(user.id, new, imported.stacks).await?;
        Ok(record.id)
    }

    /// Stores a deck whose slides come as stacks (one slide, or a vertical group).
    async fn insert_deck(
        &self,
        owner_id: i64,
        new: NewDeck,
        stacks: Vec<Vec<NewSlide>>,
    ) -> Result<(DeckRecord, Vec<String>)> {
        let sizes: Vec<usize> = stacks.iter().map(Vec::len).collect();
        let slides: Vec<NewSlideRecord> = stacks
            .into_iter()
            .flatten()
            .zip(layout::initial_slots(&sizes))
            .map(|(s, (rank, group))| {
                new_slide_record(new_slide_id(), s.html, s.notes, rank, group)
            })
            .collect();
        let slide_ids = slides.iter().map(|s| s.slot.id.clone()).collect();
        let record = self
            .store
            .create_deck(NewDeckRecord {
                owner_id,
                slug_base: slugify(&new.title),
                title: new.title,
                description: new.description,
                visibility: new.visibility,
                width: new.width,
                height: new.height,
                margin: new.margin,
                theme_color: new.theme_color,
                theme_font: new.theme_font,
                transition: defaults::TRANSITION,
                background_transition: defaults::BACKGROUND_TRANSITION,
                language: defaults::LANGUAGE.into(),
                slides,
                created_at: Timestamp::now(),
            })
            .await?;
        Ok((record, slide_ids))
    }

    /// `get_deck` (4.3). A trashed deck, a missing one and another account's all answer 404.
    pub async fn get_deck(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        include_deck_html: bool,
    ) -> Result<DeckView> {
        caller.require(Scope::Read)?;
        let deck = self.active_deck(caller, deck_id).await?;
        let deck_html = if include_deck_html {
            Some(render_deck_html(
                &self.store.deck_slides_html(deck.id).await?,
            ))
        } else {
            None
        };
        Ok(DeckView {
            meta: self.deck_meta(&deck),
            css: deck.css,
            deck_html,
        })
    }

    /// `update_deck` (4.3).
    pub async fn update_deck(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        patch: DeckPatch,
    ) -> Result<DeckMeta> {
        caller.require(Scope::Manage)?;
        if let Some(v) = patch.visibility {
            self.check_visibility(caller, v)?;
        }
        let id = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        let deck = self
            .store
            .update_deck(caller.user_id, id, &patch, Timestamp::now())
            .await?
            .ok_or_else(Error::deck_not_found)?;
        Ok(self.deck_meta(&deck))
    }

    // ---- slides ---------------------------------------------------------------------------

    /// `list_slides` (4.4): summaries in presentation order, paged.
    pub async fn list_slides(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        paging: Paging,
    ) -> Result<Page<SlideSummary>> {
        caller.require(Scope::Read)?;
        let deck = self.active_deck(caller, deck_id).await?;
        let start = paging.offset() as usize;
        // One slide past the page tells whether its last slide continues a group.
        let (rows, total) = self
            .store
            .slide_prefix(deck.id, start + paging.limit() as usize + 1)
            .await?;
        let slots: Vec<SlideSlot> = rows.iter().map(|(slot, _)| slot.clone()).collect();
        let positions = layout::positions(&slots);
        let end = (start + paging.limit() as usize).min(rows.len());
        let items = rows
            .into_iter()
            .zip(positions)
            .skip(start)
            .take(end.saturating_sub(start))
            .map(|((_, s), position)| SlideSummary {
                id: s.id,
                position,
                title: s.title,
                text_preview: s.text_preview,
                html_bytes: s.html_bytes,
                has_notes: s.has_notes,
            })
            .collect();
        Ok(Page {
            items,
            meta: paging.meta(total),
        })
    }

    /// `get_slide` (4.4).
    pub async fn get_slide(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        slide_id: &str,
    ) -> Result<SlideView> {
        caller.require(Scope::Read)?;
        let deck = self.active_deck(caller, deck_id).await?;
        let slide = self
            .store
            .get_slide(deck.id, slide_id)
            .await?
            .ok_or_else(slide_not_found)?;
        let slots = self.store.slide_slots(deck.id).await?;
        Ok(SlideView {
            position: position_of(&slots, slide_id).ok_or_else(slide_not_found)?,
            id: slide.id,
            deck_id: deck.id,
            html: slide.html,
            notes: slide.notes,
        })
    }

    /// `add_slide` (4.4).
    pub async fn add_slide(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        input: AddSlide,
    ) -> Result<SlidePlace> {
        caller.require(Scope::Manage)?;
        let id = new_slide_id();
        let new_id = id.clone();
        let edit = self
            .edit_slides(
                caller,
                deck_id,
                Box::new(move |slots: &[SlideSlot]| {
                    let plan = layout::add(slots, &new_id, &input.anchor)?;
                    let slot = plan.insert[0].clone();
                    Ok(SlideEdit {
                        insert: vec![new_slide_record(
                            new_id,
                            input.html,
                            input.notes,
                            slot.rank,
                            slot.group,
                        )],
                        after: layout::apply(slots, &plan),
                        plan,
                        content: None,
                    })
                }),
            )
            .await?;
        self.place(deck_id, &edit.after, &id)
    }

    /// `update_slide` (4.4): replaces html and/or notes; the id and position stay.
    pub async fn update_slide(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        slide_id: &str,
        input: UpdateSlide,
    ) -> Result<SlidePlace> {
        caller.require(Scope::Manage)?;
        let id = slide_id.to_string();
        let edit = self
            .edit_slides(
                caller,
                deck_id,
                Box::new(move |slots: &[SlideSlot]| {
                    if !slots.iter().any(|s| s.id == id) {
                        return Err(slide_not_found());
                    }
                    Ok(SlideEdit {
                        content: Some(SlideContentPatch {
                            html: input
                                .html
                                .map(|h| (h.render(&id), h.title.clone(), h.text_preview.clone())),
                            notes: input.notes.map(|n| n.map(Notes::into_string)),
                            id,
                        }),
                        after: slots.to_vec(),
                        ..SlideEdit::default()
                    })
                }),
            )
            .await?;
        self.place(deck_id, &edit.after, slide_id)
    }

    /// `remove_slides` (4.4).
    pub async fn remove_slides(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        input: RemoveSlides,
    ) -> Result<SlideCount> {
        self.apply_plan(caller, deck_id, move |slots| {
            layout::remove(slots, &input.slide_ids)
        })
        .await
    }

    /// `move_slides` (4.4).
    pub async fn move_slides(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        input: MoveSlides,
    ) -> Result<SlideCount> {
        self.apply_plan(caller, deck_id, move |slots| {
            layout::move_slides(slots, &input.slide_ids, &input.anchor)
        })
        .await
    }

    /// Runs a reordering `plan` of the layout rules in one edit and reports its count.
    async fn apply_plan(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        plan: impl FnOnce(&[SlideSlot]) -> Result<layout::Plan> + Send + 'static,
    ) -> Result<SlideCount> {
        caller.require(Scope::Manage)?;
        let edit = self
            .edit_slides(
                caller,
                deck_id,
                Box::new(move |slots: &[SlideSlot]| {
                    Ok(SlideEdit {
                        plan: plan(slots)?,
                        ..SlideEdit::default()
                    })
                }),
            )
            .await?;
        Ok(SlideCount {
            count: edit.plan.count,
            missing_slide_ids: edit.plan.missing,
        })
    }

    async fn edit_slides(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        edit: SlideEditFn,
    ) -> Result<SlideEdit> {
        let id = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        self.store
            .edit_slides(caller.user_id, id, Timestamp::now(), edit)
            .await?
            .ok_or_else(Error::deck_not_found)
    }

    fn place(&self, deck_id: DeckId, after: &[SlideSlot], slide_id: &str) -> Result<SlidePlace> {
        Ok(SlidePlace {
            id: slide_id.to_string(),
            deck_id: deck_id.stored().ok_or_else(Error::deck_not_found)?,
            position: position_of(after, slide_id)
                .ok_or_else(|| Error::internal("an edited slide is missing from the new order"))?,
        })
    }

    /// `trash_deck` (3.1). Trashing a deck already in the trash changes nothing.
    pub async fn trash_deck(&self, caller: &Caller, deck_id: DeckId) -> Result<()> {
        caller.require(Scope::Manage)?;
        self.set_trashed(caller, deck_id, Some(Timestamp::now()))
            .await
    }

    /// `recover_deck` (3.1). Recovering a deck that is not in the trash changes nothing.
    pub async fn recover_deck(&self, caller: &Caller, deck_id: DeckId) -> Result<()> {
        caller.require(Scope::Manage)?;
        self.set_trashed(caller, deck_id, None).await
    }

    async fn set_trashed(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        at: Option<Timestamp>,
    ) -> Result<()> {
        let id = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        if self.store.set_deck_trashed(caller.user_id, id, at).await? {
            Ok(())
        } else {
            Err(Error::deck_not_found())
        }
    }

    /// The caller's deck outside the trash, or 404.
    pub(crate) async fn active_deck(&self, caller: &Caller, deck_id: DeckId) -> Result<DeckRecord> {
        let id = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        match self.store.get_deck(caller.user_id, id).await? {
            Some(d) if d.trashed_at.is_none() => Ok(d),
            _ => Err(Error::deck_not_found()),
        }
    }

    /// `team` visibility needs a team account (403 otherwise, see the README's API notes).
    fn check_visibility(&self, caller: &Caller, visibility: Visibility) -> Result<()> {
        if visibility == Visibility::Team && caller.team_id.is_none() {
            return Err(Error::forbidden(
                "visibility 'team' is only available to team accounts",
            ));
        }
        Ok(())
    }

    /// A deck's thumbnail: its drawn first slide, or the generic image until one exists.
    pub(crate) fn thumbnail_url(&self, token: Option<&str>) -> String {
        match token {
            Some(t) => format!("{}/thumbnails/{t}.png", self.public_url),
            None => format!("{}/assets/web/thumbnail.svg", self.public_url),
        }
    }

    pub(crate) fn deck_url(&self, owner_username: &str, slug: &str) -> String {
        format!("{}/{}/{}", self.public_url, owner_username, slug)
    }

    fn deck_meta(&self, d: &DeckRecord) -> DeckMeta {
        self.deck_meta_at(d, &self.public_url)
    }

    /// The deck's metadata with its URLs under `base` (the public URL, or a team's URL).
    fn deck_meta_at(&self, d: &DeckRecord, base: &str) -> DeckMeta {
        let url = format!("{base}/{}/{}", d.owner_username, d.slug);
        DeckMeta {
            id: d.id,
            title: d.title.clone(),
            description: d.description.clone(),
            thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
            urls: DeckUrls {
                default: url.clone(),
                fullscreen: format!("{url}/fullscreen"),
                edit: format!("{url}/edit"),
                present: format!("{url}/present"),
            },
            url,
            slug: d.slug.clone(),
            visibility: d.visibility,
            slide_count: d.slide_count,
            width: d.width,
            height: d.height,
            margin: d.margin,
            transition: d.transition,
            background_transition: d.background_transition,
            rtl: d.rtl,
            loop_: d.loop_,
            theme_font: d.theme_font,
            theme_color: d.theme_color,
            language: d.language.clone(),
            created_at: d.created_at,
            updated_at: d.updated_at,
        }
    }
}

fn slide_not_found() -> Error {
    Error::not_found("slide not found in this deck")
}

/// The position of `slide_id` in an order.
fn position_of(slots: &[SlideSlot], slide_id: &str) -> Option<Position> {
    let i = slots.iter().position(|s| s.id == slide_id)?;
    Some(layout::positions(slots)[i])
}

/// A new slide's stored record.
fn new_slide_record(
    id: String,
    html: SlideHtml,
    notes: Option<Notes>,
    rank: String,
    group: Option<i64>,
) -> NewSlideRecord {
    NewSlideRecord {
        content: SlideContent {
            html: html.render(&id),
            notes: notes.map(Notes::into_string),
            title: html.title,
            text_preview: html.text_preview,
        },
        slot: SlideSlot { id, rank, group },
    }
}

/// A fresh opaque, URL-safe slide id.
pub fn new_slide_id() -> String {
    secret::random_alphanumeric(SLIDE_ID_LEN)
}

/// Checks a team slug or similar name: the same rules as a username.
fn validate_slug_name(what: &str, name: &str) -> Result<()> {
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

/// The HTML of all slides: one `<section>` per horizontal position, a vertical group as a
/// `<section>` wrapping its slides' sections. `slides` must be in presentation order.
pub fn render_deck_html(slides: &[SlideHtmlRecord]) -> String {
    let slots: Vec<SlideSlot> = slides.iter().map(|s| s.slot.clone()).collect();
    let positions = layout::positions(&slots);
    let mut out = String::new();
    for (i, (slide, pos)) in slides.iter().zip(&positions).enumerate() {
        let opens_group = pos.vertical == Some(0);
        let closes_group = pos.vertical.is_some()
            && positions
                .get(i + 1)
                .is_none_or(|n| n.vertical.is_none_or(|v| v == 0));
        if i > 0 && pos.vertical.is_none_or(|v| v == 0) {
            out.push('\n');
        }
        if opens_group {
            out.push_str("<section>");
        }
        out.push_str(&slide.html);
        if closes_group {
            out.push_str("</section>");
        }
    }
    out
}

/// The administrator's operations (`lectern admin ...`, the first start, and tests that set
/// up accounts): they act on any account by name, without a caller to check. Only the admin
/// commands and `serve`'s bootstrap hold one ([`Lectern::admin`]); request adapters (REST,
/// MCP, web pages) never do.
pub struct Admin<'a>(&'a Lectern);

impl Lectern {
    /// The handle of the unchecked administrator operations.
    pub fn admin(&self) -> Admin<'_> {
        Admin(self)
    }
}

impl Admin<'_> {
    /// `admin create-user`: a new account (and its team when `--team` names a new one).
    pub async fn create_user(&self, new: NewUser) -> Result<i64> {
        self.0.create_user(new).await
    }

    /// `admin add-to-team`.
    pub async fn add_to_team(&self, username: &str, team_slug: &str) -> Result<()> {
        self.0.add_to_team(username, team_slug).await
    }

    /// `admin remove-from-team`.
    pub async fn remove_from_team(&self, username: &str) -> Result<()> {
        self.0.remove_from_team(username).await
    }

    /// `admin create-api-key`: a new key for the account, shown once.
    pub async fn create_api_key(&self, username: &str, label: &str) -> Result<Secret> {
        self.0.create_api_key(username, label).await
    }

    /// `admin create-oauth-client`.
    pub async fn create_oauth_client(
        &self,
        name: &str,
        redirect_uris: &[String],
        public: bool,
    ) -> Result<CreatedOAuthClient> {
        self.0
            .create_oauth_client(name, redirect_uris, public)
            .await
    }

    /// The first start of `serve`: the account `admin` with a password and a key.
    pub async fn bootstrap(&self) -> Result<Option<Bootstrap>> {
        self.0.bootstrap().await
    }

    /// `admin import-deck`.
    pub async fn import_deck(&self, username: &str, imported: ImportedDeck) -> Result<i64> {
        self.0.import_deck(username, imported).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slide(id: &str, rank: &str, group: Option<i64>) -> SlideHtmlRecord {
        SlideHtmlRecord {
            slot: SlideSlot {
                id: id.into(),
                rank: rank.into(),
                group,
            },
            html: format!("<section data-id=\"{id}\"></section>"),
            notes: None,
        }
    }

    #[test]
    fn deck_html_wraps_vertical_groups() {
        let html = render_deck_html(&[
            slide("a", "a0", None),
            slide("b", "a1", Some(1)),
            slide("c", "a2", Some(1)),
            slide("d", "a3", None),
        ]);
        assert_eq!(
            html,
            "<section data-id=\"a\"></section>\n<section><section data-id=\"b\"></section><section data-id=\"c\"></section></section>\n<section data-id=\"d\"></section>"
        );
    }

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
