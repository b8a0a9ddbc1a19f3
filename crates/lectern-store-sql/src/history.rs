//! The deck history (migration 0008): recording a revision inside a write's transaction,
//! listing revisions, rebuilding the deck as it was after one, restoring it, and forgetting
//! old revisions. Storage is by change: the settings when a revision set them, one
//! `slide_history` row per slide a revision touched (`rank` NULL: removed), and each
//! distinct text once per deck in `history_blobs`, deflated when large.

use std::io::{Read, Write};

use async_trait::async_trait;
use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use lectern_core::auth::Author;
use lectern_core::layout::SlideSlot;
use lectern_core::params::Paging;
use lectern_core::revision::{DeckSettings, Operation, Precondition, WriteContext};
use lectern_core::secret::sha256_hex;
use lectern_core::store::{
    DeckRecord, RestoreFn, RevisionRecord, RevisionSnapshot, RevisionStore, SlideHtmlRecord,
};
use lectern_core::time::Timestamp;
use lectern_core::{Error, Result};

use crate::decks::deck_in_tx;
use crate::rows::Columns;
use crate::slides::{delete_slide, insert_slide, reposition};
use crate::{SqlStore, Tx, all, fault, optional, run, time};

/// Texts longer than this many bytes are stored deflated (when that is smaller).
const DEFLATE_ABOVE: usize = 512;

/// The stored form of a text: its encoding (0 plain, 1 deflated) and bytes.
fn encode(text: &str) -> (i64, Vec<u8>) {
    if text.len() > DEFLATE_ABOVE {
        let mut enc = DeflateEncoder::new(Vec::new(), Compression::fast());
        if enc.write_all(text.as_bytes()).is_ok()
            && let Ok(packed) = enc.finish()
            && packed.len() < text.len()
        {
            return (1, packed);
        }
    }
    (0, text.as_bytes().to_vec())
}

/// A text back from its stored form.
fn decode(encoding: i64, data: Vec<u8>) -> Result<String> {
    let bytes = match encoding {
        0 => data,
        1 => {
            let mut out = Vec::new();
            DeflateDecoder::new(&data[..])
                .read_to_end(&mut out)
                .map_err(|e| Error::internal(format!("a stored history text: {e}")))?;
            out
        }
        other => return Err(Error::internal(format!("unknown text encoding {other}"))),
    };
    String::from_utf8(bytes).map_err(|e| Error::internal(format!("a stored history text: {e}")))
}

/// The id of `text` among the deck's stored texts, storing it when it is new. Callers hold
/// the deck's lock, so two writers never store the same text at once.
pub(crate) async fn text_id(tx: &mut Tx, deck_id: i64, text: &str) -> Result<i64> {
    let hash = sha256_hex(text);
    let find = sqlx::query("SELECT id FROM history_blobs WHERE deck_id = $1 AND hash = $2")
        .bind(deck_id)
        .bind(hash.clone());
    if let Some(id) = optional(&mut **tx, find, |r| r.int(0)).await? {
        return Ok(id);
    }
    let (encoding, data) = encode(text);
    sqlx::query_scalar(
        "INSERT INTO history_blobs (deck_id, hash, encoding, data) VALUES ($1, $2, $3, $4)
         RETURNING id",
    )
    .bind(deck_id)
    .bind(hash)
    .bind(encoding)
    .bind(data)
    .fetch_one(&mut **tx)
    .await
    .map_err(fault)
}

/// The ids of a slide's html and notes among the deck's stored texts.
pub(crate) async fn content_ids(
    tx: &mut Tx,
    deck_id: i64,
    html: &str,
    notes: Option<&str>,
) -> Result<(i64, Option<i64>)> {
    let html = text_id(tx, deck_id, html).await?;
    let notes = match notes {
        Some(n) => Some(text_id(tx, deck_id, n).await?),
        None => None,
    };
    Ok((html, notes))
}

