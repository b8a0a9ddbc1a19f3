//! The SQLite backend of [`lectern_core::store::Store`]: the embedded default. One database
//! file in WAL mode with foreign keys on; a pool of reader connections and a single writer
//! connection whose transactions start with `BEGIN IMMEDIATE`, so writes never fail on a
//! read-to-write upgrade and other processes (admin commands) wait on `busy_timeout`.

use std::collections::HashSet;
use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use lectern_core::deck::{DeckPatch, ThemeColor, ThemeFont, Visibility, unique_slug};
use lectern_core::layout::SlideSlot;
use lectern_core::params::Paging;
use lectern_core::store::dump::{Cell, Kind, Row as DumpRow, TableSpec};
use lectern_core::store::{
    AccessTokenRecord, AccountStore, ApiKeyInfo, ApiKeyRecord, CodeCheckFn, CodeRecord,
    DeckListKind, DeckListRecord, DeckRecord, DeckSearchRecord, DeckStore, DumpStore, Exchanged,
    ExportRecord, ExportStore, GrantRecord, KeyStore, LoginRecord, NewApiKeyRecord, NewDeckRecord,
    NewOAuthClientRecord, NewShareRecord, NewSlideRecord, NewTokenRecord, NewUserRecord,
    OAuthClientRecord, OAuthStore, RefreshCheckFn, Rotated, ServerStore, SessionInfo,
    SessionRecord, ShareAccess, ShareRecord, ShareStore, SlideEdit, SlideEditFn, SlideHtmlRecord,
    SlideRecord, SlideStore, SlideSummaryRecord, TeamDeckListRecord, TeamRecord, TeamStore,
    UserRecord,
};
use lectern_core::time::Timestamp;
use lectern_core::{Error, Result};
use lectern_store_sql::{
    Columns, DECK_SELECT, EXPORT_SELECT, SHARE_SELECT, TEAM_DECK_SELECT, TEAM_SELECT, USER_SELECT,
    deck_row, export_row, fault, is_unique_violation, like_pattern, share_row, team_deck_row,
    team_row, unpack_slots, user_row,
};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{Connection, Row, Sqlite, SqliteConnection, Transaction};

/// How long a connection waits for another process's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Reader connections in the pool.
const READERS: u32 = 8;

/// The SQLite store.
#[derive(Clone)]
pub struct SqliteStore {
    /// Reads: many connections, concurrent under WAL.
    read: SqlitePool,
    /// Writes: one connection, so this process's writers queue here instead of on the lock.
    write: SqlitePool,
    /// How to open one more connection (the change watcher's).
    options: SqliteConnectOptions,
}

impl SqliteStore {
    /// Opens (creating when missing) the database at `url` (`sqlite://path` or
    /// `sqlite:path`) and applies the migrations.
    pub async fn open(url: &str) -> Result<Self> {
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|e| Error::invalid(format!("bad SQLite database URL: {e}")))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: a transaction that was answered as committed survives power loss too.
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let write = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await
            .map_err(fault)?;
        sqlx::migrate!("./migrations")
            .run(&write)
            .await
            .map_err(|e| Error::internal(format!("migrating the SQLite database failed: {e}")))?;
        let read = SqlitePoolOptions::new()
            .max_connections(READERS)
            .connect_with(options.clone())
            .await
            .map_err(fault)?;
        Ok(SqliteStore {
            read,
            write,
            options,
        })
    }

    /// Calls `on_change` whenever any connection (this process's writer or another process)
    /// has committed since the last poll, checked every `every` with `PRAGMA data_version`
    /// on a connection of its own. Caches use it to notice writes made elsewhere.
    pub async fn watch_changes(
        &self,
        every: Duration,
        on_change: impl Fn() + Send + 'static,
    ) -> Result<tokio::task::JoinHandle<()>> {
        let mut conn = SqliteConnection::connect_with(&self.options)
            .await
            .map_err(fault)?;
        let mut last: i64 = sqlx::query_scalar("PRAGMA data_version")
            .fetch_one(&mut conn)
            .await
            .map_err(fault)?;
        Ok(tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                match sqlx::query_scalar::<_, i64>("PRAGMA data_version")
                    .fetch_one(&mut conn)
                    .await
                {
                    Ok(v) if v != last => {
                        last = v;
                        on_change();
                    }
                    Ok(_) => {}
                    Err(e) => {
                        // Without the watcher, caches could go stale: report every change.
                        tracing::warn!(error = %e, "data_version poll failed");
                        on_change();
                    }
                }
            }
        }))
    }

    /// Closes both pools, waiting for connections to finish.
    pub async fn close(&self) {
        self.read.close().await;
        self.write.close().await;
    }

    async fn begin_write(&self) -> Result<Transaction<'static, Sqlite>> {
        self.write
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(fault)
    }
}

/// A deck's slide order, on any executor (pool or transaction). The order comes back as one
/// aggregated text value (`id,rank,group;...`): one row instead of one per slide, which is
/// what makes reading a 10,000-slide order cheap.
async fn slots_in<'e, E>(executor: E, deck_id: i64) -> Result<Vec<SlideSlot>>
where
    E: sqlx::Executor<'e, Database = Sqlite>,
{
    let packed: String = sqlx::query_scalar(
        "SELECT COALESCE(group_concat(id || ',' || rank || ',' || COALESCE(group_id, ''), ';'
            ORDER BY rank), '') FROM slides WHERE deck_id = ?",
    )
    .bind(deck_id)
    .fetch_one(executor)
    .await
    .map_err(fault)?;
    unpack_slots(&packed)
}

async fn insert_slide(
    tx: &mut Transaction<'static, Sqlite>,
    deck_id: i64,
    slide: &NewSlideRecord,
    at: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO slides (id, deck_id, rank, group_id, html, notes, title, text_preview,
            html_bytes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    .bind(at)
    .execute(&mut **tx)
    .await
    .map_err(fault)?;
    Ok(())
}

/// Reads one cell of a dumped row.
fn decode_cell(row: &SqliteRow, i: usize, kind: Kind) -> Result<Cell> {
    Ok(match kind {
        Kind::Int | Kind::Bool => row
            .try_get::<Option<i64>, _>(i)
            .map_err(fault)?
            .map_or(Cell::Null, Cell::Int),
        Kind::Real => row
            .try_get::<Option<f64>, _>(i)
            .map_err(fault)?
            .map_or(Cell::Null, Cell::Real),
        Kind::Text => row
            .try_get::<Option<String>, _>(i)
            .map_err(fault)?
            .map_or(Cell::Null, Cell::Text),
    })
}

type DumpQuery<'q> = sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments>;

/// Binds one cell of a dumped row, typed by its column.
fn bind_cell<'q>(query: DumpQuery<'q>, cell: &Cell, kind: Kind) -> DumpQuery<'q> {
    match (cell, kind) {
        (Cell::Int(i), _) => query.bind(*i),
        (Cell::Real(r), _) => query.bind(*r),
        (Cell::Text(t), _) => query.bind(t.clone()),
        (Cell::Null, Kind::Text) => query.bind(None::<String>),
        (Cell::Null, Kind::Real) => query.bind(None::<f64>),
        (Cell::Null, Kind::Int | Kind::Bool) => query.bind(None::<i64>),
    }
}

