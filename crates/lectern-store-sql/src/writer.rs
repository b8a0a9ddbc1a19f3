//! Write transactions, and group commit on SQLite.
//!
//! PostgreSQL: every write is a transaction of its own on the shared pool, which carries
//! many at once; the slide orders committed writes left are kept for the next writes.
//!
//! SQLite has one writer, and with `synchronous=FULL` every commit waits for an fsync. If
//! each write committed alone, concurrent writers would queue behind one fsync at a time.
//! Instead they share transactions ("group commit"): the writer connection sits behind a
//! fair (first come, first served) lock; each write takes it, runs inside a savepoint of the
//! open transaction (`BEGIN IMMEDIATE` when none is open) and leaves the savepoint to be
//! released by the next write's first statement or by the commit (between writes at most
//! one savepoint is open). Its statements run on the calling thread, on a plain SQLite
//! connection (`direct.rs`): with the database to itself, a write's statements take
//! microseconds, less than a hand-off to another thread would. If another write is already
//! waiting for the lock, a write leaves the commit to whoever comes last and waits for it;
//! the last write of a batch (nobody waiting, or the batch is full) commits for all of
//! them, on a blocking thread (the COMMIT waits for the disk), and the flusher task commits
//! when a batch's last write failed or went away. A write is answered only after the
//! commit that holds it, with that commit's outcome, so nothing answered is ever lost. A
//! write that fails, or is dropped half-way, is rolled back to its savepoint: the others
//! in its batch are untouched.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use lectern_core::store::{DeckOrders, KnownOrder};
use lectern_core::{Error, Result};
use sqlx::any::AnyRow;
use sqlx::{Any, AnyPool, Decode, Execute, Executor, Row, Transaction, Type};
use tokio::sync::{Mutex, Notify, OwnedMutexGuard, oneshot};

use crate::{direct, fault};

mod group;

pub use group::WalRestart;
use group::*;

/// The most writes one commit takes; the next write starts a new transaction.
const MAX_BATCH: usize = 256;

/// The most decks whose order the writer keeps between batches.
const MAX_KNOWN_ORDERS: usize = 64;

/// Slide orders that writes left, by deck: at most [`MAX_KNOWN_ORDERS`] decks and, as the
/// core's order cache, [`lectern_core::store::MAX_ORDER_SLIDES`] slides in all (the writer
/// shares most of them with the cache, but may keep decks the cache let go).
type KnownOrders = DeckOrders<KnownOrder, MAX_KNOWN_ORDERS>;

/// Where write transactions come from.
#[derive(Clone)]
pub(crate) enum Writer {
    /// A transaction of its own per write, started with the statement (PostgreSQL), and the
    /// orders its committed writes left.
    Pool(AnyPool, &'static str, Arc<CommittedOrders>),
    /// Group commit on the one writer connection (SQLite).
    Group(Arc<Group>),
}

/// Slide orders as committed writes left them, by deck: the order of a deck at a revision
/// never changes once committed, so the next write that finds that revision need not read
/// it (PostgreSQL's concurrent writes to one deck wait for its row in turn, and find the
/// order the one before them committed here rather than in the core's cache, which is
/// filled a moment later).
///
/// The write a PostgreSQL write waited for has committed when the wait ends, but its task
/// may not have run on yet to put its order here: so each write marks the order it is
/// committing ([`CommittedOrders::committing`]), and the next one waits for that mark to
/// go ([`CommittedOrders::at`]) rather than read the deck's whole order itself. Only
/// committed orders are ever put here: a write that fails or is dropped takes its mark
/// away without one.
#[derive(Default)]
pub(crate) struct CommittedOrders {
    orders: std::sync::Mutex<KnownOrders>,
    /// The orders this process's writes are committing now: deck, revision, and the
    /// signal given when the write is done.
    committing: std::sync::Mutex<HashMap<i64, (i64, Arc<Notify>)>>,
}

/// How long a write waits for the order another write of this process is committing
/// (microseconds, normally; past this it reads the order itself).
const COMMITTING_WAIT: Duration = Duration::from_secs(1);

impl CommittedOrders {
    fn get(&self, deck_id: i64) -> Option<KnownOrder> {
        let orders = self.orders.lock().expect("orders lock: no panics inside");
        orders.get(deck_id).cloned()
    }

