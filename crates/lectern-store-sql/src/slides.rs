//! Slides and their order: reading a deck's slides, its order (packed into one row), a
//! first page of summaries, one slide; and `edit_slides`, the one write transaction every
//! slide change runs in (the core's closure decides, this file writes what it decided).

use async_trait::async_trait;
use lectern_core::Result;
use lectern_core::layout::SlideSlot;
use lectern_core::revision::{Operation, WriteContext};
use lectern_core::store::{
    KnownOrder, NewSlideRecord, OrderScope, SlideContentPatch, SlideEdit, SlideEditor,
    SlideHtmlRecord, SlideOrder, SlideRecord, SlideStore, SlideSummaryRecord,
};
use lectern_core::time::Timestamp;

use crate::history::{Entry, Texts, insert_entry, record_removal, record_slide, text_id};
use crate::reads::PACKED_ORDER;
use crate::rows::{Columns, unpack_slots};
use crate::{SqlStore, Tx, all, fault, optional};

/// Stores one new slide of a deck.
pub(crate) async fn insert_slide(
    tx: &mut Tx,
    deck_id: i64,
    slide: &NewSlideRecord,
    at: i64,
) -> Result<()> {
    let query = sqlx::query(
        "INSERT INTO slides (id, deck_id, rank, group_id, html, notes, title, text_preview,
            html_bytes, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(&slide.slot.id)
    .bind(deck_id)
    .bind(&slide.slot.rank)
    .bind(slide.slot.group)
    .bind(&slide.content.html)
    .bind(&slide.content.notes)
    .bind(&slide.content.title)
    .bind(&slide.content.text_preview)
    .bind(slide.content.html.len() as i64)
    .bind(at)
    .bind(at);
    tx.run(query).await?;
    Ok(())
}

/// Adds `delta` to the deck's slide count (`decks.slide_count`, migration 0012). A write
/// that inserts or deletes slides calls it once with their difference, in its transaction;
/// a new deck's row is written with its count.
pub(crate) async fn count_slides(tx: &mut Tx, deck_id: i64, delta: i64) -> Result<()> {
    if delta != 0 {
        let query = sqlx::query("UPDATE decks SET slide_count = slide_count + $1 WHERE id = $2");
        tx.run(query.bind(delta).bind(deck_id)).await?;
    }
    Ok(())
}

/// Deletes a slide and records its removal in `revision`.
pub(crate) async fn delete_slide(tx: &mut Tx, deck_id: i64, revision: i64, id: &str) -> Result<()> {
    let query = sqlx::query("DELETE FROM slides WHERE deck_id = $1 AND id = $2");
    tx.run(query.bind(deck_id).bind(id)).await?;
    record_removal(tx, deck_id, revision, id).await
}

/// Gives slides their new order keys and groups. Two passes: a new rank may equal the old
/// rank of another slide moved in the same write, so every moved slide first takes a
/// placeholder rank ('~' sorts after every key).
pub(crate) async fn reposition<'a>(
    tx: &mut Tx,
    deck_id: i64,
    slots: impl Iterator<Item = &'a SlideSlot> + Clone,
    at: i64,
) -> Result<()> {
    for slot in slots.clone() {
        let query =
            sqlx::query("UPDATE slides SET rank = '~' || id WHERE deck_id = $1 AND id = $2");
        tx.run(query.bind(deck_id).bind(&slot.id)).await?;
    }
    for slot in slots {
        let query = sqlx::query(
            "UPDATE slides SET rank = $1, group_id = $2, updated_at = $3 WHERE deck_id = $4 AND id = $5",
        )
        .bind(&slot.rank)
        .bind(slot.group)
        .bind(at)
        .bind(deck_id)
        .bind(&slot.id);
        tx.run(query).await?;
    }
    Ok(())
}

/// The id, order key and group of a row whose first three columns select them.
fn slot(r: &sqlx::any::AnyRow) -> Result<SlideSlot> {
    Ok(SlideSlot {
        id: r.text(0)?,
        rank: r.text(1)?,
        group: r.opt_int(2)?,
    })
}

#[async_trait]
impl SlideStore for SqlStore {
    async fn deck_slides_html(
        &self,
        deck_id: i64,
        first: Option<usize>,
    ) -> Result<Vec<SlideHtmlRecord>> {
        let query = sqlx::query(
            "SELECT id, rank, group_id, html, notes FROM slides WHERE deck_id = $1
             ORDER BY rank LIMIT $2",
        );
        let limit = first.map_or(i64::MAX, |n| i64::try_from(n).unwrap_or(i64::MAX));
        all(&self.read, query.bind(deck_id).bind(limit), |r| {
            Ok(SlideHtmlRecord {
                slot: slot(r)?,
                html: r.text(3)?,
                notes: r.opt_text(4)?,
            })
        })
        .await
    }

