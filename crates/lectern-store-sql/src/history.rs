//! The deck history (migration 0008), as the writes record it: inside each write's
//! transaction, the lock and precondition, the texts, the touched slides' states and the
//! revision's entry; and the first revision of decks older than the history. Reading,
//! restoring and forgetting revisions is `revisions.rs`. Storage is by change: the settings when a revision set them, one
//! `slide_history` row per slide a revision touched (`rank` NULL: removed), and each
//! distinct text once per deck in `history_blobs`, deflated when large.

use std::io::{Read, Write};

use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use lectern_core::auth::Author;
use lectern_core::layout::{SlideSlot, Slots};
use lectern_core::revision::{DeckSettings, Operation, Precondition, WriteContext};
use lectern_core::secret::sha256_hex;
use lectern_core::store::{DeckRecord, KnownOrder, OrderScope, SlideHtmlRecord};
use lectern_core::{Error, Result};

use crate::reads::deck_in_tx;
use crate::rows::Columns;
use crate::{SqlStore, Tx, all, fault};

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
pub(crate) fn decode(encoding: i64, data: Vec<u8>) -> Result<String> {
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
/// It is tried as new first (an edit's texts usually are), so the common case costs one
/// statement.
pub(crate) async fn text_id(tx: &mut Tx, deck_id: i64, text: &str) -> Result<i64> {
    let hash = sha256_hex(text);
    let find = || {
        sqlx::query("SELECT id FROM history_blobs WHERE deck_id = $1 AND hash = $2")
            .bind(deck_id)
            .bind(hash.clone())
    };
    let (encoding, data) = encode(text);
    let inserted = tx
        .inserted_id(
            sqlx::query(
                "INSERT INTO history_blobs (deck_id, hash, encoding, data) VALUES ($1, $2, $3, $4)
         ON CONFLICT (deck_id, hash) DO NOTHING RETURNING id",
            )
            .bind(deck_id)
            .bind(hash.clone())
            .bind(encoding)
            .bind(data),
        )
        .await
        .map_err(fault)?;
    match inserted {
        Some(id) => Ok(id),
        None => tx.scalar(find()).await.map_err(fault),
    }
}

/// The ids of the deck's stored texts among `hashes` (SHA-256 hex), by hash: one statement
/// per 500 hashes instead of one per text.
pub(crate) async fn known_texts(
    tx: &mut Tx,
    deck_id: i64,
    hashes: &[String],
) -> Result<std::collections::HashMap<String, i64>> {
    let mut found = std::collections::HashMap::with_capacity(hashes.len());
    for chunk in hashes.chunks(500) {
        let marks: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = sqlx::AssertSqlSafe(format!(
            "SELECT id, hash FROM history_blobs WHERE deck_id = $1 AND hash IN ({})",
            marks.join(", ")
        ));
        let mut query = sqlx::query(sql).bind(deck_id);
        for hash in chunk {
            query = query.bind(hash.clone());
        }
        for (id, hash) in tx.all(query, |r| Ok((r.int(0)?, r.text(1)?))).await? {
            found.insert(hash, id);
        }
    }
    Ok(found)
}

/// A slide's texts in a revision, as ids among the deck's stored texts; `None`: as in the
/// slide's previous recorded state (a move, or a change of the other text).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Texts {
    pub html: Option<i64>,
    /// `Some(None)`: no notes.
    pub notes: Option<Option<i64>>,
}

impl Texts {
    /// Both texts of a slide, stored when new.
    pub(crate) async fn of(
        tx: &mut Tx,
        deck_id: i64,
        html: &str,
        notes: Option<&str>,
    ) -> Result<Texts> {
        let html = text_id(tx, deck_id, html).await?;
        let notes = match notes {
            Some(n) => Some(text_id(tx, deck_id, n).await?),
            None => None,
        };
        Ok(Texts {
            html: Some(html),
            notes: Some(notes),
        })
    }
}

