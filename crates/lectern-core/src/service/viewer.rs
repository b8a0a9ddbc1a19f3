//! Who may see a deck in the browser (visibility `all`: anyone; `self`: its owner signed in;
//! `team`: signed-in members of the owner's team), and the deck's HTML as a visitor gets it:
//! sanitised slides. Speaker notes belong to the owner: only the owner's own views (and the
//! owner's exports) carry them, as `<aside class="notes">`; every other visitor's page has
//! none.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::deck::Visibility;
use crate::html::{escape, sanitize_for_viewing};
use crate::layout::render_deck_html;
use crate::params::Paging;
use crate::service::{Lectern, Page};
use crate::store::{DeckListKind, DeckRecord, SessionInfo, SlideHtmlRecord};
use crate::views::{DeckSummary, TeamDeckSummary};
use crate::{Error, Result};

/// An account's profile page (`profile_url`): who it is and its public decks.
#[derive(Debug)]
pub struct Profile {
    pub username: String,
    pub name: String,
    pub description: String,
    /// The account's decks with visibility `all`, outside the trash, newest first.
    pub decks: Page<DeckSummary>,
}

/// A team's page (the team `url`): its members' public decks, and for a signed-in member
/// also the decks shown to the team.
#[derive(Debug)]
pub struct TeamProfile {
    pub name: String,
    pub slug: String,
    /// Whether the visitor is a member (and so sees the `team` decks too).
    pub member: bool,
    pub decks: Page<TeamDeckSummary>,
}

/// A deck ready for a viewer page.
#[derive(Debug)]
pub struct ViewedDeck {
    pub deck: DeckRecord,
    /// The slides' sections (sanitised; notes included only for the owner) in reveal.js
    /// structure.
    pub slides_html: Arc<str>,
    /// Whether the visitor owns the deck (and so whether `slides_html` carries the notes).
    pub is_owner: bool,
}

/// One slide for a page: sanitised, with its notes inside the section when `with_notes`.
fn viewed_slide(slide: &SlideHtmlRecord, with_notes: bool) -> String {
    let clean = sanitize_for_viewing(&slide.html);
    match slide
        .notes
        .as_deref()
        .filter(|n| with_notes && !n.is_empty())
    {
        Some(notes) => match clean.rfind("</section>") {
            Some(end) => format!(
                "{}<aside class=\"notes\">{}</aside></section>",
                &clean[..end],
                escape(notes)
            ),
            None => clean,
        },
        None => clean,
    }
}

impl Lectern {
    /// The deck at `/{username}/{slug}` (or `/teams/{team}/{username}/{slug}`) if `visitor`
    /// may see it; 404 otherwise, exactly as for a deck that does not exist.
    pub async fn view_deck(
        &self,
        visitor: Option<&SessionInfo>,
        username: &str,
        slug: &str,
        team_slug: Option<&str>,
    ) -> Result<ViewedDeck> {
        let deck = self
            .store()
            .find_deck_by_slug(username, slug)
            .await?
            .filter(|d| d.trashed_at.is_none())
            .ok_or_else(Error::deck_not_found)?;
        if let Some(team_slug) = team_slug {
            let team = self.store().find_team_by_slug(team_slug).await?;
            if team.map(|t| t.id) != deck.owner_team_id || deck.owner_team_id.is_none() {
                return Err(Error::deck_not_found());
            }
        }
        let is_owner = visitor.is_some_and(|v| v.user_id == deck.owner_id);
        let allowed = match deck.visibility {
            Visibility::All => true,
            Visibility::Private => is_owner,
            Visibility::Team => {
                is_owner
                    || (deck.owner_team_id.is_some()
                        && visitor.is_some_and(|v| v.team_id == deck.owner_team_id))
            }
        };
        if !allowed {
            return Err(Error::deck_not_found());
        }
        self.viewed(deck, is_owner).await
    }

    /// The profile at `/{username}`: the account's public decks, newest first. Unknown
    /// accounts are not found.
    pub async fn profile(&self, username: &str, paging: Paging) -> Result<Profile> {
        let not_found = || Error::not_found("there is no account here");
        let user = self
            .store()
            .find_user_by_username(username)
            .await?
            .ok_or_else(not_found)?;
        let (rows, total) = self
            .store()
            .list_decks(user.id, DeckListKind::Public, paging)
            .await?;
        let items = rows
            .into_iter()
            .map(|d| DeckSummary {
                thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
                url: self.deck_url(&user.username, &d.slug),
                id: d.id,
                title: d.title,
                description: d.description,
                revision: d.revision,
            })
            .collect();
        Ok(Profile {
            name: user.name,
            description: user.description,
            username: user.username,
            decks: Page {
                items,
                meta: paging.meta(total),
            },
        })
    }

