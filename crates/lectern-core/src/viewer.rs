//! Who may see a deck in the browser (visibility `all`: anyone; `self`: its owner signed in;
//! `team`: signed-in members of the owner's team), and the deck's HTML as a visitor gets it:
//! sanitised slides. Speaker notes belong to the owner: only the owner's own views (and the
//! owner's exports) carry them, as `<aside class="notes">`; every other visitor's page has
//! none.

use crate::deck::Visibility;
use crate::html::sanitize_for_viewing;
use crate::service::{Lectern, render_deck_html};
use crate::store::{DeckRecord, SessionInfo, SlideHtmlRecord};
use crate::{Error, Result};

/// A deck ready for a viewer page.
#[derive(Debug)]
pub struct ViewedDeck {
    pub deck: DeckRecord,
    /// The slides' sections (sanitised; notes included only for the owner) in reveal.js
    /// structure.
    pub slides_html: String,
    /// Whether the visitor owns the deck (and so whether `slides_html` carries the notes).
    pub is_owner: bool,
}

/// Escapes text for HTML element content.
fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
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
                escape_text(notes)
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

    /// The deck's sanitised slides for a page; the notes only when `is_owner` (the owner's
    /// own pages and exports).
    pub(crate) async fn viewed(&self, deck: DeckRecord, is_owner: bool) -> Result<ViewedDeck> {
        let slides = self.store().deck_slides_html(deck.id).await?;
        let viewed: Vec<SlideHtmlRecord> = slides
            .iter()
            .map(|s| SlideHtmlRecord {
                slot: s.slot.clone(),
                html: viewed_slide(s, is_owner),
                notes: None,
            })
            .collect();
        Ok(ViewedDeck {
            slides_html: render_deck_html(&viewed),
            deck,
            is_owner,
        })
    }
}
