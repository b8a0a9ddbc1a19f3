//! Lectern's SQLite engine, the embedded default: opening the database (WAL,
//! `synchronous=FULL`, foreign keys, a 10 s busy timeout on every connection), its
//! migrations, and the change watcher that tells caches about other processes' writes.
//! The store itself is `lectern_store_sql::SqlStore`: eight reader connections (sqlx) and a
//! single writer connection (rusqlite, which runs the writes' statements on the calling
//! thread) whose transactions start with `BEGIN IMMEDIATE`.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use lectern_core::{Error, Result};
use lectern_store_sql::{SqlStore, WalRestart, fault};
use sqlx::AnyPool;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{ConnectOptions, Connection, Executor, SqliteConnection};

/// How long a connection waits for another process's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Reader connections in the pool.
const READERS: u32 = 8;

/// Run on every connection of the store's pools (the `Any` driver takes no SQLite options):
/// the same settings as [`options`] gives the native connections. `synchronous=FULL`: a
/// transaction answered as committed survives power loss too.
const PRAGMAS: &str = "PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL;
    PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;";

/// The native connection options for `url` (`sqlite://path` or `sqlite:path`). An in-memory
/// database is refused: each connection would have a database of its own, and the writer's
/// must be the readers' file.
fn options(url: &str) -> Result<SqliteConnectOptions> {
    if url.contains(":memory:") || url.contains("mode=memory") {
        return Err(Error::invalid(
            "an in-memory SQLite database is not supported: name a file",
        ));
    }
    Ok(SqliteConnectOptions::from_str(url)
        .map_err(|e| Error::invalid(format!("bad SQLite database URL: {e}")))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT))
}

/// The readers: a pool of `size` connections to the database of `options`, each set up with
/// [`PRAGMAS`] and [`READER_PRAGMAS`].
async fn pool(options: &SqliteConnectOptions, size: u32) -> Result<AnyPool> {
    let url = AnyConnectOptions::from_url(&options.to_url_lossy()).map_err(fault)?;
    AnyPoolOptions::new()
        .max_connections(size)
        // A connection to a local file does not go stale, and the check before each acquire
        // costs a round trip to the connection's worker thread: one more step in every read.
        .test_before_acquire(false)
        .after_connect(|conn, _| {
            Box::pin(async move {
                conn.execute(PRAGMAS).await?;
                conn.execute(READER_PRAGMAS).await.map(drop)
            })
        })
        .connect_with(url)
        .await
        .map_err(fault)
}

/// The writer's connection to the database of `options`, set up with [`PRAGMAS`] as the
/// readers are, and room in its statement cache for every statement the writes run. It
/// does not checkpoint the WAL itself: [`checkpoints`] does, beside it.
fn writer(options: &SqliteConnectOptions) -> Result<rusqlite::Connection> {
    let conn = rusqlite::Connection::open(options.get_filename())
        .map_err(|e| Error::internal(format!("opening the SQLite writer failed: {e}")))?;
    conn.set_prepared_statement_cache_capacity(256);
    conn.execute_batch(PRAGMAS)
        .and_then(|()| conn.execute_batch(WRITER_PRAGMAS))
        .map_err(|e| Error::internal(format!("setting up the SQLite writer failed: {e}")))?;
    Ok(conn)
}

/// The readers' own settings: 1 MiB of pages each instead of 2 (SQLite allocates them
/// page by page in the reader's thread's glibc arena, which keeps what it once held).
const READER_PRAGMAS: &str = "PRAGMA cache_size = -1024;";

