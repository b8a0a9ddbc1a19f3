//! The use cases. [`Lectern`] is the one application core that REST handlers, MCP tools,
//! web pages and admin commands call: each method checks the caller's scope, validates,
//! and makes one ownership-scoped store call.

use std::sync::Arc;

use crate::auth::{Author, Caller, Credential, Scope};
use crate::deck::{DeckPatch, MAX_TITLE_CHARS, NewDeck, NewSlide, Visibility, slugify};
use crate::html::{Notes, SlideHtml};
use crate::ids::{DeckId, SlideId};
use crate::import::ImportedDeck;
use crate::layout::{self, Position, SlideSlot, Slots};
use crate::params::{PageMeta, Paging};
use crate::revision::{Operation, Precondition, WriteContext};
use crate::secret::{self, NewApiKey, Secret};
use crate::slide::{AddSlide, MoveSlides, RemoveSlides, UpdateSlide};
use crate::store::{
    ClientOrigin, DeckListKind, DeckRecord, KnownOrder, NewApiKeyRecord, NewDeckRecord,
    NewOAuthClientRecord, NewSlideRecord, NewUserRecord, OrderScope, SlideContent,
    SlideContentPatch, SlideEdit, SlideEditFn, SlideEditor, SlideHtmlRecord, Store, TeamRecord,
    UserRecord,
};
use crate::time::Timestamp;
use crate::views::{
    AccountView, CreatedDeck, DeckMeta, DeckSearchHit, DeckSummary, DeckUrls, DeckView, OwnerView,
    SlideCount, SlidePlace, SlideSummary, SlideView, TeamDeckSummary, TeamDeckView, TeamView,
    TrashedDeckSummary, UserView,
};
use crate::{Error, Result};

mod accounts;
mod decks;
pub mod exports;
mod imports;
pub mod live;
pub mod media;
mod order;
mod revisions;
pub mod shares;
mod slides;
mod teams;
pub mod viewer;

pub use accounts::{
    Bootstrap, CreatedOAuthClient, NewUser, RESERVED_USERNAMES, is_username_shaped,
    validate_username,
};
pub use imports::{ImportFormat, Imported};
pub use slides::new_slide_id;
use slides::new_slide_record;

/// How often at most a key's `last_used_at` is written (reads stay read-only otherwise).
const KEY_TOUCH_INTERVAL_MICROS: i64 = 60 * 1_000_000;

/// Longest `search_decks` query, in characters.
pub const MAX_SEARCH_CHARS: usize = 200;

/// Length of generated slide ids (62^16 ≈ 2^95 possibilities).
const SLIDE_ID_LEN: usize = 16;

/// A page of results and its `meta`.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub meta: PageMeta,
}

/// The application core; cheap to clone.
#[derive(Clone)]
pub struct Lectern {
    store: Arc<dyn Store>,
    /// Public URL without a trailing slash; every URL returned starts with it.
    public_url: Arc<str>,
    /// Who hears about first views through share links.
    notifier: Arc<dyn crate::store::Notifier>,
    /// Where uploaded media (and, in the binary, exports and thumbnails) are kept.
    files: Arc<dyn crate::store::FileStore>,
    /// Most bytes of media one account may keep (`--media-quota-mb`).
    media_quota_bytes: i64,
    /// Slide orders of recently read decks, per revision (`order.rs`).
    orders: Arc<order::Orders>,
    /// Sanitised slides of recently viewed decks, per revision (`viewer.rs`).
    views: Arc<viewer::ViewCache>,
    /// Tries per window at sign-in, share passwords and client registration.
    guess_limits: Arc<crate::guard::GuessLimits>,
    /// Image decodes at once (uploads): each may hold up to `media::MAX_DECODE_BYTES`, so
    /// this bounds the memory uploads take together.
    decoders: Arc<tokio::sync::Semaphore>,
    /// How long an upload waits for a decoder before it is answered 503.
    decode_wait: std::time::Duration,
    /// The decks someone follows live, told by the store when they change (`live.rs`).
    live: Arc<crate::events::LiveDecks>,
}

