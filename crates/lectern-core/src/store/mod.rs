//! The storage port. [`Store`] is the sum of one trait per resource; `lectern-store-sql`
//! implements them once for SQLite and PostgreSQL, and the services hold an
//! `Arc<dyn Store>`. Every method is sized to one use case and runs as one transaction
//! inside the store, so a failed call changes nothing. The store translates its errors
//! into [`crate::Error`] (a unique violation on a username becomes 422, a fault becomes
//! `Internal`).

use async_trait::async_trait;

use crate::Result;
use crate::auth::Author;
use crate::deck::DeckPatch;
use crate::params::Paging;
use crate::revision::{Operation, WriteContext};
use crate::time::Timestamp;

mod files;
mod orders;
mod records;

pub use files::{FileStore, NoFiles};
pub use orders::{DeckOrders, MAX_ORDER_SLIDES, SlideCount};
pub use records::*;

/// Who is told about a first view through a link that asks for it (`notify_on_view`).
pub trait Notifier: Send + Sync {
    /// The first view of `link_name` for `deck_title`, to the deck's owner.
    fn first_view(&self, owner: &UserRecord, deck_title: &str, link_name: &str);
}

/// The default notifier: a log line.
pub struct LogNotifier;

impl Notifier for LogNotifier {
    fn first_view(&self, owner: &UserRecord, deck_title: &str, link_name: &str) {
        tracing::info!(
            user.id = owner.id,
            deck.title = deck_title,
            share.name = link_name,
            "first view through a share link"
        );
    }
}

/// The storage port; see the module docs. One trait per resource, so that each backend
/// file and the cache implement one resource at a time; `dyn Store` reaches every method.
pub trait Store:
    ServerStore
    + AccountStore
    + KeyStore
    + DeckStore
    + SlideStore
    + RevisionStore
    + ShareStore
    + ExportStore
    + MediaStore
    + OAuthStore
    + TeamStore
    + DumpStore
{
}

impl<T> Store for T where
    T: ServerStore
        + AccountStore
        + KeyStore
        + DeckStore
        + SlideStore
        + RevisionStore
        + ShareStore
        + ExportStore
        + MediaStore
        + OAuthStore
        + TeamStore
        + DumpStore
{
}

/// Told by the store when decks change (the core's live decks and their event streams).
pub trait ChangeListener: Send + Sync {
    /// Deck `deck_id` changed (a write committed, here or on another server).
    fn deck_changed(&self, deck_id: i64);
    /// Any deck may have changed unheard (a watcher reconnected, another process wrote).
    fn all_changed(&self);
    /// A message another server (or this one) published (`ServerStore::publish`).
    fn message(&self, _payload: &str) {}
}

/// The server as a whole: the health check, change listeners and messages between servers
/// and, where several servers share the database, their rate-limit counts.
#[async_trait]
pub trait ServerStore: Send + Sync {
    /// Checks that the database answers (for `/healthz`).
    async fn ping(&self) -> Result<()>;
    /// Tells `listener` from now on when decks change (the cache in front of a backend
    /// does; a bare backend tells nobody).
    fn add_change_listener(&self, _listener: std::sync::Weak<dyn ChangeListener>) {}
    /// Hands `message` to every server on this database (their change listeners'
    /// `message`); one server alone has nobody to tell.
    async fn publish(&self, _message: &str) -> Result<()> {
        Ok(())
    }
    /// Whether several serving processes may use this database, so that they share their
    /// rate-limit counts through [`ServerStore::exchange_rate_usage`]. SQLite serves one process.
    fn shares_rate_limits(&self) -> bool {
        false
    }
    /// Stores this server's requests per key since its last call (`mine`, counted in
    /// `bucket`) and returns every other server's counts of this bucket and the one before.
    /// Only called where [`ServerStore::shares_rate_limits`].
    async fn exchange_rate_usage(
        &self,
        _server: &str,
        _bucket: i64,
        _mine: &[(String, u64)],
    ) -> Result<Vec<RateUsage>> {
        Ok(Vec::new())
    }
    /// Counts one try against `key` in one statement: in the key's window when it is still
    /// open (its end after `now`), else in a new window ending at `new_window_end`. The tries
    /// in the window (this one included) and the window's end.
    async fn count_attempt(
        &self,
        key: &str,
        now: Timestamp,
        new_window_end: Timestamp,
    ) -> Result<(i64, Timestamp)>;
    /// Forgets the windows that ended by `now`.
    async fn forget_attempts(&self, now: Timestamp) -> Result<()>;
}

