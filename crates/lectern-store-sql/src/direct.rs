//! SQLite statements run on the calling thread, for the group-commit writer.
//!
//! sqlx runs each SQLite connection on a thread of its own and every statement is a round
//! trip to it: two thread wake-ups, more than the statement itself costs. The writer's
//! statements are short and run one write at a time, so the writer holds a plain SQLite
//! connection (rusqlite, over the same bundled SQLite as sqlx) and runs them where the write
//! is. The store still writes each query once, as a sqlx query over `Any`: this module takes
//! its SQL and bound values apart, runs it, and answers with sqlx's own `AnyRow` and errors,
//! so the queries, the row decoding and the error checks are the same on both engines.

use std::fmt;
use std::sync::Arc;

use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use sqlx::any::{AnyRow, AnyTypeInfo, AnyTypeInfoKind, AnyValue};
use sqlx::error::{DatabaseError, ErrorKind};
use sqlx::{Any, Execute, SqlStr};
use sqlx_core::any::{AnyColumn, AnyValueKind};

/// Runs `query` on `conn`: the rows it returns (when `rows` is set) and the number of rows it
/// changed.
pub(crate) fn run<'q>(
    conn: &rusqlite::Connection,
    mut query: impl Execute<'q, Any>,
    rows: bool,
) -> sqlx::Result<(u64, Vec<AnyRow>)> {
    let args = query.take_arguments().map_err(sqlx::Error::Encode)?;
    let sql: SqlStr = query.sql();
    let values = args.map(|a| a.values.0).unwrap_or_default();
    run_sql(conn, sql.as_str(), &values, rows)
}

/// Runs `query`, an `INSERT ... RETURNING id` of at most one row into a table whose `id` is
/// its rowid (`INTEGER PRIMARY KEY`), plain or `ON CONFLICT DO NOTHING`: the new row's id,
/// or `None` when it inserted none. The `RETURNING` clause is left off and the id read from
/// the connection: for a statement with `RETURNING`, SQLite builds and drops a temporary
/// table of the returned rows, a third of such an insert's time.
pub(crate) fn inserted_id<'q>(
    conn: &rusqlite::Connection,
    mut query: impl Execute<'q, Any>,
) -> sqlx::Result<Option<i64>> {
    let args = query.take_arguments().map_err(sqlx::Error::Encode)?;
    let sql: SqlStr = query.sql();
    let insert = sql
        .as_str()
        .trim_end()
        .strip_suffix("RETURNING id")
        .filter(|s| s.trim_start().starts_with("INSERT"))
        .ok_or_else(|| protocol(format!("not an INSERT ... RETURNING id: {}", sql.as_str())))?;
    let values = args.map(|a| a.values.0).unwrap_or_default();
    let (changed, _) = run_sql(conn, insert.trim_end(), &values, false)?;
    Ok((changed == 1).then(|| conn.last_insert_rowid()))
}

/// Runs `sql` with `values` bound to its parameters (see [`run`]).
fn run_sql(
    conn: &rusqlite::Connection,
    sql: &str,
    values: &[AnyValueKind],
    rows: bool,
) -> sqlx::Result<(u64, Vec<AnyRow>)> {
    let mut stmt = conn.prepare_cached(sql).map_err(error)?;
    for i in 1..=stmt.parameter_count() {
        // `$N` binds the query's Nth value (as sqlx does); an anonymous `?` the next one.
        let n = match stmt.parameter_name(i) {
            Some(name) => name
                .strip_prefix('$')
                .or_else(|| name.strip_prefix('?'))
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or_else(|| protocol(format!("unsupported parameter {name}")))?,
            None => i,
        };
        let value = values
            .get(n - 1)
            .ok_or_else(|| protocol(format!("no value bound for parameter {n}")))?;
        stmt.raw_bind_parameter(i, Bind(value)).map_err(error)?;
    }
    // The column list each returned row carries (none to build when the rows are skipped).
    let wanted = if rows { stmt.column_count() } else { 0 };
    let columns: Vec<AnyColumn> = (0..wanted)
        .map(|ordinal| AnyColumn {
            ordinal,
            name: "".into(),
            type_info: AnyTypeInfo {
                kind: AnyTypeInfoKind::Null,
            },
        })
        .collect();
    let read_only = stmt.readonly();
    let mut found = Vec::new();
    let mut cursor = stmt.raw_query();
    while let Some(row) = cursor.next().map_err(error)? {
        if !rows {
            continue;
        }
        let mut values = Vec::with_capacity(columns.len());
        for i in 0..columns.len() {
            values.push(AnyValue {
                kind: value(row.get_ref(i).map_err(error)?),
            });
        }
        found.push(AnyRow {
            column_names: Default::default(),
            columns: columns.clone(),
            values,
        });
    }
    drop(cursor);
    let changed = if read_only { 0 } else { conn.changes() };
    Ok((changed, found))
}

