//! Group commit on SQLite: the writer connection behind a fair lock, writes as savepoints of
//! one open transaction, and the commit that answers them all (see the parent module).

use super::*;

/// The shared state of group commit.
pub(crate) struct Group {
    pub(super) batch: Arc<Mutex<Batch>>,
    /// Writes waiting for the lock: while there are any, a write leaves the commit to them.
    pub(super) waiting: AtomicUsize,
    /// Wakes the flusher: a batch may be left open.
    pub(super) flush: Arc<Notify>,
}

impl Drop for Group {
    fn drop(&mut self) {
        // Lets the flusher see that the store is gone.
        self.flush.notify_one();
    }
}

impl Group {
    /// Starts a write in the open batch. Once the lock is taken nothing is awaited but the
    /// start of a new transaction, so a caller that goes away leaves either no write or a
    /// `Tx` whose drop rolls it back.
    pub(super) async fn begin(self: &Arc<Self>) -> Result<Tx> {
        let mut batch = {
            self.waiting.fetch_add(1, Ordering::SeqCst);
            let waited = Waited(&self.waiting, FlushOnDrop(Some(self.flush.clone())));
            let batch = self.batch.clone().lock_owned().await;
            waited.acquired();
            batch
        };
        if batch.conn.is_none() {
            return Err(Error::internal("the store is closed"));
        }
        batch.held_since = Some(Instant::now());
        if batch.open {
            let start = if batch.unreleased {
                "RELEASE SAVEPOINT w; SAVEPOINT w"
            } else {
                "SAVEPOINT w"
            };
            if let Err(e) = batch.run(start) {
                // Whatever the failed statement left, start over.
                batch.abort(&e.to_string());
                return Err(e);
            }
        } else {
            // `BEGIN IMMEDIATE` may wait (up to the busy timeout) for another process's
            // write lock: on a blocking thread, not a Tokio worker. Should the caller go away
            // meanwhile, the flusher ends the transaction it opened.
            let mut flush = FlushOnDrop(Some(self.flush.clone()));
            batch = tokio::task::spawn_blocking(move || {
                match batch.run("BEGIN IMMEDIATE; SAVEPOINT w") {
                    Ok(()) => {
                        // Marked here, so that the flusher ends it if nobody takes it.
                        batch.open = true;
                        Ok(batch)
                    }
                    Err(e) => {
                        batch.abort(&e.to_string());
                        Err(e)
                    }
                }
            })
            .await
            .map_err(Error::internal)??;
            flush.disarm();
        }
        batch.open = true;
        batch.unreleased = false;
        Ok(Tx(Inner::Grouped(Some(batch), self.clone()), None))
    }

    /// Keeps a write's changes (its savepoint is released by the next write's first
    /// statement, or by the COMMIT), then commits the batch if this write is its last, or
    /// leaves the commit to the writes waiting and waits for its outcome. Nothing is
    /// awaited before the lock is handed on, except one yield when nobody waits (below)
    /// and the COMMIT, which runs on a blocking
    /// thread of its own (it waits for the disk), so that a caller that goes away cannot
    /// leave the batch half-committed.
    pub(super) async fn commit(
        self: Arc<Self>,
        mut batch: OwnedMutexGuard<Batch>,
        left: Option<(i64, KnownOrder)>,
    ) -> Result<()> {
        batch.unreleased = true;
        batch.writes += 1;
        if let Some(since) = batch.held_since.take() {
            metrics::histogram!("lectern_sqlite_write_hold_seconds")
                .record(since.elapsed().as_secs_f64());
        }
        if let Some((deck_id, order)) = left {
            batch.orders.put(deck_id, order);
        }
        if self.waiting.load(Ordering::SeqCst) == 0 && batch.waiters.len() < MAX_BATCH {
            // Nobody waits yet: let the tasks that are ready run once (requests read,
            // about to write) before committing, so that those that reach the lock join
            // this commit rather than waiting for its fsync. Should the caller go away
            // meanwhile, the flusher commits what the batch holds.
            let mut flush = FlushOnDrop(Some(self.flush.clone()));
            tokio::task::yield_now().await;
            flush.disarm();
        }
        if self.waiting.load(Ordering::SeqCst) == 0 || batch.waiters.len() >= MAX_BATCH {
            return on_blocking_thread(batch, Batch::commit).await?;
        }
        // The lock goes to the write waiting for it, which usually runs next on this worker
        // (Tokio runs the task a task woke first). Should that write go away instead, its `Tx` or
        // its wait for the lock wakes the flusher.
        let (done, outcome) = oneshot::channel();
        batch.waiters.push(done);
        drop(batch);
        match outcome.await {
            Ok(result) => result.map_err(|e| Error::internal(e.to_string())),
            Err(_) => Err(Error::internal("the group commit went away")),
        }
    }
}

