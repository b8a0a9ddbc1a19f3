//! The deck history read, restored and forgotten (`RevisionStore`): a deck's or a slide's
//! revisions, the deck as it was after one (each slide's newest state up to it), a restore
//! written as one revision, and pruning that keeps the kept revisions exact. What each write
//! records is `history.rs`.

use async_trait::async_trait;
use lectern_core::layout::SlideSlot;
use lectern_core::params::Paging;
use lectern_core::revision::{DeckSettings, Operation, WriteContext};
use lectern_core::secret::sha256_hex;
use lectern_core::store::{
    DeckRecord, RestoreFn, RevisionRecord, RevisionSnapshot, RevisionStore, SlideContent,
    SlideHtmlRecord,
};
use lectern_core::time::Timestamp;
use lectern_core::{Error, Result};

use crate::history::{
    Entry, Texts, decode, known_texts, record_revision, record_slide, slides_in_tx, text_id,
};
use crate::reads::deck_in_tx;
use crate::rows::Columns;
use crate::slides::{count_slides, delete_slide, insert_slide, reposition};
use crate::{SqlStore, Tx, all, fault, optional, time};

/// Slides written or recorded per statement in a restore (7 bound values each).
const BATCH: usize = 100;

/// Sets the content of the slides in `batch` (ids of the deck's slides) in one statement.
async fn update_contents(tx: &mut Tx, deck_id: i64, batch: &[(&str, &SlideContent)]) -> Result<()> {
    let rows: Vec<String> = (0..batch.len())
        .map(|i| {
            let b = 2 + i * 6;
            format!(
                "(${b}, ${}, ${}, ${}, ${}, ${})",
                b + 1,
                b + 2,
                b + 3,
                b + 4,
                b + 5
            )
        })
        .collect();
    let sql = sqlx::AssertSqlSafe(format!(
        "UPDATE slides SET html = v.column2, notes = v.column3, title = v.column4,
            text_preview = v.column5, html_bytes = v.column6
         FROM (VALUES {}) AS v WHERE slides.deck_id = $1 AND slides.id = v.column1",
        rows.join(", ")
    ));
    let mut query = sqlx::query(sql).bind(deck_id);
    for (id, c) in batch {
        query = query
            .bind(id.to_string())
            .bind(c.html.clone())
            .bind(c.notes.clone())
            .bind(c.title.clone())
            .bind(c.text_preview.clone())
            .bind(c.html.len() as i64);
    }
    if tx.run(query).await? != batch.len() as u64 {
        return Err(Error::internal("a restored slide is missing"));
    }
    Ok(())
}

/// Records the state after `revision` of slides whose whole content is known (the texts
/// looked up in batches, stored when new; place and group as `slides` holds them now).
async fn record_contents(
    tx: &mut Tx,
    deck_id: i64,
    revision: i64,
    slides: &[(&str, &SlideContent)],
) -> Result<()> {
    let hashes: Vec<String> = slides
        .iter()
        .flat_map(|(_, c)| std::iter::once(&c.html).chain(c.notes.as_ref()))
        .map(|t| sha256_hex(t))
        .collect();
    let mut ids = known_texts(tx, deck_id, &hashes).await?;
    let mut id_of = async |tx: &mut Tx, text: &str| -> Result<i64> {
        let hash = sha256_hex(text);
        if let Some(id) = ids.get(&hash) {
            return Ok(*id);
        }
        let id = text_id(tx, deck_id, text).await?;
        ids.insert(hash, id);
        Ok(id)
    };
    let mut rows = Vec::with_capacity(slides.len());
    for (id, c) in slides {
        let html = id_of(tx, &c.html).await?;
        let notes = match &c.notes {
            Some(n) => Some(id_of(tx, n).await?),
            None => None,
        };
        rows.push((*id, html, notes));
    }
    for chunk in rows.chunks(BATCH) {
        let values: Vec<String> = (0..chunk.len())
            .map(|i| {
                let b = 3 + i * 3;
                format!("(${b}, ${}, ${})", b + 1, b + 2)
            })
            .collect();
        let sql = sqlx::AssertSqlSafe(format!(
            "INSERT INTO slide_history (deck_id, slide_id, revision, rank, group_id, html_blob,
                notes_blob)
             SELECT s.deck_id, s.id, $2, s.rank, s.group_id, v.column2, v.column3
             FROM (VALUES {}) AS v JOIN slides s ON s.deck_id = $1 AND s.id = v.column1",
            values.join(", ")
        ));
        let mut query = sqlx::query(sql).bind(deck_id).bind(revision);
        for (id, html, notes) in chunk {
            query = query.bind(id.to_string()).bind(*html).bind(*notes);
        }
        if tx.run(query).await? != chunk.len() as u64 {
            return Err(Error::internal("a restored slide is missing"));
        }
    }
    Ok(())
}