    fn put(&self, deck_id: i64, order: KnownOrder) {
        let mut orders = self.orders.lock().expect("orders lock: no panics inside");
        let newer = orders
            .get(deck_id)
            .is_none_or(|o| o.revision < order.revision);
        if newer {
            orders.put(deck_id, order);
        }
    }

    /// Marks deck `deck_id`'s order at `revision` as being committed by a write of this
    /// process, until the returned mark is dropped (after the order was put, or not).
    fn committing(&self, deck_id: i64, revision: i64) -> Committing<'_> {
        let notify = Arc::new(Notify::new());
        let mut committing = self
            .committing
            .lock()
            .expect("orders lock: no panics inside");
        committing.insert(deck_id, (revision, notify.clone()));
        Committing {
            orders: self,
            deck_id,
            revision,
            notify,
        }
    }

    fn is_committing(&self, deck_id: i64, revision: i64) -> bool {
        let committing = self
            .committing
            .lock()
            .expect("orders lock: no panics inside");
        committing
            .get(&deck_id)
            .is_some_and(|(r, _)| *r == revision)
    }

    /// The committed order of deck `deck_id` at `revision`, if this process's writes left
    /// it; when a write of this process is committing it right now, waits for that write
    /// to finish (for at most [`COMMITTING_WAIT`]).
    pub(crate) async fn at(&self, deck_id: i64, revision: i64) -> Option<KnownOrder> {
        let found = |orders: &Self| orders.get(deck_id).filter(|o| o.revision == revision);
        let notify = {
            let committing = self
                .committing
                .lock()
                .expect("orders lock: no panics inside");
            match committing.get(&deck_id) {
                Some((r, notify)) if *r == revision => notify.clone(),
                _ => return found(self),
            }
        };
        let done = notify.notified();
        let mut done = std::pin::pin!(done);
        // Registered before looking, so that a write that finishes from here on wakes it.
        done.as_mut().enable();
        if let Some(order) = found(self) {
            return Some(order);
        }
        if self.is_committing(deck_id, revision) {
            let _ = tokio::time::timeout(COMMITTING_WAIT, done).await;
        }
        found(self)
    }
}

/// A write's mark on the order it is committing ([`CommittedOrders::committing`]); dropped
/// when the write is done, whether it committed or not.
struct Committing<'a> {
    orders: &'a CommittedOrders,
    deck_id: i64,
    revision: i64,
    notify: Arc<Notify>,
}

impl Drop for Committing<'_> {
    fn drop(&mut self) {
        let mut committing = self
            .orders
            .committing
            .lock()
            .expect("orders lock: no panics inside");
        if committing
            .get(&self.deck_id)
            .is_some_and(|(r, _)| *r == self.revision)
        {
            committing.remove(&self.deck_id);
        }
        drop(committing);
        self.notify.notify_waiters();
    }
}

impl Writer {
    /// A transaction of its own per write on `pool`, started with `begin`.
    pub(crate) fn pool(pool: AnyPool, begin: &'static str) -> Self {
        Writer::Pool(pool, begin, Arc::default())
    }

    /// Group commit over the SQLite connection `conn`, with its flusher task (needs a Tokio
    /// runtime); `wal` tells it when to let the WAL start over ([`WalRestart`]).
    pub(crate) fn group(conn: rusqlite::Connection, wal: Arc<WalRestart>) -> Self {
        let flush = Arc::new(Notify::new());
        let group = Arc::new(Group {
            batch: Arc::new(Mutex::new(Batch {
                conn: Some(conn),
                wal,
                ..Batch::default()
            })),
            waiting: AtomicUsize::new(0),
            flush: flush.clone(),
        });
        tokio::spawn(flusher(Arc::downgrade(&group), flush));
        Writer::Group(group)
    }