/// Stores one token of a grant.
async fn insert_token(
    tx: &mut Transaction<'static, Sqlite>,
    grant_id: i64,
    token: &NewTokenRecord,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO oauth_tokens (token_hash, grant_id, kind, created_at, expires_at, scope)
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(&token.token_hash)
    .bind(grant_id)
    .bind(token.kind)
    .bind(token.created_at.unix_micros())
    .bind(token.expires_at.unix_micros())
    .bind(token.scope.as_deref())
    .execute(&mut **tx)
    .await
    .map_err(fault)?;
    Ok(())
}

/// Revokes a grant and all its tokens.
async fn revoke_grant_in(
    tx: &mut Transaction<'static, Sqlite>,
    grant_id: i64,
    at: Timestamp,
) -> Result<()> {
    sqlx::query("UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
        .bind(at.unix_micros())
        .bind(grant_id)
        .execute(&mut **tx)
        .await
        .map_err(fault)?;
    sqlx::query("UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL")
        .bind(at.unix_micros())
        .bind(grant_id)
        .execute(&mut **tx)
        .await
        .map_err(fault)?;
    Ok(())
}

/// Whether the owner's deck exists outside the trash, locking its row for the rest of the
/// transaction (SQLite: the write transaction already holds the database lock).
async fn lock_active_deck(
    tx: &mut Transaction<'static, Sqlite>,
    owner_id: i64,
    deck_id: i64,
) -> Result<bool> {
    let active: Option<i64> = sqlx::query_scalar(
        "SELECT id FROM decks WHERE id = ? AND owner_id = ? AND trashed_at IS NULL",
    )
    .bind(deck_id)
    .bind(owner_id)
    .fetch_optional(&mut **tx)
    .await
    .map_err(fault)?;
    Ok(active.is_some())
}

async fn deck_in_tx(
    tx: &mut Transaction<'static, Sqlite>,
    owner_id: i64,
    deck_id: i64,
) -> Result<Option<DeckRecord>> {
    let sql = sqlx::AssertSqlSafe(format!("{DECK_SELECT} WHERE d.id = ? AND d.owner_id = ?"));
    sqlx::query(sql)
        .bind(deck_id)
        .bind(owner_id)
        .fetch_optional(&mut **tx)
        .await
        .map_err(fault)?
        .as_ref()
        .map(deck_row)
        .transpose()
}

#[async_trait]
impl ServerStore for SqliteStore {
    async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1")
            .execute(&self.read)
            .await
            .map_err(fault)?;
        Ok(())
    }
}

#[async_trait]
impl AccountStore for SqliteStore {
    async fn count_users(&self) -> Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM users")
            .fetch_one(&self.read)
            .await
            .map_err(fault)
    }

    async fn create_user(&self, user: NewUserRecord) -> Result<i64> {
        let at = user.created_at.unix_micros();
        let result = sqlx::query_scalar(
            "INSERT INTO users (username, email, name, password_hash, team_id, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .bind(&user.username)
        .bind(&user.email)
        .bind(&user.name)
        .bind(&user.password_hash)
        .bind(user.team_id)
        .bind(at)
        .bind(at)
        .fetch_one(&self.write)
        .await;
        match result {
            Ok(id) => Ok(id),
            Err(e) if is_unique_violation(&e) => Err(Error::invalid(format!(
                "the username {:?} is already taken",
                user.username
            ))),
            Err(e) => Err(fault(e)),
        }
    }

    async fn find_user_by_username(&self, username: &str) -> Result<Option<UserRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{USER_SELECT} WHERE username = ?"));
        sqlx::query(sql)
            .bind(username)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?
            .as_ref()
            .map(user_row)
            .transpose()
    }

    async fn get_user(&self, id: i64) -> Result<Option<UserRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{USER_SELECT} WHERE id = ?"));
        sqlx::query(sql)
            .bind(id)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?
            .as_ref()
            .map(user_row)
            .transpose()
    }

    async fn find_login(&self, username: &str) -> Result<Option<LoginRecord>> {
        let row = sqlx::query(
            "SELECT id, password_hash, failed_logins, last_failed_login_at FROM users
             WHERE username = ?",
        )
        .bind(username)
        .fetch_optional(&self.read)
        .await
        .map_err(fault)?;
        row.map(|r| {
            Ok(LoginRecord {
                user_id: r.int(0)?,
                password_hash: r.opt_text(1)?,
                failed_logins: r.int(2)?,
                last_failed_login_at: r.opt_int(3)?.map(Timestamp::from_unix_micros),
            })
        })
        .transpose()
    }

    async fn set_login_failure(&self, user_id: i64, at: Option<Timestamp>) -> Result<()> {
        let query = match at {
            Some(at) => sqlx::query(
                "UPDATE users SET failed_logins = failed_logins + 1, last_failed_login_at = ?
                 WHERE id = ?",
            )
            .bind(at.unix_micros()),
            None => sqlx::query(
                "UPDATE users SET failed_logins = 0, last_failed_login_at = NULL WHERE id = ?",
            ),
        };
        query
            .bind(user_id)
            .execute(&self.write)
            .await
            .map_err(fault)?;
        Ok(())
    }

    async fn create_session(&self, session: SessionRecord) -> Result<()> {
        sqlx::query(
            "INSERT INTO web_sessions (id_hash, user_id, csrf_token, created_at, expires_at)
             VALUES (?, ?, ?, ?, ?)",
        )
        .bind(&session.id_hash)
        .bind(session.user_id)
        .bind(&session.csrf_token)
        .bind(session.created_at.unix_micros())
        .bind(session.expires_at.unix_micros())
        .execute(&self.write)
        .await
        .map_err(fault)?;
        Ok(())
    }

    async fn find_session(&self, id_hash: &str, now: Timestamp) -> Result<Option<SessionInfo>> {
        let row = sqlx::query(
            "SELECT s.user_id, u.username, u.team_id, s.csrf_token, s.expires_at
             FROM web_sessions s JOIN users u ON u.id = s.user_id
             WHERE s.id_hash = ? AND s.expires_at > ?",
        )
        .bind(id_hash)
        .bind(now.unix_micros())
        .fetch_optional(&self.read)
        .await
        .map_err(fault)?;
        row.map(|r| {
            Ok(SessionInfo {
                user_id: r.int(0)?,
                username: r.text(1)?,
                team_id: r.opt_int(2)?,
                csrf_token: r.text(3)?,
                expires_at: Timestamp::from_unix_micros(r.int(4)?),
            })
        })
        .transpose()
    }

    async fn delete_session(&self, id_hash: &str) -> Result<()> {
        sqlx::query("DELETE FROM web_sessions WHERE id_hash = ?")
            .bind(id_hash)
            .execute(&self.write)
            .await
            .map_err(fault)?;
        Ok(())
    }
}

