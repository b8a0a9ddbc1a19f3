//! The records the storage port reads and writes: rows as the core sees them, what a new
//! row needs, and the closures through which the core decides inside a store transaction.

use crate::Result;
use crate::deck::{DeckLook, Visibility};
use crate::layout::{Plan, SlideSlot, Slots};
use crate::time::Timestamp;

/// An account as stored.
#[derive(Debug, Clone)]
pub struct UserRecord {
    pub id: i64,
    pub username: String,
    pub email: String,
    pub name: String,
    pub description: String,
    pub website_url: String,
    pub twitter_handle: String,
    pub team_id: Option<i64>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A new account to store.
#[derive(Debug, Clone)]
pub struct NewUserRecord {
    pub username: String,
    pub email: String,
    pub name: String,
    /// argon2 PHC string, or `None` for an account that cannot sign in on the web.
    pub password_hash: Option<String>,
    /// The team the account joins, if any.
    pub team_id: Option<i64>,
    pub created_at: Timestamp,
}

/// An API key row found by its public lookup part, with what authentication needs.
#[derive(Debug, Clone)]
pub struct ApiKeyRecord {
    pub id: i64,
    pub user_id: i64,
    pub username: String,
    pub team_id: Option<i64>,
    /// What its owner called it (the deck history names it).
    pub label: String,
    /// SHA-256 of the whole key.
    pub hash: String,
    pub last_used_at: Option<Timestamp>,
}

/// A new API key to store.
#[derive(Debug, Clone)]
pub struct NewApiKeyRecord {
    pub user_id: i64,
    pub label: String,
    pub lookup: String,
    pub hash: String,
    pub created_at: Timestamp,
}

/// How an OAuth client came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientOrigin {
    /// `lectern admin create-oauth-client`: the administrator chose its name.
    Admin,
    /// `/oauth/register` (RFC 7591): anyone, naming itself.
    Registered,
}

impl ClientOrigin {
    /// The stored form (`oauth_clients.origin`).
    pub fn as_str(self) -> &'static str {
        match self {
            ClientOrigin::Admin => "admin",
            ClientOrigin::Registered => "registered",
        }
    }

    /// Reads the stored form; anything unknown is treated as unverified.
    pub fn parse(s: &str) -> Self {
        if s == "admin" {
            ClientOrigin::Admin
        } else {
            ClientOrigin::Registered
        }
    }
}

/// A new OAuth client to store (the OAuth issue uses it).
#[derive(Debug, Clone)]
pub struct NewOAuthClientRecord {
    pub client_id: String,
    pub name: String,
    /// Who made it: the administrator or anyone at `/oauth/register`.
    pub origin: ClientOrigin,
    /// SHA-256 of the client secret; `None` for a public client.
    pub secret_hash: Option<String>,
    pub redirect_uris: Vec<String>,
    pub created_at: Timestamp,
}