/// Wakes the flusher when dropped armed: a write went away with its changes released into
/// the open batch.
pub(super) struct FlushOnDrop(Option<Arc<Notify>>);

impl FlushOnDrop {
    pub(super) fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for FlushOnDrop {
    fn drop(&mut self) {
        if let Some(flush) = self.0.take() {
            flush.notify_one();
        }
    }
}

/// Counts a write out of [`Group::waiting`] once it has the lock or gave up waiting. One that
/// gave up (its caller went away) wakes the flusher: the writes before it may have left the
/// commit to it.
pub(super) struct Waited<'a>(&'a AtomicUsize, FlushOnDrop);

impl Waited<'_> {
    pub(super) fn acquired(mut self) {
        self.1.disarm();
    }
}

impl Drop for Waited<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs `work` on the batch on a blocking thread (it waits for the disk or another process's
/// lock), the guard with it: a caller that goes away cannot cut it off half-way.
pub(super) async fn on_blocking_thread<T: Send + 'static>(
    mut batch: OwnedMutexGuard<Batch>,
    work: impl FnOnce(&mut Batch) -> T + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(move || work(&mut batch))
        .await
        .map_err(Error::internal)
}

/// When the SQLite writer lets the WAL start over from its beginning.
///
/// SQLite writes a commit's pages at the end of the WAL, and starts the WAL over only when a
/// write transaction begins on a WAL whose every frame is already in the database file.
/// Checkpoints beside the writer copy the frames, but under a steady load the writer's next
/// transaction begins a moment after its last commit, never after a checkpoint: the WAL
/// grew without end under `create_deck` load, every commit lengthened the
/// file (an fsync that also writes the file's size), and the file kept its largest size
/// afterwards. The checkpointer asks ([`WalRestart::request`]) once it has copied every
/// frame of a long WAL; the writer then checkpoints the few frames committed since, itself,
/// right after its next commit, so that its next transaction starts the WAL over, writing
/// over blocks the file already has.
#[derive(Debug, Default)]
pub struct WalRestart(AtomicBool);

impl WalRestart {
    /// Asks the writer to checkpoint after its next commit.
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub(super) fn take(&self) -> bool {
        self.0.swap(false, Ordering::Relaxed)
    }
}

/// The writer connection and its open transaction.
#[derive(Default)]
pub(super) struct Batch {
    /// `None` once the store is closed.
    pub(super) conn: Option<rusqlite::Connection>,
    /// A transaction is open on `conn`.
    pub(super) open: bool,
    /// A committed write's savepoint is still open: the next write releases it in its
    /// first statement, and COMMIT releases every savepoint.
    pub(super) unreleased: bool,
    /// The writes released into the open transaction, waiting for its commit.
    pub(super) waiters: Vec<oneshot::Sender<std::result::Result<(), Arc<str>>>>,
    /// Writes released into the open transaction (for the metrics).
    pub(super) writes: usize,
    /// When the write that holds the lock took it (for the metrics).
    pub(super) held_since: Option<Instant>,
    /// Slide orders as the released writes of the open transaction and the committed ones
    /// before it left them, so that the next write to the same deck need not read its order
    /// (see `Tx::left_order`).
    pub(super) orders: KnownOrders,
    /// Whether to checkpoint after a commit, so that the WAL starts over.
    pub(super) wal: Arc<WalRestart>,
}

