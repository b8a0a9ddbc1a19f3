//! The media library: uploaded images' rows (the files are in the file store).

use async_trait::async_trait;
use lectern_core::Result;
use lectern_core::params::Paging;
use lectern_core::store::{MediaInsert, MediaRecord, MediaStore};

use crate::rows::{MEDIA_SELECT, media_row};
use crate::{SqlStore, all, fault, optional};

#[async_trait]
impl MediaStore for SqlStore {
    async fn insert_media(&self, media: MediaRecord, quota_bytes: i64) -> Result<MediaInsert> {
        let mut tx = self.begin_write().await?;
        // PostgreSQL: uploads of one account queue on its row, so the sum below stays true
        // until this transaction ends. SQLite's write transaction excludes everyone already.
        let lock = sqlx::AssertSqlSafe(format!(
            "SELECT id FROM users WHERE id = $1 {}",
            self.dialect.row_lock("FOR UPDATE")
        ));
        tx.fetch_optional(sqlx::query(lock).bind(media.owner_id))
            .await
            .map_err(fault)?;
        let same = sqlx::AssertSqlSafe(format!(
            "{MEDIA_SELECT} WHERE m.owner_id = $1 AND m.sha256 = $2"
        ));
        let existing = tx
            .optional(
                sqlx::query(same).bind(media.owner_id).bind(&media.sha256),
                media_row,
            )
            .await?;
        if let Some(existing) = existing {
            return Ok(MediaInsert::Existing(existing));
        }
        let used: i64 = tx
            .scalar(
                sqlx::query(
                    "SELECT CAST(COALESCE(SUM(bytes), 0) AS BIGINT) FROM media WHERE owner_id = $1",
                )
                .bind(media.owner_id),
            )
            .await
            .map_err(fault)?;
        if used.saturating_add(media.bytes) > quota_bytes {
            return Ok(MediaInsert::OverQuota { used });
        }
        tx.execute(
            sqlx::query(
                "INSERT INTO media (id, owner_id, name, content_type, bytes, width, height, sha256,
                file_key, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            )
            .bind(&media.id)
            .bind(media.owner_id)
            .bind(&media.name)
            .bind(&media.content_type)
            .bind(media.bytes)
            .bind(media.width)
            .bind(media.height)
            .bind(&media.sha256)
            .bind(&media.file_key)
            .bind(media.created_at.unix_micros()),
        )
        .await
        .map_err(fault)?;
        tx.commit().await?;
        Ok(MediaInsert::Created(media))
    }

    async fn find_media_by_sha(&self, owner_id: i64, sha256: &str) -> Result<Option<MediaRecord>> {
        let sql = sqlx::AssertSqlSafe(format!(
            "{MEDIA_SELECT} WHERE m.owner_id = $1 AND m.sha256 = $2"
        ));
        optional(
            &self.read,
            sqlx::query(sql).bind(owner_id).bind(sha256),
            media_row,
        )
        .await
    }

    async fn get_media(&self, owner_id: i64, media_id: &str) -> Result<Option<MediaRecord>> {
        let sql = sqlx::AssertSqlSafe(format!(
            "{MEDIA_SELECT} WHERE m.id = $1 AND m.owner_id = $2"
        ));
        optional(
            &self.read,
            sqlx::query(sql).bind(media_id).bind(owner_id),
            media_row,
        )
        .await
    }

    async fn find_media(&self, media_id: &str) -> Result<Option<MediaRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{MEDIA_SELECT} WHERE m.id = $1"));
        optional(&self.read, sqlx::query(sql).bind(media_id), media_row).await
    }

    async fn media_among(&self, owner_id: i64, media_ids: &[String]) -> Result<Vec<MediaRecord>> {
        let mut found = Vec::new();
        // In batches of bound ids (both engines take far more; this keeps statements small).
        for batch in media_ids.chunks(100) {
            let marks: Vec<String> = (0..batch.len()).map(|i| format!("${}", i + 2)).collect();
            let sql = sqlx::AssertSqlSafe(format!(
                "{MEDIA_SELECT} WHERE m.owner_id = $1 AND m.id IN ({})",
                marks.join(", ")
            ));
            let mut query = sqlx::query(sql).bind(owner_id);
            for id in batch {
                query = query.bind(id);
            }
            found.extend(all(&self.read, query, media_row).await?);
        }
        Ok(found)
    }

    async fn list_media(&self, owner_id: i64, paging: Paging) -> Result<(Vec<MediaRecord>, i64)> {
        let sql = sqlx::AssertSqlSafe(format!(
            "{MEDIA_SELECT} WHERE m.owner_id = $1 ORDER BY m.created_at DESC, m.id DESC
             LIMIT $2 OFFSET $3"
        ));
        let query = sqlx::query(sql)
            .bind(owner_id)
            .bind(paging.limit())
            .bind(paging.offset());
        let items = all(&self.read, query, media_row).await?;
        let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM media WHERE owner_id = $1")
            .bind(owner_id)
            .fetch_one(&self.read)
            .await
            .map_err(fault)?;
        Ok((items, total))
    }

    async fn delete_media(&self, owner_id: i64, media_id: &str) -> Result<Option<MediaRecord>> {
        let sql = sqlx::AssertSqlSafe(format!(
            "DELETE FROM media WHERE id = $1 AND owner_id = $2 RETURNING {}",
            crate::rows::MEDIA_COLUMNS
        ));
        let mut tx = self.begin_write().await?;
        let deleted = tx
            .optional(sqlx::query(sql).bind(media_id).bind(owner_id), media_row)
            .await?;
        tx.commit().await?;
        Ok(deleted)
    }
}
