//! The one SQL implementation of Lectern's storage port ([`lectern_core::store::Store`]),
//! for SQLite and PostgreSQL alike. Queries are written once over sqlx's `Any` driver;
//! [`Dialect`] supplies the few fragments that differ. The store only reads, locks and
//! writes: decisions stay in the core, which passes them in as closures (`SlideEditFn`,
//! `CodeDecideFn`, `RefreshDecideFn`). The engine crates open the pools, run their own
//! migrations and add what is theirs alone (SQLite's change watcher, PostgreSQL's
//! rate-limit exchange through [`RateExchange`]).
//!
//! One file per resource, each implementing that resource's trait: `accounts.rs`,
//! `keys.rs`, `decks.rs`, `slides.rs`, `shares.rs`, `exports.rs`, `media.rs`, `oauth.rs`, `teams.rs`,
//! `dump.rs`, the deck history in `history.rs` (recorded by the writes) and `revisions.rs`
//! (read, restored, pruned); row decoding in `rows.rs`.

mod accounts;
mod decks;
mod dialect;
mod direct;
mod dump;
mod exports;
mod history;
mod keys;
mod media;
mod oauth;
mod reads;
mod revisions;
pub mod rows;
mod shares;
mod slides;
mod teams;
mod writer;

use std::sync::Arc;

use async_trait::async_trait;
use lectern_core::store::{RateUsage, ServerStore};
use lectern_core::time::Timestamp;
use lectern_core::{Error, Result};
use sqlx::AnyPool;
use sqlx::any::{AnyArguments, AnyRow};
use sqlx::{Any, Executor};

pub use dialect::Dialect;
pub use writer::WalRestart;
use writer::{Tx, Writer};

/// Per-key request counts swapped between servers sharing one database (PostgreSQL); see
/// [`ServerStore::exchange_rate_usage`].
#[async_trait]
pub trait RateExchange: Send + Sync {
    async fn exchange(
        &self,
        server: &str,
        bucket: i64,
        mine: &[(String, u64)],
    ) -> Result<Vec<RateUsage>>;
}

/// The store over one database.
#[derive(Clone)]
pub struct SqlStore {
    /// Reads (SQLite: several connections, concurrent under WAL).
    read: AnyPool,
    /// Write transactions (SQLite: group commit on one connection, so this process's
    /// writers queue here rather than on the database lock; PostgreSQL: a transaction each
    /// on the same pool as `read`).
    write: Writer,
    /// Which SQL the database speaks.
    dialect: Dialect,
    /// The engine's rate-limit exchange, where servers share counts.
    rates: Option<Arc<dyn RateExchange>>,
}

impl SqlStore {
    /// A PostgreSQL store over a migrated pool: every write is a transaction of its own on it.
    pub fn postgres(pool: AnyPool) -> Self {
        let dialect = Dialect::Postgres;
        SqlStore {
            read: pool.clone(),
            write: Writer::pool(pool, dialect.begin()),
            dialect,
            rates: None,
        }
    }

    /// A SQLite store over a migrated database: `read`'s connections read it, and `writer`,
    /// a connection of its own set up as the readers are, makes every write, in groups (see
    /// `writer.rs`), with a task of its own: call it in a Tokio runtime. The writer
    /// checkpoints when `wal` asks it to.
    pub fn sqlite(read: AnyPool, writer: rusqlite::Connection, wal: Arc<WalRestart>) -> Self {
        SqlStore {
            read,
            write: Writer::group(writer, wal),
            dialect: Dialect::Sqlite,
            rates: None,
        }
    }

    /// Shares rate-limit counts with other servers through `rates`.
    pub fn with_rate_exchange(mut self, rates: Arc<dyn RateExchange>) -> Self {
        self.rates = Some(rates);
        self
    }

    /// Closes the pools, waiting for connections to finish.
    pub async fn close(&self) {
        self.read.close().await;
        self.write.close().await;
    }

    /// Opens a write transaction ([`Dialect::begin`]; on SQLite, in the open group).
    async fn begin_write(&self) -> Result<Tx> {
        self.write.begin().await
    }

    /// Runs one statement as a write of its own; the number of rows it changed.
    async fn write_run(&self, query: Query<'_>) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        let changed = tx.run(query).await?;
        tx.commit().await?;
        Ok(changed)
    }
}

impl Tx {
    /// The row `query` finds, if any, decoded.
    async fn optional<T>(
        &mut self,
        query: Query<'_>,
        decode: impl Fn(&AnyRow) -> Result<T>,
    ) -> Result<Option<T>> {
        let row = self.fetch_optional(query).await.map_err(fault)?;
        row.as_ref().map(decode).transpose()
    }

    /// Every row `query` finds, decoded.
    async fn all<T>(
        &mut self,
        query: Query<'_>,
        decode: impl Fn(&AnyRow) -> Result<T>,
    ) -> Result<Vec<T>> {
        let rows = self.fetch_all(query).await.map_err(fault)?;
        rows.iter().map(decode).collect()
    }