#[async_trait]
impl KeyStore for SqliteStore {
    async fn create_api_key(&self, key: NewApiKeyRecord) -> Result<i64> {
        sqlx::query_scalar(
            "INSERT INTO api_keys (user_id, label, lookup, key_hash, created_at)
             VALUES (?, ?, ?, ?, ?) RETURNING id",
        )
        .bind(key.user_id)
        .bind(&key.label)
        .bind(&key.lookup)
        .bind(&key.hash)
        .bind(key.created_at.unix_micros())
        .fetch_one(&self.write)
        .await
        .map_err(fault)
    }

    async fn find_api_key(&self, lookup: &str) -> Result<Option<ApiKeyRecord>> {
        let row = sqlx::query(
            "SELECT k.id, k.user_id, u.username, u.team_id, k.key_hash, k.last_used_at
             FROM api_keys k JOIN users u ON u.id = k.user_id
             WHERE k.lookup = ? AND k.revoked_at IS NULL",
        )
        .bind(lookup)
        .fetch_optional(&self.read)
        .await
        .map_err(fault)?;
        row.map(|row| {
            Ok(ApiKeyRecord {
                id: row.try_get(0).map_err(fault)?,
                user_id: row.try_get(1).map_err(fault)?,
                username: row.try_get(2).map_err(fault)?,
                team_id: row.try_get(3).map_err(fault)?,
                hash: row.try_get(4).map_err(fault)?,
                last_used_at: row
                    .try_get::<Option<i64>, _>(5)
                    .map_err(fault)?
                    .map(Timestamp::from_unix_micros),
            })
        })
        .transpose()
    }

    async fn touch_api_key(&self, key_id: i64, at: Timestamp) -> Result<()> {
        sqlx::query("UPDATE api_keys SET last_used_at = ? WHERE id = ?")
            .bind(at.unix_micros())
            .bind(key_id)
            .execute(&self.write)
            .await
            .map_err(fault)?;
        Ok(())
    }

    async fn list_api_keys(&self, user_id: i64) -> Result<Vec<ApiKeyInfo>> {
        let rows = sqlx::query(
            "SELECT id, label, lookup, created_at, last_used_at FROM api_keys
             WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC",
        )
        .bind(user_id)
        .fetch_all(&self.read)
        .await
        .map_err(fault)?;
        rows.iter()
            .map(|r| {
                Ok(ApiKeyInfo {
                    id: r.int(0)?,
                    label: r.text(1)?,
                    lookup: r.text(2)?,
                    created_at: Timestamp::from_unix_micros(r.int(3)?),
                    last_used_at: r.opt_int(4)?.map(Timestamp::from_unix_micros),
                })
            })
            .collect()
    }

    async fn revoke_api_key(&self, user_id: i64, key_id: i64, at: Timestamp) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
        )
        .bind(at.unix_micros())
        .bind(key_id)
        .bind(user_id)
        .execute(&self.write)
        .await
        .map_err(fault)?;
        Ok(done.rows_affected() > 0)
    }
}

#[async_trait]
impl DeckStore for SqliteStore {
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
            "SELECT id, title, description, slug, trashed_at, thumbnail_token FROM decks
             WHERE owner_id = ? AND {filter} ORDER BY {order} LIMIT ? OFFSET ?"
        ));
        let rows = sqlx::query(sql)
            .bind(owner_id)
            .bind(paging.limit())
            .bind(paging.offset())
            .fetch_all(&self.read)
            .await
            .map_err(fault)?;
        let count_sql = sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM decks WHERE owner_id = ? AND {filter}"
        ));
        let total = sqlx::query_scalar(count_sql)
            .bind(owner_id)
            .fetch_one(&self.read)
            .await
            .map_err(fault)?;
        let decks = rows
            .iter()
            .map(|row| {
                Ok(DeckListRecord {
                    id: row.try_get(0).map_err(fault)?,
                    title: row.try_get(1).map_err(fault)?,
                    description: row.try_get(2).map_err(fault)?,
                    slug: row.try_get(3).map_err(fault)?,
                    trashed_at: row
                        .try_get::<Option<i64>, _>(4)
                        .map_err(fault)?
                        .map(Timestamp::from_unix_micros),
                    thumbnail_token: row.try_get(5).map_err(fault)?,
                })
            })
            .collect::<Result<_>>()?;
        Ok((decks, total))
    }

    async fn create_deck(&self, deck: NewDeckRecord) -> Result<DeckRecord> {
        let mut tx = self.begin_write().await?;
        let taken: HashSet<String> = sqlx::query_scalar(
            "SELECT slug FROM decks WHERE owner_id = ? AND (slug = ? OR slug LIKE ?)",
        )
        .bind(deck.owner_id)
        .bind(&deck.slug_base)
        .bind(format!("{}-%", deck.slug_base))
        .fetch_all(&mut *tx)
        .await
        .map_err(fault)?
        .into_iter()
        .collect();
        let slug = unique_slug(&deck.slug_base, &taken);
        let at = deck.created_at.unix_micros();
        let deck_id: i64 = sqlx::query_scalar(
            "INSERT INTO decks (owner_id, title, description, slug, visibility, width, height,
                margin, transition, background_transition, theme_font, theme_color, language,
                created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
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
        .bind(at)
        .fetch_one(&mut *tx)
        .await
        .map_err(fault)?;
        for slide in &deck.slides {
            insert_slide(&mut tx, deck_id, slide, at).await?;
        }
        let record = deck_in_tx(&mut tx, deck.owner_id, deck_id)
            .await?
            .ok_or_else(|| Error::internal("a deck inserted in this transaction is missing"))?;
        tx.commit().await.map_err(fault)?;
        Ok(record)
    }

    async fn get_deck(&self, owner_id: i64, deck_id: i64) -> Result<Option<DeckRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{DECK_SELECT} WHERE d.id = ? AND d.owner_id = ?"));
        sqlx::query(sql)
            .bind(deck_id)
            .bind(owner_id)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?
            .as_ref()
            .map(deck_row)
            .transpose()
    }

    async fn find_deck_by_slug(&self, username: &str, slug: &str) -> Result<Option<DeckRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{DECK_SELECT} WHERE u.username = ? AND d.slug = ?"));
        sqlx::query(sql)
            .bind(username)
            .bind(slug)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?
            .as_ref()
            .map(deck_row)
            .transpose()
    }

    async fn find_deck(&self, deck_id: i64) -> Result<Option<DeckRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{DECK_SELECT} WHERE d.id = ?"));
        sqlx::query(sql)
            .bind(deck_id)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?
            .as_ref()
            .map(deck_row)
            .transpose()
    }

    async fn update_deck(
        &self,
        owner_id: i64,
        deck_id: i64,
        patch: &DeckPatch,
        now: Timestamp,
    ) -> Result<Option<DeckRecord>> {
        let mut tx = self.begin_write().await?;
        if !patch.is_empty() {
            sqlx::query(
                "UPDATE decks SET title = COALESCE(?, title),
                    description = COALESCE(?, description), width = COALESCE(?, width),
                    height = COALESCE(?, height), margin = COALESCE(?, margin),
                    theme_color = COALESCE(?, theme_color), theme_font = COALESCE(?, theme_font),
                    visibility = COALESCE(?, visibility), updated_at = ?
                 WHERE id = ? AND owner_id = ? AND trashed_at IS NULL",
            )
            .bind(&patch.title)
            .bind(&patch.description)
            .bind(patch.width)
            .bind(patch.height)
            .bind(patch.margin)
            .bind(patch.theme_color.map(ThemeColor::as_str))
            .bind(patch.theme_font.map(ThemeFont::as_str))
            .bind(patch.visibility.map(Visibility::as_str))
            .bind(now.unix_micros())
            .bind(deck_id)
            .bind(owner_id)
            .execute(&mut *tx)
            .await
            .map_err(fault)?;
        }
        let deck = deck_in_tx(&mut tx, owner_id, deck_id)
            .await?
            .filter(|d| d.trashed_at.is_none());
        tx.commit().await.map_err(fault)?;
        Ok(deck)
    }

    async fn set_deck_trashed(
        &self,
        owner_id: i64,
        deck_id: i64,
        trashed_at: Option<Timestamp>,
    ) -> Result<bool> {
        let result = match trashed_at {
            Some(at) => sqlx::query(
                "UPDATE decks SET trashed_at = COALESCE(trashed_at, ?) WHERE id = ? AND owner_id = ?",
            )
            .bind(at.unix_micros()),
            None => sqlx::query("UPDATE decks SET trashed_at = NULL WHERE id = ? AND owner_id = ?"),
        }
        .bind(deck_id)
        .bind(owner_id)
        .execute(&self.write)
        .await
        .map_err(fault)?;
        Ok(result.rows_affected() > 0)
    }
}

