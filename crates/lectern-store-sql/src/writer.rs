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
mod tests {
    use std::time::Duration;

    use sqlx::any::AnyPoolOptions;

    use super::*;

    /// A file database with a table `t (n)`: its writer connection, and a pool that reads it
    /// as another process would.
    async fn database(dir: &tempfile::TempDir) -> (rusqlite::Connection, AnyPool) {
        sqlx::any::install_default_drivers();
        let path = dir.path().join("w.db");
        let write = rusqlite::Connection::open(&path).unwrap();
        write
            .execute_batch(
                "PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 10000;
                 CREATE TABLE t (n INTEGER PRIMARY KEY)",
            )
            .unwrap();
        let read = AnyPoolOptions::new()
            .max_connections(2)
            .connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        (write, read)
    }

    async fn insert(tx: &mut Tx, n: i64) {
        tx.execute(sqlx::query("INSERT INTO t (n) VALUES ($1)").bind(n))
            .await
            .unwrap();
    }

    async fn rows(read: &AnyPool) -> Vec<i64> {
        sqlx::query_scalar("SELECT n FROM t ORDER BY n")
            .fetch_all(read)
            .await
            .unwrap()
    }

    async fn visible(read: &AnyPool, n: i64) -> bool {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM t WHERE n = $1")
            .bind(n)
            .fetch_one(read)
            .await
            .unwrap()
            == 1
    }

    /// Writes without a pause, with passive checkpoints beside the writer copying the WAL
    /// while a write is open (as under load): the WAL's file size at the end. With
    /// `ask`, each checkpoint that copied everything asks the writer to let the WAL start
    /// over ([`WalRestart`]), as the SQLite store's checkpointer does.
    async fn wal_size_after_steady_writes(ask: bool) -> u64 {
        let dir = tempfile::tempdir().unwrap();
        let (write, read) = database(&dir).await;
        // As the store's writer: no checkpoints of its own.
        write
            .execute_batch("PRAGMA wal_autocheckpoint = 0; CREATE TABLE pad (b BLOB)")
            .unwrap();
        let wal = Arc::new(WalRestart::default());
        let writer = Writer::group(write, wal.clone());
        for i in 0..200 {
            let mut tx = writer.begin().await.unwrap();
            // About ten pages per write.
            tx.execute(sqlx::query("INSERT INTO pad (b) VALUES (zeroblob(40000))"))
                .await
                .unwrap();
            if i % 20 == 10 {
                let (busy, frames, copied): (i64, i64, i64) =
                    sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
                        .fetch_one(&read)
                        .await
                        .unwrap();
                if ask && busy == 0 && copied == frames {
                    wal.request();
                }
            }
            tx.commit().await.unwrap();
        }
        std::fs::metadata(dir.path().join("w.db-wal"))
            .unwrap()
            .len()
    }