    async fn slide_order(&self, deck_id: i64) -> Result<SlideOrder> {
        // One statement, so the order is the order of that revision.
        let row: (i64, String) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT d.revision, (SELECT {PACKED_ORDER} FROM slides WHERE deck_id = d.id)
             FROM decks d WHERE d.id = $1"
        )))
        .bind(deck_id)
        .fetch_optional(&self.read)
        .await
        .map_err(fault)?
        .unwrap_or((0, String::new()));
        Ok(SlideOrder {
            revision: row.0,
            slots: unpack_slots(&row.1)?,
        })
    }

    async fn slide_summaries(
        &self,
        deck_id: i64,
        ids: &[String],
    ) -> Result<Vec<SlideSummaryRecord>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        // A primary-key look-up per id: `+deck_id` (a no-op on both engines) keeps SQLite
        // from scanning the whole deck through the order index instead.
        let marks: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = format!(
            "SELECT id, title, text_preview, html_bytes,
                (notes IS NOT NULL AND notes <> '') AS has_notes
             FROM slides WHERE id IN ({}) AND +deck_id = $1",
            marks.join(", ")
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(deck_id);
        for id in ids {
            query = query.bind(id);
        }
        all(&self.read, query, |r| {
            Ok(SlideSummaryRecord {
                id: r.text(0)?,
                title: r.text(1)?,
                text_preview: r.text(2)?,
                html_bytes: r.int(3)?,
                has_notes: r.boolean(4)?,
            })
        })
        .await
    }

    async fn get_slide(&self, deck_id: i64, slide_id: &str) -> Result<Option<SlideRecord>> {
        let query =
            sqlx::query("SELECT id, html, notes FROM slides WHERE deck_id = $1 AND id = $2");
        optional(&self.read, query.bind(deck_id).bind(slide_id), |r| {
            Ok(SlideRecord {
                id: r.text(0)?,
                html: r.text(1)?,
                notes: r.opt_text(2)?,
            })
        })
        .await
    }

    async fn edit_slides(
        &self,
        owner_id: i64,
        deck_id: i64,
        now: Timestamp,
        edit: SlideEditor,
        operation: Operation,
        ctx: &WriteContext,
    ) -> Result<Option<SlideEdit>> {
        let mut tx = self.begin_write().await?;
        let at = now.unix_micros();
        let Some((revision, slots)) = self
            .next_revision(&mut tx, owner_id, deck_id, ctx, at, &edit.scope)
            .await?
        else {
            return Ok(None);
        };
        // A content edit moves nothing: the order of the revision before, when known here,
        // is this revision's too (so neither the store nor the core reads it).
        let carried = match &edit.scope {
            OrderScope::Slide(_, known) => {
                crate::history::newest_order(&tx, deck_id, known.clone())
                    .filter(|k| k.revision == revision - 1)
            }
            OrderScope::Whole(_) => None,
        };
        // An error here drops the transaction: nothing was written.
        let mut result = (edit.decide)(&slots)?;
        // A content change writes only when it sets something new; then the texts it sets
        // are recorded (the other one carries over).
        let mut recorded: Vec<(String, Texts)> = Vec::new();
        if let Some(patch) = &result.content {
            match change_content(&mut tx, deck_id, patch, at).await? {
                Some(texts) => {
                    recorded.push((patch.id.clone(), texts));
                    if let Some(known) = carried {
                        result.after = known.slots;
                    }
                }
                None => result.content = None,
            }
        }
        let plan = &result.plan;
        if plan.delete.is_empty()
            && plan.reposition.is_empty()
            && result.insert.is_empty()
            && result.content.is_none()
        {
            // Nothing changes: the transaction is dropped, so no revision either.
            result.revision = revision - 1;
            return Ok(Some(result));
        }
        let mut touched = Vec::new();
        for id in &result.plan.delete {
            delete_slide(&mut tx, deck_id, revision, id).await?;
            touched.push(id.clone());
        }
        reposition(&mut tx, deck_id, result.plan.reposition.iter(), at).await?;
        for slide in &result.insert {
            insert_slide(&mut tx, deck_id, slide, at).await?;
            let c = &slide.content;
            let texts = Texts::of(&mut tx, deck_id, &c.html, c.notes.as_deref()).await?;
            recorded.push((slide.slot.id.clone(), texts));
        }
        let added = result.insert.len() as i64 - result.plan.delete.len() as i64;
        count_slides(&mut tx, deck_id, added).await?;
        for slot in &result.plan.reposition {
            if !recorded.iter().any(|(id, _)| *id == slot.id) {
                recorded.push((slot.id.clone(), Texts::default()));
            }
        }
        for (id, texts) in recorded {
            record_slide(&mut tx, deck_id, revision, &id, texts).await?;
            touched.push(id);
        }
        let entry = Entry {
            revision,
            operation,
            slide_ids: &touched,
            restored: None,
            author: &ctx.author,
            settings: None,
        };
        insert_entry(&mut tx, deck_id, at, entry).await?;
        if !result.after.is_empty() {
            let order = KnownOrder {
                revision,
                slots: result.after.clone(),
            };
            tx.leave_order(deck_id, order);
        }
        tx.commit().await?;
        result.revision = revision;
        Ok(Some(result))
    }
}