/// A share link as stored.
#[derive(Debug, Clone)]
pub struct ShareRecord {
    pub id: i64,
    pub deck_id: i64,
    pub name: String,
    /// The token in the link's URL (shown to the deck's owner).
    pub token: String,
    pub password_protected: bool,
    pub expires_at: Option<Timestamp>,
    pub notify_on_view: bool,
    pub view_count: i64,
    pub first_viewed_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

/// An export as stored.
#[derive(Debug, Clone)]
pub struct ExportRecord {
    pub id: i64,
    pub deck_id: i64,
    /// `pdf` or `zip`.
    pub format: String,
    /// The options as JSON text.
    pub options: String,
    /// `pending`, `completed` or `failed`.
    pub status: String,
    pub error: Option<String>,
    pub attempts: i64,
    pub file_key: Option<String>,
    pub created_at: Timestamp,
    pub completed_at: Option<Timestamp>,
}

/// An uploaded image as stored.
#[derive(Debug, Clone)]
pub struct MediaRecord {
    /// Random letters and digits; also the file's public name.
    pub id: String,
    pub owner_id: i64,
    pub name: String,
    pub content_type: String,
    /// Size of the stored file.
    pub bytes: i64,
    pub width: Option<i64>,
    pub height: Option<i64>,
    /// SHA-256 of the uploaded bytes, lowercase hex.
    pub sha256: String,
    /// The key of the file in the file store.
    pub file_key: String,
    pub created_at: Timestamp,
}

/// What [`super::MediaStore::insert_media`] did.
#[derive(Debug)]
pub enum MediaInsert {
    Created(MediaRecord),
    /// The owner had these bytes already: their first upload.
    Existing(MediaRecord),
    /// The quota would be passed: the owner's files take `used` bytes now.
    OverQuota {
        used: i64,
    },
}

/// What opening a share link needs.
#[derive(Debug, Clone)]
pub struct ShareAccess {
    pub id: i64,
    pub deck_id: i64,
    pub name: String,
    pub token: String,
    pub password_hash: Option<String>,
    pub expires_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
    pub notify_on_view: bool,
}

/// A new share link to store.
#[derive(Debug, Clone)]
pub struct NewShareRecord {
    pub name: String,
    pub token: String,
    pub token_hash: String,
    pub password_hash: Option<String>,
    pub expires_at: Option<Timestamp>,
    pub notify_on_view: bool,
    pub created_at: Timestamp,
}

/// What signing in needs to know about an account.
#[derive(Debug, Clone)]
pub struct LoginRecord {
    pub user_id: i64,
    pub password_hash: Option<String>,
}

/// The failed sign-ins of one account from one client address.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoginFailures {
    /// Tries since the last success (each counted before its password was checked).
    pub failures: i64,
    pub last_failed_at: Option<Timestamp>,
}

/// Decides whether a sign-in may be tried now: `None` lets it go on (the store counts it),
/// `Some(seconds)` refuses it for that long.
pub type LoginDecideFn = Box<dyn FnOnce(LoginFailures) -> Option<i64> + Send>;

/// A web session as stored (the id only as its hash).
#[derive(Debug, Clone)]
pub struct SessionRecord {
    pub id_hash: String,
    pub user_id: i64,
    pub csrf_token: String,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
}

/// A signed-in session with its account.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    pub user_id: i64,
    pub username: String,
    pub team_id: Option<i64>,
    pub csrf_token: String,
    pub expires_at: Timestamp,
}

/// An API key as the key page lists it (never the key itself).
#[derive(Debug, Clone)]
pub struct ApiKeyInfo {
    pub id: i64,
    pub label: String,
    /// The public prefix (`lk_` + 8 characters).
    pub lookup: String,
    pub created_at: Timestamp,
    pub last_used_at: Option<Timestamp>,
}

/// A registered OAuth client.
#[derive(Debug, Clone)]
pub struct OAuthClientRecord {
    pub client_id: String,
    pub name: String,
    /// Who made it; a registered client's name is only what it says of itself.
    pub origin: ClientOrigin,
    /// SHA-256 of the secret; `None` for a public client.
    pub secret_hash: Option<String>,
    pub redirect_uris: Vec<String>,
}

/// An authorization code as stored (bound to everything the token request must repeat).
#[derive(Debug, Clone)]
pub struct CodeRecord {
    pub code_hash: String,
    pub client_id: String,
    pub user_id: i64,
    pub redirect_uri: String,
    pub scope: String,
    pub resource: String,
    pub code_challenge: Option<String>,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
}

/// A stored code as the exchange found it, locked until the core's decision is carried out.
#[derive(Debug, Clone)]
pub struct CodeState {
    pub code: CodeRecord,
    /// When it was exchanged (or burnt) before.
    pub used_at: Option<Timestamp>,
    /// The grant its first exchange produced.
    pub grant_id: Option<i64>,
}

/// A stored refresh token and its grant as a refresh found them, locked until the core's
/// decision is carried out.
#[derive(Debug, Clone)]
pub struct RefreshState {
    pub token_id: i64,
    pub grant: GrantRecord,
    /// When it was rotated before.
    pub used_at: Option<Timestamp>,
    /// Whether the token or its grant was revoked.
    pub revoked: bool,
    pub expires_at: Timestamp,
}

