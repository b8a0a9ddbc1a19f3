//! The slide operations (interface 4.4): list, get, add, update, remove and move, each an
//! edit the core plans (`layout`) and the store applies in one transaction.

use super::*;
use crate::service::order::Order;

impl Lectern {
    /// `list_slides` (4.4): summaries in presentation order, paged.
    pub async fn list_slides(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        paging: Paging,
    ) -> Result<Page<SlideSummary>> {
        caller.require(Scope::Read)?;
        let deck = self.active_deck(caller, deck_id).await?;
        // The page's ids and positions from the deck's order (cached per revision), then
        // only that page's summaries from the store.
        let order = self.order(&deck).await?;
        let (slots, positions) = (order.slots(), order.positions());
        let start = (paging.offset() as usize).min(slots.len());
        let end = (start + paging.limit() as usize).min(slots.len());
        let ids: Vec<String> = (start..end).map(|i| slots[i].id.clone()).collect();
        let mut summaries: std::collections::HashMap<String, crate::store::SlideSummaryRecord> =
            self.store
                .slide_summaries(deck.id, &ids)
                .await?
                .into_iter()
                .map(|s| (s.id.clone(), s))
                .collect();
        // A slide removed since the order was read is left out.
        let items = (start..end)
            .filter_map(|i| {
                let s = summaries.remove(&slots[i].id)?;
                Some(SlideSummary {
                    id: s.id,
                    position: positions[i],
                    title: s.title,
                    text_preview: s.text_preview,
                    html_bytes: s.html_bytes,
                    has_notes: s.has_notes,
                })
            })
            .collect();
        Ok(Page {
            items,
            meta: paging.meta(slots.len() as i64),
        })
    }

    /// `get_slide` (4.4).
    pub async fn get_slide(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        slide_id: &SlideId,
    ) -> Result<SlideView> {
        caller.require(Scope::Read)?;
        let deck = self.active_deck(caller, deck_id).await?;
        let slide = self
            .store
            .get_slide(deck.id, slide_id.as_str())
            .await?
            .ok_or_else(slide_not_found)?;
        let order = self.order(&deck).await?;
        Ok(SlideView {
            position: order
                .position(slide_id.as_str())
                .ok_or_else(slide_not_found)?,
            id: slide.id,
            deck_id: deck.id,
            html: slide.html,
            notes: slide.notes,
            // Read before the slide: the content is never older than this revision.
            revision: deck.revision,
        })
    }

