//! A PostgreSQL database made for one bench run and dropped after it.

use anyhow::Context;

/// A PostgreSQL database made for one bench run and dropped after it.
pub struct BenchDatabase {
    pub url: String,
    pub admin_url: String,
    pub name: String,
}

impl BenchDatabase {
    pub async fn create(admin_url: &str) -> anyhow::Result<Self> {
        use sqlx::Connection;
        static MADE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("lectern_bench_{}_{n}", std::process::id());
        let mut conn = sqlx::PgConnection::connect(admin_url).await?;
        let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await?;
        let sql = format!("CREATE DATABASE {name}");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await?;
        let base = admin_url.split('?').next().unwrap_or(admin_url);
        let (server, _) = base.rsplit_once('/').context("the URL names a database")?;
        Ok(BenchDatabase {
            url: format!("{server}/{name}"),
            admin_url: admin_url.to_string(),
            name,
        })
    }

    pub async fn drop_database(self) -> anyhow::Result<()> {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&self.admin_url).await?;
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await?;
        Ok(())
    }
}
