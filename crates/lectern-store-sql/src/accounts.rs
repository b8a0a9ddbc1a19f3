//! Accounts (users), sign-in data and web sessions.

use async_trait::async_trait;
use lectern_core::store::{AccountStore, NewUserRecord, SessionInfo, SessionRecord, UserRecord};
use lectern_core::store::{LoginDecideFn, LoginFailures, LoginRecord};
use lectern_core::time::Timestamp;
use lectern_core::{Error, Result};

use crate::rows::{Columns, USER_SELECT, user_row};
use crate::{SqlStore, fault, is_unique_violation, optional, time};

#[async_trait]
impl AccountStore for SqlStore {
    async fn count_users(&self) -> Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM users")
            .fetch_one(&self.read)
            .await
            .map_err(fault)
    }

    async fn create_user(&self, user: NewUserRecord) -> Result<i64> {
        let at = user.created_at.unix_micros();
        let mut tx = self.begin_write().await?;
        let result = tx.scalar(sqlx::query(
            "INSERT INTO users (username, email, name, password_hash, team_id, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(&user.username)
        .bind(&user.email)
        .bind(&user.name)
        .bind(&user.password_hash)
        .bind(user.team_id)
        .bind(at)
        .bind(at))
        .await;
        match result {
            Ok(id) => {
                tx.commit().await?;
                Ok(id)
            }
            Err(e) if is_unique_violation(&e) => Err(Error::Conflict(format!(
                "the username {:?} is already taken",
                user.username
            ))),
            Err(e) => Err(fault(e)),
        }
    }

    async fn find_user_by_username(&self, username: &str) -> Result<Option<UserRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{USER_SELECT} WHERE username = $1"));
        optional(&self.read, sqlx::query(sql).bind(username), user_row).await
    }

    async fn get_user(&self, id: i64) -> Result<Option<UserRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{USER_SELECT} WHERE id = $1"));
        optional(&self.read, sqlx::query(sql).bind(id), user_row).await
    }

    async fn find_login(&self, username: &str) -> Result<Option<LoginRecord>> {
        let query = sqlx::query("SELECT id, password_hash FROM users WHERE username = $1");
        optional(&self.read, query.bind(username), |r| {
            Ok(LoginRecord {
                user_id: r.int(0)?,
                password_hash: r.opt_text(1)?,
            })
        })
        .await
    }

    async fn reserve_login(
        &self,
        user_id: i64,
        address: &str,
        now: Timestamp,
        decide: LoginDecideFn,
    ) -> Result<Option<i64>> {
        let mut tx = self.begin_write().await?;
        // The row exists before it is locked, so parallel tries queue on the same row.
        tx.run(
            sqlx::query(
                "INSERT INTO login_failures (user_id, address, failures) VALUES ($1, $2, 0)
                 ON CONFLICT (user_id, address) DO NOTHING",
            )
            .bind(user_id)
            .bind(address),
        )
        .await?;
        let sql = format!(
            "SELECT failures, last_failed_at FROM login_failures
             WHERE user_id = $1 AND address = $2{}",
            self.dialect.row_lock(" FOR UPDATE")
        );
        let query = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(user_id)
            .bind(address);
        let found = tx
            .optional(query, |r| {
                Ok(LoginFailures {
                    failures: r.int(0)?,
                    last_failed_at: r.opt_int(1)?.map(time),
                })
            })
            .await?
            .unwrap_or_default();
        let verdict = decide(found);
        if verdict.is_none() {
            tx.run(
                sqlx::query(
                    "UPDATE login_failures SET failures = failures + 1, last_failed_at = $1
                     WHERE user_id = $2 AND address = $3",
                )
                .bind(now.unix_micros())
                .bind(user_id)
                .bind(address),
            )
            .await?;
        }
        tx.commit().await?;
        Ok(verdict)
    }

    async fn clear_login_failures(&self, user_id: i64, address: &str) -> Result<()> {
        let query = sqlx::query("DELETE FROM login_failures WHERE user_id = $1 AND address = $2")
            .bind(user_id)
            .bind(address);
        self.write_run(query).await?;
        Ok(())
    }

    async fn create_session(&self, session: SessionRecord) -> Result<()> {
        let query = sqlx::query(
            "INSERT INTO web_sessions (id_hash, user_id, csrf_token, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(session.id_hash)
        .bind(session.user_id)
        .bind(session.csrf_token)
        .bind(session.created_at.unix_micros())
        .bind(session.expires_at.unix_micros());
        self.write_run(query).await?;
        Ok(())
    }

    async fn find_session(&self, id_hash: &str, now: Timestamp) -> Result<Option<SessionInfo>> {
        let query = sqlx::query(
            "SELECT s.user_id, u.username, u.team_id, s.csrf_token, s.expires_at
             FROM web_sessions s JOIN users u ON u.id = s.user_id
             WHERE s.id_hash = $1 AND s.expires_at > $2",
        );
        let query = query.bind(id_hash).bind(now.unix_micros());
        optional(&self.read, query, |r| {
            Ok(SessionInfo {
                user_id: r.int(0)?,
                username: r.text(1)?,
                team_id: r.opt_int(2)?,
                csrf_token: r.text(3)?,
                expires_at: time(r.int(4)?),
            })
        })
        .await
    }

    async fn delete_session(&self, id_hash: &str) -> Result<()> {
        let query = sqlx::query("DELETE FROM web_sessions WHERE id_hash = $1");
        self.write_run(query.bind(id_hash)).await?;
        Ok(())
    }
}