/// Accounts, sign-in data and web sessions.
#[async_trait]
pub trait AccountStore: Send + Sync {
    /// Number of accounts (the first start creates `admin` when it is zero).
    async fn count_users(&self) -> Result<i64>;
    /// Stores an account; a taken username answers 422.
    async fn create_user(&self, user: NewUserRecord) -> Result<i64>;
    /// The account with this username.
    async fn find_user_by_username(&self, username: &str) -> Result<Option<UserRecord>>;
    /// The account with this id.
    async fn get_user(&self, id: i64) -> Result<Option<UserRecord>>;
    /// Sign-in data of the account with this username.
    async fn find_login(&self, username: &str) -> Result<Option<LoginRecord>>;
    /// In one transaction: reads and locks the failures of the account at `address`, asks
    /// `decide`, and, when it lets the try go on (`None`), counts it as a failure at `now`
    /// before any password is checked. What `decide` answered (`Some(seconds)`: refused).
    async fn reserve_login(
        &self,
        user_id: i64,
        address: &str,
        now: Timestamp,
        decide: LoginDecideFn,
    ) -> Result<Option<i64>>;
    /// Forgets the failures of the account at `address` (after the right password).
    async fn clear_login_failures(&self, user_id: i64, address: &str) -> Result<()>;
    /// Stores a web session.
    async fn create_session(&self, session: SessionRecord) -> Result<()>;
    /// The live session with this id hash.
    async fn find_session(&self, id_hash: &str, now: Timestamp) -> Result<Option<SessionInfo>>;
    /// Ends a session.
    async fn delete_session(&self, id_hash: &str) -> Result<()>;
}

/// API keys.
#[async_trait]
pub trait KeyStore: Send + Sync {
    /// Stores an API key.
    async fn create_api_key(&self, key: NewApiKeyRecord) -> Result<i64>;
    /// The live (not revoked) API key with this lookup part.
    async fn find_api_key(&self, lookup: &str) -> Result<Option<ApiKeyRecord>>;
    /// Records that a key was used.
    async fn touch_api_key(&self, key_id: i64, at: Timestamp) -> Result<()>;
    /// The account's live API keys, newest first.
    async fn list_api_keys(&self, user_id: i64) -> Result<Vec<ApiKeyInfo>>;
    /// Revokes one of the account's keys; `false` when there is no such live key.
    async fn revoke_api_key(&self, user_id: i64, key_id: i64, at: Timestamp) -> Result<bool>;
}

/// Decks: listing, creating, reading, patching, the trash.
#[async_trait]
pub trait DeckStore: Send + Sync {
    /// One page of an owner's decks and the total count.
    async fn list_decks(
        &self,
        owner_id: i64,
        kind: DeckListKind,
        paging: Paging,
    ) -> Result<(Vec<DeckListRecord>, i64)>;
    /// Stores a deck and its slides as revision 1 by `author`; returns the deck.
    async fn create_deck(&self, deck: NewDeckRecord, author: &Author) -> Result<DeckRecord>;
    /// The owner's deck with this id, trashed or not.
    async fn get_deck(&self, owner_id: i64, deck_id: i64) -> Result<Option<DeckRecord>>;
    /// The deck at `/{username}/{slug}`, trashed or not.
    async fn find_deck_by_slug(&self, username: &str, slug: &str) -> Result<Option<DeckRecord>>;
    /// The deck with this id, whoever owns it (share links and exports).
    async fn find_deck(&self, deck_id: i64) -> Result<Option<DeckRecord>>;
    /// Applies a patch to the owner's active deck when `ctx`'s precondition holds, as one
    /// revision unless it changes nothing; `None` when there is no such deck.
    async fn update_deck(
        &self,
        owner_id: i64,
        deck_id: i64,
        patch: &DeckPatch,
        now: Timestamp,
        ctx: &WriteContext,
    ) -> Result<Option<DeckRecord>>;
    /// Moves the owner's deck into the trash (`Some(time)`) or out of it (`None`), as one
    /// revision by `author`. A deck already in the requested state is left as it is.
    /// `false` when there is no such deck.
    async fn set_deck_trashed(
        &self,
        owner_id: i64,
        deck_id: i64,
        trashed_at: Option<Timestamp>,
        author: &Author,
    ) -> Result<bool>;
}