/// What the core decided about a presented code or refresh token; the store carries it out
/// in the transaction that read the state, and decides nothing itself.
#[derive(Debug, Clone)]
pub enum TokenWrite {
    /// Mark the code or refresh token used and store these tokens (a code also gets its grant,
    /// with the code's client, account, scope and resource).
    Issue(Box<[NewTokenRecord; 2]>),
    /// Mark the code used (a failed exchange uses it up); nothing else.
    UseUp,
    /// Revoke the grant (a second use of a code or refresh token).
    RevokeGrant,
    /// Change nothing.
    Nothing,
}

/// The core's decision on a code exchange.
pub type CodeDecideFn = Box<dyn FnOnce(&CodeState) -> TokenWrite + Send>;

/// The core's decision on a refresh.
pub type RefreshDecideFn = Box<dyn FnOnce(&RefreshState) -> TokenWrite + Send>;

/// The core's check that a deck has room for one more share link, given the number of its
/// links that still work (not revoked, not expired at the new link's creation time); run in
/// the transaction that locks the deck.
pub type ShareRoomFn = Box<dyn FnOnce(i64) -> Result<()> + Send>;

/// A token to store.
#[derive(Debug, Clone)]
pub struct NewTokenRecord {
    pub token_hash: String,
    /// `access` or `refresh`.
    pub kind: &'static str,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
    /// An access token's own scope when narrower than its grant's (`None`: the grant's).
    pub scope: Option<String>,
}

/// A grant (the user's consent to one client) as stored.
#[derive(Debug, Clone)]
pub struct GrantRecord {
    pub id: i64,
    pub client_id: String,
    pub user_id: i64,
    pub scope: String,
    pub resource: String,
}

/// A live access token with its account, for authentication.
#[derive(Debug, Clone)]
pub struct AccessTokenRecord {
    pub token_id: i64,
    /// The authorization the token belongs to.
    pub grant_id: i64,
    /// The OAuth client's name.
    pub client_name: String,
    pub user_id: i64,
    pub username: String,
    pub team_id: Option<i64>,
    pub scope: String,
    pub resource: String,
    pub expires_at: Timestamp,
}

/// A deck as stored, with its owner's username (for URLs) and its slide count.
#[derive(Debug, Clone, PartialEq)]
pub struct DeckRecord {
    pub id: i64,
    pub owner_id: i64,
    pub owner_username: String,
    pub title: String,
    pub description: String,
    pub slug: String,
    pub visibility: Visibility,
    pub css: String,
    pub look: DeckLook,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub trashed_at: Option<Timestamp>,
    pub slide_count: i64,
    /// The owner's display name (team decks show it).
    pub owner_name: String,
    /// The owner's team (who may view a `team` deck).
    pub owner_team_id: Option<i64>,
    /// Names the deck's current thumbnail image, once one was drawn.
    pub thumbnail_token: Option<String>,
    /// The deck's revision: 1 at creation, one more with every change.
    pub revision: i64,
}

/// A team as stored.
#[derive(Debug, Clone)]
pub struct TeamRecord {
    pub id: i64,
    pub name: String,
    pub slug: String,
    pub created_at: Timestamp,
}

/// A deck as a team list shows it.
#[derive(Debug, Clone)]
pub struct TeamDeckListRecord {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub slug: String,
    pub visibility: Visibility,
    pub owner_id: i64,
    pub owner_name: String,
    pub owner_username: String,
    pub thumbnail_token: Option<String>,
    pub revision: i64,
}

/// A deck found by `search_decks`.
#[derive(Debug, Clone)]
pub struct DeckSearchRecord {
    pub deck: TeamDeckListRecord,
    /// Whether the title matched (else a slide did).
    pub title_matched: bool,
}