#[async_trait]
impl SlideStore for SqliteStore {
    async fn deck_slides_html(&self, deck_id: i64) -> Result<Vec<SlideHtmlRecord>> {
        let rows = sqlx::query(
            "SELECT id, rank, group_id, html, notes FROM slides WHERE deck_id = ? ORDER BY rank",
        )
        .bind(deck_id)
        .fetch_all(&self.read)
        .await
        .map_err(fault)?;
        rows.iter()
            .map(|row| {
                Ok(SlideHtmlRecord {
                    slot: SlideSlot {
                        id: row.try_get(0).map_err(fault)?,
                        rank: row.try_get(1).map_err(fault)?,
                        group: row.try_get(2).map_err(fault)?,
                    },
                    html: row.try_get(3).map_err(fault)?,
                    notes: row.try_get(4).map_err(fault)?,
                })
            })
            .collect()
    }

    async fn slide_slots(&self, deck_id: i64) -> Result<Vec<SlideSlot>> {
        slots_in(&self.read, deck_id).await
    }

    async fn slide_prefix(
        &self,
        deck_id: i64,
        n: usize,
    ) -> Result<(Vec<(SlideSlot, SlideSummaryRecord)>, i64)> {
        let rows = sqlx::query(
            "SELECT id, rank, group_id, title, text_preview, html_bytes,
                (notes IS NOT NULL AND notes <> '') AS has_notes
             FROM slides WHERE deck_id = ? ORDER BY rank LIMIT ?",
        )
        .bind(deck_id)
        .bind(n as i64)
        .fetch_all(&self.read)
        .await
        .map_err(fault)?;
        let total = sqlx::query_scalar("SELECT COUNT(*) FROM slides WHERE deck_id = ?")
            .bind(deck_id)
            .fetch_one(&self.read)
            .await
            .map_err(fault)?;
        let items = rows
            .iter()
            .map(|row| {
                let id: String = row.try_get(0).map_err(fault)?;
                Ok((
                    SlideSlot {
                        id: id.clone(),
                        rank: row.try_get(1).map_err(fault)?,
                        group: row.try_get(2).map_err(fault)?,
                    },
                    SlideSummaryRecord {
                        id,
                        title: row.try_get(3).map_err(fault)?,
                        text_preview: row.try_get(4).map_err(fault)?,
                        html_bytes: row.try_get(5).map_err(fault)?,
                        has_notes: row.try_get(6).map_err(fault)?,
                    },
                ))
            })
            .collect::<Result<_>>()?;
        Ok((items, total))
    }

    async fn get_slide(&self, deck_id: i64, slide_id: &str) -> Result<Option<SlideRecord>> {
        let row = sqlx::query("SELECT id, html, notes FROM slides WHERE deck_id = ? AND id = ?")
            .bind(deck_id)
            .bind(slide_id)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?;
        row.map(|row| {
            Ok(SlideRecord {
                id: row.try_get(0).map_err(fault)?,
                html: row.try_get(1).map_err(fault)?,
                notes: row.try_get(2).map_err(fault)?,
            })
        })
        .transpose()
    }

    async fn edit_slides(
        &self,
        owner_id: i64,
        deck_id: i64,
        now: Timestamp,
        edit: SlideEditFn,
    ) -> Result<Option<SlideEdit>> {
        let mut tx = self.begin_write().await?;
        if !lock_active_deck(&mut tx, owner_id, deck_id).await? {
            return Ok(None);
        }
        let slots = slots_in(&mut *tx, deck_id).await?;
        // An error here drops the transaction: nothing was written.
        let result = edit(&slots)?;
        let at = now.unix_micros();
        for id in &result.plan.delete {
            sqlx::query("DELETE FROM slides WHERE deck_id = ? AND id = ?")
                .bind(deck_id)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(fault)?;
        }
        // Two passes: a new rank may equal the old rank of another slide of the same move,
        // so every moved slide first takes a placeholder rank ('~' sorts after every key).
        for slot in &result.plan.reposition {
            sqlx::query("UPDATE slides SET rank = '~' || id WHERE deck_id = ? AND id = ?")
                .bind(deck_id)
                .bind(&slot.id)
                .execute(&mut *tx)
                .await
                .map_err(fault)?;
        }
        for slot in &result.plan.reposition {
            sqlx::query(
                "UPDATE slides SET rank = ?, group_id = ?, updated_at = ? WHERE deck_id = ? AND id = ?",
            )
            .bind(&slot.rank)
            .bind(slot.group)
            .bind(at)
            .bind(deck_id)
            .bind(&slot.id)
            .execute(&mut *tx)
            .await
            .map_err(fault)?;
        }
        for slide in &result.insert {
            insert_slide(&mut tx, deck_id, slide, at).await?;
        }
        if let Some(patch) = &result.content {
            let (html, title, preview) = match &patch.html {
                Some((h, t, p)) => (Some(h.as_str()), Some(t.as_str()), Some(p.as_str())),
                None => (None, None, None),
            };
            sqlx::query(
                "UPDATE slides SET html = COALESCE(?, html), title = COALESCE(?, title),
                    text_preview = COALESCE(?, text_preview),
                    html_bytes = COALESCE(?, html_bytes),
                    notes = CASE WHEN ? THEN ? ELSE notes END, updated_at = ?
                 WHERE deck_id = ? AND id = ?",
            )
            .bind(html)
            .bind(title)
            .bind(preview)
            .bind(html.map(|h| h.len() as i64))
            .bind(patch.notes.is_some())
            .bind(patch.notes.clone().flatten())
            .bind(at)
            .bind(deck_id)
            .bind(&patch.id)
            .execute(&mut *tx)
            .await
            .map_err(fault)?;
        }
        sqlx::query("UPDATE decks SET updated_at = ? WHERE id = ?")
            .bind(at)
            .bind(deck_id)
            .execute(&mut *tx)
            .await
            .map_err(fault)?;
        tx.commit().await.map_err(fault)?;
        Ok(Some(result))
    }
}