    /// Starts a write transaction.
    pub(crate) async fn begin(&self) -> Result<Tx> {
        match self {
            Writer::Pool(pool, begin, orders) => {
                let tx = pool.begin_with(*begin).await.map_err(fault)?;
                Ok(Tx(Inner::Alone(Some(tx), orders.clone()), None))
            }
            Writer::Group(group) => group.begin().await,
        }
    }

    /// Commits what is pending, and closes the writer connection (SQLite) or the pool.
    pub(crate) async fn close(&self) {
        match self {
            Writer::Pool(pool, ..) => pool.close().await,
            Writer::Group(group) => {
                let batch = group.batch.clone().lock_owned().await;
                let _ = on_blocking_thread(batch, |batch| {
                    batch.finish();
                    if let Some(conn) = batch.conn.take()
                        && let Err((_, e)) = conn.close()
                    {
                        tracing::warn!(error = %e, "closing the SQLite writer failed");
                    }
                })
                .await;
            }
        }
    }
}

/// A write transaction: run its statements with [`Tx::execute`], [`Tx::fetch_all`] and the
/// like, then [`Tx::commit`]. Dropped without a commit, it changes nothing.
pub(crate) struct Tx(Inner, Option<(i64, KnownOrder)>);

enum Inner {
    /// `None` once committed.
    Alone(Option<Transaction<'static, Any>>, Arc<CommittedOrders>),
    /// A savepoint in the open shared transaction; `None` once committed.
    Grouped(Option<OwnedMutexGuard<Batch>>, Arc<Group>),
}

impl Tx {
    /// The order of deck `deck_id` as an earlier write left it, at the revision that write
    /// made (committed, or released into the open batch: this write sees it either way).
    pub(crate) fn left_order(&self, deck_id: i64) -> Option<KnownOrder> {
        match &self.0 {
            Inner::Grouped(Some(batch), _) => batch.orders.get(deck_id).cloned(),
            Inner::Alone(_, orders) => orders.get(deck_id),
            Inner::Grouped(None, _) => None,
        }
    }

    /// The order of deck `deck_id` at `revision` as a committed write of this process left
    /// it, waiting for one that is committing it now (PostgreSQL; see [`CommittedOrders`]).
    pub(crate) async fn committed_order(
        &mut self,
        deck_id: i64,
        revision: i64,
    ) -> Option<KnownOrder> {
        match &self.0 {
            Inner::Alone(_, orders) => orders.at(deck_id, revision).await,
            Inner::Grouped(..) => self.left_order(deck_id).filter(|o| o.revision == revision),
        }
    }

    /// The order this write leaves deck `deck_id` in, for the next writes of its batch.
    pub(crate) fn leave_order(&mut self, deck_id: i64, order: KnownOrder) {
        self.1 = Some((deck_id, order));
    }

    /// Runs `query`: its rows when `rows` is set, and the number of rows it changed.
    /// SQLite's writer runs it here, on the calling thread (see `direct.rs`).
    async fn run_query<'q, E: Execute<'q, Any> + 'q>(
        &mut self,
        query: E,
        rows: bool,
    ) -> sqlx::Result<(u64, Vec<AnyRow>)> {
        match &mut self.0 {
            Inner::Alone(tx, _) => {
                let conn = &mut **tx.as_mut().expect("a write's connection");
                if rows {
                    let found = conn.fetch_all(query).await?;
                    Ok((0, found))
                } else {
                    Ok((conn.execute(query).await?.rows_affected(), Vec::new()))
                }
            }
            Inner::Grouped(slot, _) => {
                let batch = slot.as_mut().expect("a write's connection");
                direct::run(batch.conn(), query, rows)
            }
        }
    }

