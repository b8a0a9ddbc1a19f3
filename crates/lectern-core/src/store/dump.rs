//! Moving all data between backends (`lectern admin migrate-data`): the tables in
//! foreign-key order with their columns, rows as plain cells, and a per-table count and
//! checksum that both sides must agree on after the copy.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use super::Store;
use crate::{Error, Result};

/// How a column is read and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Real,
    Text,
    /// Stored as INTEGER 0/1 on SQLite and BOOLEAN on PostgreSQL; carried as `Int`.
    Bool,
    /// Bytes: BLOB on SQLite, BYTEA on PostgreSQL.
    Blob,
}

/// One table: its name, its columns (the primary key's columns first, so that ordering by
/// every column in turn orders by the key) and whether the key is generated from a sequence
/// that must follow the copied rows.
#[derive(Debug)]
pub struct TableSpec {
    pub name: &'static str,
    pub columns: &'static [(&'static str, Kind)],
    pub serial_id: bool,
}

/// A cell of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// A row: cells in the order of its table's columns.
pub type Row = Vec<Cell>;

use Kind::{Blob, Bool, Int, Text};

/// Every table, parents before children.
pub const TABLES: &[TableSpec] = &[
    TableSpec {
        name: "teams",
        columns: &[
            ("id", Int),
            ("name", Text),
            ("slug", Text),
            ("created_at", Int),
        ],
        serial_id: true,
    },
    TableSpec {
        name: "users",
        columns: &[
            ("id", Int),
            ("username", Text),
            ("email", Text),
            ("name", Text),
            ("description", Text),
            ("website_url", Text),
            ("twitter_handle", Text),
            ("password_hash", Text),
            ("team_id", Int),
            ("created_at", Int),
            ("updated_at", Int),
        ],
        serial_id: true,
    },
    TableSpec {
        name: "api_keys",
        columns: &[
            ("id", Int),
            ("user_id", Int),
            ("label", Text),
            ("lookup", Text),
            ("key_hash", Text),
            ("created_at", Int),
            ("last_used_at", Int),
            ("revoked_at", Int),
        ],
        serial_id: true,
    },
    TableSpec {
        name: "oauth_clients",
        columns: &[
            ("id", Int),
            ("client_id", Text),
            ("name", Text),
            ("secret_hash", Text),
            ("redirect_uris", Text),
            ("created_at", Int),
            ("origin", Text),
        ],
        serial_id: true,
    },
    TableSpec {
        name: "decks",
        columns: &[
            ("id", Int),
            ("owner_id", Int),
            ("title", Text),
            ("description", Text),
            ("slug", Text),
            ("visibility", Text),
            ("css", Text),
            ("look", Text),
            ("created_at", Int),
            ("updated_at", Int),
            ("trashed_at", Int),
            ("revision", Int),
            ("slide_count", Int),
        ],
        serial_id: true,
    },
    TableSpec {
        name: "slides",
        columns: &[
            ("id", Text),
            ("deck_id", Int),
            ("rank", Text),
            ("group_id", Int),
            ("html", Text),
            ("notes", Text),
            ("title", Text),
            ("text_preview", Text),
            ("html_bytes", Int),
            ("created_at", Int),
            ("updated_at", Int),
        ],
        serial_id: false,
    },
    TableSpec {
        name: "web_sessions",
        columns: &[
            ("id_hash", Text),
            ("user_id", Int),
            ("csrf_token", Text),
            ("created_at", Int),
            ("expires_at", Int),
        ],
        serial_id: false,
    },
    TableSpec {
        name: "oauth_grants",
        columns: &[
            ("id", Int),
            ("client_id", Text),
            ("user_id", Int),
            ("scope", Text),
            ("resource", Text),
            ("created_at", Int),
            ("revoked_at", Int),
        ],
        serial_id: true,
    },
    TableSpec {
        name: "oauth_codes",
        columns: &[
            ("code_hash", Text),
            ("client_id", Text),
            ("user_id", Int),
            ("redirect_uri", Text),
            ("scope", Text),
            ("resource", Text),
            ("code_challenge", Text),
            ("created_at", Int),
            ("expires_at", Int),
            ("used_at", Int),
            ("grant_id", Int),
        ],
        serial_id: false,
    },
    TableSpec {
        name: "oauth_tokens",
        columns: &[
            ("id", Int),
            ("token_hash", Text),
            ("grant_id", Int),
            ("kind", Text),
            ("created_at", Int),
            ("expires_at", Int),
            ("used_at", Int),
            ("revoked_at", Int),
            ("scope", Text),
        ],
        serial_id: true,
    },
    TableSpec {
        name: "share_links",
        columns: &[
            ("id", Int),
            ("deck_id", Int),
            ("name", Text),
            ("token", Text),
            ("token_hash", Text),
            ("password_hash", Text),
            ("expires_at", Int),
            ("notify_on_view", Bool),
            ("view_count", Int),
            ("first_viewed_at", Int),
            ("created_at", Int),
            ("revoked_at", Int),
        ],
        serial_id: true,
    },
    TableSpec {
        name: "exports",
        columns: &[
            ("id", Int),
            ("deck_id", Int),
            ("format", Text),
            ("options", Text),
            ("status", Text),
            ("error", Text),
            ("attempts", Int),
            ("lease_until", Int),
            ("file_key", Text),
            ("created_at", Int),
            ("completed_at", Int),
        ],
        serial_id: true,
    },
    TableSpec {
        name: "media",
        columns: &[
            ("id", Text),
            ("owner_id", Int),
            ("name", Text),
            ("content_type", Text),
            ("bytes", Int),
            ("width", Int),
            ("height", Int),
            ("sha256", Text),
            ("file_key", Text),
            ("created_at", Int),
        ],
        serial_id: false,
    },
    TableSpec {
        name: "deck_revisions",
        columns: &[
            ("deck_id", Int),
            ("revision", Int),
            ("created_at", Int),
            ("operation", Text),
            ("slide_ids", Text),
            ("restored_revision", Int),
            ("author_id", Int),
            ("via", Text),
            ("label", Text),
            ("credential", Text),
            ("settings", Text),
        ],
        serial_id: false,
    },
    TableSpec {
        name: "history_blobs",
        columns: &[
            ("id", Int),
            ("deck_id", Int),
            ("hash", Text),
            ("encoding", Int),
            ("data", Blob),
        ],
        serial_id: true,
    },
    TableSpec {
        name: "slide_history",
        columns: &[
            ("deck_id", Int),
            ("slide_id", Text),
            ("revision", Int),
            ("rank", Text),
            ("group_id", Int),
            ("html_blob", Int),
            ("notes_blob", Int),
        ],
        serial_id: false,
    },
    TableSpec {
        name: "slug_counters",
        columns: &[("owner_id", Int), ("base", Text), ("next", Int)],
        serial_id: false,
    },
    TableSpec {
        name: "server_secrets",
        columns: &[("name", Text), ("value", Text), ("created_at", Int)],
        serial_id: false,
    },
];

