//! The export queue (queueing, claiming with a lease, finishing, old files), the
//! thumbnails the worker draws, and server-wide secrets.

use async_trait::async_trait;
use lectern_core::Result;
use lectern_core::store::{ExportRecord, ExportStore};
use lectern_core::time::Timestamp;

use crate::rows::{Columns, EXPORT_SELECT, export_row};
use crate::{SqlStore, Tx, all, fault, optional, time};

/// The jobs in flight of the owner of the candidate `d`, for the claim's query.
const IN_FLIGHT: &str = "SELECT COUNT(*) FROM exports r JOIN decks rd ON rd.id = r.deck_id
    WHERE rd.owner_id = d.owner_id AND r.status = 'pending' AND r.lease_until >= $1";

/// An export by id, inside a transaction.
async fn export_in_tx(tx: &mut Tx, id: i64) -> Result<Option<ExportRecord>> {
    let sql = sqlx::AssertSqlSafe(format!("{EXPORT_SELECT} WHERE e.id = $1"));
    tx.optional(sqlx::query(sql).bind(id), export_row).await
}

#[async_trait]
impl ExportStore for SqlStore {
    async fn create_export(
        &self,
        owner_id: i64,
        deck_id: i64,
        format: &str,
        options: &str,
        at: Timestamp,
    ) -> Result<Option<ExportRecord>> {
        let mut tx = self.begin_write().await?;
        if !self.lock_active_deck(&mut tx, owner_id, deck_id).await? {
            return Ok(None);
        }
        let id: i64 = tx
            .scalar(
                sqlx::query(
                    "INSERT INTO exports (deck_id, format, options, status, created_at)
             VALUES ($1, $2, $3, 'pending', $4) RETURNING id",
                )
                .bind(deck_id)
                .bind(format)
                .bind(options)
                .bind(at.unix_micros()),
            )
            .await
            .map_err(fault)?;
        let record = export_in_tx(&mut tx, id).await?;
        tx.commit().await?;
        Ok(record)
    }

    async fn get_export(
        &self,
        owner_id: i64,
        deck_id: i64,
        export_id: i64,
    ) -> Result<Option<ExportRecord>> {
        let sql = sqlx::AssertSqlSafe(format!(
            "{EXPORT_SELECT} JOIN decks d ON d.id = e.deck_id
             WHERE e.id = $1 AND e.deck_id = $2 AND d.owner_id = $3"
        ));
        let query = sqlx::query(sql)
            .bind(export_id)
            .bind(deck_id)
            .bind(owner_id);
        optional(&self.read, query, export_row).await
    }

