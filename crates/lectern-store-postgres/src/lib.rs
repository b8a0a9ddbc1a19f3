//! Lectern's PostgreSQL engine, for users who outgrow one machine: several `lectern serve`
//! processes may share one database. This crate opens it, applies its migrations and
//! swaps rate-limit counts between servers ([`PgRates`]); the store itself is
//! `lectern_store_sql::SqlStore`, whose transactions lock the rows they depend on
//! (`SELECT ... FOR UPDATE`), so concurrent servers never lose an update, duplicate a slug
//! or corrupt a slide order. Nothing is cached in the process: `open_store` puts no cache
//! in front of this engine (see docs/ARCHITECTURE.md).

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use lectern_core::store::RateUsage;
use lectern_core::{Error, Result};
use lectern_store_sql::{Dialect, RateExchange, SqlStore, fault};
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

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
    sqlx::migrate!("./migrations")
        .run(&native)
        .await
        .map_err(|e| Error::internal(format!("migrating the PostgreSQL database failed: {e}")))?;
    let pool = AnyPoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(AnyConnectOptions::from_str(url).map_err(fault)?)
        .await
        .map_err(fault)?;
    let store = SqlStore::new(Dialect::Postgres, pool.clone(), pool);
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