/// Rows of one table and their checksum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSummary {
    pub table: &'static str,
    pub rows: usize,
    /// Lowercase hex SHA-256 over the rows in primary-key order.
    pub checksum: String,
}

/// The count and checksum of `rows`.
pub fn summarize(table: &'static str, rows: &[Row]) -> TableSummary {
    let mut hasher = Sha256::new();
    let mut buf = String::new();
    for row in rows {
        buf.clear();
        for cell in row {
            match cell {
                Cell::Null => buf.push_str("N;"),
                Cell::Int(i) => {
                    let _ = write!(buf, "I{i};");
                }
                Cell::Real(r) => {
                    let _ = write!(buf, "R{:016x};", r.to_bits());
                }
                Cell::Text(t) => {
                    let _ = write!(buf, "T{}:{t};", t.len());
                }
                Cell::Blob(b) => {
                    let _ = write!(buf, "B{}:", b.len());
                    for byte in b {
                        let _ = write!(buf, "{byte:02x}");
                    }
                    buf.push(';');
                }
            }
        }
        buf.push('\n');
        hasher.update(buf.as_bytes());
    }
    let checksum = hasher.finalize().iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    });
    TableSummary {
        table,
        rows: rows.len(),
        checksum,
    }
}

/// Copies every row of `from` into the empty `to`, then compares count and checksum of every
/// table on both sides. Returns the source's summaries (equal to the destination's).
pub async fn migrate(from: &dyn Store, to: &dyn Store) -> Result<Vec<TableSummary>> {
    for table in TABLES {
        if to.count_rows(table).await? > 0 {
            return Err(Error::invalid(format!(
                "the destination is not empty: table {} has rows (migrate into a new database)",
                table.name
            )));
        }
    }
    // Rows the destination may refuse are found before anything is written: the copy then
    // fails whole, and runs again once the source is fixed.
    let mut refused = Vec::new();
    for table in TABLES {
        refused.extend(rows_with_nul(table, &from.export_rows(table).await?));
    }
    if !refused.is_empty() {
        return Err(Error::invalid(format!(
            "nothing was copied: {} row(s) hold text with a NUL character (U+0000), which \
             PostgreSQL cannot store; fix or delete them in the source and run migrate-data \
             again: {}",
            refused.len(),
            refused.join("; ")
        )));
    }
    let mut source = Vec::new();
    for table in TABLES {
        let rows = from.export_rows(table).await?;
        to.import_rows(table, &rows).await?;
        source.push(summarize(table.name, &rows));
    }
    to.finish_import().await?;
    for (table, expected) in TABLES.iter().zip(&source) {
        let copied = summarize(table.name, &to.export_rows(table).await?);
        if &copied != expected {
            return Err(Error::internal(format!(
                "table {}: the copy differs ({} rows, checksum {} vs {} rows, checksum {})",
                table.name, copied.rows, copied.checksum, expected.rows, expected.checksum
            )));
        }
    }
    Ok(source)
}