    /// `add_slide` (4.4).
    pub async fn add_slide(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        input: AddSlide,
        precondition: Option<Precondition>,
    ) -> Result<SlidePlace> {
        caller.require(Scope::Manage)?;
        let id = new_slide_id();
        let new_id = id.clone();
        let (edit, after) = self
            .edit_slides(
                caller,
                deck_id,
                Operation::AddSlide,
                precondition,
                Box::new(move |slots: &Slots| {
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
                        revision: 0,
                    })
                }),
            )
            .await?;
        self.place(deck_id, &edit, after.as_deref(), &id)
    }

    /// `update_slide` (4.4): replaces html and/or notes; the id and position stay.
    pub async fn update_slide(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        slide_id: &SlideId,
        input: UpdateSlide,
        precondition: Option<Precondition>,
    ) -> Result<SlidePlace> {
        caller.require(Scope::Manage)?;
        let id = slide_id.as_str().to_string();
        let stored = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        // A content edit moves nothing: it needs only its own slide's slot, and its answer's
        // position comes from the order of the revision before, carried over (by the store,
        // from the order it or the cache knows, else from the order cache here).
        let known = self.orders.latest(stored).map(|o| o.known());
        let editor = SlideEditor {
            scope: OrderScope::Slide(id.clone(), known),
            decide: Box::new(move |slots: &Slots| {
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
                    ..SlideEdit::default()
                })
            }),
        };
        let mut edit = self
            .edit_slides_in(
                caller,
                deck_id,
                Operation::UpdateSlide,
                precondition,
                editor,
            )
            .await?;
        // The store drops the content patch when it changed nothing: then no revision was
        // made, and the revision before proves nothing about this one.
        let order = if edit.content.is_some() && !edit.after.is_empty() {
            self.carried_order(stored, edit.revision, std::mem::take(&mut edit.after))
        } else if edit.content.is_some() {
            self.order_after_content_edit(stored, edit.revision).await?
        } else {
            self.order_at(stored, edit.revision).await?
        };
        Ok(SlidePlace {
            id: slide_id.as_str().to_string(),
            deck_id: stored,
            position: order
                .position(slide_id.as_str())
                .ok_or_else(slide_not_found)?,
            revision: edit.revision,
        })
    }

    /// `remove_slides` (4.4).
    pub async fn remove_slides(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        input: RemoveSlides,
        precondition: Option<Precondition>,
    ) -> Result<SlideCount> {
        self.apply_plan(
            caller,
            deck_id,
            Operation::RemoveSlides,
            precondition,
            move |slots| {
                let plan = layout::remove(slots, &input.slide_ids)?;
                let after = layout::apply(slots, &plan);
                Ok((plan, after))
            },
        )
        .await
    }

    /// `move_slides` (4.4). A move that leaves the order as it was writes nothing.
    pub async fn move_slides(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        input: MoveSlides,
        precondition: Option<Precondition>,
    ) -> Result<SlideCount> {
        self.apply_plan(
            caller,
            deck_id,
            Operation::MoveSlides,
            precondition,
            move |slots| {
                let plan = layout::move_slides(slots, &input.slide_ids, &input.anchor)?;
                Ok(layout::applied_unless_unchanged(slots, plan))
            },
        )
        .await
    }

    /// `group_slides` (an extension for the editor): puts slides below another in its
    /// vertical group (starting one under a horizontal slide), or out of their group after a
    /// stack; recorded as a `move_slides` revision.
    pub async fn group_slides(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        input: crate::slide::GroupSlides,
        precondition: Option<Precondition>,
    ) -> Result<SlideCount> {
        self.apply_plan(
            caller,
            deck_id,
            Operation::MoveSlides,
            precondition,
            move |slots| {
                let plan = layout::group_slides(slots, &input.slide_ids, &input.stacking)?;
                Ok(layout::applied_unless_unchanged(slots, plan))
            },
        )
        .await
    }

    /// Runs a reordering `plan` of the layout rules (the plan and the order after it) in one
    /// edit and reports its count.
    pub(crate) async fn apply_plan(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        operation: Operation,
        precondition: Option<Precondition>,
        plan: impl FnOnce(&Slots) -> Result<(layout::Plan, Slots)> + Send + 'static,
    ) -> Result<SlideCount> {
        caller.require(Scope::Manage)?;
        let (edit, _) = self
            .edit_slides(
                caller,
                deck_id,
                operation,
                precondition,
                Box::new(move |slots: &Slots| {
                    let (plan, after) = plan(slots)?;
                    Ok(SlideEdit {
                        plan,
                        after,
                        ..SlideEdit::default()
                    })
                }),
            )
            .await?;
        Ok(SlideCount {
            count: edit.plan.count,
            missing_slide_ids: edit.plan.missing,
            revision: edit.revision,
        })
    }

    /// One slide edit as one revision by the caller, when `precondition` holds; `edit`
    /// decides on the whole order and returns the order after it (`after`). The order
    /// cache's newest order of the deck goes with it, so that the store need not read the
    /// order again when no write came in between; the order after goes into the cache.
    pub(crate) async fn edit_slides(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        operation: Operation,
        precondition: Option<Precondition>,
        edit: SlideEditFn,
    ) -> Result<(SlideEdit, Option<Arc<Order>>)> {
        let stored = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        let known = self.orders.latest(stored).map(|o| o.known());
        let editor = SlideEditor {
            scope: OrderScope::Whole(known),
            decide: edit,
        };
        let mut edit = self
            .edit_slides_in(caller, deck_id, operation, precondition, editor)
            .await?;
        if edit.after.is_empty() {
            return Ok((edit, None));
        }
        let order = Arc::new(Order::shared(
            edit.revision,
            std::mem::take(&mut edit.after),
        ));
        let plan = &edit.plan;
        if !(plan.delete.is_empty() && plan.reposition.is_empty() && plan.insert.is_empty()) {
            // Committed: the order of this revision is exactly `after`. (An edit that
            // changed nothing is not kept: the revision it saw may be another write's, in
            // a batch not committed yet.)
            self.orders.put(stored, order.clone());
        }
        Ok((edit, Some(order)))
    }

    /// One slide edit as one revision, deciding on the part of the order `editor` names.
    async fn edit_slides_in(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        operation: Operation,
        precondition: Option<Precondition>,
        editor: SlideEditor,
    ) -> Result<SlideEdit> {
        let id = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        let ctx = write_context(caller, precondition);
        self.store
            .edit_slides(
                caller.user_id,
                id,
                Timestamp::now(),
                editor,
                operation,
                &ctx,
            )
            .await?
            .ok_or_else(Error::deck_not_found)
    }

    /// Where `slide_id` is in the order `after` an edit.
    pub(crate) fn place(
        &self,
        deck_id: DeckId,
        edit: &SlideEdit,
        after: Option<&Order>,
        slide_id: &str,
    ) -> Result<SlidePlace> {
        let missing = || Error::internal("an edited slide is missing from the new order");
        Ok(SlidePlace {
            id: slide_id.to_string(),
            deck_id: deck_id.stored().ok_or_else(Error::deck_not_found)?,
            position: after
                .ok_or_else(missing)?
                .position_of_new(slide_id)
                .ok_or_else(missing)?,
            revision: edit.revision,
        })
    }
}