/// Applies a content patch when it sets something new (html or notes that differ from the
/// stored ones); the ids of the texts it set, or `None` when it would change nothing.
async fn change_content(
    tx: &mut Tx,
    deck_id: i64,
    patch: &SlideContentPatch,
    at: i64,
) -> Result<Option<Texts>> {
    let (html, title, preview) = match &patch.html {
        Some((h, t, p)) => (Some(h.as_str()), Some(t.as_str()), Some(p.as_str())),
        None => (None, None, None),
    };
    let query = sqlx::query(
        "UPDATE slides SET html = COALESCE($1, html), title = COALESCE($2, title),
            text_preview = COALESCE($3, text_preview), html_bytes = COALESCE($4, html_bytes),
            notes = CASE WHEN $5 THEN $6 ELSE notes END, updated_at = $7
         WHERE deck_id = $8 AND id = $9
           AND (($1 IS NOT NULL AND html <> $1)
             OR ($5 AND NOT (COALESCE(notes = $6, FALSE) OR (notes IS NULL AND $6 IS NULL))))",
    )
    .bind(html)
    .bind(title)
    .bind(preview)
    .bind(html.map(|h| h.len() as i64))
    .bind(patch.notes.is_some())
    .bind(patch.notes.clone().flatten())
    .bind(at)
    .bind(deck_id)
    .bind(&patch.id);
    if tx.run(query).await? == 0 {
        return Ok(None);
    }
    let mut texts = Texts::default();
    if let Some(h) = html {
        texts.html = Some(text_id(tx, deck_id, h).await?);
    }
    if let Some(notes) = &patch.notes {
        texts.notes = Some(match notes {
            Some(n) => Some(text_id(tx, deck_id, n).await?),
            None => None,
        });
    }
    Ok(Some(texts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reads::{ONE_SLOT, packed};

    /// A `slides` table as the migrations make it (the columns the order reads).
    fn deck() -> rusqlite::Connection {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE slides (id TEXT PRIMARY KEY, deck_id INTEGER NOT NULL,
                rank TEXT NOT NULL, group_id INTEGER, UNIQUE (deck_id, rank));
             CREATE INDEX slides_order ON slides(deck_id, rank, id, group_id);
             INSERT INTO slides VALUES ('b', 1, 'a0', NULL), ('a', 1, 'a1', 7),
                ('c', 1, 'a2', 7), ('d', 2, 'a0', NULL);",
        )
        .unwrap();
        conn
    }

    fn packed_text(conn: &rusqlite::Connection, one: bool, filter: &str) -> String {
        let sql = format!(
            "SELECT {} FROM slides WHERE deck_id = 1{filter}",
            packed(one)
        );
        conn.query_row(&sql, [], |r| r.get(0)).unwrap()
    }

    /// Whether SQLite runs `sql` with a temporary table of its own (its own pager and page
    /// cache, allocated and freed for every run).
    fn opens_a_temporary_table(conn: &rusqlite::Connection, sql: &str) -> bool {
        let mut stmt = conn.prepare(&format!("EXPLAIN {sql}")).unwrap();
        let ops: Vec<String> = stmt
            .query_map([], |r| r.get(1))
            .unwrap()
            .map(|op| op.unwrap())
            .collect();
        ops.iter()
            .any(|op| op == "OpenEphemeral" || op == "SorterOpen")
    }

    #[test]
    fn one_slot_packs_as_the_whole_order_does() {
        let conn = deck();
        assert_eq!(packed_text(&conn, false, ""), "b,a0,;a,a1,7;c,a2,7");
        for id in ["a", "b", "c"] {
            let filter = format!(" AND id = '{id}'");
            assert_eq!(
                packed_text(&conn, true, &filter),
                packed_text(&conn, false, &filter)
            );
        }
        assert_eq!(
            packed_text(&conn, true, " AND id = 'd'"),
            "",
            "another deck's"
        );
        assert_eq!(packed_text(&conn, true, " AND id = 'zz'"), "");
    }

    /// The slot of one slide is read without the temporary table that the ordered
    /// aggregate of the whole order needs (a write reads it on every content edit).
    #[test]
    fn one_slot_is_read_without_a_temporary_table() {
        let conn = deck();
        let one = format!("SELECT {ONE_SLOT} FROM slides WHERE deck_id = 1 AND id = 'a'");
        assert!(!opens_a_temporary_table(&conn, &one), "{one}");
        let whole = format!("SELECT {PACKED_ORDER} FROM slides WHERE deck_id = 1");
        assert!(opens_a_temporary_table(&conn, &whole), "{whole}");
    }
}
