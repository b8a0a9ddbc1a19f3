//! API keys: creating, finding by lookup part, listing, using and revoking them.

use async_trait::async_trait;
use lectern_core::Result;
use lectern_core::store::{ApiKeyInfo, ApiKeyRecord, KeyStore, NewApiKeyRecord};
use lectern_core::time::Timestamp;

use crate::rows::Columns;
use crate::{SqlStore, all, fault, optional, time};

#[async_trait]
impl KeyStore for SqlStore {
    async fn create_api_key(&self, key: NewApiKeyRecord) -> Result<i64> {
        let mut tx = self.begin_write().await?;
        let id = tx
            .scalar(
                sqlx::query(
                    "INSERT INTO api_keys (user_id, label, lookup, key_hash, created_at)
             VALUES ($1, $2, $3, $4, $5) RETURNING id",
                )
                .bind(key.user_id)
                .bind(&key.label)
                .bind(&key.lookup)
                .bind(&key.hash)
                .bind(key.created_at.unix_micros()),
            )
            .await
            .map_err(fault)?;
        tx.commit().await?;
        Ok(id)
    }

    async fn find_api_key(&self, lookup: &str) -> Result<Option<ApiKeyRecord>> {
        let query = sqlx::query(
            "SELECT k.id, k.user_id, u.username, u.team_id, k.key_hash, k.last_used_at, k.label
             FROM api_keys k JOIN users u ON u.id = k.user_id
             WHERE k.lookup = $1 AND k.revoked_at IS NULL",
        );
        optional(&self.read, query.bind(lookup), |r| {
            Ok(ApiKeyRecord {
                id: r.int(0)?,
                user_id: r.int(1)?,
                username: r.text(2)?,
                team_id: r.opt_int(3)?,
                hash: r.text(4)?,
                last_used_at: r.opt_int(5)?.map(time),
                label: r.text(6)?,
            })
        })
        .await
    }

    async fn touch_api_key(&self, key_id: i64, at: Timestamp) -> Result<()> {
        let query = sqlx::query("UPDATE api_keys SET last_used_at = $1 WHERE id = $2");
        self.write_run(query.bind(at.unix_micros()).bind(key_id))
            .await?;
        Ok(())
    }

    async fn list_api_keys(&self, user_id: i64) -> Result<Vec<ApiKeyInfo>> {
        let query = sqlx::query(
            "SELECT id, label, lookup, created_at, last_used_at FROM api_keys
             WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC",
        );
        all(&self.read, query.bind(user_id), |r| {
            Ok(ApiKeyInfo {
                id: r.int(0)?,
                label: r.text(1)?,
                lookup: r.text(2)?,
                created_at: time(r.int(3)?),
                last_used_at: r.opt_int(4)?.map(time),
            })
        })
        .await
    }

    async fn revoke_api_key(&self, user_id: i64, key_id: i64, at: Timestamp) -> Result<bool> {
        let query = sqlx::query(
            "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL",
        );
        let query = query.bind(at.unix_micros()).bind(key_id).bind(user_id);
        Ok(self.write_run(query).await? > 0)
    }
}