pub(crate) fn slide_not_found() -> Error {
    Error::not_found("slide not found in this deck")
}

/// A new slide's stored record.
pub(crate) fn new_slide_record(
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

/// A fresh opaque, URL-safe slide id: letters and digits, the first [`SLIDE_ID_TIME_LEN`]
/// the time in microseconds, the rest random. Ids made later sort later (byte order), so a
/// new slide's entries go at the end of the indexes keyed by its id instead of on a page of
/// their own each: a batch of adds writes a few pages, not one per slide. The random part
/// keeps ids made in the same microsecond (on any server) apart.
pub fn new_slide_id() -> String {
    slide_id_at(Timestamp::now().unix_micros())
}

/// Characters of a slide id that tell its time (62^9 microseconds: past the year 2400).
const SLIDE_ID_TIME_LEN: usize = 9;

/// A slide id made at `micros` (see [`new_slide_id`]).
fn slide_id_at(micros: i64) -> String {
    // The alphabet in byte order, so that the ids' order is the times' order.
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut t = micros.max(0) as u64;
    let mut time = [0u8; SLIDE_ID_TIME_LEN];
    for digit in time.iter_mut().rev() {
        *digit = DIGITS[(t % 62) as usize];
        t /= 62;
    }
    let mut id: String = time.iter().map(|&b| char::from(b)).collect();
    id.push_str(&secret::random_alphanumeric(
        SLIDE_ID_LEN - SLIDE_ID_TIME_LEN,
    ));
    id
}

#[cfg(test)]
mod id_tests {
    use super::*;

    #[test]
    fn slide_ids_are_sixteen_letters_and_digits_that_sort_by_time() {
        let now = Timestamp::now().unix_micros();
        let id = new_slide_id();
        assert_eq!(id.len(), SLIDE_ID_LEN);
        assert!(id.bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
        // A microsecond, a second and a year later sort later; digits roll over in order.
        for later in [1, 61, 62, 1_000_000, 31_536_000_000_000] {
            assert!(slide_id_at(now) < slide_id_at(now + later), "+{later}");
        }
        assert!(slide_id_at(61) < slide_id_at(62));
        // The same microsecond still gives different ids.
        assert_ne!(slide_id_at(now), slide_id_at(now));
    }
}
