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