/// Records a slide's state after `revision`: its place as `slides` holds it now, and its
/// content `content` (text ids) or, when that did not change, its content in its last
/// recorded state.
pub(crate) async fn record_slide(
    tx: &mut Tx,
    deck_id: i64,
    revision: i64,
    slide_id: &str,
    content: Option<(i64, Option<i64>)>,
) -> Result<()> {
    let query = match content {
        Some((html, notes)) => sqlx::query(
            "INSERT INTO slide_history (deck_id, slide_id, revision, rank, group_id, html_blob,
                notes_blob)
             SELECT deck_id, id, $3, rank, group_id, $4, $5 FROM slides
             WHERE deck_id = $1 AND id = $2",
        )
        .bind(deck_id)
        .bind(slide_id)
        .bind(revision)
        .bind(html)
        .bind(notes),
        None => sqlx::query(
            "INSERT INTO slide_history (deck_id, slide_id, revision, rank, group_id, html_blob,
                notes_blob)
             SELECT s.deck_id, s.id, $3, s.rank, s.group_id, h.html_blob, h.notes_blob
             FROM slides s JOIN slide_history h ON h.deck_id = s.deck_id AND h.slide_id = s.id
             WHERE s.deck_id = $1 AND s.id = $2 AND h.revision = (SELECT MAX(revision)
                FROM slide_history WHERE deck_id = $1 AND slide_id = $2)",
        )
        .bind(deck_id)
        .bind(slide_id)
        .bind(revision),
    };
    if run(&mut **tx, query).await? != 1 {
        return Err(Error::internal(format!(
            "slide {slide_id} has no recorded state to carry into revision {revision}"
        )));
    }
    Ok(())
}

/// Records that a slide was removed in `revision`.
pub(crate) async fn record_removal(
    tx: &mut Tx,
    deck_id: i64,
    revision: i64,
    slide_id: &str,
) -> Result<()> {
    let query =
        sqlx::query("INSERT INTO slide_history (deck_id, slide_id, revision) VALUES ($1, $2, $3)")
            .bind(deck_id)
            .bind(slide_id)
            .bind(revision);
    run(&mut **tx, query).await?;
    Ok(())
}

/// One revision's entry, as a write records it.
pub(crate) struct Entry<'a> {
    pub revision: i64,
    pub operation: Operation,
    pub slide_ids: &'a [String],
    pub restored: Option<i64>,
    pub author: &'a Author,
    /// The deck's settings after it, when it set them.
    pub settings: Option<&'a DeckSettings>,
}

/// Sets the deck's revision and `updated_at` and records the revision's entry.
pub(crate) async fn record_revision(
    tx: &mut Tx,
    deck_id: i64,
    at: i64,
    entry: Entry<'_>,
) -> Result<()> {
    let query = sqlx::query("UPDATE decks SET revision = $1, updated_at = $2 WHERE id = $3")
        .bind(entry.revision)
        .bind(at)
        .bind(deck_id);
    run(&mut **tx, query).await?;
    let slide_ids = serde_json::to_string(entry.slide_ids)
        .map_err(|e| Error::internal(format!("slide ids: {e}")))?;
    let query = sqlx::query(
        "INSERT INTO deck_revisions (deck_id, revision, created_at, operation, slide_ids,
            restored_revision, author_id, via, label, credential, settings)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(deck_id)
    .bind(entry.revision)
    .bind(at)
    .bind(entry.operation.as_str())
    .bind(slide_ids)
    .bind(entry.restored)
    .bind(entry.author.user_id)
    .bind(entry.author.via.as_str())
    .bind(entry.author.label.clone())
    .bind(entry.author.credential.clone())
    .bind(entry.settings.map(DeckSettings::to_json));
    run(&mut **tx, query).await?;
    Ok(())
}

impl SqlStore {
    /// Locks the owner's deck outside the trash and returns its revision; `None` when there
    /// is no such deck ([`crate::Dialect::row_lock`]).
    pub(crate) async fn lock_active_revision(
        &self,
        tx: &mut Tx,
        owner_id: i64,
        deck_id: i64,
    ) -> Result<Option<i64>> {
        let sql = format!(
            "SELECT revision FROM decks WHERE id = $1 AND owner_id = $2 AND trashed_at IS NULL{}",
            self.dialect.row_lock(" FOR UPDATE")
        );
        let query = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(deck_id)
            .bind(owner_id);
        optional(&mut **tx, query, |r| r.int(0)).await
    }