/// Slides and their order.
#[async_trait]
pub trait SlideStore: Send + Sync {
    /// The deck's slides in presentation order; only the first `first` of them when set (a
    /// thumbnail draws one slide, and should not read a 60,000-slide deck to find it).
    async fn deck_slides_html(
        &self,
        deck_id: i64,
        first: Option<usize>,
    ) -> Result<Vec<SlideHtmlRecord>>;
    /// The deck's slides in order (ids, order keys and groups) with the deck's revision,
    /// read in one statement so that the two agree.
    async fn slide_order(&self, deck_id: i64) -> Result<SlideOrder>;
    /// The summaries of the deck's slides among `ids` (in no particular order).
    async fn slide_summaries(
        &self,
        deck_id: i64,
        ids: &[String],
    ) -> Result<Vec<SlideSummaryRecord>>;
    /// One slide of a deck.
    async fn get_slide(&self, deck_id: i64, slide_id: &str) -> Result<Option<SlideRecord>>;
    /// In one transaction: locks the owner's active deck, checks `ctx`'s precondition,
    /// reads its order, lets `edit` decide, writes the result, bumps the deck's `updated_at`
    /// and records it as one revision (`operation` by `ctx.author`) unless it changed
    /// nothing. `None` when there is no such deck; an error changes nothing.
    async fn edit_slides(
        &self,
        owner_id: i64,
        deck_id: i64,
        now: Timestamp,
        edit: SlideEditor,
        operation: Operation,
        ctx: &WriteContext,
    ) -> Result<Option<SlideEdit>>;
}

/// The deck history: its entries, the deck as it was after one, restoring it, and forgetting
/// old entries.
#[async_trait]
pub trait RevisionStore: Send + Sync {
    /// The operation of each recorded revision of the deck strictly between `after` and
    /// `before` (pruned ones are missing).
    async fn revision_operations(
        &self,
        deck_id: i64,
        after: i64,
        before: i64,
    ) -> Result<Vec<String>>;
    /// The deck's revisions after `after`, oldest first, at most `limit`, and the oldest
    /// revision still kept (`None`: none is).
    async fn revisions_after(
        &self,
        deck_id: i64,
        after: i64,
        limit: i64,
    ) -> Result<(Vec<RevisionRecord>, Option<i64>)>;
    /// One page of a deck's revisions, newest first, and their total; only those that
    /// touched `slide_id` when one is given.
    async fn list_revisions(
        &self,
        deck_id: i64,
        slide_id: Option<&str>,
        paging: Paging,
    ) -> Result<(Vec<RevisionRecord>, i64)>;
    /// The deck as it was right after `revision`; `None` when there is no such revision
    /// (never made, or forgotten).
    async fn revision_snapshot(
        &self,
        deck_id: i64,
        revision: i64,
    ) -> Result<Option<RevisionSnapshot>>;
    /// In one transaction: locks the owner's active deck, checks `ctx`'s precondition, reads
    /// the deck and its slides, lets `plan` decide what differs from the restored revision,
    /// writes it and records it as one `restore` revision (none when nothing differs).
    /// `None` when there is no such deck.
    async fn restore_deck(
        &self,
        owner_id: i64,
        deck_id: i64,
        plan: RestoreFn,
        now: Timestamp,
        ctx: &WriteContext,
    ) -> Result<Option<DeckRecord>>;
    /// Forgets the revisions made before `before`, except each deck's newest `keep`; the
    /// decks after the kept revisions stay exactly as they were. Returns how many were
    /// forgotten.
    async fn prune_history(&self, before: Timestamp, keep: i64) -> Result<u64>;
}

/// Share links and their views.
#[async_trait]
pub trait ShareStore: Send + Sync {
    /// Stores a share link of the owner's active deck when `room`, given the number of its
    /// working links, allows it (its error otherwise). `None` when there is no such deck.
    async fn create_share(
        &self,
        owner_id: i64,
        deck_id: i64,
        share: NewShareRecord,
        room: ShareRoomFn,
    ) -> Result<Option<ShareRecord>>;
    /// The deck's live share links, newest first.
    async fn list_shares(&self, deck_id: i64) -> Result<Vec<ShareRecord>>;
    /// Revokes a live share link of the deck; `false` when there is none with this id.
    async fn revoke_share(&self, deck_id: i64, share_id: i64, at: Timestamp) -> Result<bool>;
    /// A share link by id, live or not.
    async fn find_share_access(&self, share_id: i64) -> Result<Option<ShareAccess>>;
    /// Counts one view of a link (setting `first_viewed_at` on the first); returns the new
    /// count. Atomic.
    async fn count_share_view(&self, share_id: i64, at: Timestamp) -> Result<i64>;
}