    /// Runs `query`; the number of rows it changed.
    async fn run(&mut self, query: Query<'_>) -> Result<u64> {
        self.execute(query).await.map_err(fault)
    }
}

/// Turns a sqlx error into a core error (a fault).
pub fn fault(e: sqlx::Error) -> Error {
    Error::internal(e)
}

/// The PostgreSQL channel of the messages servers send each other (`ServerStore::publish`).
pub const LIVE_CHANNEL: &str = "lectern_live";

/// Whether the error is a unique-constraint violation.
fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation())
}

#[async_trait]
impl ServerStore for SqlStore {
    async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1")
            .execute(&self.read)
            .await
            .map_err(fault)?;
        Ok(())
    }

    fn shares_rate_limits(&self) -> bool {
        self.rates.is_some()
    }

    async fn publish(&self, message: &str) -> Result<()> {
        // PostgreSQL: a notice on the channel every server's change watcher listens to.
        // SQLite serves one process, which told its own listeners already.
        if self.dialect.locks_rows() {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(LIVE_CHANNEL)
                .bind(message)
                .execute(&self.read)
                .await
                .map_err(fault)?;
        }
        Ok(())
    }

    async fn exchange_rate_usage(
        &self,
        server: &str,
        bucket: i64,
        mine: &[(String, u64)],
    ) -> Result<Vec<RateUsage>> {
        match &self.rates {
            Some(rates) => rates.exchange(server, bucket, mine).await,
            None => Ok(Vec::new()),
        }
    }

    async fn count_attempt(
        &self,
        key: &str,
        now: Timestamp,
        new_window_end: Timestamp,
    ) -> Result<(i64, Timestamp)> {
        // One statement: parallel tries are counted one after the other by the database.
        let query = sqlx::query(
            "INSERT INTO attempt_windows (attempt_key, tries, expires_at) VALUES ($1, 1, $2)
             ON CONFLICT (attempt_key) DO UPDATE SET
                tries = CASE WHEN attempt_windows.expires_at <= $3 THEN 1
                             ELSE attempt_windows.tries + 1 END,
                expires_at = CASE WHEN attempt_windows.expires_at <= $3 THEN $2
                                  ELSE attempt_windows.expires_at END
             RETURNING tries, expires_at",
        )
        .bind(key)
        .bind(new_window_end.unix_micros())
        .bind(now.unix_micros());
        use crate::rows::Columns as _;
        let mut tx = self.begin_write().await?;
        let row = tx.fetch_one(query).await.map_err(fault)?;
        let counted = (row.int(0)?, time(row.int(1)?));
        tx.commit().await?;
        Ok(counted)
    }

    async fn forget_attempts(&self, now: Timestamp) -> Result<()> {
        let query = sqlx::query("DELETE FROM attempt_windows WHERE expires_at <= $1")
            .bind(now.unix_micros());
        self.write_run(query).await?;
        Ok(())
    }
}

/// A statement with its bound values.
type Query<'q> = sqlx::query::Query<'q, Any, AnyArguments>;

/// The row `query` finds on `on` (a pool or a transaction), if any, decoded.
async fn optional<'c, T>(
    on: impl Executor<'c, Database = Any>,
    query: Query<'_>,
    decode: impl Fn(&AnyRow) -> Result<T>,
) -> Result<Option<T>> {
    let row = query.fetch_optional(on).await.map_err(fault)?;
    row.as_ref().map(decode).transpose()
}

/// Every row `query` finds on `on`, decoded.
async fn all<'c, T>(
    on: impl Executor<'c, Database = Any>,
    query: Query<'_>,
    decode: impl Fn(&AnyRow) -> Result<T>,
) -> Result<Vec<T>> {
    let rows = query.fetch_all(on).await.map_err(fault)?;
    rows.iter().map(decode).collect()
}

/// The migrator over an engine's migrations, given as (file name, SQL) pairs: the file
/// `0007_token_scope.sql` is version 7, "token scope", as sqlx reads a migrations directory
/// (so databases migrated before keep their checksums).
pub fn migrator(files: &'static [(&'static str, &'static str)]) -> sqlx::migrate::Migrator {
    use sqlx::SqlSafeStr as _;
    use sqlx::migrate::{Migration, MigrationType, Migrator};
    let migrations = files.iter().map(|(name, sql)| {
        let (version, description) = name
            .strip_suffix(".sql")
            .and_then(|stem| stem.split_once('_'))
            .and_then(|(v, d)| Some((v.parse().ok()?, d.replace('_', " "))))
            .unwrap_or_else(|| panic!("migration {name} is not named NNNN_description.sql"));
        let no_tx = sql.starts_with("-- no-transaction");
        let sql = sqlx::AssertSqlSafe(*sql).into_sql_str();
        Migration::new(
            version,
            description.into(),
            MigrationType::Simple,
            sql,
            no_tx,
        )
    });
    Migrator::with_migrations(migrations.collect())
}

/// Microseconds since the epoch as a time.
fn time(micros: i64) -> Timestamp {
    Timestamp::from_unix_micros(micros)
}