#[async_trait]
impl ShareStore for SqliteStore {
    async fn create_share(
        &self,
        owner_id: i64,
        deck_id: i64,
        share: NewShareRecord,
        max: i64,
    ) -> Result<Option<ShareRecord>> {
        let mut tx = self.begin_write().await?;
        if !lock_active_deck(&mut tx, owner_id, deck_id).await? {
            return Ok(None);
        }
        let live: i64 = sqlx::query_scalar(
            // Links that still work hold places; revoked and expired ones do not.
            "SELECT COUNT(*) FROM share_links WHERE deck_id = ? AND revoked_at IS NULL
               AND (expires_at IS NULL OR expires_at > ?)",
        )
        .bind(deck_id)
        .bind(share.created_at.unix_micros())
        .fetch_one(&mut *tx)
        .await
        .map_err(fault)?;
        if live >= max {
            return Err(Error::invalid(format!(
                "a deck has at most {max} share links; revoke one first"
            )));
        }
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO share_links (deck_id, name, token, token_hash, password_hash, expires_at,
                notify_on_view, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .bind(deck_id)
        .bind(&share.name)
        .bind(&share.token)
        .bind(&share.token_hash)
        .bind(&share.password_hash)
        .bind(share.expires_at.map(Timestamp::unix_micros))
        .bind(share.notify_on_view)
        .bind(share.created_at.unix_micros())
        .fetch_one(&mut *tx)
        .await
        .map_err(fault)?;
        let sql = sqlx::AssertSqlSafe(format!("{SHARE_SELECT} WHERE id = ?"));
        let row = sqlx::query(sql)
            .bind(id)
            .fetch_one(&mut *tx)
            .await
            .map_err(fault)?;
        tx.commit().await.map_err(fault)?;
        share_row(&row).map(Some)
    }

    async fn list_shares(&self, deck_id: i64) -> Result<Vec<ShareRecord>> {
        let sql = sqlx::AssertSqlSafe(format!(
            "{SHARE_SELECT} WHERE deck_id = ? AND revoked_at IS NULL
             ORDER BY created_at DESC, id DESC"
        ));
        let rows = sqlx::query(sql)
            .bind(deck_id)
            .fetch_all(&self.read)
            .await
            .map_err(fault)?;
        rows.iter().map(share_row).collect()
    }

    async fn revoke_share(&self, deck_id: i64, share_id: i64, at: Timestamp) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE share_links SET revoked_at = ?
             WHERE id = ? AND deck_id = ? AND revoked_at IS NULL",
        )
        .bind(at.unix_micros())
        .bind(share_id)
        .bind(deck_id)
        .execute(&self.write)
        .await
        .map_err(fault)?;
        Ok(done.rows_affected() > 0)
    }

    async fn find_share_access(&self, share_id: i64) -> Result<Option<ShareAccess>> {
        let row = sqlx::query(
            "SELECT id, deck_id, name, token, password_hash, expires_at, revoked_at, notify_on_view
             FROM share_links WHERE id = ?",
        )
        .bind(share_id)
        .fetch_optional(&self.read)
        .await
        .map_err(fault)?;
        row.map(|r| {
            Ok(ShareAccess {
                id: r.int(0)?,
                deck_id: r.int(1)?,
                name: r.text(2)?,
                token: r.text(3)?,
                password_hash: r.opt_text(4)?,
                expires_at: r.opt_int(5)?.map(Timestamp::from_unix_micros),
                revoked_at: r.opt_int(6)?.map(Timestamp::from_unix_micros),
                notify_on_view: r.boolean(7)?,
            })
        })
        .transpose()
    }

    async fn count_share_view(&self, share_id: i64, at: Timestamp) -> Result<i64> {
        sqlx::query_scalar(
            "UPDATE share_links SET view_count = view_count + 1,
                first_viewed_at = COALESCE(first_viewed_at, ?)
             WHERE id = ? RETURNING view_count",
        )
        .bind(at.unix_micros())
        .bind(share_id)
        .fetch_one(&self.write)
        .await
        .map_err(fault)
    }
}

