//! Decks: listing an owner's decks, creating one (with its slides and a free slug),
//! reading, patching, the trash; and locking an owner's active deck for the other
//! resources' write transactions.

use async_trait::async_trait;
use lectern_core::auth::Author;
use lectern_core::deck::{DeckPatch, numbered_slug};
use lectern_core::params::Paging;
use lectern_core::revision::{DeckSettings, Operation, WriteContext};
use lectern_core::store::{DeckListKind, DeckListRecord, DeckRecord, DeckStore, NewDeckRecord};
use lectern_core::time::Timestamp;
use lectern_core::{Error, Result};

use crate::history::{Entry, Likely, Texts, insert_entry, record_revision, record_slide};
use crate::rows::{Columns, DECK_SELECT, deck_row};
use crate::slides::insert_slide;
use crate::{SqlStore, Tx, all, fault, optional, time};

impl SqlStore {
    /// Whether the owner's deck exists outside the trash, locking its row for the rest of
    /// the transaction ([`crate::Dialect::row_lock`]).
    pub(crate) async fn lock_active_deck(
        &self,
        tx: &mut Tx,
        owner_id: i64,
        deck_id: i64,
    ) -> Result<bool> {
        Ok(self
            .lock_active_revision(tx, owner_id, deck_id)
            .await?
            .is_some())
    }
}

/// Whether the owner has a deck with `slug` (one look-up in the unique index).
async fn slug_taken(tx: &mut Tx, owner_id: i64, slug: &str) -> Result<bool> {
    let query = sqlx::query("SELECT 1 FROM decks WHERE owner_id = $1 AND slug = $2");
    Ok(tx
        .optional(query.bind(owner_id).bind(slug), |_| Ok(()))
        .await?
        .is_some())
}

/// The slug a new deck of the owner gets ([`numbered_slug`]'s rule): `base` when free, else
/// the next number from the owner's counter for `base`, skipping slugs already taken.
async fn free_slug(tx: &mut Tx, owner_id: i64, base: &str) -> Result<String> {
    if !slug_taken(tx, owner_id, base).await? {
        return Ok(base.to_string());
    }
    loop {
        let n: i64 = tx
            .scalar(
                sqlx::query(
                    "INSERT INTO slug_counters (owner_id, base, next) VALUES ($1, $2, 3)
             ON CONFLICT (owner_id, base) DO UPDATE SET next = slug_counters.next + 1
             RETURNING next - 1",
                )
                .bind(owner_id)
                .bind(base),
            )
            .await
            .map_err(fault)?;
        let slug = numbered_slug(base, n);
        if !slug_taken(tx, owner_id, &slug).await? {
            return Ok(slug);
        }
    }
}

/// Writes every setting of a deck.
pub(crate) async fn write_settings(tx: &mut Tx, deck_id: i64, s: &DeckSettings) -> Result<()> {
    let query = sqlx::query(
        "UPDATE decks SET title = $1, description = $2, visibility = $3, css = $4, width = $5,
            height = $6, margin = $7, transition = $8, background_transition = $9, rtl = $10,
            loop_enabled = $11, theme_font = $12, theme_color = $13, language = $14
         WHERE id = $15",
    )
    .bind(&s.title)
    .bind(&s.description)
    .bind(s.visibility.as_str())
    .bind(&s.css)
    .bind(s.width)
    .bind(s.height)
    .bind(s.margin)
    .bind(s.transition.as_str())
    .bind(s.background_transition.as_str())
    .bind(s.rtl)
    .bind(s.loop_)
    .bind(s.theme_font.as_str())
    .bind(s.theme_color.as_str())
    .bind(&s.language)
    .bind(deck_id);
    tx.run(query).await?;
    Ok(())
}

/// The owner's deck, read inside a transaction.
pub(crate) async fn deck_in_tx(
    tx: &mut Tx,
    owner_id: i64,
    deck_id: i64,
) -> Result<Option<DeckRecord>> {
    let sql = sqlx::AssertSqlSafe(format!("{DECK_SELECT} WHERE d.id = $1 AND d.owner_id = $2"));
    tx.optional(sqlx::query(sql).bind(deck_id).bind(owner_id), deck_row)
        .await
}