/// Decodes a `deck_revisions` row selected with [`REVISION_SELECT`].
fn revision_row(r: &sqlx::any::AnyRow) -> Result<RevisionRecord> {
    let slide_ids: Vec<String> = serde_json::from_str(&r.text(2)?)
        .map_err(|e| Error::internal(format!("stored slide ids: {e}")))?;
    Ok(RevisionRecord {
        revision: r.int(0)?,
        created_at: time(r.int(1)?),
        slide_ids,
        operation: r.text(3)?,
        restored_revision: r.opt_int(4)?,
        author_id: r.opt_int(5)?,
        author_username: r.opt_text(6)?,
        via: r.text(7)?,
        label: r.opt_text(8)?,
        credential: r.opt_text(9)?,
    })
}

const REVISION_SELECT: &str = "SELECT r.revision, r.created_at, r.slide_ids, r.operation,
    r.restored_revision, r.author_id, u.username, r.via, r.label, r.credential
    FROM deck_revisions r LEFT JOIN users u ON u.id = r.author_id";

#[async_trait]
impl RevisionStore for SqlStore {
    async fn revision_operations(
        &self,
        deck_id: i64,
        after: i64,
        before: i64,
    ) -> Result<Vec<String>> {
        let query = sqlx::query(
            "SELECT operation FROM deck_revisions
             WHERE deck_id = $1 AND revision > $2 AND revision < $3",
        );
        all(
            &self.read,
            query.bind(deck_id).bind(after).bind(before),
            |r| r.text(0),
        )
        .await
    }

    async fn revisions_after(
        &self,
        deck_id: i64,
        after: i64,
        limit: i64,
    ) -> Result<(Vec<RevisionRecord>, Option<i64>)> {
        let sql = format!(
            "{REVISION_SELECT} WHERE r.deck_id = $1 AND r.revision > $2
             ORDER BY r.revision LIMIT $3"
        );
        let query = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(deck_id)
            .bind(after)
            .bind(limit);
        let items = all(&self.read, query, revision_row).await?;
        let oldest: Option<i64> =
            sqlx::query_scalar("SELECT MIN(revision) FROM deck_revisions WHERE deck_id = $1")
                .bind(deck_id)
                .fetch_one(&self.read)
                .await
                .map_err(fault)?;
        Ok((items, oldest))
    }

    async fn list_revisions(
        &self,
        deck_id: i64,
        slide_id: Option<&str>,
        paging: Paging,
    ) -> Result<(Vec<RevisionRecord>, i64)> {
        let (items, total) = match slide_id {
            None => {
                let sql = format!(
                    "{REVISION_SELECT} WHERE r.deck_id = $1 ORDER BY r.revision DESC
                     LIMIT $2 OFFSET $3"
                );
                let query = sqlx::query(sqlx::AssertSqlSafe(sql))
                    .bind(deck_id)
                    .bind(paging.limit())
                    .bind(paging.offset());
                let items = all(&self.read, query, revision_row).await?;
                let total =
                    sqlx::query_scalar("SELECT COUNT(*) FROM deck_revisions WHERE deck_id = $1")
                        .bind(deck_id)
                        .fetch_one(&self.read)
                        .await
                        .map_err(fault)?;
                (items, total)
            }
            Some(slide) => {
                // A kept revision has one history row per slide it touched.
                let touched = "FROM slide_history h JOIN deck_revisions r
                    ON r.deck_id = h.deck_id AND r.revision = h.revision
                    WHERE h.deck_id = $1 AND h.slide_id = $2";
                let sql = format!(
                    "{} {touched} ORDER BY r.revision DESC LIMIT $3 OFFSET $4",
                    REVISION_SELECT
                        .replace(
                            "FROM deck_revisions r LEFT JOIN users u ON u.id = r.author_id",
                            ""
                        )
                        .replace(
                            "u.username",
                            "(SELECT username FROM users WHERE id = r.author_id)"
                        )
                );
                let query = sqlx::query(sqlx::AssertSqlSafe(sql))
                    .bind(deck_id)
                    .bind(slide)
                    .bind(paging.limit())
                    .bind(paging.offset());
                let items = all(&self.read, query, revision_row).await?;
                let count = format!("SELECT COUNT(*) {touched}");
                let total = sqlx::query_scalar(sqlx::AssertSqlSafe(count))
                    .bind(deck_id)
                    .bind(slide)
                    .fetch_one(&self.read)
                    .await
                    .map_err(fault)?;
                (items, total)
            }
        };
        Ok((items, total))
    }

