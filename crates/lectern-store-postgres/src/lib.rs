//! Lectern's PostgreSQL engine, for users who outgrow one machine: several `lectern serve`
//! processes may share one database. This crate opens it, applies its migrations and
//! swaps rate-limit counts between servers ([`PgRates`]); the store itself is
//! `lectern_store_sql::SqlStore`, whose transactions lock the rows they depend on
//! (`SELECT ... FOR UPDATE`), so concurrent servers never lose an update, duplicate a slug
//! or corrupt a slide order. Each server caches the decks and API keys of its hot path;
//! [`watch_changes`] listens for the change notices migration 0011's triggers send, so that
//! a change made through any server or admin command is forgotten by every cache when it
//! commits (see docs/ARCHITECTURE.md).

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use lectern_core::store::RateUsage;
use lectern_core::store::cache::Fence;
use lectern_core::{Error, Result};
use lectern_store_sql::{LIVE_CHANNEL, RateExchange, SqlStore, fault};
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions};

/// Most connections one server holds for the store.
const MAX_CONNECTIONS: u32 = 16;

/// Connections for migrations and the rate-limit exchange (once a second).
const NATIVE_CONNECTIONS: u32 = 2;

/// How long a request waits for a free connection.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// Connects to `url` (`postgres://...`) and applies the migrations.
pub async fn open(url: &str) -> Result<SqlStore> {
    sqlx::any::install_default_drivers();
    let options = PgConnectOptions::from_str(url)
        .map_err(|e| Error::invalid(format!("bad PostgreSQL database URL: {e}")))?;
    let native = PgPoolOptions::new()
        .max_connections(NATIVE_CONNECTIONS)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(options)
        .await
        .map_err(fault)?;
    lectern_store_sql::migrator(MIGRATIONS)
        .run(&native)
        .await
        .map_err(|e| Error::internal(format!("migrating the PostgreSQL database failed: {e}")))?;
    let pool = AnyPoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(AnyConnectOptions::from_str(url).map_err(fault)?)
        .await
        .map_err(fault)?;
    let store = SqlStore::postgres(pool);
    store.record_missing_history().await?;
    Ok(store.with_rate_exchange(Arc::new(PgRates { pool: native })))
}

/// The exchange of per-key request counts through the `rate_limit_usage` table. It binds
/// arrays (`UNNEST`), which the `Any` driver cannot, so it keeps a native pool.
struct PgRates {
    pool: PgPool,
}

#[async_trait]
impl RateExchange for PgRates {
    async fn exchange(
        &self,
        server: &str,
        bucket: i64,
        mine: &[(String, u64)],
    ) -> Result<Vec<RateUsage>> {
        if !mine.is_empty() {
            let keys: Vec<&str> = mine.iter().map(|(k, _)| k.as_str()).collect();
            let counts: Vec<i64> = mine.iter().map(|(_, n)| *n as i64).collect();
            sqlx::query(
                "INSERT INTO rate_limit_usage (server, key, bucket, requests)
                 SELECT $1, k, $2, n FROM UNNEST($3::text[], $4::bigint[]) AS u(k, n)
                 ON CONFLICT (server, key, bucket)
                 DO UPDATE SET requests = rate_limit_usage.requests + EXCLUDED.requests",
            )
            .bind(server)
            .bind(bucket)
            .bind(&keys)
            .bind(&counts)
            .execute(&self.pool)
            .await
            .map_err(fault)?;
        }
        // Buckets older than a minute are of no use to anyone any more.
        if bucket % 6 == 0 {
            sqlx::query("DELETE FROM rate_limit_usage WHERE bucket < $1")
                .bind(bucket - 6)
                .execute(&self.pool)
                .await
                .map_err(fault)?;
        }
        let rows: Vec<(String, String, i64, i64)> = sqlx::query_as(
            "SELECT server, key, bucket, requests FROM rate_limit_usage
             WHERE bucket >= $1 AND server <> $2",
        )
        .bind(bucket - 1)
        .bind(server)
        .fetch_all(&self.pool)
        .await
        .map_err(fault)?;
        Ok(rows
            .into_iter()
            .map(|(server, key, bucket, requests)| RateUsage {
                server,
                key,
                bucket,
                requests: requests.max(0) as u64,
            })
            .collect())
    }
}

