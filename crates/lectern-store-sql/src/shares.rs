//! Share links: creating one (the core decides whether the deck has room), listing,
//! revoking, opening one by id and counting its views.

use async_trait::async_trait;
use lectern_core::Result;
use lectern_core::store::{NewShareRecord, ShareAccess, ShareRecord, ShareRoomFn, ShareStore};
use lectern_core::time::Timestamp;

use crate::rows::{Columns, NOTIFY_ON_VIEW, SHARE_SELECT, share_row};
use crate::{SqlStore, all, fault, optional, time};

#[async_trait]
impl ShareStore for SqlStore {
    async fn create_share(
        &self,
        owner_id: i64,
        deck_id: i64,
        share: NewShareRecord,
        room: ShareRoomFn,
    ) -> Result<Option<ShareRecord>> {
        let mut tx = self.begin_write().await?;
        if !self.lock_active_deck(&mut tx, owner_id, deck_id).await? {
            return Ok(None);
        }
        let live: i64 = tx
            .scalar(
                // Links that still work hold places; revoked and expired ones do not.
                sqlx::query(
                    "SELECT COUNT(*) FROM share_links WHERE deck_id = $1 AND revoked_at IS NULL
                       AND (expires_at IS NULL OR expires_at > $2)",
                )
                .bind(deck_id)
                .bind(share.created_at.unix_micros()),
            )
            .await
            .map_err(fault)?;
        room(live)?;
        let id: i64 = tx.scalar(sqlx::query(
            "INSERT INTO share_links (deck_id, name, token, token_hash, password_hash, expires_at,
                notify_on_view, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
        )
        .bind(deck_id)
        .bind(&share.name)
        .bind(&share.token)
        .bind(&share.token_hash)
        .bind(&share.password_hash)
        .bind(share.expires_at.map(Timestamp::unix_micros))
        .bind(share.notify_on_view)
        .bind(share.created_at.unix_micros()))
        .await
        .map_err(fault)?;
        let sql = sqlx::AssertSqlSafe(format!("{SHARE_SELECT} WHERE id = $1"));
        let record = tx.optional(sqlx::query(sql).bind(id), share_row).await?;
        tx.commit().await?;
        Ok(record)
    }

    async fn list_shares(&self, deck_id: i64) -> Result<Vec<ShareRecord>> {
        let sql = sqlx::AssertSqlSafe(format!(
            "{SHARE_SELECT} WHERE deck_id = $1 AND revoked_at IS NULL
             ORDER BY created_at DESC, id DESC"
        ));
        all(&self.read, sqlx::query(sql).bind(deck_id), share_row).await
    }

    async fn revoke_share(&self, deck_id: i64, share_id: i64, at: Timestamp) -> Result<bool> {
        let query = sqlx::query(
            "UPDATE share_links SET revoked_at = $1
             WHERE id = $2 AND deck_id = $3 AND revoked_at IS NULL",
        );
        let query = query.bind(at.unix_micros()).bind(share_id).bind(deck_id);
        Ok(self.write_run(query).await? > 0)
    }

    async fn find_share_access(&self, share_id: i64) -> Result<Option<ShareAccess>> {
        let sql = format!(
            "SELECT id, deck_id, name, token, password_hash, expires_at, revoked_at,
                {NOTIFY_ON_VIEW} FROM share_links WHERE id = $1"
        );
        let query = sqlx::query(sqlx::AssertSqlSafe(sql));
        optional(&self.read, query.bind(share_id), |r| {
            Ok(ShareAccess {
                id: r.int(0)?,
                deck_id: r.int(1)?,
                name: r.text(2)?,
                token: r.text(3)?,
                password_hash: r.opt_text(4)?,
                expires_at: r.opt_int(5)?.map(time),
                revoked_at: r.opt_int(6)?.map(time),
                notify_on_view: r.boolean(7)?,
            })
        })
        .await
    }

    async fn count_share_view(&self, share_id: i64, at: Timestamp) -> Result<i64> {
        let mut tx = self.begin_write().await?;
        let count = tx
            .scalar(
                sqlx::query(
                    "UPDATE share_links SET view_count = view_count + 1,
                first_viewed_at = COALESCE(first_viewed_at, $1)
             WHERE id = $2 RETURNING view_count",
                )
                .bind(at.unix_micros())
                .bind(share_id),
            )
            .await
            .map_err(fault)?;
        tx.commit().await?;
        Ok(count)
    }
}