    async fn revision_snapshot(
        &self,
        deck_id: i64,
        revision: i64,
    ) -> Result<Option<RevisionSnapshot>> {
        let query = sqlx::query(
            "SELECT created_at FROM deck_revisions WHERE deck_id = $1 AND revision = $2",
        )
        .bind(deck_id)
        .bind(revision);
        let Some(created_at) = optional(&self.read, query, |r| r.int(0)).await? else {
            return Ok(None);
        };
        let query = sqlx::query(
            "SELECT settings FROM deck_revisions WHERE deck_id = $1 AND revision <= $2
                AND settings IS NOT NULL ORDER BY revision DESC LIMIT 1",
        )
        .bind(deck_id)
        .bind(revision);
        let settings = optional(&self.read, query, |r| r.text(0))
            .await?
            .ok_or_else(|| Error::internal(format!("revision {revision} has no settings")))?;
        let query = sqlx::query(
            "SELECT h.slide_id, h.rank, h.group_id, hb.encoding, hb.data, nb.encoding, nb.data
             FROM slide_history h
             JOIN history_blobs hb ON hb.id = h.html_blob
             LEFT JOIN history_blobs nb ON nb.id = h.notes_blob
             WHERE h.deck_id = $1 AND h.revision <= $2 AND h.rank IS NOT NULL
               AND h.revision = (SELECT MAX(h2.revision) FROM slide_history h2
                    WHERE h2.deck_id = h.deck_id AND h2.slide_id = h.slide_id
                      AND h2.revision <= $2)
             ORDER BY h.rank",
        )
        .bind(deck_id)
        .bind(revision);
        let rows = query.fetch_all(&self.read).await.map_err(fault)?;
        let mut slides = Vec::with_capacity(rows.len());
        for r in &rows {
            let notes = match r.opt_int(5)? {
                Some(encoding) => Some(decode(encoding, r.bytes(6)?)?),
                None => None,
            };
            slides.push(SlideHtmlRecord {
                slot: SlideSlot {
                    id: r.text(0)?,
                    rank: r.text(1)?,
                    group: r.opt_int(2)?,
                },
                html: decode(r.int(3)?, r.bytes(4)?)?,
                notes,
            });
        }
        Ok(Some(RevisionSnapshot {
            revision,
            created_at: time(created_at),
            settings: DeckSettings::from_json(&settings)?,
            slides,
        }))
    }

    async fn restore_deck(
        &self,
        owner_id: i64,
        deck_id: i64,
        plan: RestoreFn,
        now: Timestamp,
        ctx: &WriteContext,
    ) -> Result<Option<DeckRecord>> {
        let mut tx = self.begin_write().await?;
        let Some(deck) = self
            .lock_deck_for_write(&mut tx, owner_id, deck_id, ctx)
            .await?
        else {
            return Ok(None);
        };
        let current = deck.revision;
        let slides = slides_in_tx(&mut tx, deck_id).await?;
        // An error here drops the transaction: nothing was written.
        let plan = plan(&deck, &slides)?;
        if plan.is_empty() {
            return Ok(Some(deck));
        }
        let revision = current + 1;
        let at = now.unix_micros();
        for id in &plan.delete {
            delete_slide(&mut tx, deck_id, revision, id).await?;
        }
        // Only slides whose place differs are re-keyed (an edited slide usually stayed put).
        let now_at: std::collections::HashMap<&str, &SlideSlot> = slides
            .iter()
            .map(|s| (s.slot.id.as_str(), &s.slot))
            .collect();
        let moved: Vec<&SlideSlot> = plan
            .update
            .iter()
            .map(|(slot, _)| slot)
            .filter(|slot| now_at.get(slot.id.as_str()) != Some(slot))
            .collect();
        reposition(&mut tx, deck_id, moved.into_iter(), at).await?;
        // Slides that only moved carry their texts over, one by one; slides whose content
        // comes back are written and recorded in batches (a full restore touches them all).
        for (slot, content) in &plan.update {
            if content.is_none() {
                record_slide(&mut tx, deck_id, revision, &slot.id, Texts::default()).await?;
            }
        }
        let rewritten: Vec<(&str, &SlideContent)> = plan
            .update
            .iter()
            .filter_map(|(slot, c)| c.as_ref().map(|c| (slot.id.as_str(), c)))
            .collect();
        for chunk in rewritten.chunks(BATCH) {
            update_contents(&mut tx, deck_id, chunk).await?;
        }
        for slide in &plan.insert {
            insert_slide(&mut tx, deck_id, slide, at).await?;
        }
        let added = plan.insert.len() as i64 - plan.delete.len() as i64;
        count_slides(&mut tx, deck_id, added).await?;
        let recorded: Vec<(&str, &SlideContent)> = rewritten
            .into_iter()
            .chain(plan.insert.iter().map(|s| (s.slot.id.as_str(), &s.content)))
            .collect();
        record_contents(&mut tx, deck_id, revision, &recorded).await?;
        if let Some(s) = &plan.settings {
            crate::decks::write_settings(&mut tx, deck_id, s).await?;
        }
        let entry = Entry {
            revision,
            operation: Operation::Restore,
            slide_ids: &plan.slide_ids(),
            restored: Some(plan.restored_revision),
            author: &ctx.author,
            settings: plan.settings.as_ref(),
        };
        record_revision(&mut tx, deck_id, at, entry).await?;
        let deck = deck_in_tx(&mut tx, owner_id, deck_id)
            .await?
            .ok_or_else(|| Error::internal("a restored deck is missing"))?;
        tx.commit().await?;
        Ok(Some(deck))
    }