/// A value as sqlx's SQLite driver hands it to `Any`: by its storage class.
fn value(v: ValueRef<'_>) -> AnyValueKind {
    match v {
        ValueRef::Null => AnyValueKind::Null(AnyTypeInfoKind::Null),
        ValueRef::Integer(i) => AnyValueKind::BigInt(i),
        ValueRef::Real(r) => AnyValueKind::Double(r),
        ValueRef::Text(t) => AnyValueKind::Text(Arc::new(String::from_utf8_lossy(t).into_owned())),
        ValueRef::Blob(b) => AnyValueKind::Blob(Arc::new(b.to_vec())),
    }
}

/// A bound value as sqlx's SQLite driver binds it.
struct Bind<'a>(&'a AnyValueKind);

impl rusqlite::ToSql for Bind<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self.0 {
            AnyValueKind::Null(_) => ToSqlOutput::Owned(Value::Null),
            AnyValueKind::Bool(b) => ToSqlOutput::Owned(Value::Integer(i64::from(*b))),
            AnyValueKind::SmallInt(i) => ToSqlOutput::Owned(Value::Integer(i64::from(*i))),
            AnyValueKind::Integer(i) => ToSqlOutput::Owned(Value::Integer(i64::from(*i))),
            AnyValueKind::BigInt(i) => ToSqlOutput::Owned(Value::Integer(*i)),
            AnyValueKind::Real(r) => ToSqlOutput::Owned(Value::Real(f64::from(*r))),
            AnyValueKind::Double(d) => ToSqlOutput::Owned(Value::Real(*d)),
            AnyValueKind::Text(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            AnyValueKind::TextSlice(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            AnyValueKind::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
            other => {
                return Err(rusqlite::Error::ToSqlConversionFailure(
                    format!("cannot bind {other:?}").into(),
                ));
            }
        })
    }
}

/// Runs statements that take no values and return no rows (transaction control: `sql` is
/// split at every `;`), each through the statement cache: the writer runs the same few
/// (`SAVEPOINT`, `RELEASE`, `BEGIN`, `COMMIT`) for every write, so none is parsed twice.
pub(crate) fn batch(conn: &rusqlite::Connection, sql: &str) -> sqlx::Result<()> {
    for statement in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        conn.prepare_cached(statement)
            .and_then(|mut stmt| stmt.raw_execute())
            .map_err(error)?;
    }
    Ok(())
}

fn protocol(message: String) -> sqlx::Error {
    sqlx::Error::Protocol(message)
}

/// A SQLite error as sqlx reports one, so that callers check it the same way (unique
/// violations in particular).
pub(crate) fn error(e: rusqlite::Error) -> sqlx::Error {
    match e {
        rusqlite::Error::SqliteFailure(code, message) => {
            let message = message.unwrap_or_else(|| code.to_string());
            sqlx::Error::Database(Box::new(SqliteError { code, message }))
        }
        other => sqlx::Error::Protocol(other.to_string()),
    }
}

#[derive(Debug)]
struct SqliteError {
    code: rusqlite::ffi::Error,
    message: String,
}

impl fmt::Display for SqliteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SqliteError {}

impl DatabaseError for SqliteError {
    fn message(&self) -> &str {
        &self.message
    }