    /// Runs `query`; the number of rows it changed.
    pub(crate) async fn execute<'q, E: Execute<'q, Any> + 'q>(
        &mut self,
        query: E,
    ) -> sqlx::Result<u64> {
        Ok(self.run_query(query, false).await?.0)
    }

    /// Every row `query` returns.
    pub(crate) async fn fetch_all<'q, E: Execute<'q, Any> + 'q>(
        &mut self,
        query: E,
    ) -> sqlx::Result<Vec<AnyRow>> {
        Ok(self.run_query(query, true).await?.1)
    }

    /// The first row `query` returns, if any.
    pub(crate) async fn fetch_optional<'q, E: Execute<'q, Any> + 'q>(
        &mut self,
        query: E,
    ) -> sqlx::Result<Option<AnyRow>> {
        Ok(self.fetch_all(query).await?.into_iter().next())
    }

    /// The first row `query` returns (`RowNotFound` without one).
    pub(crate) async fn fetch_one<'q, E: Execute<'q, Any> + 'q>(
        &mut self,
        query: E,
    ) -> sqlx::Result<AnyRow> {
        self.fetch_optional(query)
            .await?
            .ok_or(sqlx::Error::RowNotFound)
    }

    /// The id of the row `query` inserted, `None` when it inserted none: `query` is an
    /// `INSERT ... RETURNING id` of at most one row (plain, or `ON CONFLICT DO NOTHING`)
    /// into a table whose `id` is its rowid. SQLite's writer runs it without its
    /// `RETURNING` clause ([`direct::inserted_id`]).
    pub(crate) async fn inserted_id<'q, E: Execute<'q, Any> + 'q>(
        &mut self,
        query: E,
    ) -> sqlx::Result<Option<i64>> {
        match &mut self.0 {
            Inner::Grouped(slot, _) => {
                let batch = slot.as_mut().expect("a write's connection");
                direct::inserted_id(batch.conn(), query)
            }
            Inner::Alone(..) => self.scalar_optional(query).await,
        }
    }

    /// The first column of the first row `query` returns, if any.
    pub(crate) async fn scalar_optional<'q, T, E>(&mut self, query: E) -> sqlx::Result<Option<T>>
    where
        E: Execute<'q, Any> + 'q,
        T: for<'r> Decode<'r, Any> + Type<Any>,
    {
        match self.fetch_optional(query).await? {
            Some(row) => Ok(Some(row.try_get(0)?)),
            None => Ok(None),
        }
    }

    /// The first column of the first row `query` returns (`RowNotFound` without one).
    pub(crate) async fn scalar<'q, T, E>(&mut self, query: E) -> sqlx::Result<T>
    where
        E: Execute<'q, Any> + 'q,
        T: for<'r> Decode<'r, Any> + Type<Any>,
    {
        self.fetch_one(query).await?.try_get(0)
    }

    /// Commits the write: answers once it is durable, or with the error that kept it from
    /// being so.
    pub(crate) async fn commit(mut self) -> Result<()> {
        let left = self.1.take();
        match &mut self.0 {
            Inner::Alone(tx, orders) => {
                let tx = tx.take().expect("a write commits once");
                let Some((deck_id, order)) = left else {
                    return tx.commit().await.map_err(fault);
                };
                let _mark = orders.committing(deck_id, order.revision);
                tx.commit().await.map_err(fault)?;
                orders.put(deck_id, order);
                Ok(())
            }
            Inner::Grouped(slot, group) => {
                let batch = slot.take().expect("a write commits once");
                group.clone().commit(batch, left).await
            }
        }
    }
}

impl Drop for Tx {
    fn drop(&mut self) {
        if let Inner::Grouped(slot, group) = &mut self.0
            && let Some(mut batch) = slot.take()
        {
            // Not committed: its savepoint is rolled back here (no fsync, no wait). The
            // writes released before it still wait for a commit: the flusher makes sure
            // someone commits.
            batch.rollback_savepoint();
            drop(batch);
            group.flush.notify_one();
        }
    }
}

#[cfg(test)]
mod tests;
