//! The deck history (an extension of the interface): listing a deck's revisions and a
//! slide's, the deck as it was after one, restoring it, and undoing the newest change.

use std::collections::HashMap;

use super::*;
use crate::revision::DeckSettings;
use crate::store::{RestorePlan, RevisionRecord, RevisionSnapshot};
use crate::views::{AuthorView, RevisionDetailView, RevisionSlideView, RevisionView};

fn revision_not_found() -> Error {
    Error::not_found("revision not found (never made, or older than the kept history)")
}

impl Lectern {
    /// `list_revisions`: the deck's revisions, newest first, paged.
    pub async fn list_revisions(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        paging: Paging,
    ) -> Result<Page<RevisionView>> {
        caller.require(Scope::Read)?;
        let deck = self.active_deck(caller, deck_id).await?;
        let (rows, total) = self.store.list_revisions(deck.id, None, paging).await?;
        Ok(Page {
            items: rows.into_iter().map(revision_view).collect(),
            meta: paging.meta(total),
        })
    }

    /// `list_slide_revisions`: the revisions that touched one slide, newest first, paged.
    pub async fn list_slide_revisions(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        slide_id: &SlideId,
        paging: Paging,
    ) -> Result<Page<RevisionView>> {
        caller.require(Scope::Read)?;
        let deck = self.active_deck(caller, deck_id).await?;
        let (rows, total) = self
            .store
            .list_revisions(deck.id, Some(slide_id.as_str()), paging)
            .await?;
        Ok(Page {
            items: rows.into_iter().map(revision_view).collect(),
            meta: paging.meta(total),
        })
    }

    /// `get_revision`: the deck as it was right after `revision`.
    pub async fn get_revision(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        revision: i64,
    ) -> Result<RevisionDetailView> {
        caller.require(Scope::Read)?;
        let snapshot = self.snapshot(caller, deck_id, revision).await?;
        let positions = layout::positions(snapshot.slides.iter().map(|s| &s.slot));
        let slides = snapshot
            .slides
            .into_iter()
            .zip(positions)
            .map(|(s, position)| RevisionSlideView {
                id: s.slot.id,
                position,
                html: s.html,
                notes: s.notes,
            })
            .collect();
        Ok(RevisionDetailView {
            revision: snapshot.revision,
            created_at: snapshot.created_at,
            deck: snapshot.settings,
            slides,
        })
    }

    /// `restore`: makes the deck's settings and slides what they were after `revision`, as
    /// one new revision (none when nothing differs).
    pub async fn restore_revision(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        revision: i64,
        precondition: Option<Precondition>,
    ) -> Result<DeckMeta> {
        caller.require(Scope::Manage)?;
        let snapshot = self.snapshot(caller, deck_id, revision).await?;
        let deck = self
            .store
            .restore_deck(
                caller.user_id,
                snapshot_deck_id(deck_id)?,
                Box::new(move |deck, current| Ok(restore_plan(snapshot, deck, current))),
                Timestamp::now(),
                &write_context(caller, precondition),
            )
            .await?
            .ok_or_else(Error::deck_not_found)?;
        Ok(self.deck_meta(&deck))
    }

    /// MCP `undo_last_change`: restores the revision before the newest. Refuses when the
    /// newest was made through another credential, unless `force`.
    pub async fn undo_last_change(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        force: bool,
        precondition: Option<Precondition>,
    ) -> Result<DeckMeta> {
        caller.require(Scope::Manage)?;
        let deck = self.active_deck(caller, deck_id).await?;
        let (newest, _) = self
            .store
            .list_revisions(
                deck.id,
                None,
                Paging {
                    page: 1,
                    per_page: 1,
                },
            )
            .await?;
        let newest = newest
            .into_iter()
            .next()
            .ok_or_else(|| Error::invalid("the deck has no recorded change to undo"))?;
        if newest.revision <= 1 {
            return Err(Error::invalid(
                "the newest revision is the deck's creation; there is nothing before it to go back to",
            ));
        }
        let mine = caller.author().credential;
        if !force && (newest.credential.is_none() || newest.credential != mine) {
            return Err(Error::invalid(format!(
                "the newest change (revision {}, {}) was made through another credential ({}); \
                 pass force: true to undo it anyway",
                newest.revision,
                newest.operation,
                newest.label.as_deref().unwrap_or(&newest.via),
            )));
        }
        // Without a precondition of the caller's, the undo holds only while the newest is
        // still the newest: a change made meanwhile is not undone by accident (412).
        let precondition = precondition.or(Some(Precondition::Revision(newest.revision)));
        self.restore_revision(caller, deck_id, newest.revision - 1, precondition)
            .await
    }

    /// The caller's active deck as it was after `revision`, or 404.
    async fn snapshot(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        revision: i64,
    ) -> Result<RevisionSnapshot> {
        let deck = self.active_deck(caller, deck_id).await?;
        if revision < 1 {
            return Err(revision_not_found());
        }
        self.store
            .revision_snapshot(deck.id, revision)
            .await?
            .ok_or_else(revision_not_found)
    }
}

fn snapshot_deck_id(deck_id: DeckId) -> Result<i64> {
    deck_id.stored().ok_or_else(Error::deck_not_found)
}

/// What restoring `snapshot` writes over the deck's `current` slides: the slides that differ
/// in place or content, those to delete and those that come back, and the settings when
/// they differ. Only changed content is summarised again.
fn restore_plan(
    snapshot: RevisionSnapshot,
    deck: &DeckRecord,
    current: &[SlideHtmlRecord],
) -> RestorePlan {
    let now: HashMap<&str, &SlideHtmlRecord> =
        current.iter().map(|s| (s.slot.id.as_str(), s)).collect();
    let mut plan = RestorePlan {
        restored_revision: snapshot.revision,
        settings: (DeckSettings::of(deck) != snapshot.settings).then(|| snapshot.settings.clone()),
        ..RestorePlan::default()
    };
    let content = |s: &SlideHtmlRecord| {
        let (title, text_preview) = SlideHtml::summarize_stored(&s.html);
        SlideContent {
            html: s.html.clone(),
            notes: s.notes.clone(),
            title,
            text_preview,
        }
    };
    for then in &snapshot.slides {
        match now.get(then.slot.id.as_str()) {
            None => plan.insert.push(NewSlideRecord {
                slot: then.slot.clone(),
                content: content(then),
            }),
            Some(cur) => {
                let moved = cur.slot != then.slot;
                let edited = cur.html != then.html || cur.notes != then.notes;
                if moved || edited {
                    plan.update
                        .push((then.slot.clone(), edited.then(|| content(then))));
                }
            }
        }
    }
    let kept: std::collections::HashSet<&str> =
        snapshot.slides.iter().map(|s| s.slot.id.as_str()).collect();
    plan.delete = current
        .iter()
        .filter(|s| !kept.contains(s.slot.id.as_str()))
        .map(|s| s.slot.id.clone())
        .collect();
    plan
}

fn revision_view(r: RevisionRecord) -> RevisionView {
    RevisionView {
        revision: r.revision,
        created_at: r.created_at,
        operation: r.operation,
        slide_ids: r.slide_ids,
        restored_revision: r.restored_revision,
        author: AuthorView {
            user_id: r.author_id,
            username: r.author_username,
            via: r.via,
            label: r.label,
        },
    }
}