    fn code(&self) -> Option<std::borrow::Cow<'_, str>> {
        Some(self.code.extended_code.to_string().into())
    }

    fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
        self
    }

    fn kind(&self) -> ErrorKind {
        use rusqlite::ffi;
        match self.code.extended_code {
            ffi::SQLITE_CONSTRAINT_UNIQUE | ffi::SQLITE_CONSTRAINT_PRIMARYKEY => {
                ErrorKind::UniqueViolation
            }
            ffi::SQLITE_CONSTRAINT_FOREIGNKEY => ErrorKind::ForeignKeyViolation,
            ffi::SQLITE_CONSTRAINT_NOTNULL => ErrorKind::NotNullViolation,
            ffi::SQLITE_CONSTRAINT_CHECK => ErrorKind::CheckViolation,
            _ => ErrorKind::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use sqlx::Row;

    use super::*;

    fn conn() -> rusqlite::Connection {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score REAL,
                data BLOB, flag BOOLEAN)",
        )
        .unwrap();
        conn
    }

    #[test]
    fn numbered_parameters_bind_the_values_they_name_in_any_order_and_repeated() {
        let conn = conn();
        let insert = sqlx::query("INSERT INTO t (name, score, id) VALUES ($2 || $2, $3, $1)")
            .bind(7_i64)
            .bind("ab")
            .bind(1.5_f64);
        assert_eq!(run(&conn, insert, false).unwrap().0, 1);
        let (_, rows) = run(
            &conn,
            sqlx::query("SELECT id, name, score FROM t WHERE id = $1").bind(7_i64),
            true,
        )
        .unwrap();
        let row = &rows[0];
        assert_eq!(row.try_get::<i64, _>(0).unwrap(), 7);
        assert_eq!(row.try_get::<String, _>(1).unwrap(), "abab");
        assert_eq!(row.try_get::<f64, _>(2).unwrap(), 1.5);
    }

    #[test]
    fn values_come_back_as_sqlx_gives_them_to_any() {
        let conn = conn();
        let insert = sqlx::query("INSERT INTO t (id, name, data, flag) VALUES (1, $1, $2, $3)")
            .bind("x")
            .bind(vec![0_u8, 255])
            .bind(true);
        run(&conn, insert, false).unwrap();
        let (changed, rows) =
            run(&conn, sqlx::query("SELECT data, flag, score FROM t"), true).unwrap();
        assert_eq!(changed, 0, "a read changes nothing");
        let row = &rows[0];
        assert_eq!(row.try_get::<Vec<u8>, _>(0).unwrap(), vec![0, 255]);
        // A boolean is stored as an integer, as sqlx's SQLite driver stores it.
        assert_eq!(row.try_get::<i64, _>(1).unwrap(), 1);
        assert_eq!(row.try_get::<Option<f64>, _>(2).unwrap(), None);
    }

    #[test]
    fn a_unique_violation_is_reported_as_one_and_changes_nothing() {
        let conn = conn();
        let insert = |id: i64| sqlx::query("INSERT INTO t (id, name) VALUES ($1, 'same')").bind(id);
        run(&conn, insert(1), false).unwrap();
        match run(&conn, insert(2), false) {
            Err(sqlx::Error::Database(db)) => assert!(db.is_unique_violation(), "{db}"),
            Err(other) => panic!("not a database error: {other}"),
            Ok(_) => panic!("a second row with the same name was inserted"),
        }
        let (_, rows) = run(&conn, sqlx::query("SELECT COUNT(*) FROM t"), true).unwrap();
        assert_eq!(rows[0].try_get::<i64, _>(0).unwrap(), 1);
    }

    #[test]
    fn changes_count_the_rows_a_write_touched_and_returning_rows_come_back() {
        let conn = conn();
        for (id, name) in [(1_i64, "a"), (2, "b"), (3, "c")] {
            let q = sqlx::query("INSERT INTO t (id, name) VALUES ($1, $2)")
                .bind(id)
                .bind(name);
            run(&conn, q, false).unwrap();
        }
        let update = sqlx::query("UPDATE t SET score = $1 WHERE id >= $2 RETURNING id")
            .bind(2.0_f64)
            .bind(2_i64);
        let (changed, rows) = run(&conn, update, true).unwrap();
        assert_eq!(changed, 2);
        let ids: Vec<i64> = rows.iter().map(|r| r.try_get(0).unwrap()).collect();
        assert_eq!(ids, vec![2, 3]);
    }

    #[test]
    fn an_insert_returning_id_answers_the_rowid_without_its_returning_clause() {
        let conn = conn();
        let insert = |name: &str| {
            sqlx::query(
                "INSERT INTO t (name, score) VALUES ($1, $2)
                 ON CONFLICT (name) DO NOTHING RETURNING id",
            )
            .bind(name.to_string())
            .bind(1.0_f64)
        };
        assert_eq!(inserted_id(&conn, insert("a")).unwrap(), Some(1));
        assert_eq!(inserted_id(&conn, insert("b")).unwrap(), Some(2));
        // Nothing inserted: no id (not the last insert's).
        assert_eq!(inserted_id(&conn, insert("a")).unwrap(), None);
        let (_, rows) = run(
            &conn,
            sqlx::query("SELECT id, name FROM t ORDER BY id"),
            true,
        )
        .unwrap();
        let found: Vec<(i64, String)> = rows
            .iter()
            .map(|r| (r.try_get(0).unwrap(), r.try_get(1).unwrap()))
            .collect();
        assert_eq!(found, vec![(1, "a".to_string()), (2, "b".to_string())]);
        // Anything but an INSERT ... RETURNING id is refused, and runs nothing.
        for sql in [
            "INSERT INTO t (name) VALUES ('c')",
            "UPDATE t SET score = 2 RETURNING id",
            "INSERT INTO t (name) VALUES ('d') RETURNING name",
        ] {
            assert!(
                matches!(
                    inserted_id(&conn, sqlx::query(sql)),
                    Err(sqlx::Error::Protocol(_))
                ),
                "{sql}"
            );
        }
        let (_, rows) = run(
            &conn,
            sqlx::query("SELECT COUNT(*), MAX(score) FROM t"),
            true,
        )
        .unwrap();
        assert_eq!(rows[0].try_get::<i64, _>(0).unwrap(), 2);
        assert_eq!(rows[0].try_get::<f64, _>(1).unwrap(), 1.0);
    }

    #[test]
    fn a_missing_value_is_an_error_not_a_null() {
        let conn = conn();
        let q = sqlx::query("INSERT INTO t (id, name) VALUES ($1, $2)").bind(1_i64);
        assert!(matches!(
            run(&conn, q, false),
            Err(sqlx::Error::Protocol(_))
        ));
    }
}