/// The export queue, thumbnails and server-wide secrets.
#[async_trait]
pub trait ExportStore: Send + Sync {
    /// Queues an export of the owner's active deck; `None` when there is no such deck.
    async fn create_export(
        &self,
        owner_id: i64,
        deck_id: i64,
        format: &str,
        options: &str,
        at: Timestamp,
    ) -> Result<Option<ExportRecord>>;
    /// The owner's export of this deck.
    async fn get_export(
        &self,
        owner_id: i64,
        deck_id: i64,
        export_id: i64,
    ) -> Result<Option<ExportRecord>>;
    /// An export by id (for downloads, checked by signature).
    async fn find_export(&self, export_id: i64) -> Result<Option<ExportRecord>>;
    /// Takes a pending export whose lease is free, leasing it until `lease_until` and
    /// counting the attempt; first ends as failed every pending export that used up
    /// `max_attempts`. Accounts (deck owners) with `per_account` jobs in flight are passed
    /// over; of the others, the one with the fewest jobs in flight, then the one whose last
    /// export completed longest ago, gets its oldest job (round robin between accounts).
    /// Atomic across processes (no job runs twice at once).
    async fn claim_export(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        max_attempts: i64,
        per_account: i64,
    ) -> Result<Option<ExportRecord>>;
    /// Ends an export as completed with its stored file.
    async fn complete_export(&self, export_id: i64, file_key: &str, at: Timestamp) -> Result<()>;
    /// Ends an export as failed with a reason.
    async fn fail_export(&self, export_id: i64, error: &str, at: Timestamp) -> Result<()>;
    /// Lets another attempt take the job at once (after a failure that may pass).
    async fn release_export(&self, export_id: i64) -> Result<()>;
    /// Completed exports finished before `before` whose file is still kept: (id, file key).
    async fn stale_export_files(&self, before: Timestamp, limit: i64)
    -> Result<Vec<(i64, String)>>;
    /// Records that an export's file was deleted (its links answer 404 from now on).
    async fn forget_export_file(&self, export_id: i64) -> Result<()>;
    /// Exports waiting for a worker (`/metrics`).
    async fn export_queue_depth(&self) -> Result<i64>;
    /// Up to `limit` decks (outside the trash) changed since their thumbnail was drawn (or
    /// never drawn) and unchanged since `quiet_since`: (deck id, updated_at).
    async fn decks_needing_thumbnails(
        &self,
        quiet_since: Timestamp,
        limit: i64,
    ) -> Result<Vec<(i64, Timestamp)>>;
    /// Records a new thumbnail of the deck as of `version` (the deck's updated_at).
    async fn set_thumbnail(&self, deck_id: i64, token: &str, version: Timestamp) -> Result<()>;
    /// The deck whose current thumbnail this token names.
    async fn deck_by_thumbnail(&self, token: &str) -> Result<Option<i64>>;
    /// The server-wide secret `name`, created (from `fresh`) on first use.
    async fn server_secret(&self, name: &str, fresh: &str, at: Timestamp) -> Result<String>;
}

/// Uploaded images (an extension of the interface), each row the owner's. See
/// `crate::media` for what is accepted.
#[async_trait]
pub trait MediaStore: Send + Sync {
    /// Adds `media` unless the owner already has a file with the same `sha256` (then that
    /// one, unchanged) or the owner's files would take more than `quota_bytes` with it; in
    /// one transaction that holds the owner's row, so concurrent uploads cannot pass the
    /// quota together.
    async fn insert_media(&self, media: MediaRecord, quota_bytes: i64) -> Result<MediaInsert>;
    /// The owner's file whose uploaded bytes had this SHA-256.
    async fn find_media_by_sha(&self, owner_id: i64, sha256: &str) -> Result<Option<MediaRecord>>;
    /// The owner's file.
    async fn get_media(&self, owner_id: i64, media_id: &str) -> Result<Option<MediaRecord>>;
    /// A file by id, whoever owns it (serving its public URL).
    async fn find_media(&self, media_id: &str) -> Result<Option<MediaRecord>>;
    /// The owner's files among `media_ids` (exports collecting what slides reference).
    async fn media_among(&self, owner_id: i64, media_ids: &[String]) -> Result<Vec<MediaRecord>>;
    /// The owner's files, newest first, and how many there are.
    async fn list_media(&self, owner_id: i64, paging: Paging) -> Result<(Vec<MediaRecord>, i64)>;
    /// Deletes the owner's file; the deleted row (its file is the caller's to remove).
    async fn delete_media(&self, owner_id: i64, media_id: &str) -> Result<Option<MediaRecord>>;
}