/// Records a slide's state after `revision`: its place as `slides` holds it now, and its
/// `texts`, each carried over from its last recorded state where not given.
pub(crate) async fn record_slide(
    tx: &mut Tx,
    deck_id: i64,
    revision: i64,
    slide_id: &str,
    texts: Texts,
) -> Result<()> {
    // A text not set carries over from the slide's newest recorded state, read first: an
    // INSERT that reads the table it writes makes SQLite copy what it reads into a
    // temporary table (its own pager and page cache, opened and closed) before inserting.
    let (html, notes) = match texts {
        Texts {
            html: Some(html),
            notes: Some(notes),
        } => (Some(html), notes),
        _ => {
            let query = sqlx::query(
                "SELECT html_blob, notes_blob FROM slide_history
                 WHERE deck_id = $1 AND slide_id = $2 ORDER BY revision DESC LIMIT 1",
            )
            .bind(deck_id)
            .bind(slide_id);
            let newest = tx
                .optional(query, |r| Ok((r.opt_int(0)?, r.opt_int(1)?)))
                .await?;
            let (html, notes) = newest.unwrap_or((None, None));
            (texts.html.or(html), texts.notes.unwrap_or(notes))
        }
    };
    let Some(html) = html else {
        return Err(Error::internal(format!(
            "slide {slide_id} has no recorded state to carry into revision {revision}"
        )));
    };
    let query = sqlx::query(
        "INSERT INTO slide_history (deck_id, slide_id, revision, rank, group_id, html_blob,
            notes_blob)
         SELECT deck_id, id, $3, rank, group_id, $4, $5 FROM slides
         WHERE deck_id = $1 AND id = $2",
    )
    .bind(deck_id)
    .bind(slide_id)
    .bind(revision)
    .bind(html)
    .bind(notes);
    if tx.run(query).await? != 1 {
        return Err(Error::internal(format!("slide {slide_id} is missing")));
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
    tx.run(query).await?;
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
    tx.run(query).await?;
    insert_entry(tx, deck_id, at, entry).await
}

/// Records a revision's entry (the deck's revision already set, see
/// [`SqlStore::next_revision`]).
pub(crate) async fn insert_entry(
    tx: &mut Tx,
    deck_id: i64,
    at: i64,
    entry: Entry<'_>,
) -> Result<()> {
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
    tx.run(query).await?;
    Ok(())
}

impl SqlStore {
    /// Locks the owner's deck outside the trash for a recorded write, reads it and checks
    /// `ctx`'s precondition (412 with the current revision when it fails); `None` when there
    /// is no such deck (404 first: a precondition never reveals another's revision). On
    /// SQLite, whose writer holds the whole database, the read is the lock (one statement);
    /// PostgreSQL locks the row first ([`SqlStore::lock_deck`]), as a read in the locking
    /// statement would see the snapshot taken before it waited.
    pub(crate) async fn lock_deck_for_write(
        &self,
        tx: &mut Tx,
        owner_id: i64,
        deck_id: i64,
        ctx: &WriteContext,
    ) -> Result<Option<DeckRecord>> {
        if self.dialect.locks_rows() {
            match self.lock_deck(tx, deck_id, Some(owner_id)).await? {
                Some(d) if !d.trashed => {
                    Precondition::check(ctx.precondition.as_ref(), deck_id, d.revision)?
                }
                _ => return Ok(None),
            }
            return deck_in_tx(tx, owner_id, deck_id)
                .await?
                .map(Some)
                .ok_or_else(|| Error::internal("a locked deck is missing"));
        }
        let deck = deck_in_tx(tx, owner_id, deck_id)
            .await?
            .filter(|d| d.trashed_at.is_none());
        if let Some(d) = &deck {
            Precondition::check(ctx.precondition.as_ref(), deck_id, d.revision)?;
        }
        Ok(deck)
    }