#[async_trait]
impl DeckStore for SqlStore {
    async fn list_decks(
        &self,
        owner_id: i64,
        kind: DeckListKind,
        paging: Paging,
    ) -> Result<(Vec<DeckListRecord>, i64)> {
        let (filter, order) = match kind {
            DeckListKind::Active => ("trashed_at IS NULL", "created_at DESC, id DESC"),
            DeckListKind::Trashed => ("trashed_at IS NOT NULL", "trashed_at DESC, id DESC"),
            DeckListKind::Public => (
                "trashed_at IS NULL AND visibility = 'all'",
                "created_at DESC, id DESC",
            ),
        };
        let sql = sqlx::AssertSqlSafe(format!(
            "SELECT id, title, description, slug, trashed_at, thumbnail_token, revision FROM decks
             WHERE owner_id = $1 AND {filter} ORDER BY {order} LIMIT $2 OFFSET $3"
        ));
        let query = sqlx::query(sql)
            .bind(owner_id)
            .bind(paging.limit())
            .bind(paging.offset());
        let decks = all(&self.read, query, |r| {
            Ok(DeckListRecord {
                id: r.int(0)?,
                title: r.text(1)?,
                description: r.text(2)?,
                slug: r.text(3)?,
                trashed_at: r.opt_int(4)?.map(time),
                thumbnail_token: r.opt_text(5)?,
                revision: r.int(6)?,
            })
        })
        .await?;
        let count_sql = sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM decks WHERE owner_id = $1 AND {filter}"
        ));
        let total = sqlx::query_scalar(count_sql)
            .bind(owner_id)
            .fetch_one(&self.read)
            .await
            .map_err(fault)?;
        Ok((decks, total))
    }

    async fn create_deck(&self, deck: NewDeckRecord, author: &Author) -> Result<DeckRecord> {
        let mut tx = self.begin_write().await?;
        if self.dialect.locks_rows() {
            // Serialises this owner's deck creations: the slug picked below stays free.
            let lock = sqlx::query("SELECT id FROM users WHERE id = $1 FOR UPDATE");
            tx.run(lock.bind(deck.owner_id)).await?;
        }
        let slug = free_slug(&mut tx, deck.owner_id, &deck.slug_base).await?;
        let at = deck.created_at.unix_micros();
        let deck_id = tx.inserted_id(sqlx::query(
            "INSERT INTO decks (owner_id, title, description, slug, visibility, width, height,
                margin, transition, background_transition, theme_font, theme_color, language,
                created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id",
        )
        .bind(deck.owner_id)
        .bind(&deck.title)
        .bind(&deck.description)
        .bind(&slug)
        .bind(deck.visibility.as_str())
        .bind(deck.width)
        .bind(deck.height)
        .bind(deck.margin)
        .bind(deck.transition.as_str())
        .bind(deck.background_transition.as_str())
        .bind(deck.theme_font.as_str())
        .bind(deck.theme_color.as_str())
        .bind(&deck.language)
        .bind(at)
        .bind(at))
        .await
        .map_err(fault)?
        .ok_or_else(|| Error::internal("a new deck's row was not inserted"))?;
        let mut ids = Vec::with_capacity(deck.slides.len());
        for slide in &deck.slides {
            insert_slide(&mut tx, deck_id, slide, at).await?;
            let c = &slide.content;
            let texts =
                Texts::of(&mut tx, deck_id, &c.html, c.notes.as_deref(), Likely::New).await?;
            record_slide(&mut tx, deck_id, 1, &slide.slot.id, texts).await?;
            ids.push(slide.slot.id.clone());
        }
        let record = deck_in_tx(&mut tx, deck.owner_id, deck_id)
            .await?
            .ok_or_else(|| Error::internal("a deck inserted in this transaction is missing"))?;
        let entry = Entry {
            revision: record.revision,
            operation: Operation::CreateDeck,
            slide_ids: &ids,
            restored: None,
            author,
            settings: Some(&DeckSettings::of(&record)),
        };
        // The deck row is at revision 1 (the column's default) since `at` already: only the
        // revision's entry is written.
        insert_entry(&mut tx, deck_id, at, entry).await?;
        tx.commit().await?;
        Ok(record)
    }

    async fn get_deck(&self, owner_id: i64, deck_id: i64) -> Result<Option<DeckRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{DECK_SELECT} WHERE d.id = $1 AND d.owner_id = $2"));
        optional(
            &self.read,
            sqlx::query(sql).bind(deck_id).bind(owner_id),
            deck_row,
        )
        .await
    }

    async fn find_deck_by_slug(&self, username: &str, slug: &str) -> Result<Option<DeckRecord>> {
        let sql = sqlx::AssertSqlSafe(format!(
            "{DECK_SELECT} WHERE u.username = $1 AND d.slug = $2"
        ));
        optional(
            &self.read,
            sqlx::query(sql).bind(username).bind(slug),
            deck_row,
        )
        .await
    }

    async fn find_deck(&self, deck_id: i64) -> Result<Option<DeckRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{DECK_SELECT} WHERE d.id = $1"));
        optional(&self.read, sqlx::query(sql).bind(deck_id), deck_row).await
    }

    async fn update_deck(
        &self,
        owner_id: i64,
        deck_id: i64,
        patch: &DeckPatch,
        now: Timestamp,
        ctx: &WriteContext,
    ) -> Result<Option<DeckRecord>> {
        let mut tx = self.begin_write().await?;
        let Some(mut deck) = self
            .lock_deck_for_write(&mut tx, owner_id, deck_id, ctx)
            .await?
        else {
            return Ok(None);
        };
        let settings = DeckSettings::of(&deck);
        let after = settings.patched(patch);
        if after == settings {
            // Nothing changes: no write, no revision.
            return Ok(Some(deck));
        }
        let revision = deck.revision + 1;
        // The settings, the revision and `updated_at` in one statement.
        let query = sqlx::query(
            "UPDATE decks SET title = $1, description = $2, width = $3, height = $4,
                margin = $5, theme_color = $6, theme_font = $7, visibility = $8,
                updated_at = $9, revision = $10
             WHERE id = $11",
        )
        .bind(&after.title)
        .bind(&after.description)
        .bind(after.width)
        .bind(after.height)
        .bind(after.margin)
        .bind(after.theme_color.as_str())
        .bind(after.theme_font.as_str())
        .bind(after.visibility.as_str())
        .bind(now.unix_micros())
        .bind(revision)
        .bind(deck_id);
        tx.run(query).await?;
        let entry = Entry {
            revision,
            operation: Operation::UpdateDeck,
            slide_ids: &[],
            restored: None,
            author: &ctx.author,
            settings: Some(&after),
        };
        insert_entry(&mut tx, deck_id, now.unix_micros(), entry).await?;
        tx.commit().await?;
        // The deck as a read would find it now, without reading it again.
        after.apply_to(&mut deck);
        deck.revision = revision;
        deck.updated_at = Timestamp::from_unix_micros(now.unix_micros());
        Ok(Some(deck))
    }

    async fn set_deck_trashed(
        &self,
        owner_id: i64,
        deck_id: i64,
        trashed_at: Option<Timestamp>,
        author: &Author,
    ) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let sql = format!(
            "SELECT revision, trashed_at FROM decks WHERE id = $1 AND owner_id = $2{}",
            self.dialect.row_lock(" FOR UPDATE")
        );
        let query = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(deck_id)
            .bind(owner_id);
        let Some((current, trashed)) = tx
            .optional(query, |r| Ok((r.int(0)?, r.opt_int(1)?)))
            .await?
        else {
            return Ok(false);
        };
        if trashed.is_some() == trashed_at.is_some() {
            // Already where it was asked to go: no change, no revision.
            return Ok(true);
        }
        let query = sqlx::query("UPDATE decks SET trashed_at = $1 WHERE id = $2")
            .bind(trashed_at.map(|t| t.unix_micros()))
            .bind(deck_id);
        tx.run(query).await?;
        let entry = Entry {
            revision: current + 1,
            operation: if trashed_at.is_some() {
                Operation::TrashDeck
            } else {
                Operation::RecoverDeck
            },
            slide_ids: &[],
            restored: None,
            author,
            settings: None,
        };
        let at = trashed_at.unwrap_or_else(Timestamp::now).unix_micros();
        record_revision(&mut tx, deck_id, at, entry).await?;
        tx.commit().await?;
        Ok(true)
    }
}