    /// Locks the owner's active deck for a recorded write and checks `ctx`'s precondition
    /// (412 with the current revision when it fails); the deck's revision, or `None` when
    /// there is no such deck (404 first: a precondition never reveals another's revision).
    pub(crate) async fn lock_for_write(
        &self,
        tx: &mut Tx,
        owner_id: i64,
        deck_id: i64,
        ctx: &WriteContext,
    ) -> Result<Option<i64>> {
        let Some(current) = self.lock_active_revision(tx, owner_id, deck_id).await? else {
            return Ok(None);
        };
        Precondition::check(ctx.precondition.as_ref(), deck_id, current)?;
        Ok(Some(current))
    }

    /// Gives every deck that has no history (made before migration 0008) its revision 1:
    /// its settings and slides as they are, by its owner through `admin`. Run at start; a
    /// deck another server is recording meanwhile is skipped there.
    pub async fn record_missing_history(&self) -> Result<u64> {
        let missing: Vec<(i64, i64)> = all(
            &self.read,
            sqlx::query(
                "SELECT id, owner_id FROM decks d WHERE NOT EXISTS
                    (SELECT 1 FROM deck_revisions r WHERE r.deck_id = d.id)",
            ),
            |r| Ok((r.int(0)?, r.int(1)?)),
        )
        .await?;
        let mut recorded = 0;
        for (deck_id, owner_id) in missing {
            let mut tx = self.begin_write().await?;
            let sql = format!(
                "SELECT revision FROM decks d WHERE id = $1 AND NOT EXISTS
                    (SELECT 1 FROM deck_revisions r WHERE r.deck_id = d.id){}",
                self.dialect.row_lock(" FOR UPDATE")
            );
            let query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(deck_id);
            let Some(revision) = optional(&mut *tx, query, |r| r.int(0)).await? else {
                continue;
            };
            let Some(deck) = deck_in_tx(&mut tx, owner_id, deck_id).await? else {
                continue;
            };
            let slides = slides_in_tx(&mut tx, deck_id).await?;
            let mut ids = Vec::with_capacity(slides.len());
            for s in &slides {
                let content = content_ids(&mut tx, deck_id, &s.html, s.notes.as_deref()).await?;
                record_slide(&mut tx, deck_id, revision, &s.slot.id, Some(content)).await?;
                ids.push(s.slot.id.clone());
            }
            let entry = Entry {
                revision,
                operation: Operation::CreateDeck,
                slide_ids: &ids,
                restored: None,
                author: &Author::admin(owner_id),
                settings: Some(&DeckSettings::of(&deck)),
            };
            record_revision(&mut tx, deck_id, deck.updated_at.unix_micros(), entry).await?;
            tx.commit().await.map_err(fault)?;
            recorded += 1;
        }
        Ok(recorded)
    }
}

