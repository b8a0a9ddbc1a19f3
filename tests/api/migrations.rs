//! The two engines' migrations stay paired: the same file names in both folders, and
//! applied, the same tables with the same columns and nullability. Needs PostgreSQL
//! (`LECTERN_TEST_POSTGRES_URL`); without it the test is skipped, except under `CI=true`,
//! where it fails.

use std::collections::BTreeSet;

use sqlx::Connection;

use crate::common::PgDatabase;

/// (table, column, nullable) of every column of every table, but for migration bookkeeping
/// and `rate_limit_usage`: servers sharing a PostgreSQL database swap rate-limit counts
/// there; a SQLite database has one server, so its migration 0006 creates nothing.
type Schema = BTreeSet<(String, String, bool)>;

fn migration_files(engine: &str) -> BTreeSet<String> {
    let dir = format!("{}/crates/{engine}/migrations", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir} can be read: {e}"))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

async fn sqlite_schema(url: &str) -> Schema {
    let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
    let rows: Vec<(String, String, i64)> = sqlx::query_as(
        // A primary key holds no NULL on either side, whatever SQLite's pragma says.
        "SELECT m.name, p.name, p.\"notnull\" OR p.pk > 0
         FROM sqlite_master m, pragma_table_info(m.name) p
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '_sqlx%'",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(table, column, not_null)| (table, column, not_null == 0))
        .collect()
}

async fn postgres_schema(url: &str) -> Schema {
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT table_name::text, column_name::text, is_nullable::text
         FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name NOT LIKE '_sqlx%'
           AND table_name NOT IN ('rate_limit_usage')",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(table, column, nullable)| (table, column, nullable == "YES"))
        .collect()
}

#[test]
fn both_engines_have_the_same_migration_files() {
    assert_eq!(
        migration_files("lectern-store-sqlite"),
        migration_files("lectern-store-postgres")
    );
}

#[tokio::test]
async fn both_engines_migrations_make_the_same_tables_and_columns() {
    let url = std::env::var_os("LECTERN_TEST_POSTGRES_URL");
    if crate::common::needs(
        module_path!(),
        "PostgreSQL (LECTERN_TEST_POSTGRES_URL)",
        url,
    )
    .is_none()
    {
        return;
    }
    // Arrange: both engines open (and so migrate) an empty database.
    let dir = tempfile::tempdir().unwrap();
    let sqlite_url = format!("sqlite://{}", dir.path().join("paired.db").display());
    lectern_store_sqlite::open(&sqlite_url).await.unwrap();
    let pg = PgDatabase::create().await;
    lectern_store_postgres::open(&pg.url).await.unwrap();

    // Act
    let sqlite = sqlite_schema(&sqlite_url).await;
    let postgres = postgres_schema(&pg.url).await;

    // Assert
    assert!(!sqlite.is_empty());
    let only_sqlite: Vec<_> = sqlite.difference(&postgres).collect();
    let only_postgres: Vec<_> = postgres.difference(&sqlite).collect();
    assert!(
        only_sqlite.is_empty() && only_postgres.is_empty(),
        "(table, column, nullable) only on SQLite: {only_sqlite:?}; only on PostgreSQL: {only_postgres:?}"
    );
}