/// OAuth clients, authorization codes, grants and tokens.
#[async_trait]
pub trait OAuthStore: Send + Sync {
    /// Stores an OAuth client.
    async fn create_oauth_client(&self, client: NewOAuthClientRecord) -> Result<()>;
    /// The OAuth client with this id.
    async fn find_oauth_client(&self, client_id: &str) -> Result<Option<OAuthClientRecord>>;
    /// Stores an authorization code.
    async fn create_code(&self, code: CodeRecord) -> Result<()>;
    /// In one transaction: reads and locks the code, asks `decide`, and carries out its
    /// [`TokenWrite`]; returns the state it found (`None`: no such code). With `Issue`, the
    /// grant's id is in the returned state.
    async fn exchange_code(
        &self,
        code_hash: &str,
        now: Timestamp,
        decide: CodeDecideFn,
    ) -> Result<Option<CodeState>>;
    /// The live access token with this hash (grant and token not revoked, not expired).
    async fn find_access_token(
        &self,
        token_hash: &str,
        now: Timestamp,
    ) -> Result<Option<AccessTokenRecord>>;
    /// In one transaction: reads and locks the refresh token and its grant, asks `decide`,
    /// and carries out its [`TokenWrite`]; returns the state it found (`None`: no such
    /// refresh token).
    async fn rotate_refresh_token(
        &self,
        token_hash: &str,
        now: Timestamp,
        decide: RefreshDecideFn,
    ) -> Result<Option<RefreshState>>;
    /// Revokes a grant and every token of it.
    async fn revoke_grant(&self, grant_id: i64, at: Timestamp) -> Result<()>;
    /// RFC 7009: revokes the token of `client_id` with this hash (a refresh token takes its
    /// whole grant along). Unknown tokens are ignored.
    async fn revoke_token(&self, token_hash: &str, client_id: &str, at: Timestamp) -> Result<()>;
}

/// Teams, their deck lists and deck search.
#[async_trait]
pub trait TeamStore: Send + Sync {
    /// The team with this id.
    async fn get_team(&self, id: i64) -> Result<Option<TeamRecord>>;
    /// The team with this slug.
    async fn find_team_by_slug(&self, slug: &str) -> Result<Option<TeamRecord>>;
    /// The team with this slug, created (named `name`) when missing.
    async fn find_or_create_team(
        &self,
        slug: &str,
        name: &str,
        at: Timestamp,
    ) -> Result<TeamRecord>;
    /// Puts an account into a team, or out of any (`None`); `false` when there is no such
    /// account.
    async fn set_user_team(
        &self,
        user_id: i64,
        team_id: Option<i64>,
        at: Timestamp,
    ) -> Result<bool>;
    /// One page of the team members' decks with visibility `team` or `all` (only `all` when
    /// `public_only`), outside the trash, newest first, and their total.
    async fn list_team_decks(
        &self,
        team_id: i64,
        public_only: bool,
        paging: Paging,
    ) -> Result<(Vec<TeamDeckListRecord>, i64)>;
    /// Decks whose title or slide HTML contains `needle` (case-insensitive substring):
    /// `owner_id`'s own decks outside the trash and, with `team_id`, the team members' `team`
    /// and `all` decks outside the trash; newest first, with the total count.
    async fn search_decks(
        &self,
        owner_id: i64,
        team_id: Option<i64>,
        needle: &str,
        paging: Paging,
    ) -> Result<(Vec<DeckSearchRecord>, i64)>;
    /// A team member's deck with visibility `team` or `all`, outside the trash.
    async fn get_team_deck(&self, team_id: i64, deck_id: i64) -> Result<Option<DeckRecord>>;
}

/// Whole-database copies (`admin migrate-data`, see [`dump`]).
#[async_trait]
pub trait DumpStore: Send + Sync {
    /// Number of rows in a table.
    async fn count_rows(&self, table: &'static dump::TableSpec) -> Result<i64>;
    /// Every row of a table, in primary-key order.
    async fn export_rows(&self, table: &'static dump::TableSpec) -> Result<Vec<dump::Row>>;
    /// Inserts rows as they are (ids included), in one transaction.
    async fn import_rows(&self, table: &'static dump::TableSpec, rows: &[dump::Row]) -> Result<()>;
    /// Brings id generators past the imported ids.
    async fn finish_import(&self) -> Result<()>;
}

pub mod cache;
pub mod dump;