/// The few columns a deck list shows.
#[derive(Debug, Clone)]
pub struct DeckListRecord {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub slug: String,
    pub trashed_at: Option<Timestamp>,
    pub thumbnail_token: Option<String>,
    pub revision: i64,
}

/// A new deck to store; the backend picks the slug (see [`crate::deck::numbered_slug`]).
#[derive(Debug, Clone)]
pub struct NewDeckRecord {
    pub owner_id: i64,
    pub title: String,
    pub description: String,
    /// The base slug from the title; the backend makes it unique per owner.
    pub slug_base: String,
    pub visibility: Visibility,
    pub look: DeckLook,
    pub css: String,
    /// The slides in presentation order, with their order keys and groups.
    pub slides: Vec<NewSlideRecord>,
    pub created_at: Timestamp,
}

/// A slide's content as stored, with the summary derived from it.
#[derive(Debug, Clone)]
pub struct SlideContent {
    /// The section with its `data-id` already set.
    pub html: String,
    pub notes: Option<String>,
    /// Text of the first heading.
    pub title: String,
    /// Visible text, collapsed and cut.
    pub text_preview: String,
}

/// A new slide to store: its place and content.
#[derive(Debug, Clone)]
pub struct NewSlideRecord {
    pub slot: SlideSlot,
    pub content: SlideContent,
}

/// A change of one slide's content; `None` keeps the current value.
#[derive(Debug, Clone)]
pub struct SlideContentPatch {
    pub id: String,
    /// New html with its title and preview.
    pub html: Option<(String, String, String)>,
    /// New notes; `Some(None)` clears them.
    pub notes: Option<Option<String>>,
}

/// A slide's place and HTML, for building a deck's HTML.
#[derive(Debug, Clone)]
pub struct SlideHtmlRecord {
    pub slot: SlideSlot,
    pub html: String,
    pub notes: Option<String>,
}

/// A deck's slide order (ids, order keys, groups) and the revision it is the order of, read
/// together.
#[derive(Debug, Clone)]
pub struct SlideOrder {
    pub revision: i64,
    pub slots: crate::layout::Slots,
}

/// The summary columns of a slide.
#[derive(Debug, Clone)]
pub struct SlideSummaryRecord {
    pub id: String,
    pub title: String,
    pub text_preview: String,
    pub html_bytes: i64,
    pub has_notes: bool,
}

/// One slide's content.
#[derive(Debug, Clone)]
pub struct SlideRecord {
    pub id: String,
    pub html: String,
    pub notes: Option<String>,
}

/// What a slide edit writes, decided by the core from the deck's current order.
#[derive(Debug, Clone, Default)]
pub struct SlideEdit {
    /// Order changes, deletions, and the count and missing ids to report.
    pub plan: Plan,
    /// New slides (their slots are also in `plan.insert`).
    pub insert: Vec<NewSlideRecord>,
    /// A content change of one existing slide.
    pub content: Option<SlideContentPatch>,
    /// The deck's order after the edit, for the answer's position and the order cache. A
    /// content edit leaves it empty; the store fills it in when it knows the order of the
    /// revision before (a content edit moves nothing), so that it need not be read.
    pub after: Slots,
    /// Set by the store: the deck's revision after the edit (unchanged when the edit
    /// changed nothing).
    pub revision: i64,
}

/// The core's decision, made inside the backend's transaction from the current order.
pub type SlideEditFn = Box<dyn FnOnce(&Slots) -> Result<SlideEdit> + Send>;

/// A deck's order as the core last saw it at `revision` (from its order cache).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownOrder {
    pub revision: i64,
    pub slots: Slots,
}

/// How much of the deck's order a slide edit decides on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderScope {
    /// Every slide, in order (adding, removing, moving). When the core knows the order at
    /// the revision the edit finds, the store uses it instead of reading it again.
    Whole(Option<KnownOrder>),
    /// Only this slide's slot, or none when the deck has no such slide (a content edit,
    /// which moves nothing: its cost does not grow with the deck). The order the core
    /// knows, if any, is carried over to the new revision when it is the revision before's.
    Slide(String, Option<KnownOrder>),
}

