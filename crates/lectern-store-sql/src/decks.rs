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

use crate::history::{Entry, Texts, insert_entry, record_revision, record_slide};
use crate::rows::{Columns, DECK_SELECT, deck_row};
use crate::slides::insert_slide;
use crate::{SqlStore, Tx, all, fault, optional, time};

/// A deck as [`SqlStore::lock_deck`] found it.
pub(crate) struct LockedDeck {
    pub revision: i64,
    pub trashed: bool,
}

impl SqlStore {
    /// Locks deck `deck_id` for the rest of the transaction and reads its revision and
    /// whether it is in the trash; `None` when there is no such deck (of `owner_id`, when
    /// given). PostgreSQL locks the deck's row (`FOR UPDATE`); SQLite's writer already holds
    /// the whole database. Every write to a deck takes this lock first, but the recorded
    /// slide writes, which take it with their new revision ([`SqlStore::next_revision`]).
    pub(crate) async fn lock_deck(
        &self,
        tx: &mut Tx,
        deck_id: i64,
        owner_id: Option<i64>,
    ) -> Result<Option<LockedDeck>> {
        let sql = format!(
            "SELECT revision, trashed_at FROM decks WHERE id = $1 AND owner_id = COALESCE($2, owner_id){}",
            self.dialect.row_lock(" FOR UPDATE")
        );
        let query = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(deck_id)
            .bind(owner_id);
        tx.optional(query, |r| {
            Ok(LockedDeck {
                revision: r.int(0)?,
                trashed: r.opt_int(1)?.is_some(),
            })
        })
        .await
    }