impl Batch {
    pub(super) fn conn(&self) -> &rusqlite::Connection {
        self.conn
            .as_ref()
            .expect("the writer connection (the store is open)")
    }

    pub(super) fn run(&mut self, sql: &'static str) -> Result<()> {
        direct::batch(self.conn(), sql).map_err(fault)
    }

    /// Rolls back the savepoint of a write that went away.
    pub(super) fn rollback_savepoint(&mut self) {
        if let Err(e) = self.run("ROLLBACK TO SAVEPOINT w; RELEASE SAVEPOINT w") {
            self.abort(&e.to_string());
        }
    }

    /// Commits the open transaction, tells its waiting writes, and answers the outcome.
    /// The orders its writes left stay known once committed (the order of a deck at a
    /// revision never changes), so that the next batch's first write to a deck need not
    /// read its order either; after a failed commit they are forgotten. Waits for the disk:
    /// call it where blocking is allowed.
    pub(super) fn commit(&mut self) -> Result<()> {
        let started = Instant::now();
        let result = self.run("COMMIT");
        metrics::histogram!("lectern_sqlite_commit_seconds")
            .record(started.elapsed().as_secs_f64());
        metrics::histogram!("lectern_sqlite_batch_writes").record(self.writes as f64);
        self.writes = 0;
        self.open = false;
        self.unreleased = false;
        if result.is_err() {
            self.orders.clear();
            // A failed COMMIT may leave the transaction open: end it.
            let _ = self.run("ROLLBACK");
        }
        let outcome = result
            .as_ref()
            .map(|_| ())
            .map_err(|e| Arc::<str>::from(e.to_string()));
        for waiter in self.waiters.drain(..) {
            let _ = waiter.send(outcome.clone());
        }
        if result.is_ok() && self.wal.take() {
            self.checkpoint();
        }
        result
    }

    /// Copies the WAL's frames into the database file (those the checkpoints beside the
    /// writer have not), with no transaction open, so that the next one starts the WAL over
    /// ([`WalRestart`]). The writes answered already; the next batch waits for it.
    pub(super) fn checkpoint(&mut self) {
        let copied = self
            .conn()
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        if let Err(e) = copied {
            tracing::warn!(error = %e, "the writer's checkpoint failed");
        }
    }

    /// Rolls the whole open transaction back, failing the writes that wait for it.
    pub(super) fn abort(&mut self, why: &str) {
        if self.conn.is_some() {
            let _ = self.run("ROLLBACK");
        }
        self.open = false;
        self.unreleased = false;
        self.writes = 0;
        self.orders.clear();
        let why: Arc<str> = Arc::from(format!("the transaction was rolled back: {why}"));
        for waiter in self.waiters.drain(..) {
            let _ = waiter.send(Err(why.clone()));
        }
    }

    /// Commits what the batch holds (blocking).
    pub(super) fn finish(&mut self) {
        if self.open && self.conn.is_some() {
            let _ = self.commit();
        }
    }
}

/// Commits batches that no write is left to commit: woken whenever a write goes away (its
/// `Tx` dropped, its wait for the lock, its start or its yield before committing cut off),
/// since the writes before it may have left the commit to it. Queued on the fair lock
/// behind the writes already waiting, it commits after them. Ends with the store.
pub(super) async fn flusher(group: std::sync::Weak<Group>, wake: Arc<Notify>) {
    loop {
        wake.notified().await;
        let Some(batch) = group.upgrade().map(|g| g.batch.clone()) else {
            return;
        };
        let batch = batch.lock_owned().await;
        if batch.open {
            let _ = on_blocking_thread(batch, Batch::finish).await;
        }
    }
}