/// The rows of `table` with a NUL in a text cell, each as `table key=value (column)`.
fn rows_with_nul(table: &TableSpec, rows: &[Row]) -> Vec<String> {
    let cell_text = |cell: &Cell| match cell {
        Cell::Int(i) => i.to_string(),
        Cell::Text(t) => format!("{t:?}"),
        Cell::Real(r) => r.to_string(),
        Cell::Null => "NULL".into(),
        Cell::Blob(_) => "(bytes)".into(),
    };
    rows.iter()
        .filter_map(|row| {
            let column = row
                .iter()
                .zip(table.columns)
                .find_map(|(cell, (name, _))| {
                    matches!(cell, Cell::Text(t) if t.contains('\0')).then_some(*name)
                })?;
            // The key's columns come first; the first two name a row of any table.
            let key = row
                .iter()
                .zip(table.columns)
                .take(2.min(table.columns.len()))
                .filter(|(_, (name, _))| *name != column)
                .map(|(cell, (name, _))| format!("{name}={}", cell_text(cell)))
                .collect::<Vec<_>>()
                .join(", ");
            Some(format!("table {} row {key} (column {column})", table.name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_with_a_nul_are_named_by_table_key_and_column() {
        let spec = &TABLES[0];
        let rows = vec![
            vec![
                Cell::Int(1),
                Cell::Text("ok".into()),
                Cell::Text("a".into()),
                Cell::Int(0),
            ],
            vec![
                Cell::Int(7),
                Cell::Text("b\0d".into()),
                Cell::Text("s".into()),
                Cell::Int(0),
            ],
        ];
        assert_eq!(
            rows_with_nul(spec, &rows),
            vec!["table teams row id=7 (column name)".to_string()]
        );
    }

    #[test]
    fn checksums_see_every_cell() {
        let a = vec![vec![
            Cell::Int(1),
            Cell::Text("a".into()),
            Cell::Null,
            Cell::Real(0.5),
        ]];
        let mut b = a.clone();
        assert_eq!(summarize("t", &a), summarize("t", &b));
        b[0][2] = Cell::Text(String::new());
        assert_ne!(summarize("t", &a).checksum, summarize("t", &b).checksum);
        let split = vec![vec![Cell::Text("ab".into()), Cell::Text("c".into())]];
        let joined = vec![vec![Cell::Text("a".into()), Cell::Text("bc".into())]];
        assert_ne!(
            summarize("t", &split).checksum,
            summarize("t", &joined).checksum
        );
    }
}