    /// Whether the owner's deck exists outside the trash, locked ([`SqlStore::lock_deck`]).
    pub(crate) async fn lock_active_deck(
        &self,
        tx: &mut Tx,
        owner_id: i64,
        deck_id: i64,
    ) -> Result<bool> {
        let deck = self.lock_deck(tx, deck_id, Some(owner_id)).await?;
        Ok(deck.is_some_and(|d| !d.trashed))
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

/// What a new deck needs of its owner, read in one statement: the names and team its
/// record carries, whether `base` is taken as a slug, and the owner's counter for `base`.
struct NewDeckOwner {
    username: String,
    name: String,
    team_id: Option<i64>,
    base_taken: bool,
    counter: Option<i64>,
}

/// The owner's [`NewDeckOwner`] for a deck whose slug would be `base`. On PostgreSQL the
/// owner's row stays locked to the end of the transaction: the owner's deck creations take
/// turns, so the slug picked here stays free and the counter is written by one at a time.
async fn new_deck_owner(
    tx: &mut Tx,
    locks_rows: bool,
    owner_id: i64,
    base: &str,
) -> Result<Option<NewDeckOwner>> {
    if locks_rows {
        // A statement of its own: a statement that waited for the lock would see the other
        // creations' slugs and counters as they were when it started, not as committed.
        let lock = sqlx::query("SELECT id FROM users WHERE id = $1 FOR UPDATE");
        tx.run(lock.bind(owner_id)).await?;
    }
    let sql = "SELECT u.username, u.name, u.team_id,
            EXISTS (SELECT 1 FROM decks d WHERE d.owner_id = u.id AND d.slug = $2),
            (SELECT c.next FROM slug_counters c WHERE c.owner_id = u.id AND c.base = $2)
         FROM users u WHERE u.id = $1";
    tx.optional(sqlx::query(sql).bind(owner_id).bind(base), |r| {
        Ok(NewDeckOwner {
            username: r.text(0)?,
            name: r.text(1)?,
            team_id: r.opt_int(2)?,
            base_taken: r.boolean(3)?,
            counter: r.opt_int(4)?,
        })
    })
    .await
}

/// The slug a new deck of the owner gets ([`numbered_slug`]'s rule): `base` when free, else
/// the next number from the owner's counter for `base` (2 at first), skipping slugs already
/// taken; the counter moves past the number used.
async fn free_slug(tx: &mut Tx, owner_id: i64, base: &str, owner: &NewDeckOwner) -> Result<String> {
    if !owner.base_taken {
        return Ok(base.to_string());
    }
    let mut n = owner.counter.unwrap_or(2);
    let slug = loop {
        let slug = numbered_slug(base, n);
        if !slug_taken(tx, owner_id, &slug).await? {
            break slug;
        }
        n += 1;
    };
    let counter = sqlx::query(
        "INSERT INTO slug_counters (owner_id, base, next) VALUES ($1, $2, $3)
         ON CONFLICT (owner_id, base) DO UPDATE SET next = excluded.next",
    );
    tx.run(counter.bind(owner_id).bind(base).bind(n + 1))
        .await?;
    Ok(slug)
}

/// Inserts a new deck's row as `d` has it (every column but the id, which it returns).
async fn insert_deck_row(tx: &mut Tx, d: &DeckRecord) -> Result<i64> {
    let query = sqlx::query(
        "INSERT INTO decks (owner_id, title, description, slug, visibility, css, look,
            created_at, updated_at, trashed_at, thumbnail_token, revision, slide_count)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id",
    )
    .bind(d.owner_id)
    .bind(&d.title)
    .bind(&d.description)
    .bind(&d.slug)
    .bind(d.visibility.as_str())
    .bind(&d.css)
    .bind(d.look.to_json())
    .bind(d.created_at.unix_micros())
    .bind(d.updated_at.unix_micros())
    .bind(d.trashed_at.map(|t| t.unix_micros()))
    .bind(&d.thumbnail_token)
    .bind(d.revision)
    .bind(d.slide_count);
    tx.inserted_id(query)
        .await
        .map_err(fault)?
        .ok_or_else(|| Error::internal("a new deck's row was not inserted"))
}

/// Writes every setting of a deck.
pub(crate) async fn write_settings(tx: &mut Tx, deck_id: i64, s: &DeckSettings) -> Result<()> {
    let query = sqlx::query(
        "UPDATE decks SET title = $1, description = $2, visibility = $3, css = $4, look = $5
         WHERE id = $6",
    )
    .bind(&s.title)
    .bind(&s.description)
    .bind(s.visibility.as_str())
    .bind(&s.css)
    .bind(s.look.to_json())
    .bind(deck_id);
    tx.run(query).await?;
    Ok(())
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
        let owner = new_deck_owner(
            &mut tx,
            self.dialect.locks_rows(),
            deck.owner_id,
            &deck.slug_base,
        )
        .await?
        .ok_or_else(|| Error::internal("a new deck's owner is missing"))?;
        let slug = free_slug(&mut tx, deck.owner_id, &deck.slug_base, &owner).await?;
        let at = deck.created_at.unix_micros();
        // The record is what the row is written from: nothing is read back.
        let mut record = DeckRecord {
            id: 0,
            owner_id: deck.owner_id,
            owner_username: owner.username,
            title: deck.title,
            description: deck.description,
            slug,
            visibility: deck.visibility,
            css: deck.css,
            look: deck.look,
            created_at: time(at),
            updated_at: time(at),
            trashed_at: None,
            slide_count: deck.slides.len() as i64,
            owner_name: owner.name,
            owner_team_id: owner.team_id,
            thumbnail_token: None,
            revision: 1,
        };
        record.id = insert_deck_row(&mut tx, &record).await?;
        let deck_id = record.id;
        let mut ids = Vec::with_capacity(deck.slides.len());
        for slide in &deck.slides {
            insert_slide(&mut tx, deck_id, slide, at).await?;
            let c = &slide.content;
            let texts = Texts::of(&mut tx, deck_id, &c.html, c.notes.as_deref()).await?;
            record_slide(&mut tx, deck_id, 1, &slide.slot.id, texts).await?;
            ids.push(slide.slot.id.clone());
        }
        let entry = Entry {
            revision: record.revision,
            operation: Operation::CreateDeck,
            slide_ids: &ids,
            restored: None,
            author,
            settings: Some(&DeckSettings::of(&record)),
        };
        // The deck row is at revision 1 since `at` already: only the revision's entry is
        // written.
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
            "UPDATE decks SET title = $1, description = $2, look = $3, visibility = $4,
                updated_at = $5, revision = $6
             WHERE id = $7",
        )
        .bind(&after.title)
        .bind(&after.description)
        .bind(after.look.to_json())
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
        let Some(LockedDeck {
            revision: current,
            trashed,
        }) = self.lock_deck(&mut tx, deck_id, Some(owner_id)).await?
        else {
            return Ok(false);
        };
        if trashed == trashed_at.is_some() {
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