#[async_trait]
impl ExportStore for SqliteStore {
    async fn create_export(
        &self,
        owner_id: i64,
        deck_id: i64,
        format: &str,
        options: &str,
        at: Timestamp,
    ) -> Result<Option<ExportRecord>> {
        let mut tx = self.begin_write().await?;
        if !lock_active_deck(&mut tx, owner_id, deck_id).await? {
            return Ok(None);
        }
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO exports (deck_id, format, options, status, created_at)
             VALUES (?, ?, ?, 'pending', ?) RETURNING id",
        )
        .bind(deck_id)
        .bind(format)
        .bind(options)
        .bind(at.unix_micros())
        .fetch_one(&mut *tx)
        .await
        .map_err(fault)?;
        let sql = sqlx::AssertSqlSafe(format!("{EXPORT_SELECT} WHERE e.id = ?"));
        let row = sqlx::query(sql)
            .bind(id)
            .fetch_one(&mut *tx)
            .await
            .map_err(fault)?;
        tx.commit().await.map_err(fault)?;
        export_row(&row).map(Some)
    }

    async fn get_export(
        &self,
        owner_id: i64,
        deck_id: i64,
        export_id: i64,
    ) -> Result<Option<ExportRecord>> {
        let sql = sqlx::AssertSqlSafe(format!(
            "{EXPORT_SELECT} JOIN decks d ON d.id = e.deck_id
             WHERE e.id = ? AND e.deck_id = ? AND d.owner_id = ?"
        ));
        sqlx::query(sql)
            .bind(export_id)
            .bind(deck_id)
            .bind(owner_id)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?
            .as_ref()
            .map(export_row)
            .transpose()
    }

    async fn find_export(&self, export_id: i64) -> Result<Option<ExportRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{EXPORT_SELECT} WHERE e.id = ?"));
        sqlx::query(sql)
            .bind(export_id)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?
            .as_ref()
            .map(export_row)
            .transpose()
    }

    async fn claim_export(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        max_attempts: i64,
    ) -> Result<Option<ExportRecord>> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "UPDATE exports SET status = 'failed', completed_at = ?,
                error = COALESCE(error, 'the export did not finish') || ' (gave up after ' || attempts || ' attempts)'
             WHERE status = 'pending' AND attempts >= ? AND (lease_until IS NULL OR lease_until < ?)",
        )
        .bind(now.unix_micros())
        .bind(max_attempts)
        .bind(now.unix_micros())
        .execute(&mut *tx)
        .await
        .map_err(fault)?;
        let id: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM exports WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < ?)
             ORDER BY id LIMIT 1",
        )
        .bind(now.unix_micros())
        .fetch_optional(&mut *tx)
        .await
        .map_err(fault)?;
        let Some(id) = id else {
            tx.commit().await.map_err(fault)?;
            return Ok(None);
        };
        sqlx::query("UPDATE exports SET lease_until = ?, attempts = attempts + 1 WHERE id = ?")
            .bind(lease_until.unix_micros())
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(fault)?;
        let sql = sqlx::AssertSqlSafe(format!("{EXPORT_SELECT} WHERE e.id = ?"));
        let row = sqlx::query(sql)
            .bind(id)
            .fetch_one(&mut *tx)
            .await
            .map_err(fault)?;
        tx.commit().await.map_err(fault)?;
        export_row(&row).map(Some)
    }

    async fn complete_export(&self, export_id: i64, file_key: &str, at: Timestamp) -> Result<()> {
        sqlx::query(
            "UPDATE exports SET status = 'completed', file_key = ?, completed_at = ?, error = NULL,
                lease_until = NULL WHERE id = ?",
        )
        .bind(file_key)
        .bind(at.unix_micros())
        .bind(export_id)
        .execute(&self.write)
        .await
        .map_err(fault)?;
        Ok(())
    }

    async fn fail_export(&self, export_id: i64, error: &str, at: Timestamp) -> Result<()> {
        sqlx::query(
            "UPDATE exports SET status = 'failed', error = ?, completed_at = ?, lease_until = NULL
             WHERE id = ?",
        )
        .bind(error)
        .bind(at.unix_micros())
        .bind(export_id)
        .execute(&self.write)
        .await
        .map_err(fault)?;
        Ok(())
    }

    async fn release_export(&self, export_id: i64) -> Result<()> {
        sqlx::query("UPDATE exports SET lease_until = NULL WHERE id = ? AND status = 'pending'")
            .bind(export_id)
            .execute(&self.write)
            .await
            .map_err(fault)?;
        Ok(())
    }

    async fn stale_export_files(
        &self,
        before: Timestamp,
        limit: i64,
    ) -> Result<Vec<(i64, String)>> {
        let rows = sqlx::query(
            "SELECT id, file_key FROM exports
             WHERE status = 'completed' AND file_key IS NOT NULL AND completed_at < ?
             ORDER BY id LIMIT ?",
        )
        .bind(before.unix_micros())
        .bind(limit)
        .fetch_all(&self.read)
        .await
        .map_err(fault)?;
        rows.iter().map(|r| Ok((r.int(0)?, r.text(1)?))).collect()
    }

    async fn forget_export_file(&self, export_id: i64) -> Result<()> {
        sqlx::query("UPDATE exports SET file_key = NULL WHERE id = ?")
            .bind(export_id)
            .execute(&self.write)
            .await
            .map_err(fault)?;
        Ok(())
    }

    async fn export_queue_depth(&self) -> Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM exports WHERE status = 'pending'")
            .fetch_one(&self.read)
            .await
            .map_err(fault)
    }

    async fn decks_needing_thumbnails(
        &self,
        quiet_since: Timestamp,
        limit: i64,
    ) -> Result<Vec<(i64, Timestamp)>> {
        let rows = sqlx::query(
            "SELECT id, updated_at FROM decks
             WHERE trashed_at IS NULL AND (thumbnail_at IS NULL OR thumbnail_at < updated_at)
               AND updated_at < ?
             ORDER BY updated_at LIMIT ?",
        )
        .bind(quiet_since.unix_micros())
        .bind(limit)
        .fetch_all(&self.read)
        .await
        .map_err(fault)?;
        rows.iter()
            .map(|r| Ok((r.int(0)?, Timestamp::from_unix_micros(r.int(1)?))))
            .collect()
    }

    async fn set_thumbnail(&self, deck_id: i64, token: &str, version: Timestamp) -> Result<()> {
        sqlx::query("UPDATE decks SET thumbnail_token = ?, thumbnail_at = ? WHERE id = ?")
            .bind(token)
            .bind(version.unix_micros())
            .bind(deck_id)
            .execute(&self.write)
            .await
            .map_err(fault)?;
        Ok(())
    }

    async fn deck_by_thumbnail(&self, token: &str) -> Result<Option<i64>> {
        sqlx::query_scalar("SELECT id FROM decks WHERE thumbnail_token = ?")
            .bind(token)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)
    }

    async fn server_secret(&self, name: &str, fresh: &str, at: Timestamp) -> Result<String> {
        sqlx::query(
            "INSERT INTO server_secrets (name, value, created_at) VALUES (?, ?, ?)
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(fresh)
        .bind(at.unix_micros())
        .execute(&self.write)
        .await
        .map_err(fault)?;
        sqlx::query_scalar("SELECT value FROM server_secrets WHERE name = ?")
            .bind(name)
            .fetch_one(&self.write)
            .await
            .map_err(fault)
    }
}

#[async_trait]
impl OAuthStore for SqliteStore {
    async fn create_oauth_client(&self, client: NewOAuthClientRecord) -> Result<()> {
        let uris = serde_json::to_string(&client.redirect_uris).map_err(Error::internal)?;
        sqlx::query(
            "INSERT INTO oauth_clients (client_id, name, secret_hash, redirect_uris, created_at)
             VALUES (?, ?, ?, ?, ?)",
        )
        .bind(&client.client_id)
        .bind(&client.name)
        .bind(&client.secret_hash)
        .bind(uris)
        .bind(client.created_at.unix_micros())
        .execute(&self.write)
        .await
        .map_err(fault)?;
        Ok(())
    }

    async fn find_oauth_client(&self, client_id: &str) -> Result<Option<OAuthClientRecord>> {
        let row = sqlx::query(
            "SELECT client_id, name, secret_hash, redirect_uris FROM oauth_clients
             WHERE client_id = ?",
        )
        .bind(client_id)
        .fetch_optional(&self.read)
        .await
        .map_err(fault)?;
        row.map(|r| {
            Ok(OAuthClientRecord {
                client_id: r.text(0)?,
                name: r.text(1)?,
                secret_hash: r.opt_text(2)?,
                redirect_uris: serde_json::from_str(&r.text(3)?).map_err(Error::internal)?,
            })
        })
        .transpose()
    }

    async fn create_code(&self, code: CodeRecord) -> Result<()> {
        sqlx::query(
            "INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, scope,
                resource, code_challenge, created_at, expires_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&code.code_hash)
        .bind(&code.client_id)
        .bind(code.user_id)
        .bind(&code.redirect_uri)
        .bind(&code.scope)
        .bind(&code.resource)
        .bind(&code.code_challenge)
        .bind(code.created_at.unix_micros())
        .bind(code.expires_at.unix_micros())
        .execute(&self.write)
        .await
        .map_err(fault)?;
        Ok(())
    }