    /// Starts a recorded write in one statement: moves the owner's deck outside the trash to
    /// its next revision and `updated_at` (which also locks its row for the rest of the
    /// transaction), then checks `ctx`'s precondition against the revision it had. Returns
    /// the new revision, or `None` when there is no such deck (404 first: a precondition
    /// never reveals another's revision). A write that then changes nothing must drop the
    /// transaction rather than commit it.
    /// With the revision comes the deck's slide order. SQLite reads it in the statement that
    /// reads the new revision back (the writer holds the database from `BEGIN IMMEDIATE`).
    /// PostgreSQL reads it in a statement of its own once the row is locked: a subquery of
    /// the locking statement would see the snapshot taken before it waited for a concurrent
    /// writer.
    pub(crate) async fn next_revision(
        &self,
        tx: &mut Tx,
        owner_id: i64,
        deck_id: i64,
        ctx: &WriteContext,
        at: i64,
        scope: &OrderScope,
    ) -> Result<Option<(i64, Slots)>> {
        // The slots the edit decides on: every slide, or one (`only`); none to read here
        // when the core knows the order (it is read afterwards if the revision differs).
        // An earlier write through this writer may know a newer order than the core's cache
        // (or the cache a newer one, read after another process wrote): the newer is used.
        let (only, known) = match scope {
            OrderScope::Whole(known) => (None, newest_order(tx, deck_id, known.clone())),
            OrderScope::Slide(id, _) => (Some(id.as_str()), None),
        };
        let read_here = !self.dialect.locks_rows() && known.is_none();
        let update = "UPDATE decks SET revision = revision + 1, updated_at = $1
             WHERE id = $2 AND owner_id = $3 AND trashed_at IS NULL";
        let found = if self.dialect.locks_rows() {
            // One statement: the row lock it takes is what orders concurrent writes.
            let sql = format!("{update} RETURNING revision");
            let query = sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(at)
                .bind(deck_id)
                .bind(owner_id);
            tx.optional(query, |r| Ok((r.int(0)?, String::new())))
                .await?
        } else if tx
            .run(sqlx::query(update).bind(at).bind(deck_id).bind(owner_id))
            .await?
            == 0
        {
            None
        } else {
            // SQLite: the writer holds the database, so reading the new revision after the
            // UPDATE is the same as RETURNING it, without the temporary table (its own pager
            // and page cache, opened and closed) SQLite builds for RETURNING's rows.
            let order = if read_here {
                let filter = if only.is_some() { " AND id = $2" } else { "" };
                format!(
                    "(SELECT {} FROM slides WHERE deck_id = $1{filter})",
                    crate::reads::packed(only.is_some())
                )
            } else {
                "''".to_string()
            };
            let sql = format!("SELECT revision, {order} FROM decks WHERE id = $1");
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(deck_id);
            if let Some(id) = only
                && read_here
            {
                query = query.bind(id);
            }
            tx.optional(query, |r| Ok((r.int(0)?, r.text(1)?))).await?
        };
        let Some((next, packed)) = found else {
            return Ok(None);
        };
        Precondition::check(ctx.precondition.as_ref(), deck_id, next - 1)?;
        // Where the UPDATE waited for the deck's row (PostgreSQL), the write before it has
        // committed its order meanwhile (and a write of this process leaves it here).
        let known = match scope {
            OrderScope::Whole(_) if self.dialect.locks_rows() => {
                match tx.committed_order(deck_id, next - 1).await {
                    Some(order) => Some(order),
                    None => newest_order(tx, deck_id, known),
                }
            }
            _ => known,
        };
        let slots = match known {
            Some(k) if k.revision == next - 1 => k.slots,
            _ if read_here => crate::rows::unpack_slots(&packed)?,
            _ => Slots::from(crate::reads::slots_of(tx, deck_id, only).await?),
        };
        Ok(Some((next, slots)))
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
            let Some(locked) = self.lock_deck(&mut tx, deck_id, None).await? else {
                continue;
            };
            let query = sqlx::query("SELECT 1 FROM deck_revisions WHERE deck_id = $1 LIMIT 1");
            if tx
                .optional(query.bind(deck_id), |_| Ok(()))
                .await?
                .is_some()
            {
                continue;
            }
            let revision = locked.revision;
            let Some(deck) = deck_in_tx(&mut tx, owner_id, deck_id).await? else {
                continue;
            };
            let slides = slides_in_tx(&mut tx, deck_id).await?;
            let mut ids = Vec::with_capacity(slides.len());
            for s in &slides {
                let texts = Texts::of(&mut tx, deck_id, &s.html, s.notes.as_deref()).await?;
                record_slide(&mut tx, deck_id, revision, &s.slot.id, texts).await?;
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
            tx.commit().await?;
            recorded += 1;
        }
        Ok(recorded)
    }
}

/// A deck's slides in order with their content, inside a transaction.
pub(crate) async fn slides_in_tx(tx: &mut Tx, deck_id: i64) -> Result<Vec<SlideHtmlRecord>> {
    let query = sqlx::query(
        "SELECT id, rank, group_id, html, notes FROM slides WHERE deck_id = $1 ORDER BY rank",
    );
    tx.all(query.bind(deck_id), |r| {
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

/// The newer of the order an earlier write through this writer left for `deck_id` and the
/// order the core `known`s (either may be ahead: the cache after another process wrote, the
/// writer before the cache is filled).
pub(crate) fn newest_order(tx: &Tx, deck_id: i64, known: Option<KnownOrder>) -> Option<KnownOrder> {
    match (tx.left_order(deck_id), known) {
        (Some(b), Some(k)) if k.revision > b.revision => Some(k),
        (b, k) => b.or(k),
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