    async fn find_export(&self, export_id: i64) -> Result<Option<ExportRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{EXPORT_SELECT} WHERE e.id = $1"));
        optional(&self.read, sqlx::query(sql).bind(export_id), export_row).await
    }

    async fn claim_export(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        max_attempts: i64,
        per_account: i64,
    ) -> Result<Option<ExportRecord>> {
        let mut tx = self.begin_write().await?;
        let query = sqlx::query(
            "UPDATE exports SET status = 'failed', completed_at = $1,
                error = COALESCE(error, 'the export did not finish') || ' (gave up after '
                    || CAST(attempts AS TEXT) || ' attempts)'
             WHERE status = 'pending' AND attempts >= $2 AND (lease_until IS NULL OR lease_until < $3)",
        );
        let query = query
            .bind(now.unix_micros())
            .bind(max_attempts)
            .bind(now.unix_micros());
        tx.run(query).await?;
        // Per candidate: its owner's jobs in flight (leased) and when the owner's last export
        // completed; the fewest in flight first, then the account served longest ago.
        let sql = format!(
            "SELECT e.id FROM exports e JOIN decks d ON d.id = e.deck_id
             WHERE e.status = 'pending' AND (e.lease_until IS NULL OR e.lease_until < $1)
               AND ({IN_FLIGHT}) < $2
             ORDER BY ({IN_FLIGHT}),
               (SELECT COALESCE(MAX(r.completed_at), 0) FROM exports r
                  JOIN decks rd ON rd.id = r.deck_id WHERE rd.owner_id = d.owner_id),
               e.id
             LIMIT 1{}",
            // Another server's worker skips the job this one holds instead of waiting.
            self.dialect.row_lock(" FOR UPDATE OF e SKIP LOCKED")
        );
        let query = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(now.unix_micros())
            .bind(per_account);
        let Some(id) = tx.optional(query, |r| r.int(0)).await? else {
            tx.commit().await?;
            return Ok(None);
        };
        let query = sqlx::query(
            "UPDATE exports SET lease_until = $1, attempts = attempts + 1 WHERE id = $2",
        );
        tx.run(query.bind(lease_until.unix_micros()).bind(id))
            .await?;
        let record = export_in_tx(&mut tx, id).await?;
        tx.commit().await?;
        Ok(record)
    }

    async fn complete_export(&self, export_id: i64, file_key: &str, at: Timestamp) -> Result<()> {
        let query = sqlx::query(
            "UPDATE exports SET status = 'completed', file_key = $1, completed_at = $2, error = NULL,
                lease_until = NULL WHERE id = $3",
        );
        self.write_run(query.bind(file_key).bind(at.unix_micros()).bind(export_id))
            .await?;
        Ok(())
    }

    async fn fail_export(&self, export_id: i64, error: &str, at: Timestamp) -> Result<()> {
        let query = sqlx::query(
            "UPDATE exports SET status = 'failed', error = $1, completed_at = $2, lease_until = NULL
             WHERE id = $3",
        );
        self.write_run(query.bind(error).bind(at.unix_micros()).bind(export_id))
            .await?;
        Ok(())
    }

    async fn release_export(&self, export_id: i64) -> Result<()> {
        let query = sqlx::query(
            "UPDATE exports SET lease_until = NULL WHERE id = $1 AND status = 'pending'",
        );
        self.write_run(query.bind(export_id)).await?;
        Ok(())
    }

    async fn stale_export_files(
        &self,
        before: Timestamp,
        limit: i64,
    ) -> Result<Vec<(i64, String)>> {
        let query = sqlx::query(
            "SELECT id, file_key FROM exports
             WHERE status = 'completed' AND file_key IS NOT NULL AND completed_at < $1
             ORDER BY id LIMIT $2",
        );
        let query = query.bind(before.unix_micros()).bind(limit);
        all(&self.read, query, |r| Ok((r.int(0)?, r.text(1)?))).await
    }

    async fn forget_export_file(&self, export_id: i64) -> Result<()> {
        let query = sqlx::query("UPDATE exports SET file_key = NULL WHERE id = $1");
        self.write_run(query.bind(export_id)).await?;
        Ok(())
    }

    async fn export_queue_depth(&self) -> Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM exports WHERE status = 'pending'")
            .fetch_one(&self.read)
            .await
            .map_err(fault)
    }

    async fn decks_needing_thumbnails(
        &self,
        quiet_since: Timestamp,
        limit: i64,
    ) -> Result<Vec<(i64, Timestamp)>> {
        let query = sqlx::query(
            "SELECT id, updated_at FROM decks
             WHERE trashed_at IS NULL AND (thumbnail_at IS NULL OR thumbnail_at < updated_at)
               AND updated_at < $1
             ORDER BY updated_at LIMIT $2",
        );
        let query = query.bind(quiet_since.unix_micros()).bind(limit);
        all(&self.read, query, |r| Ok((r.int(0)?, time(r.int(1)?)))).await
    }

    async fn set_thumbnail(&self, deck_id: i64, token: &str, version: Timestamp) -> Result<()> {
        let query =
            sqlx::query("UPDATE decks SET thumbnail_token = $1, thumbnail_at = $2 WHERE id = $3");
        self.write_run(query.bind(token).bind(version.unix_micros()).bind(deck_id))
            .await?;
        Ok(())
    }

    async fn deck_by_thumbnail(&self, token: &str) -> Result<Option<i64>> {
        sqlx::query_scalar("SELECT id FROM decks WHERE thumbnail_token = $1")
            .bind(token)
            .fetch_optional(&self.read)
            .await
            .map_err(fault)
    }

    async fn server_secret(&self, name: &str, fresh: &str, at: Timestamp) -> Result<String> {
        let query = sqlx::query(
            "INSERT INTO server_secrets (name, value, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO NOTHING",
        );
        let mut tx = self.begin_write().await?;
        tx.run(query.bind(name).bind(fresh).bind(at.unix_micros()))
            .await?;
        // Read back in the transaction: the row is there whichever server inserted it.
        let value = tx
            .scalar(sqlx::query("SELECT value FROM server_secrets WHERE name = $1").bind(name))
            .await
            .map_err(fault)?;
        tx.commit().await?;
        Ok(value)
    }
}