/// The channel of migration 0011's change notices.
const CHANGES: &str = "lectern_changes";

/// How long the change watcher waits before listening again after losing its connection.
const RELISTEN: Duration = Duration::from_millis(200);

/// Longest a read waits for its fence before reading through.
const FENCE_WAIT: Duration = Duration::from_secs(2);

/// Listens for change notices on `url`: `on_notice` gets each payload (`deck:12`, ...) as
/// its change commits, `on_message` each message a server published
/// (`lectern_store_sql::LIVE_CHANNEL`); `on_live(false)` is called when the connection is lost (notices sent
/// meanwhile are missed, so the cache must be bypassed), `on_live(true)` once it listens
/// again (and once now). Returns the [`Fence`] that tells a read when every notice committed
/// before it was applied. Fails when the first `LISTEN` fails.
pub async fn watch_changes(
    url: &str,
    on_notice: impl Fn(&str) + Send + 'static,
    on_message: impl Fn(&str) + Send + 'static,
    on_live: impl Fn(bool) + Send + 'static,
) -> Result<ChangeFence> {
    PgConnectOptions::from_str(url)
        .map_err(|e| Error::invalid(format!("bad PostgreSQL database URL: {e}")))?;
    let syncs = Arc::new(Syncs {
        channel: format!(
            "lectern_sync_{}",
            lectern_core::secret::random_alphanumeric(16).to_lowercase()
        ),
        sending: std::sync::Mutex::new(Sending::default()),
        wanted: tokio::sync::Notify::new(),
        heard: tokio::sync::watch::Sender::new(Heard::default()),
    });
    let url = url.to_string();
    let mut listener = Some(listen(&url, &syncs.channel).await?);
    on_live(true);
    let watcher = syncs.clone();
    tokio::spawn(async move {
        loop {
            if let Some(l) = listener.as_mut() {
                let lost = tokio::select! {
                    // Notices first: those that came in while a sync was sent wait in the
                    // listener's buffer, in the order they were sent.
                    biased;
                    received = l.try_recv() => match received {
                        Ok(Some(notice)) if notice.channel() == CHANGES => {
                            on_notice(notice.payload());
                            continue;
                        }
                        Ok(Some(notice)) if notice.channel() == LIVE_CHANNEL => {
                            on_message(notice.payload());
                            continue;
                        }
                        Ok(Some(notice)) => {
                            // One of this server's syncs: every notice before it was applied.
                            watcher.heard(notice.payload());
                            continue;
                        }
                        Ok(None) => "the change watcher lost its connection".to_string(),
                        Err(e) => format!("the change watcher failed: {e}"),
                    },
                    () = watcher.wanted.notified() => match watcher.send(l).await {
                        Ok(()) => continue,
                        Err(e) => format!("a cache sync could not be sent: {e}"),
                    },
                };
                tracing::warn!("{lost}");
                on_live(false);
                watcher.fail_sent();
                listener = None;
            }
            tokio::time::sleep(RELISTEN).await;
            match listen(&url, &watcher.channel).await {
                Ok(l) => {
                    listener = Some(l);
                    on_live(true);
                    tracing::info!("the change watcher listens again");
                }
                Err(e) => tracing::warn!(error = %e, "the change watcher cannot listen yet"),
            }
        }
    });
    Ok(ChangeFence(syncs))
}