impl Lectern {
    /// Builds the core over a store.
    pub fn new(store: Arc<dyn Store>, public_url: &str) -> Self {
        let live = Arc::new(crate::events::LiveDecks::default());
        let listener: Arc<dyn crate::store::ChangeListener> = live.clone();
        store.add_change_listener(Arc::downgrade(&listener));
        Lectern {
            live,
            store,
            public_url: public_url.trim_end_matches('/').into(),
            notifier: Arc::new(crate::store::LogNotifier),
            files: Arc::new(crate::store::NoFiles),
            media_quota_bytes: (media::DEFAULT_QUOTA_MB * 1024 * 1024) as i64,
            orders: Arc::default(),
            views: Arc::default(),
            guess_limits: Arc::default(),
            decoders: Arc::new(tokio::sync::Semaphore::new(crate::media::DEFAULT_DECODERS)),
            decode_wait: media::DEFAULT_DECODE_WAIT,
        }
    }

    /// The same core with other limits on guessing (tests shorten the windows).
    pub fn with_guess_limits(mut self, limits: crate::guard::GuessLimits) -> Self {
        self.guess_limits = Arc::new(limits);
        self
    }

    /// The limits on guessing.
    pub fn guess_limits(&self) -> &crate::guard::GuessLimits {
        &self.guess_limits
    }

    /// Counts one try against `key`, allowing `max` in a window of `window`; refused past
    /// them until the window ends. Now and then forgets the windows that have ended.
    pub(crate) async fn count_try(
        &self,
        key: &str,
        max: i64,
        window: std::time::Duration,
    ) -> Result<std::result::Result<(), crate::guard::TooManyTries>> {
        let now = Timestamp::now();
        let (tries, end) = self
            .store
            .count_attempt(key, now, crate::guard::window_end(now, window))
            .await?;
        if rand::random::<u8>() < 2 {
            self.store.forget_attempts(now).await?;
        }
        Ok(crate::guard::window_verdict(tries, end, window, max, now))
    }

    /// The same core decoding at most `decoders` uploaded images at once; an upload that
    /// finds them all taken for `wait` is answered 503 with `Retry-After`.
    pub fn with_media_decoders(mut self, decoders: usize, wait: std::time::Duration) -> Self {
        self.decoders = Arc::new(tokio::sync::Semaphore::new(decoders));
        self.decode_wait = wait;
        self
    }

    /// The same core keeping media files in `files`.
    pub fn with_files(mut self, files: Arc<dyn crate::store::FileStore>) -> Self {
        self.files = files;
        self
    }

    /// The same core with a per-account media quota of `mb` MiB.
    pub fn with_media_quota_mb(mut self, mb: u64) -> Self {
        self.media_quota_bytes = i64::try_from(mb.saturating_mul(1024 * 1024)).unwrap_or(i64::MAX);
        self
    }

    /// The file store.
    pub fn files(&self) -> &Arc<dyn crate::store::FileStore> {
        &self.files
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
            .create_oauth_client(
                name,
                redirect_uris,
                public,
                crate::store::ClientOrigin::Admin,
            )
            .await
    }

    /// The first start of `serve`: the account `admin` with a password and a key.
    pub async fn bootstrap(&self) -> Result<Option<Bootstrap>> {
        self.0.bootstrap().await
    }

    /// `admin import-deck`: the new deck's id and what the import dropped.
    pub async fn import_deck(
        &self,
        username: &str,
        bytes: Vec<u8>,
        format: ImportFormat,
    ) -> Result<Imported<i64>> {
        self.0.import_deck(username, bytes, format).await
    }
}

/// The HTML of all stored slides (`deck_html`), in the order they were read.
fn deck_html(slides: &[SlideHtmlRecord]) -> String {
    layout::render_deck_html(slides.iter().map(|s| (&s.slot, s.html.as_str())))
}

/// Who writes, and on which condition.
fn write_context(caller: &Caller, precondition: Option<Precondition>) -> WriteContext {
    WriteContext {
        author: caller.author(),
        precondition,
    }
}
