//! Accounts (users), sign-in data and web sessions.

use async_trait::async_trait;
use lectern_core::store::LoginRecord;
use lectern_core::store::{AccountStore, NewUserRecord, SessionInfo, SessionRecord, UserRecord};
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
        let query = sqlx::query(
            "SELECT id, password_hash, failed_logins, last_failed_login_at FROM users
             WHERE username = $1",
        );
        optional(&self.read, query.bind(username), |r| {
            Ok(LoginRecord {
                user_id: r.int(0)?,
                password_hash: r.opt_text(1)?,
                failed_logins: r.int(2)?,
                last_failed_login_at: r.opt_int(3)?.map(time),
            })
        })
        .await
    }

    async fn set_login_failure(&self, user_id: i64, at: Option<Timestamp>) -> Result<()> {
        let query = match at {
            Some(at) => sqlx::query(
                "UPDATE users SET failed_logins = failed_logins + 1, last_failed_login_at = $1
                 WHERE id = $2",
            )
            .bind(at.unix_micros()),
            None => sqlx::query(
                "UPDATE users SET failed_logins = 0, last_failed_login_at = NULL WHERE id = $1",
            ),
        };
        self.write_run(query.bind(user_id)).await?;
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