    /// The team page at `/teams/{slug}`: the members' public decks, and their `team` decks
    /// too for a signed-in member; newest first. Unknown teams are not found.
    pub async fn team_profile(
        &self,
        visitor: Option<&SessionInfo>,
        team_slug: &str,
        paging: Paging,
    ) -> Result<TeamProfile> {
        let team = self
            .store()
            .find_team_by_slug(team_slug)
            .await?
            .ok_or_else(|| Error::not_found("there is no team here"))?;
        let member = visitor.is_some_and(|v| v.team_id == Some(team.id));
        let (rows, total) = self
            .store()
            .list_team_decks(team.id, !member, paging)
            .await?;
        Ok(TeamProfile {
            decks: Page {
                items: self.team_deck_summaries(&team, rows),
                meta: paging.meta(total),
            },
            name: team.name,
            slug: team.slug,
            member,
        })
    }

    /// The deck's sanitised slides for a page; the notes only when `is_owner` (the owner's
    /// own pages and exports).
    pub(crate) async fn viewed(&self, deck: DeckRecord, is_owner: bool) -> Result<ViewedDeck> {
        self.viewed_first(deck, is_owner, None).await
    }

    /// [`Lectern::viewed`] with only the first `count` slides when set (a thumbnail needs
    /// one: the store reads one row and the browser lays out one slide, whatever the deck's
    /// length).
    pub(crate) async fn viewed_first(
        &self,
        deck: DeckRecord,
        is_owner: bool,
        count: Option<usize>,
    ) -> Result<ViewedDeck> {
        let deck_id = deck.id;
        let render = async move || -> Result<Arc<str>> {
            let slides = self.store().deck_slides_html(deck_id, count).await?;
            let bytes = slides.iter().map(|s| s.html.len()).sum();
            Ok(crate::cpu::sized(bytes, move || {
                let viewed: Vec<String> =
                    slides.iter().map(|s| viewed_slide(s, is_owner)).collect();
                render_deck_html(
                    slides
                        .iter()
                        .zip(&viewed)
                        .map(|(s, h)| (&s.slot, h.as_str())),
                )
                .into()
            })
            .await)
        };
        let slides_html = match count {
            Some(_) => render().await?,
            None => {
                let cell = self.views.cell((deck.id, is_owner), deck.revision);
                let fresh = !cell.initialized();
                let html = cell.get_or_try_init(render).await?.clone();
                if fresh {
                    self.views.account(html.len());
                }
                html
            }
        };
        Ok(ViewedDeck {
            slides_html,
            deck,
            is_owner,
        })
    }
}

/// The sanitised slides of recently viewed decks, by (deck, whether the owner's view) at
/// one revision each, so that page views of an unchanged deck do not parse its slides
/// again. Bounded by the bytes it holds.
#[derive(Default)]
pub(crate) struct ViewCache {
    entries: Mutex<ViewEntries>,
}

/// One deck's sanitised slides at one revision, made once however many visitors ask at once.
type ViewCell = Arc<tokio::sync::OnceCell<Arc<str>>>;

#[derive(Default)]
struct ViewEntries {
    by_deck: HashMap<(i64, bool), (i64, ViewCell)>,
    bytes: usize,
}

/// Most bytes of sanitised slides kept.
const VIEW_CACHE_BYTES: usize = 64 * 1024 * 1024;

impl ViewCache {
    /// The cell of `key` at `revision` (a new, empty one when the deck changed since).
    fn cell(&self, key: (i64, bool), revision: i64) -> ViewCell {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        match entries.by_deck.get(&key) {
            Some((r, cell)) if *r == revision => cell.clone(),
            _ => {
                let cell = ViewCell::default();
                entries.by_deck.insert(key, (revision, cell.clone()));
                cell
            }
        }
    }

    /// Counts `bytes` more kept; past the bound, everything is let go.
    fn account(&self, bytes: usize) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.bytes += bytes;
        if entries.bytes > VIEW_CACHE_BYTES {
            entries.by_deck.clear();
            entries.bytes = 0;
        }
    }
}