    async fn exchange_code(
        &self,
        code_hash: &str,
        now: Timestamp,
        check: CodeCheckFn,
    ) -> Result<Exchanged> {
        let mut tx = self.begin_write().await?;
        let row = sqlx::query(
            "SELECT client_id, user_id, redirect_uri, scope, resource, code_challenge,
                created_at, expires_at, used_at, grant_id
             FROM oauth_codes WHERE code_hash = ?",
        )
        .bind(code_hash)
        .fetch_optional(&mut *tx)
        .await
        .map_err(fault)?;
        let Some(row) = row else {
            return Ok(Exchanged::Unknown);
        };
        if row.opt_int(8)?.is_some() {
            if let Some(grant_id) = row.opt_int(9)? {
                revoke_grant_in(&mut tx, grant_id, now).await?;
            }
            tx.commit().await.map_err(fault)?;
            return Ok(Exchanged::Reused);
        }
        let code = CodeRecord {
            code_hash: code_hash.to_string(),
            client_id: row.text(0)?,
            user_id: row.int(1)?,
            redirect_uri: row.text(2)?,
            scope: row.text(3)?,
            resource: row.text(4)?,
            code_challenge: row.opt_text(5)?,
            created_at: Timestamp::from_unix_micros(row.int(6)?),
            expires_at: Timestamp::from_unix_micros(row.int(7)?),
        };
        sqlx::query("UPDATE oauth_codes SET used_at = ? WHERE code_hash = ?")
            .bind(now.unix_micros())
            .bind(code_hash)
            .execute(&mut *tx)
            .await
            .map_err(fault)?;
        if code.expires_at <= now {
            tx.commit().await.map_err(fault)?;
            return Ok(Exchanged::Unknown);
        }
        let tokens = match check(&code) {
            Ok(tokens) => tokens,
            Err(e) => {
                tx.commit().await.map_err(fault)?;
                return Err(e);
            }
        };
        let grant_id: i64 = sqlx::query_scalar(
            "INSERT INTO oauth_grants (client_id, user_id, scope, resource, created_at)
             VALUES (?, ?, ?, ?, ?) RETURNING id",
        )
        .bind(&code.client_id)
        .bind(code.user_id)
        .bind(&code.scope)
        .bind(&code.resource)
        .bind(now.unix_micros())
        .fetch_one(&mut *tx)
        .await
        .map_err(fault)?;
        sqlx::query("UPDATE oauth_codes SET grant_id = ? WHERE code_hash = ?")
            .bind(grant_id)
            .bind(code_hash)
            .execute(&mut *tx)
            .await
            .map_err(fault)?;
        for token in &tokens {
            insert_token(&mut tx, grant_id, token).await?;
        }
        tx.commit().await.map_err(fault)?;
        Ok(Exchanged::Issued(GrantRecord {
            id: grant_id,
            client_id: code.client_id,
            user_id: code.user_id,
            scope: code.scope,
            resource: code.resource,
        }))
    }

    async fn find_access_token(
        &self,
        token_hash: &str,
        now: Timestamp,
    ) -> Result<Option<AccessTokenRecord>> {
        let row = sqlx::query(
            "SELECT t.id, g.user_id, u.username, u.team_id, COALESCE(t.scope, g.scope), g.resource,
                t.expires_at
             FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
             JOIN users u ON u.id = g.user_id
             WHERE t.token_hash = ? AND t.kind = 'access' AND t.revoked_at IS NULL
               AND g.revoked_at IS NULL AND t.expires_at > ?",
        )
        .bind(token_hash)
        .bind(now.unix_micros())
        .fetch_optional(&self.read)
        .await
        .map_err(fault)?;
        row.map(|r| {
            Ok(AccessTokenRecord {
                token_id: r.int(0)?,
                user_id: r.int(1)?,
                username: r.text(2)?,
                team_id: r.opt_int(3)?,
                scope: r.text(4)?,
                resource: r.text(5)?,
                expires_at: Timestamp::from_unix_micros(r.int(6)?),
            })
        })
        .transpose()
    }

    async fn rotate_refresh_token(
        &self,
        token_hash: &str,
        client_id: &str,
        now: Timestamp,
        check: RefreshCheckFn,
    ) -> Result<Rotated> {
        let mut tx = self.begin_write().await?;
        let row = sqlx::query(
            "SELECT t.id, t.used_at, t.revoked_at, t.expires_at, g.id, g.client_id, g.user_id,
                g.scope, g.resource, g.revoked_at
             FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
             WHERE t.token_hash = ? AND t.kind = 'refresh'",
        )
        .bind(token_hash)
        .fetch_optional(&mut *tx)
        .await
        .map_err(fault)?;
        let Some(row) = row else {
            return Ok(Rotated::Invalid);
        };
        let grant = GrantRecord {
            id: row.int(4)?,
            client_id: row.text(5)?,
            user_id: row.int(6)?,
            scope: row.text(7)?,
            resource: row.text(8)?,
        };
        let revoked = row.opt_int(2)?.is_some() || row.opt_int(9)?.is_some();
        if grant.client_id != client_id || revoked {
            return Ok(Rotated::Invalid);
        }
        if row.opt_int(1)?.is_some() {
            revoke_grant_in(&mut tx, grant.id, now).await?;
            tx.commit().await.map_err(fault)?;
            return Ok(Rotated::Reused);
        }
        if row.int(3)? <= now.unix_micros() {
            return Ok(Rotated::Invalid);
        }
        // The core decides (scope) before anything is written; its error rolls back.
        let tokens = check(&grant)?;
        sqlx::query("UPDATE oauth_tokens SET used_at = ? WHERE id = ?")
            .bind(now.unix_micros())
            .bind(row.int(0)?)
            .execute(&mut *tx)
            .await
            .map_err(fault)?;
        for token in &tokens {
            insert_token(&mut tx, grant.id, token).await?;
        }
        tx.commit().await.map_err(fault)?;
        Ok(Rotated::Fresh(grant))
    }

    async fn revoke_grant(&self, grant_id: i64, at: Timestamp) -> Result<()> {
        let mut tx = self.begin_write().await?;
        revoke_grant_in(&mut tx, grant_id, at).await?;
        tx.commit().await.map_err(fault)
    }

    async fn revoke_token(&self, token_hash: &str, client_id: &str, at: Timestamp) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let row = sqlx::query(
            "SELECT t.id, t.kind, g.id, g.client_id FROM oauth_tokens t
             JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = ?",
        )
        .bind(token_hash)
        .fetch_optional(&mut *tx)
        .await
        .map_err(fault)?;
        if let Some(row) = row
            && row.text(3)? == client_id
        {
            if row.text(1)? == "refresh" {
                revoke_grant_in(&mut tx, row.int(2)?, at).await?;
            } else {
                sqlx::query("UPDATE oauth_tokens SET revoked_at = ? WHERE id = ?")
                    .bind(at.unix_micros())
                    .bind(row.int(0)?)
                    .execute(&mut *tx)
                    .await
                    .map_err(fault)?;
            }
        }
        tx.commit().await.map_err(fault)
    }
}