/// A connection that listens for change notices and this server's syncs.
async fn listen(url: &str, sync_channel: &str) -> Result<PgListener> {
    let mut listener = PgListener::connect(url).await.map_err(fault)?;
    listener
        .listen_all([CHANGES, LIVE_CHANNEL, sync_channel])
        .await
        .map_err(fault)?;
    Ok(listener)
}

/// The fence of a server's cache. PostgreSQL delivers notices in the order their
/// transactions committed, so when a sync notice this server sent after a read began comes
/// back to its watcher, every change notice committed before the read was applied. The
/// watcher sends the syncs itself, on its own listening connection (a session hears its own
/// notices): one statement to one backend per sync, and no other connection. Reads share
/// syncs: one is in flight at a time, and the reads that arrive while it is wait for the
/// next one (sent after them), so the database sees one small statement per round trip
/// however many reads wait.
#[derive(Clone)]
pub struct ChangeFence(Arc<Syncs>);

struct Syncs {
    /// This server's own channel for its syncs.
    channel: String,
    sending: std::sync::Mutex<Sending>,
    /// Wakes the watcher to send the sync numbered `sending.issued`.
    wanted: tokio::sync::Notify,
    heard: tokio::sync::watch::Sender<Heard>,
}

#[derive(Default)]
struct Sending {
    /// Number of the newest sync sent or being sent (numbers are given in the order reads
    /// arrive, so any sync numbered at or past a read's target was sent after it arrived).
    issued: u64,
    /// Whether a sync is asked for or being sent.
    in_flight: bool,
    /// Whether a read arrived while a sync was in flight: one more follows it.
    again: bool,
}

#[derive(Default, Clone, Copy)]
struct Heard {
    /// Newest sync that came back.
    synced: u64,
    /// Newest sync that will never come back (sending failed, or the watcher lost its
    /// connection).
    failed: u64,
}

impl Syncs {
    /// Sends the sync asked for on `listener`, then the next ones while reads wait for a
    /// newer one. Each comes back through the same connection, after every notice committed
    /// before it.
    async fn send(&self, listener: &mut PgListener) -> sqlx::Result<()> {
        let mut n = self.sending.lock().expect("no panics inside").issued;
        loop {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(&self.channel)
                .bind(n.to_string())
                .execute(&mut *listener)
                .await?;
            let mut sending = self.sending.lock().expect("no panics inside");
            if !std::mem::take(&mut sending.again) {
                sending.in_flight = false;
                return Ok(());
            }
            sending.issued += 1;
            n = sending.issued;
        }
    }

    /// A sync came back.
    fn heard(&self, payload: &str) {
        if let Ok(n) = payload.parse::<u64>() {
            self.heard.send_modify(|h| h.synced = h.synced.max(n));
        }
    }

    /// Every sync asked for so far will not come back; the next read asks anew.
    fn fail_sent(&self) {
        let issued = {
            let mut sending = self.sending.lock().expect("no panics inside");
            sending.in_flight = false;
            sending.again = false;
            sending.issued
        };
        self.heard.send_modify(|h| h.failed = h.failed.max(issued));
    }
}

#[async_trait]
impl Fence for ChangeFence {
    async fn pass(&self) -> bool {
        let syncs = &self.0;
        let target = {
            let mut sending = syncs.sending.lock().expect("no panics inside");
            if !sending.in_flight {
                sending.in_flight = true;
                sending.issued += 1;
                syncs.wanted.notify_one();
                sending.issued
            } else {
                // The sync in flight was asked for before this read: wait for the next one.
                sending.again = true;
                sending.issued + 1
            }
        };
        let mut heard = syncs.heard.subscribe();
        let waited = tokio::time::timeout(
            FENCE_WAIT,
            heard.wait_for(|h| h.synced >= target || h.failed >= target),
        )
        .await;
        matches!(waited, Ok(Ok(h)) if h.synced >= target)
    }
}

/// This engine's migrations, listed by the build script (`lectern-store-sql/migrations.rs`).
const MIGRATIONS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/migrations.rs"));