/// The writer's own settings: no checkpoints of its own ([`checkpoints`]); and room for a
/// batch's changed pages (4 MiB instead of 2), so that they wait for the commit in memory
/// instead of being spilled to the WAL one by one while the write holds the writer. A batch
/// of 32 created decks changes well under 1 MiB; a larger cache wrote no faster and let the
/// server's memory peak higher under the benchmark.
///
/// A write's savepoint copies the pages it changes into the savepoint's journal. With the
/// default `temp_store`, that journal is one allocation of up to 128 KiB (SQLite is built
/// with `SQLITE_STMTJRNL_SPILL=131071`, `.cargo/config.toml`) and only a larger write moves
/// it into a temporary file; `temp_store = MEMORY` would keep every journal in memory, but
/// allocated 1 KiB at a time (about 70 mallocs and frees per created deck).
///
/// A WAL file that a burst of writes grew past 64 MiB is cut back to that size when the WAL
/// starts over (`journal_size_limit`; see [`WalRestart`]).
const WRITER_PRAGMAS: &str = "PRAGMA wal_autocheckpoint = 0; PRAGMA cache_size = -4096;
    PRAGMA journal_size_limit = 67108864;";

/// How long the WAL may grow (in 4 KiB frames: 16 MiB) before the checkpointer, having
/// copied all of it, asks the writer to let it start over ([`WalRestart`]).
const RESTART_FRAMES: i64 = 4096;

/// Whether a passive checkpoint's outcome (`PRAGMA wal_checkpoint`: whether it was blocked,
/// the WAL's frames, the frames in the database file now) calls for the WAL to start over:
/// it is long, and every frame of it is copied.
fn restart_wanted(busy: i64, frames: i64, copied: i64) -> bool {
    busy == 0 && frames >= RESTART_FRAMES && copied == frames
}

/// How often the WAL is checkpointed into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// Copies the WAL's committed pages into the database file every [`CHECKPOINT_EVERY`], on a
/// reader connection, until the pool closes. A passive checkpoint runs beside the writer
/// without holding it up; left to the writer (SQLite's automatic checkpoint), every
/// thousandth page's commit would copy a thousand pages and wait for two fsyncs more
/// while the writes queued behind it. Once it has copied a long WAL whole, it asks the
/// writer (`wal`) to let the WAL start over.
fn checkpoints(read: AnyPool, wal: Arc<WalRestart>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        while !read.is_closed() {
            tick.tick().await;
            match sqlx::query_as::<_, (i64, i64, i64)>("PRAGMA wal_checkpoint(PASSIVE)")
                .fetch_one(&read)
                .await
            {
                Ok((busy, frames, copied)) => {
                    if restart_wanted(busy, frames, copied) {
                        wal.request();
                    }
                }
                Err(e) if !read.is_closed() => {
                    tracing::warn!(error = %e, "checkpointing the WAL failed");
                }
                Err(_) => {}
            }
        }
    });
}

/// Opens (creating when missing) the database at `url` and applies the migrations.
pub async fn open(url: &str) -> Result<SqlStore> {
    sqlx::any::install_default_drivers();
    let options = options(url)?;
    let migrator = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options.clone())
        .await
        .map_err(fault)?;
    lectern_store_sql::migrator(MIGRATIONS)
        .run(&migrator)
        .await
        .map_err(|e| Error::internal(format!("migrating the SQLite database failed: {e}")))?;
    migrator.close().await;
    let writer = writer(&options)?;
    let read = pool(&options, READERS).await?;
    let wal = Arc::new(WalRestart::default());
    checkpoints(read.clone(), wal.clone());
    let store = SqlStore::sqlite(read, writer, wal);
    store.record_missing_history().await?;
    Ok(store)
}

