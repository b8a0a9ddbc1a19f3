//! The shapes the interface returns (section 2), shared by REST and MCP. Built from store
//! records by the services, which know the public URL.

use serde::Serialize;
use utoipa::ToSchema;

use crate::deck::{DeckLook, Visibility};
use crate::layout::Position;
use crate::time::Timestamp;

impl utoipa::PartialSchema for Timestamp {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
            .into()
    }
}

impl ToSchema for Timestamp {}

/// The account's plan (2.2): `type` is `personal` or `team`; a self-hosted Lectern bills
/// nothing, so `billing_period` is always `none`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AccountView {
    #[serde(rename = "type")]
    pub kind: String,
    pub billing_period: String,
}

/// The team an account belongs to (filled in by the teams issue).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TeamView {
    pub id: i64,
    pub name: String,
    pub slug: String,
    pub url: String,
}

/// The User (2.2).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UserView {
    pub id: i64,
    pub username: String,
    pub name: String,
    pub email: String,
    pub description: String,
    pub thumbnail_url: String,
    pub website_url: String,
    pub twitter_handle: String,
    pub profile_url: String,
    pub account: AccountView,
    pub team: Option<TeamView>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A deck summary (2.3).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeckSummary {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub thumbnail_url: String,
    pub url: String,
    /// The deck's revision (an extension: see the revisions operations).
    pub revision: i64,
}

/// A trashed deck summary (2.4): no `url`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TrashedDeckSummary {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub thumbnail_url: String,
    pub trashed_at: Timestamp,
    pub revision: i64,
}

/// The deck's viewer URLs (2.5).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct DeckUrls {
    pub default: String,
    pub fullscreen: String,
    pub edit: String,
    pub present: String,
}

impl DeckUrls {
    /// The viewer URLs of the deck page at `url`.
    pub fn under(url: &str) -> Self {
        DeckUrls {
            default: url.to_string(),
            fullscreen: format!("{url}/fullscreen"),
            edit: format!("{url}/edit"),
            present: format!("{url}/present"),
        }
    }
}

/// The deck metadata returned by `create_deck` and `update_deck`: every field of 2.5 except
/// `css` and `deck_html`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct DeckMeta {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub thumbnail_url: String,
    pub url: String,
    pub urls: DeckUrls,
    pub slug: String,
    pub visibility: Visibility,
    pub slide_count: i64,
    /// The deck's revision: 1 at creation, one more with every change.
    pub revision: i64,
    #[serde(flatten)]
    pub look: DeckLook,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// The Deck detail (2.5) returned by `get_deck`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct DeckView {
    #[serde(flatten)]
    pub meta: DeckMeta,
    pub css: String,
    /// HTML of all slides; present only with `include_deck_html=true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deck_html: Option<String>,
}

/// The `create_deck` answer: the deck metadata plus the new slides' ids in order.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedDeck {
    #[serde(flatten)]
    pub meta: DeckMeta,
    pub slide_ids: Vec<String>,
}

/// A slide summary (2.8).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SlideSummary {
    pub id: String,
    pub position: Position,
    pub title: String,
    pub text_preview: String,
    pub html_bytes: i64,
    pub has_notes: bool,
}

/// A slide (2.9).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SlideView {
    pub id: String,
    pub deck_id: i64,
    pub position: Position,
    pub html: String,
    pub notes: Option<String>,
    /// The deck's revision.
    pub revision: i64,
}

/// The answer of `add_slide` and `update_slide`: where the slide is, without content.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SlidePlace {
    pub id: String,
    pub deck_id: i64,
    pub position: Position,
    /// The deck's revision after the operation.
    pub revision: i64,
}

/// The answer of `remove_slides` and `move_slides`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SlideCount {
    /// How many slides were removed or moved.
    pub count: usize,
    /// Requested ids that are not in the deck (empty when all were found).
    pub missing_slide_ids: Vec<String>,
    /// The deck's revision after the operation.
    pub revision: i64,
}

/// A team deck's owner (2.6).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OwnerView {
    pub id: i64,
    pub name: String,
    pub username: String,
}

/// A team deck summary (2.6): the deck summary plus visibility and owner.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TeamDeckSummary {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub thumbnail_url: String,
    pub url: String,
    pub visibility: Visibility,
    pub owner: OwnerView,
    pub revision: i64,
}

/// The team deck detail (2.6): the deck detail plus owner.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TeamDeckView {
    #[serde(flatten)]
    pub deck: DeckView,
    pub owner: OwnerView,
}

/// A deck found by `search_decks` (MCP only): the caller's own deck or a team deck, with the
/// owner's display name.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeckSearchHit {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub thumbnail_url: String,
    pub url: String,
    pub visibility: Visibility,
    /// The owner's display name.
    pub owner: String,
    /// Whether the caller owns the deck (the deck tools apply); else it is a team deck.
    pub own: bool,
    /// `title` or `slides`: where the query was found.
    pub matched_in: &'static str,
}

/// A revision's author: the account, and how the change reached the deck.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuthorView {
    /// Null once the account no longer exists.
    pub user_id: Option<i64>,
    pub username: Option<String>,
    /// `api_key`, `oauth`, `mcp`, `web` or `admin`.
    pub via: String,
    /// The API key's label, the OAuth client's name or the MCP client's name; null for
    /// `web` and `admin`.
    pub label: Option<String>,
}

/// One entry of a deck's history.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RevisionView {
    pub revision: i64,
    pub created_at: Timestamp,
    /// The operationId that made it: `create_deck`, `update_deck`, `add_slide`,
    /// `update_slide`, `remove_slides`, `move_slides`, `trash_deck`, `recover_deck` or
    /// `restore`.
    pub operation: String,
    /// The slides it added, changed, removed or moved (empty for settings).
    pub slide_ids: Vec<String>,
    /// For `restore`: the revision it brought back.
    pub restored_revision: Option<i64>,
    pub author: AuthorView,
}

/// A slide as it was after a revision.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RevisionSlideView {
    pub id: String,
    pub position: Position,
    pub html: String,
    pub notes: Option<String>,
}

/// The deck as it was right after one revision.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RevisionDetailView {
    pub revision: i64,
    pub created_at: Timestamp,
    /// The deck's settings (the fields of `get_deck` a write can change).
    pub deck: crate::revision::DeckSettings,
    /// Its slides in presentation order.
    pub slides: Vec<RevisionSlideView>,
}