#[async_trait]
impl TeamStore for SqliteStore {
    async fn get_team(&self, id: i64) -> Result<Option<TeamRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{TEAM_SELECT} WHERE id = ?"));
        sqlx::query(sql)
            .bind(id)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?
            .as_ref()
            .map(team_row)
            .transpose()
    }

    async fn find_team_by_slug(&self, slug: &str) -> Result<Option<TeamRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{TEAM_SELECT} WHERE slug = ?"));
        sqlx::query(sql)
            .bind(slug)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?
            .as_ref()
            .map(team_row)
            .transpose()
    }

    async fn find_or_create_team(
        &self,
        slug: &str,
        name: &str,
        at: Timestamp,
    ) -> Result<TeamRecord> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO teams (name, slug, created_at) VALUES (?, ?, ?)
             ON CONFLICT (slug) DO NOTHING",
        )
        .bind(name)
        .bind(slug)
        .bind(at.unix_micros())
        .execute(&mut *tx)
        .await
        .map_err(fault)?;
        let sql = sqlx::AssertSqlSafe(format!("{TEAM_SELECT} WHERE slug = ?"));
        let team = team_row(
            &sqlx::query(sql)
                .bind(slug)
                .fetch_one(&mut *tx)
                .await
                .map_err(fault)?,
        )?;
        tx.commit().await.map_err(fault)?;
        Ok(team)
    }

    async fn set_user_team(
        &self,
        user_id: i64,
        team_id: Option<i64>,
        at: Timestamp,
    ) -> Result<bool> {
        let done = sqlx::query("UPDATE users SET team_id = ?, updated_at = ? WHERE id = ?")
            .bind(team_id)
            .bind(at.unix_micros())
            .bind(user_id)
            .execute(&self.write)
            .await
            .map_err(fault)?;
        Ok(done.rows_affected() > 0)
    }

    async fn list_team_decks(
        &self,
        team_id: i64,
        public_only: bool,
        paging: Paging,
    ) -> Result<(Vec<TeamDeckListRecord>, i64)> {
        let filter = if public_only {
            "u.team_id = ? AND d.visibility = 'all' AND d.trashed_at IS NULL"
        } else {
            "u.team_id = ? AND d.visibility IN ('team', 'all') AND d.trashed_at IS NULL"
        };
        let sql = sqlx::AssertSqlSafe(format!(
            "{TEAM_DECK_SELECT} WHERE {filter} ORDER BY d.created_at DESC, d.id DESC LIMIT ? OFFSET ?"
        ));
        let rows = sqlx::query(sql)
            .bind(team_id)
            .bind(paging.limit())
            .bind(paging.offset())
            .fetch_all(&self.read)
            .await
            .map_err(fault)?;
        let count = sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM decks d JOIN users u ON u.id = d.owner_id WHERE {filter}"
        ));
        let total = sqlx::query_scalar(count)
            .bind(team_id)
            .fetch_one(&self.read)
            .await
            .map_err(fault)?;
        Ok((
            rows.iter().map(team_deck_row).collect::<Result<_>>()?,
            total,
        ))
    }

    async fn search_decks(
        &self,
        owner_id: i64,
        team_id: Option<i64>,
        needle: &str,
        paging: Paging,
    ) -> Result<(Vec<DeckSearchRecord>, i64)> {
        let pattern = like_pattern(needle);
        let title_match = "d.title LIKE ?1 ESCAPE '\\'";
        let filter = format!(
            "d.trashed_at IS NULL
               AND (d.owner_id = ?2 OR (u.team_id = ?3 AND d.visibility IN ('team', 'all')))
               AND ({title_match} OR EXISTS (SELECT 1 FROM slides s
                    WHERE s.deck_id = d.id AND s.html LIKE ?1 ESCAPE '\\'))"
        );
        let select =
            TEAM_DECK_SELECT.replacen(" FROM decks d", &format!(", {title_match} FROM decks d"), 1);
        let sql = sqlx::AssertSqlSafe(format!(
            "{select} WHERE {filter} ORDER BY d.created_at DESC, d.id DESC LIMIT ?4 OFFSET ?5"
        ));
        let rows = sqlx::query(sql)
            .bind(&pattern)
            .bind(owner_id)
            .bind(team_id)
            .bind(paging.limit())
            .bind(paging.offset())
            .fetch_all(&self.read)
            .await
            .map_err(fault)?;
        let count = sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM decks d JOIN users u ON u.id = d.owner_id WHERE {filter}"
        ));
        let total = sqlx::query_scalar(count)
            .bind(&pattern)
            .bind(owner_id)
            .bind(team_id)
            .fetch_one(&self.read)
            .await
            .map_err(fault)?;
        let found = rows
            .iter()
            .map(|row| {
                Ok(DeckSearchRecord {
                    deck: team_deck_row(row)?,
                    title_matched: row.boolean(9)?,
                })
            })
            .collect::<Result<_>>()?;
        Ok((found, total))
    }

    async fn get_team_deck(&self, team_id: i64, deck_id: i64) -> Result<Option<DeckRecord>> {
        let sql = sqlx::AssertSqlSafe(format!(
            "{DECK_SELECT} WHERE d.id = ? AND u.team_id = ?
               AND d.visibility IN ('team', 'all') AND d.trashed_at IS NULL"
        ));
        sqlx::query(sql)
            .bind(deck_id)
            .bind(team_id)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)?
            .as_ref()
            .map(deck_row)
            .transpose()
    }
}

#[async_trait]
impl DumpStore for SqliteStore {
    async fn count_rows(&self, table: &'static TableSpec) -> Result<i64> {
        let sql = sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {}", table.name));
        sqlx::query_scalar(sql)
            .fetch_one(&self.read)
            .await
            .map_err(fault)
    }

    async fn export_rows(&self, table: &'static TableSpec) -> Result<Vec<DumpRow>> {
        let columns: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
        let sql = sqlx::AssertSqlSafe(format!(
            "SELECT {} FROM {} ORDER BY {}",
            columns.join(", "),
            table.name,
            table.columns[0].0
        ));
        let rows = sqlx::query(sql)
            .fetch_all(&self.read)
            .await
            .map_err(fault)?;
        rows.iter()
            .map(|row| {
                table
                    .columns
                    .iter()
                    .enumerate()
                    .map(|(i, (_, kind))| decode_cell(row, i, *kind))
                    .collect()
            })
            .collect()
    }

    async fn import_rows(&self, table: &'static TableSpec, rows: &[DumpRow]) -> Result<()> {
        let columns: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
        let marks: Vec<String> = (1..=columns.len()).map(|_| "?".to_string()).collect();
        let sql = format!(
            "INSERT INTO {} ({}) VALUES ({})",
            table.name,
            columns.join(", "),
            marks.join(", ")
        );
        let mut tx = self.begin_write().await?;
        for row in rows {
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
            for (cell, (_, kind)) in row.iter().zip(table.columns) {
                query = bind_cell(query, cell, *kind);
            }
            query.execute(&mut *tx).await.map_err(fault)?;
        }
        tx.commit().await.map_err(fault)?;
        Ok(())
    }

    async fn finish_import(&self) -> Result<()> {
        // AUTOINCREMENT tables follow explicit ids by themselves (sqlite_sequence).
        Ok(())
    }
}