/// A deck's slides in order with their content, inside a transaction.
async fn slides_in_tx(tx: &mut Tx, deck_id: i64) -> Result<Vec<SlideHtmlRecord>> {
    let query = sqlx::query(
        "SELECT id, rank, group_id, html, notes FROM slides WHERE deck_id = $1 ORDER BY rank",
    );
    all(&mut **tx, query.bind(deck_id), |r| {
        Ok(SlideHtmlRecord {
            slot: SlideSlot {
                id: r.text(0)?,
                rank: r.text(1)?,
                group: r.opt_int(2)?,
            },
            html: r.text(3)?,
            notes: r.opt_text(4)?,
        })
    })
    .await
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
        let Some(current) = self.lock_for_write(&mut tx, owner_id, deck_id, ctx).await? else {
            return Ok(None);
        };
        let deck = deck_in_tx(&mut tx, owner_id, deck_id)
            .await?
            .ok_or_else(|| Error::internal("a locked deck is missing"))?;
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
        reposition(
            &mut tx,
            deck_id,
            plan.update.iter().map(|(slot, _)| slot),
            at,
        )
        .await?;
        for (slot, content) in &plan.update {
            let ids = match content {
                Some(c) => {
                    let query = sqlx::query(
                        "UPDATE slides SET html = $1, notes = $2, title = $3, text_preview = $4,
                            html_bytes = $5 WHERE deck_id = $6 AND id = $7",
                    )
                    .bind(&c.html)
                    .bind(c.notes.clone())
                    .bind(&c.title)
                    .bind(&c.text_preview)
                    .bind(c.html.len() as i64)
                    .bind(deck_id)
                    .bind(&slot.id);
                    run(&mut *tx, query).await?;
                    Some(content_ids(&mut tx, deck_id, &c.html, c.notes.as_deref()).await?)
                }
                None => None,
            };
            record_slide(&mut tx, deck_id, revision, &slot.id, ids).await?;
        }
        for slide in &plan.insert {
            insert_slide(&mut tx, deck_id, slide, at).await?;
            let ids = content_ids(
                &mut tx,
                deck_id,
                &slide.content.html,
                slide.content.notes.as_deref(),
            )
            .await?;
            record_slide(&mut tx, deck_id, revision, &slide.slot.id, Some(ids)).await?;
        }
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
        tx.commit().await.map_err(fault)?;
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
            let sql = format!(
                "SELECT revision FROM decks WHERE id = $1{}",
                self.dialect.row_lock(" FOR UPDATE")
            );
            let query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(deck_id);
            let Some(current) = optional(&mut *tx, query, |r| r.int(0)).await? else {
                continue;
            };
            let query = sqlx::query_scalar(
                "SELECT COALESCE(MIN(revision), $2) FROM deck_revisions
                 WHERE deck_id = $1 AND created_at >= $3",
            )
            .bind(deck_id)
            .bind(current + 1)
            .bind(before.unix_micros());
            let recent: i64 = query.fetch_one(&mut *tx).await.map_err(fault)?;
            let first_kept = recent.min(current - keep + 1).max(1);
            let oldest: Option<i64> =
                sqlx::query_scalar("SELECT MIN(revision) FROM deck_revisions WHERE deck_id = $1")
                    .bind(deck_id)
                    .fetch_one(&mut *tx)
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
            run(&mut *tx, query.bind(deck_id).bind(first_kept)).await?;
            // Slide states older than the first kept revision matter only as each slide's
            // last state before it; removals before it do not matter at all.
            let query = sqlx::query(
                "DELETE FROM slide_history WHERE deck_id = $1 AND revision < $2 AND EXISTS
                    (SELECT 1 FROM slide_history n WHERE n.deck_id = slide_history.deck_id
                        AND n.slide_id = slide_history.slide_id
                        AND n.revision > slide_history.revision AND n.revision <= $2)",
            );
            run(&mut *tx, query.bind(deck_id).bind(first_kept)).await?;
            let query = sqlx::query(
                "DELETE FROM slide_history WHERE deck_id = $1 AND revision < $2 AND rank IS NULL",
            );
            run(&mut *tx, query.bind(deck_id).bind(first_kept)).await?;
            let query =
                sqlx::query("DELETE FROM deck_revisions WHERE deck_id = $1 AND revision < $2");
            forgotten += run(&mut *tx, query.bind(deck_id).bind(first_kept)).await?;
            let query = sqlx::query(
                "DELETE FROM history_blobs WHERE deck_id = $1
                    AND NOT EXISTS (SELECT 1 FROM slide_history h WHERE h.deck_id = $1
                        AND (h.html_blob = history_blobs.id OR h.notes_blob = history_blobs.id))",
            );
            run(&mut *tx, query.bind(deck_id)).await?;
            tx.commit().await.map_err(fault)?;
        }
        Ok(forgotten)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_round_trip_plain_and_deflated() {
        let short = "<section data-id=\"a\"><h1>Hi</h1></section>";
        let (e, d) = encode(short);
        assert_eq!(e, 0);
        assert_eq!(decode(e, d).unwrap(), short);
        let long = format!("<section>{}</section>", "<p>Point</p>".repeat(200));
        let (e, d) = encode(&long);
        assert_eq!(e, 1);
        assert!(d.len() < long.len() / 4);
        assert_eq!(decode(e, d).unwrap(), long);
    }
}