    /// Under steady writes the WAL grows without end unless the writer is asked to let it
    /// start over; asked, it stays within the writes between two checkpoints.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn asked_to_the_writer_lets_the_wal_start_over() {
        let grown = wal_size_after_steady_writes(false).await;
        let restarted = wal_size_after_steady_writes(true).await;
        // 200 writes of ~10 pages: ~8 MB when the WAL never starts over.
        assert!(grown > 7_000_000, "{grown}");
        assert!(restarted < grown / 4, "{restarted} against {grown}");
    }

    /// A write's order is seen by the next writes once it was released, by those of its
    /// batch and, once committed, of the later ones; never when the write was dropped.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_next_write_of_a_batch_sees_the_order_a_released_write_left() {
        let dir = tempfile::tempdir().unwrap();
        let (write, _read) = database(&dir).await;
        let writer = Writer::group(write, Default::default());
        let order = |revision| KnownOrder {
            revision,
            slots: Default::default(),
        };
        // A dropped write leaves nothing.
        let mut dropped = writer.begin().await.unwrap();
        dropped.leave_order(1, order(4));
        drop(dropped);
        let mut first = writer.begin().await.unwrap();
        assert_eq!(first.left_order(1), None);
        insert(&mut first, 1).await;
        first.leave_order(1, order(5));
        // A second write waits for the lock, so the first leaves the commit to it.
        let second = tokio::spawn({
            let writer = writer.clone();
            async move {
                let mut tx = writer.begin().await.unwrap();
                let seen = tx.left_order(1);
                insert(&mut tx, 2).await;
                tx.commit().await.unwrap();
                seen
            }
        });
        while let Writer::Group(group) = &writer
            && group.waiting.load(Ordering::SeqCst) == 0
        {
            tokio::task::yield_now().await;
        }
        first.commit().await.unwrap();
        assert_eq!(second.await.unwrap(), Some(order(5)));
        let later = writer.begin().await.unwrap();
        assert_eq!(
            later.left_order(1),
            Some(order(5)),
            "a committed batch's orders stay known"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn each_write_is_answered_once_committed_and_a_failed_one_takes_no_other_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let (write, read) = database(&dir).await;
        let writer = Writer::group(write, Default::default());
        let mut tasks = Vec::new();
        for n in 0..200 {
            let (writer, read) = (writer.clone(), read.clone());
            tasks.push(tokio::spawn(async move {
                let mut tx = writer.begin().await.unwrap();
                insert(&mut tx, n).await;
                if n % 7 == 0 {
                    // Fails after writing: dropped, so rolled back.
                    return;
                }
                if n % 11 == 0 {
                    // A statement error inside the write, then committed anyway: the
                    // statement changed nothing, the insert stays.
                    let err = tx
                        .execute(sqlx::query("INSERT INTO t (n) VALUES ($1)").bind(n))
                        .await;
                    assert!(err.is_err());
                }
                tx.commit().await.unwrap();
                // Answered: another connection sees it.
                assert!(
                    visible(&read, n).await,
                    "row {n} answered but not committed"
                );
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        let expected: Vec<i64> = (0..200).filter(|n| n % 7 != 0).collect();
        assert_eq!(rows(&read).await, expected);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_flusher_commits_a_batch_whose_last_write_went_away() {
        let dir = tempfile::tempdir().unwrap();
        let (write, read) = database(&dir).await;
        let writer = Writer::group(write, Default::default());
        let Writer::Group(group) = &writer else {
            unreachable!()
        };
        let mut first = writer.begin().await.unwrap();
        insert(&mut first, 1).await;
        // A second write waits for the lock, so the first leaves the commit to it...
        let second = tokio::spawn({
            let writer = writer.clone();
            async move {
                let mut tx = writer.begin().await.unwrap();
                insert(&mut tx, 2).await;
                // ... and it goes away without committing.
                drop(tx);
            }
        });
        while group.waiting.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        tokio::time::timeout(Duration::from_secs(10), first.commit())
            .await
            .expect("the flusher committed")
            .unwrap();
        second.await.unwrap();
        assert_eq!(rows(&read).await, vec![1]);
    }

    /// A write that changes more than its savepoint's journal keeps in memory (128 KiB,
    /// `SQLITE_STMTJRNL_SPILL` in `.cargo/config.toml`), so that the journal moves into a
    /// temporary file, is still rolled back whole, and the next write proceeds. (With the
    /// limit at 256 KiB, the move failed: SQLite writes at most 0x1ffff bytes per call.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_larger_than_its_journal_in_memory_is_rolled_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (write, read) = database(&dir).await;
        let writer = Writer::group(write, Default::default());
        let mut tx = writer.begin().await.unwrap();
        let create = "CREATE TABLE big (n INTEGER PRIMARY KEY, b BLOB NOT NULL)";
        tx.execute(sqlx::query(create)).await.unwrap();
        // 300 rows of 3,000 bytes: about 300 pages, 1.2 MB.
        for n in 0..300 {
            let insert = sqlx::query("INSERT INTO big (n, b) VALUES ($1, randomblob(3000))");
            tx.execute(insert.bind(n)).await.unwrap();
        }
        tx.commit().await.unwrap();
        let digest = "SELECT group_concat(hex(substr(b, 1, 16)), ',') FROM big";
        let before: String = sqlx::query_scalar(digest).fetch_one(&read).await.unwrap();

        let mut tx = writer.begin().await.unwrap();
        let changed = tx
            .execute(sqlx::query("UPDATE big SET b = randomblob(3000)"))
            .await
            .unwrap();
        assert_eq!(changed, 300);
        drop(tx);

        let mut next = writer.begin().await.unwrap();
        insert(&mut next, 1).await;
        next.commit().await.unwrap();
        let after: String = sqlx::query_scalar(digest).fetch_one(&read).await.unwrap();
        assert_eq!(after, before, "the dropped write left changes behind");
        assert_eq!(rows(&read).await, vec![1]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_cancelled_half_way_is_rolled_back_and_the_next_one_proceeds() {
        let dir = tempfile::tempdir().unwrap();
        let (write, read) = database(&dir).await;
        let writer = Writer::group(write, Default::default());
        let (inserted, wrote) = oneshot::channel();
        let cancelled = tokio::spawn({
            let writer = writer.clone();
            async move {
                let mut tx = writer.begin().await.unwrap();
                insert(&mut tx, 1).await;
                inserted.send(()).unwrap();
                std::future::pending::<()>().await;
                tx.commit().await.unwrap();
            }
        });
        wrote.await.unwrap();
        cancelled.abort();
        let mut tx = writer.begin().await.unwrap();
        insert(&mut tx, 2).await;
        tx.commit().await.unwrap();
        assert_eq!(rows(&read).await, vec![2]);
        // The store closes: the connection goes back and the pool closes.
        writer.close().await;
    }
    /// Another process holds the database's write lock: a write waits for it on a blocking
    /// thread, and the runtime (one thread here) goes on running other tasks meanwhile.
    #[tokio::test(flavor = "current_thread")]
    async fn a_write_waiting_for_another_process_leaves_the_runtime_free() {
        let dir = tempfile::tempdir().unwrap();
        let (write, read) = database(&dir).await;
        let other = rusqlite::Connection::open(dir.path().join("w.db")).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let writer = Writer::group(write, Default::default());
        let started = std::time::Instant::now();
        let waiting = tokio::spawn(async move {
            let mut tx = writer.begin().await.unwrap();
            insert(&mut tx, 1).await;
            tx.commit().await.unwrap();
        });
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the runtime waited for the lock"
        );
        assert!(!waiting.is_finished(), "wrote while another held the lock");
        other.execute_batch("COMMIT").unwrap();
        tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .expect("the write went on once the lock was free")
            .unwrap();
        assert_eq!(rows(&read).await, vec![1]);
    }
    /// Once the store is closed, a write answers an error (the connection is gone).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_after_the_store_closed_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let (write, read) = database(&dir).await;
        let writer = Writer::group(write, Default::default());
        let mut tx = writer.begin().await.unwrap();
        insert(&mut tx, 1).await;
        tx.commit().await.unwrap();
        writer.close().await;
        match writer.begin().await {
            Err(Error::Internal(cause)) => assert_eq!(cause.to_string(), "the store is closed"),
            Err(other) => panic!("another error: {other}"),
            Ok(_) => panic!("a write began on a closed store"),
        }
        assert_eq!(rows(&read).await, vec![1]);
    }

    fn known(revision: i64) -> KnownOrder {
        KnownOrder {
            revision,
            slots: Default::default(),
        }
    }

    /// A write of deck 1 committing its order at `revision` on a task of its own: it marks
    /// the order, and 200 ms later (a commit that takes a while: a reader must not look
    /// before it is done) puts it when it `commits`, or fails without it. Returns once the
    /// mark is set.
    async fn committing_for_a_while(
        orders: &Arc<CommittedOrders>,
        revision: i64,
        commits: bool,
    ) -> tokio::task::JoinHandle<()> {
        let (marked, mark_set) = oneshot::channel();
        let committer = tokio::spawn({
            let orders = orders.clone();
            async move {
                let _mark = orders.committing(1, revision);
                marked.send(()).unwrap();
                tokio::time::sleep(Duration::from_millis(200)).await;
                if commits {
                    orders.put(1, known(revision));
                }
            }
        });
        mark_set.await.unwrap();
        committer
    }

    /// The next write waits for the order a write of this process is committing, and gets
    /// it once it is put; without a write committing it, it does not wait.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_waits_for_the_order_another_is_committing() {
        let orders = Arc::new(CommittedOrders::default());
        orders.put(1, known(3));
        assert_eq!(orders.at(1, 3).await.map(|o| o.revision), Some(3));
        assert_eq!(orders.at(1, 4).await, None, "nobody commits revision 4");
        let committer = committing_for_a_while(&orders, 4, true).await;
        let started = Instant::now();
        let found = orders.at(1, 4).await;
        assert_eq!(found.map(|o| o.revision), Some(4));
        assert!(
            started.elapsed() < COMMITTING_WAIT,
            "{:?}",
            started.elapsed()
        );
        committer.await.unwrap();
        assert!(!orders.is_committing(1, 4), "the mark goes with the write");
    }

    /// A write that fails (or is dropped) while committing takes its mark away without an
    /// order, and the waiter stops waiting at once instead of at the time limit.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_commit_leaves_no_order_and_ends_the_wait() {
        let orders = Arc::new(CommittedOrders::default());
        orders.put(1, known(3));
        let committer = committing_for_a_while(&orders, 4, false).await;
        let started = Instant::now();
        assert_eq!(orders.at(1, 4).await, None);
        assert!(
            started.elapsed() < COMMITTING_WAIT,
            "{:?}",
            started.elapsed()
        );
        committer.await.unwrap();
        // A later write's mark is not taken away by an earlier write finishing.
        let earlier = orders.committing(1, 4);
        let later = orders.committing(1, 5);
        drop(earlier);
        assert!(orders.is_committing(1, 5));
        drop(later);
        assert!(!orders.is_committing(1, 5));
    }
}