/// Calls `on_change` whenever any connection (this process's writer or another process)
/// has committed since the last poll, checked every `every` with `PRAGMA data_version` on
/// a connection of its own to the database at `url`. Caches use it to notice writes made
/// elsewhere.
pub async fn watch_changes(
    url: &str,
    every: Duration,
    on_change: impl Fn() + Send + 'static,
) -> Result<tokio::task::JoinHandle<()>> {
    let mut conn = SqliteConnection::connect_with(&options(url)?)
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

/// This engine's migrations, listed by the build script (`lectern-store-sql/migrations.rs`).
const MIGRATIONS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_reader_gets_the_durability_settings_and_its_page_cache() {
        sqlx::any::install_default_drivers();
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let pool = pool(&options(&url).unwrap(), READERS).await.unwrap();
        // Hold every connection at once, so each one is a separate connection.
        let mut held = Vec::new();
        for _ in 0..READERS {
            held.push(pool.acquire().await.unwrap());
        }
        for conn in &mut held {
            let settings: (String, i64, i64, i64, i64) = sqlx::query_as(
                "SELECT journal_mode, synchronous, foreign_keys, timeout, cache_size
                 FROM pragma_journal_mode, pragma_synchronous, pragma_foreign_keys,
                    pragma_busy_timeout, pragma_cache_size",
            )
            .fetch_one(&mut **conn)
            .await
            .unwrap();
            // synchronous 2 is FULL; the busy timeout is in milliseconds; a reader's own
            // page cache is 1 MiB (READER_PRAGMAS).
            assert_eq!(settings, ("wal".to_string(), 2, 1, 10_000, -1024));
        }
    }

    #[tokio::test]
    async fn the_writer_connection_gets_the_durability_settings_too() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let conn = writer(&options(&url).unwrap()).unwrap();
        let settings: (String, i64, i64, i64) = conn
            .query_row(
                "SELECT journal_mode, synchronous, foreign_keys, timeout FROM pragma_journal_mode,
                    pragma_synchronous, pragma_foreign_keys, pragma_busy_timeout",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(settings, ("wal".to_string(), 2, 1, 10_000));
        // Its own: no automatic checkpoints, temporary files by default (0: savepoint
        // journals in memory up to 128 KiB), 4 MiB of pages.
        let pragma = |name: &str| -> i64 {
            conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
                .unwrap()
        };
        let own = ["wal_autocheckpoint", "temp_store", "cache_size"].map(pragma);
        assert_eq!(own, [0, 0, -4096]);
    }

    /// SQLite is built with the flags of `.cargo/config.toml`: no allocation statistics and
    /// a page cache per connection (each would take a process-wide lock per allocation or
    /// page), and savepoint journals in memory up to 128 KiB ([`WRITER_PRAGMAS`]).
    #[test]
    fn sqlite_is_built_with_the_flags_of_the_cargo_config() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let mut stmt = conn.prepare("PRAGMA compile_options").unwrap();
        let options: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(
            options.iter().any(|o| o == "DEFAULT_MEMSTATUS=0"),
            "{options:?}"
        );
        assert!(
            !options.iter().any(|o| o == "ENABLE_MEMORY_MANAGEMENT"),
            "{options:?}"
        );
        assert!(
            options.iter().any(|o| o == "STMTJRNL_SPILL=131071"),
            "{options:?}"
        );
    }

    /// The writer never copies the WAL into the database file itself (that would hold up
    /// the writes queued behind its commit); the checkpoints beside it do.
    #[tokio::test]
    async fn the_wal_reaches_the_database_file_through_the_checkpoints_not_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let url = format!("sqlite://{}", path.display());
        let conn = writer(&options(&url).unwrap()).unwrap();
        conn.execute_batch("CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            .unwrap();
        // ~4 MB of committed pages, in 40 commits: far past SQLite's automatic checkpoint
        // (1,000 pages of 4 KB).
        for batch in 0..40 {
            conn.execute_batch("BEGIN").unwrap();
            for i in 0..100 {
                conn.execute(
                    "INSERT INTO t (n, body) VALUES (?1, ?2)",
                    rusqlite::params![batch * 100 + i, "x".repeat(1000)],
                )
                .unwrap();
            }
            conn.execute_batch("COMMIT").unwrap();
        }
        let size = || std::fs::metadata(&path).unwrap().len();
        assert!(
            size() < 100_000,
            "the writer checkpointed: {} bytes",
            size()
        );
        let read = pool(&options(&url).unwrap(), 2).await.unwrap();
        checkpoints(read.clone(), Arc::default());
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while size() < 4_000_000 {
            assert!(
                std::time::Instant::now() < deadline,
                "no checkpoint: {} bytes",
                size()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        read.close().await;
    }

    /// The writer is asked to let the WAL start over only after a checkpoint that copied
    /// every frame of a WAL of at least [`RESTART_FRAMES`].
    #[test]
    fn a_restart_is_asked_for_a_long_wal_copied_whole() {
        assert!(restart_wanted(0, RESTART_FRAMES, RESTART_FRAMES));
        assert!(restart_wanted(0, 10 * RESTART_FRAMES, 10 * RESTART_FRAMES));
        assert!(
            !restart_wanted(0, RESTART_FRAMES - 1, RESTART_FRAMES - 1),
            "short"
        );
        assert!(
            !restart_wanted(0, RESTART_FRAMES, RESTART_FRAMES - 1),
            "not all copied"
        );
        assert!(
            !restart_wanted(1, RESTART_FRAMES, RESTART_FRAMES),
            "blocked"
        );
    }

    #[test]
    fn an_in_memory_database_is_refused_with_a_clear_error() {
        let err = options("sqlite::memory:").unwrap_err();
        assert!(err.to_string().contains("in-memory"), "{err}");
    }

    #[tokio::test]
    async fn the_embedded_migrations_are_those_sqlx_reads_from_the_directory() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let read = sqlx::migrate::Migrator::new(dir).await.unwrap();
        let embedded = lectern_store_sql::migrator(super::MIGRATIONS);
        let facts = |m: &sqlx::migrate::Migrator| {
            m.iter()
                .map(|m| {
                    (
                        m.version,
                        m.description.to_string(),
                        m.checksum.to_vec(),
                        m.no_tx,
                    )
                })
                .collect::<Vec<_>>()
        };
        assert!(embedded.iter().count() > 0);
        assert_eq!(facts(&embedded), facts(&read));
    }

    /// A deck stored before its presentation settings moved into `look` keeps every one.
    #[tokio::test]
    async fn decks_stored_before_the_look_column_keep_their_settings() {
        use lectern_core::deck::{DeckLook, ThemeColor, ThemeFont, Transition};
        use lectern_core::store::DeckStore as _;
        sqlx::any::install_default_drivers();
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let before: Vec<_> = MIGRATIONS
            .iter()
            .copied()
            .take_while(|(name, _)| !name.starts_with("0015_"))
            .collect();
        assert_eq!(before.len(), 14);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options(&url).unwrap())
            .await
            .unwrap();
        let before = lectern_store_sql::migrator(Box::leak(before.into_boxed_slice()));
        before.run(&pool).await.unwrap();
        pool.execute(
            "INSERT INTO users (id, username, email, name, created_at, updated_at)
                VALUES (1, 'ann', 'ann@example.com', 'Ann', 1, 1);
             INSERT INTO decks (id, owner_id, title, description, slug, visibility, css, width,
                height, margin, transition, background_transition, rtl, loop_enabled,
                theme_font, theme_color, language, created_at, updated_at)
                VALUES (7, 1, 'Old', '', 'old', 'self', 'h1{}', 800, 600, 0.25, 'zoom', 'none',
                1, 1, 'news', 'black-mint', 'de', 1, 1);",
        )
        .await
        .unwrap();
        pool.close().await;

        let store = open(&url).await.unwrap();
        let deck = store.get_deck(1, 7).await.unwrap().unwrap();
        let expected = DeckLook {
            width: 800,
            height: 600,
            margin: 0.25,
            transition: Transition::Zoom,
            background_transition: Transition::None,
            rtl: true,
            loop_: true,
            theme_font: ThemeFont::News,
            theme_color: ThemeColor::BlackMint,
            language: "de".into(),
        };
        assert_eq!(deck.look, expected);
        assert_eq!((deck.title.as_str(), deck.css.as_str()), ("Old", "h1{}"));
        store.close().await;
    }
}