/// A slide edit for [`SlideStore::edit_slides`]: the part of the order it needs and the
/// decision over it.
pub struct SlideEditor {
    pub scope: OrderScope,
    pub decide: SlideEditFn,
}

/// Which of an owner's decks a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeckListKind {
    /// Not in the trash, newest first.
    Active,
    /// In the trash, most recently trashed first.
    Trashed,
    /// Visibility `all` and not in the trash, newest first (the profile page).
    Public,
}

/// Another server's requests under one rate-limit key in one 10-second bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateUsage {
    pub server: String,
    pub key: String,
    pub bucket: i64,
    pub requests: u64,
}

/// One entry of a deck's history.
#[derive(Debug, Clone)]
pub struct RevisionRecord {
    pub revision: i64,
    pub created_at: Timestamp,
    /// The operationId that made it ([`crate::revision::Operation::as_str`]).
    pub operation: String,
    /// The slides it added, changed, removed or moved.
    pub slide_ids: Vec<String>,
    pub restored_revision: Option<i64>,
    /// The author's account (none once that account is gone) and username.
    pub author_id: Option<i64>,
    pub author_username: Option<String>,
    pub via: String,
    pub label: Option<String>,
    /// Names the credential it was made through (`key:<id>`, `grant:<id>`).
    pub credential: Option<String>,
}

/// A deck as it was right after one revision: its settings and its slides in order.
#[derive(Debug, Clone)]
pub struct RevisionSnapshot {
    pub revision: i64,
    pub created_at: Timestamp,
    pub settings: crate::revision::DeckSettings,
    /// In presentation order.
    pub slides: Vec<SlideHtmlRecord>,
}

/// What a restore writes, decided by the core from the deck as it is and as it was: only
/// what differs.
#[derive(Debug, Clone, Default)]
pub struct RestorePlan {
    pub restored_revision: i64,
    /// The settings to bring back, when they differ from the current ones.
    pub settings: Option<crate::revision::DeckSettings>,
    /// Slides to delete (they did not exist after the restored revision).
    pub delete: Vec<String>,
    /// Existing slides whose place or content differs: their place, and their content
    /// when that differs.
    pub update: Vec<(SlideSlot, Option<SlideContent>)>,
    /// Slides that come back, with their ids, places, content and notes.
    pub insert: Vec<NewSlideRecord>,
}

impl RestorePlan {
    /// Whether the restore changes nothing.
    pub fn is_empty(&self) -> bool {
        self.settings.is_none()
            && self.delete.is_empty()
            && self.update.is_empty()
            && self.insert.is_empty()
    }

    /// The slides it removes, changes, moves or brings back.
    pub fn slide_ids(&self) -> Vec<String> {
        self.delete
            .iter()
            .cloned()
            .chain(self.update.iter().map(|(s, _)| s.id.clone()))
            .chain(self.insert.iter().map(|s| s.slot.id.clone()))
            .collect()
    }
}

/// The core's restore decision, made inside the backend's transaction from the deck as it
/// is (its record and its slides in order).
pub type RestoreFn = Box<dyn FnOnce(&DeckRecord, &[SlideHtmlRecord]) -> Result<RestorePlan> + Send>;

/// A deck's settings and its record: what a revision keeps of a deck, and back.
impl crate::revision::DeckSettings {
    /// The settings of a stored deck.
    pub fn of(d: &DeckRecord) -> Self {
        Self {
            title: d.title.clone(),
            description: d.description.clone(),
            visibility: d.visibility,
            css: d.css.clone(),
            look: d.look.clone(),
        }
    }

    /// Makes `d`'s settings these (the inverse of [`Self::of`]).
    pub fn apply_to(self, d: &mut DeckRecord) {
        d.title = self.title;
        d.description = self.description;
        d.visibility = self.visibility;
        d.css = self.css;
        d.look = self.look;
    }
}
