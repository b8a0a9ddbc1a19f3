//! Deck revisions: every change of a deck's settings or slides is a numbered revision with
//! its author, recorded in the same transaction as the change (see the store's history
//! file). This module holds the pure parts: the operations a revision names, the
//! preconditions (`If-Match`, MCP `if_revision`) and the deck's settings as a revision
//! records them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::Author;
use crate::deck::{DeckLook, DeckPatch, Visibility};
use crate::{Error, Result};

/// History is kept this many days by default (`--history-days`).
pub const DEFAULT_HISTORY_DAYS: u32 = 90;
/// The newest revisions of a deck that are kept whatever their age.
pub const KEEP_NEWEST_REVISIONS: i64 = 50;

/// The operation that made a revision: the operationId of the write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    CreateDeck,
    UpdateDeck,
    AddSlide,
    UpdateSlide,
    RemoveSlides,
    MoveSlides,
    TrashDeck,
    RecoverDeck,
    Restore,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::CreateDeck => "create_deck",
            Operation::UpdateDeck => "update_deck",
            Operation::AddSlide => "add_slide",
            Operation::UpdateSlide => "update_slide",
            Operation::RemoveSlides => "remove_slides",
            Operation::MoveSlides => "move_slides",
            Operation::TrashDeck => "trash_deck",
            Operation::RecoverDeck => "recover_deck",
            Operation::Restore => "restore",
        }
    }

    /// Whether a revision made by the operation named `name` left every slide where it was.
    pub fn keeps_order(name: &str) -> bool {
        [
            Operation::UpdateDeck,
            Operation::UpdateSlide,
            Operation::TrashDeck,
            Operation::RecoverDeck,
        ]
        .iter()
        .any(|o| o.as_str() == name)
    }
}

/// The strong entity tag of a deck at a revision: `"<deck id>-<revision>"`.
pub fn etag(deck_id: i64, revision: i64) -> String {
    format!("\"{deck_id}-{revision}\"")
}

/// A write's condition on the deck's current revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Precondition {
    /// `If-Match`: holds when one of its comma-separated entity tags is exactly the deck's
    /// current tag, or is `*`. Weak (`W/`), unquoted or malformed tags never match.
    IfMatch(String),
    /// MCP `if_revision`: holds when the deck's revision is this one.
    Revision(i64),
}

impl Precondition {
    /// Whether the precondition holds for the deck `deck_id` at `revision`.
    pub fn holds(&self, deck_id: i64, revision: i64) -> bool {
        match self {
            Precondition::Revision(r) => *r == revision,
            Precondition::IfMatch(header) => {
                let current = etag(deck_id, revision);
                header
                    .split(',')
                    .map(str::trim)
                    .any(|tag| tag == "*" || tag == current)
            }
        }
    }

    /// `Ok` when the precondition holds, else the 412 that names the current revision.
    pub fn check(this: Option<&Precondition>, deck_id: i64, revision: i64) -> Result<()> {
        match this {
            Some(p) if !p.holds(deck_id, revision) => Err(Error::PreconditionFailed { revision }),
            _ => Ok(()),
        }
    }
}

/// Who writes and on which condition: what every recorded write carries to the store.
#[derive(Debug, Clone)]
pub struct WriteContext {
    pub author: Author,
    pub precondition: Option<Precondition>,
}

/// A deck's settings as a revision records them: the fields of `get_deck` that a write can
/// change or a restore brings back (not the id, slug, URLs, counts or times).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DeckSettings {
    pub title: String,
    pub description: String,
    pub visibility: Visibility,
    pub css: String,
    #[serde(flatten)]
    pub look: DeckLook,
}

impl DeckSettings {
    /// These settings with `patch` applied.
    pub fn patched(&self, patch: &DeckPatch) -> DeckSettings {
        DeckSettings {
            title: patch.title.clone().unwrap_or_else(|| self.title.clone()),
            description: (patch.description.clone()).unwrap_or_else(|| self.description.clone()),
            visibility: patch.visibility.unwrap_or(self.visibility),
            css: self.css.clone(),
            look: self.look.patched(patch),
        }
    }

    /// The stored form (JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("settings are plain data and always serialise")
    }

    /// Reads the stored form back; look settings it lacks take their defaults.
    pub fn from_json(text: &str) -> Result<DeckSettings> {
        crate::deck::over_default_look(text)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_settings_content_and_trash_revisions_keep_the_order() {
        for kept in ["update_deck", "update_slide", "trash_deck", "recover_deck"] {
            assert!(Operation::keeps_order(kept), "{kept}");
        }
        for moved in [
            "create_deck",
            "add_slide",
            "remove_slides",
            "move_slides",
            "restore",
            "x",
        ] {
            assert!(!Operation::keeps_order(moved), "{moved}");
        }
    }

    use super::*;

    #[test]
    fn if_match_holds_for_the_exact_strong_tag_or_a_star() {
        let p = |h: &str| Precondition::IfMatch(h.into());
        assert!(p("\"12-3\"").holds(12, 3));
        assert!(p("*").holds(12, 3));
        assert!(p("\"12-2\", \"12-3\"").holds(12, 3));
        assert!(p("\"11-1\" ,*").holds(12, 3));
        for stale in [
            "\"12-2\"",
            "\"13-3\"",
            "W/\"12-3\"",
            "12-3",
            "",
            "garbage",
            "\"12-3",
        ] {
            assert!(!p(stale).holds(12, 3), "{stale:?} must not match");
        }
    }

    #[test]
    fn a_failed_precondition_names_the_current_revision() {
        let err = Precondition::check(Some(&Precondition::Revision(4)), 1, 5).unwrap_err();
        assert!(matches!(err, Error::PreconditionFailed { revision: 5 }));
        assert_eq!(err.status(), 412);
        assert!(Precondition::check(None, 1, 5).is_ok());
        assert!(Precondition::check(Some(&Precondition::Revision(5)), 1, 5).is_ok());
    }

    #[test]
    fn settings_round_trip_through_their_stored_form() {
        use crate::deck::{ThemeColor, ThemeFont, Transition};
        let s = DeckSettings {
            title: "T".into(),
            description: "D".into(),
            visibility: Visibility::Team,
            css: String::new(),
            look: DeckLook {
                margin: 0.1,
                transition: Transition::Fade,
                background_transition: Transition::None,
                rtl: true,
                theme_font: ThemeFont::News,
                theme_color: ThemeColor::BlackMint,
                language: "de".into(),
                ..DeckLook::default()
            },
        };
        assert_eq!(DeckSettings::from_json(&s.to_json()).unwrap(), s);
        // Flat, as revisions stored before the look was a struct of its own.
        assert!(s.to_json().contains("\"loop\":false,"));
        assert!(s.to_json().contains("\"width\":1280,"));
        let patched = s.patched(&DeckPatch {
            title: Some("New".into()),
            ..DeckPatch::default()
        });
        assert_eq!(patched.title, "New");
        assert_eq!(patched.patched(&DeckPatch::default()), patched);
    }
}
