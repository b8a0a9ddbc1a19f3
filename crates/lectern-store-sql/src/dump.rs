//! Whole-table reads and writes for `admin migrate-data` (see `lectern_core::store::dump`):
//! rows as typed cells in primary-key order (text keys in byte order on both databases),
//! inserts with their ids, and id sequences moved past them afterwards.

use async_trait::async_trait;
use lectern_core::Result;
use lectern_core::store::DumpStore;
use lectern_core::store::dump::{Cell, Kind, Row as DumpRow, TABLES, TableSpec};
use sqlx::any::AnyRow;

use crate::rows::Columns;
use crate::{Query, SqlStore, all, fault};

/// Reads one cell of a dumped row (booleans as 0 or 1, as SQLite stores them).
fn decode_cell(row: &AnyRow, i: usize, kind: Kind) -> Result<Cell> {
    Ok(match kind {
        Kind::Int => row.opt_int(i)?.map_or(Cell::Null, Cell::Int),
        Kind::Bool => row
            .opt_boolean(i)?
            .map_or(Cell::Null, |b| Cell::Int(i64::from(b))),
        Kind::Real => row.opt_real(i)?.map_or(Cell::Null, Cell::Real),
        Kind::Text => row.opt_text(i)?.map_or(Cell::Null, Cell::Text),
        Kind::Blob => row.opt_bytes(i)?.map_or(Cell::Null, Cell::Blob),
    })
}

/// Binds one cell of a dumped row, typed by its column.
fn bind_cell<'q>(query: Query<'q>, cell: &Cell, kind: Kind) -> Query<'q> {
    match (cell, kind) {
        (Cell::Int(i), Kind::Bool) => query.bind(*i != 0),
        (Cell::Int(i), _) => query.bind(*i),
        (Cell::Real(r), _) => query.bind(*r),
        (Cell::Text(t), _) => query.bind(t.clone()),
        (Cell::Blob(b), _) => query.bind(b.clone()),
        (Cell::Null, Kind::Blob) => query.bind(None::<Vec<u8>>),
        (Cell::Null, Kind::Text) => query.bind(None::<String>),
        (Cell::Null, Kind::Real) => query.bind(None::<f64>),
        (Cell::Null, Kind::Bool) => query.bind(None::<bool>),
        (Cell::Null, Kind::Int) => query.bind(None::<i64>),
    }
}

#[async_trait]
impl DumpStore for SqlStore {
    async fn count_rows(&self, table: &'static TableSpec) -> Result<i64> {
        let sql = sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {}", table.name));
        sqlx::query_scalar(sql)
            .fetch_one(&self.read)
            .await
            .map_err(fault)
    }

    async fn export_rows(&self, table: &'static TableSpec) -> Result<Vec<DumpRow>> {
        // Flags as integers (see [`crate::rows::NOTIFY_ON_VIEW`]).
        let columns: Vec<String> = (table.columns.iter())
            .map(|(c, kind)| match kind {
                Kind::Bool => format!("CAST({c} AS INTEGER)"),
                _ => c.to_string(),
            })
            .collect();
        // Every column in turn: the key's columns come first, so this is key order on both
        // databases (text in byte order).
        let order: Vec<String> = (table.columns.iter())
            .map(|(c, kind)| match kind {
                Kind::Text => format!("{c}{}", self.dialect.byte_order()),
                _ => c.to_string(),
            })
            .collect();
        let sql = sqlx::AssertSqlSafe(format!(
            "SELECT {} FROM {} ORDER BY {}",
            columns.join(", "),
            table.name,
            order.join(", "),
        ));
        all(&self.read, sqlx::query(sql), |row| {
            let cells = table.columns.iter().enumerate();
            cells
                .map(|(i, (_, kind))| decode_cell(row, i, *kind))
                .collect()
        })
        .await
    }

    async fn import_rows(&self, table: &'static TableSpec, rows: &[DumpRow]) -> Result<()> {
        let columns: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
        let marks: Vec<String> = (1..=columns.len()).map(|n| format!("${n}")).collect();
        let sql = format!(
            "INSERT INTO {} ({}) VALUES ({})",
            table.name,
            columns.join(", "),
            marks.join(", ")
        );
        let mut tx = self.begin_write().await?;
        for row in rows {
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
            for (cell, (_, kind)) in row.iter().zip(table.columns) {
                query = bind_cell(query, cell, *kind);
            }
            tx.run(query).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn finish_import(&self) -> Result<()> {
        for table in TABLES.iter().filter(|t| t.serial_id) {
            if let Some(sql) = self.dialect.sequence_reset(table.name) {
                self.write_run(sqlx::query(sqlx::AssertSqlSafe(sql)))
                    .await?;
            }
        }
        Ok(())
    }
}