    async fn prune_history(&self, before: Timestamp, keep: i64) -> Result<u64> {
        // Per deck: the oldest revision kept is the first made at or after `before`, or the
        // newest `keep`th, whichever is older.
        let decks: Vec<(i64, i64)> = all(
            &self.read,
            sqlx::query(
                "SELECT deck_id, MIN(revision) FROM deck_revisions WHERE created_at < $1
                 GROUP BY deck_id",
            )
            .bind(before.unix_micros()),
            |r| Ok((r.int(0)?, r.int(1)?)),
        )
        .await?;
        let mut forgotten = 0;
        for (deck_id, _) in decks {
            let mut tx = self.begin_write().await?;
            let Some(locked) = self.lock_deck(&mut tx, deck_id, None).await? else {
                continue;
            };
            let current = locked.revision;
            let query = sqlx::query(
                "SELECT COALESCE(MIN(revision), $2) FROM deck_revisions
                 WHERE deck_id = $1 AND created_at >= $3",
            )
            .bind(deck_id)
            .bind(current + 1)
            .bind(before.unix_micros());
            let recent: i64 = tx.scalar(query).await.map_err(fault)?;
            let first_kept = recent.min(current - keep + 1).max(1);
            let oldest: Option<i64> = tx
                .scalar(
                    sqlx::query("SELECT MIN(revision) FROM deck_revisions WHERE deck_id = $1")
                        .bind(deck_id),
                )
                .await
                .map_err(fault)?;
            if oldest.is_none_or(|o| o >= first_kept) {
                continue;
            }
            // The first kept revision carries the settings it had.
            let query = sqlx::query(
                "UPDATE deck_revisions SET settings = (SELECT settings FROM deck_revisions
                    WHERE deck_id = $1 AND revision <= $2 AND settings IS NOT NULL
                    ORDER BY revision DESC LIMIT 1)
                 WHERE deck_id = $1 AND revision = $2 AND settings IS NULL",
            );
            tx.run(query.bind(deck_id).bind(first_kept)).await?;
            // Slide states older than the first kept revision matter only as each slide's
            // last state before it; removals before it do not matter at all.
            let query = sqlx::query(
                "DELETE FROM slide_history WHERE deck_id = $1 AND revision < $2 AND EXISTS
                    (SELECT 1 FROM slide_history n WHERE n.deck_id = slide_history.deck_id
                        AND n.slide_id = slide_history.slide_id
                        AND n.revision > slide_history.revision AND n.revision <= $2)",
            );
            tx.run(query.bind(deck_id).bind(first_kept)).await?;
            let query = sqlx::query(
                "DELETE FROM slide_history WHERE deck_id = $1 AND revision < $2 AND rank IS NULL",
            );
            tx.run(query.bind(deck_id).bind(first_kept)).await?;
            let query =
                sqlx::query("DELETE FROM deck_revisions WHERE deck_id = $1 AND revision < $2");
            forgotten += tx.run(query.bind(deck_id).bind(first_kept)).await?;
            let query = sqlx::query(
                "DELETE FROM history_blobs WHERE deck_id = $1
                    AND NOT EXISTS (SELECT 1 FROM slide_history h WHERE h.deck_id = $1
                        AND (h.html_blob = history_blobs.id OR h.notes_blob = history_blobs.id))",
            );
            tx.run(query.bind(deck_id)).await?;
            tx.commit().await?;
        }
        Ok(forgotten)
    }
}
