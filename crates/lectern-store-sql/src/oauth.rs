//! OAuth: clients, authorization codes, and the grants and tokens they lead to. Exchanging
//! a code and rotating a refresh token each read and lock the stored state, ask the core
//! (`CodeDecideFn`, `RefreshDecideFn`) and carry out its [`TokenWrite`] in one write
//! transaction; what is allowed (reuse, expiry, client, scope) is decided there, not here.

use async_trait::async_trait;
use lectern_core::store::{
    AccessTokenRecord, ClientOrigin, CodeDecideFn, CodeRecord, CodeState, GrantRecord,
    NewOAuthClientRecord, NewTokenRecord, OAuthClientRecord, OAuthStore, RefreshDecideFn,
    RefreshState, TokenWrite,
};
use lectern_core::time::Timestamp;
use lectern_core::{Error, Result};

use crate::rows::Columns;
use crate::{SqlStore, Tx, fault, optional, time};

/// Stores one token of a grant.
async fn insert_token(tx: &mut Tx, grant_id: i64, token: &NewTokenRecord) -> Result<()> {
    let query = sqlx::query(
        "INSERT INTO oauth_tokens (token_hash, grant_id, kind, created_at, expires_at, scope)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&token.token_hash)
    .bind(grant_id)
    .bind(token.kind)
    .bind(token.created_at.unix_micros())
    .bind(token.expires_at.unix_micros())
    .bind(token.scope.as_deref());
    tx.run(query).await?;
    Ok(())
}

/// Revokes a grant and all its tokens.
async fn revoke_grant_in(tx: &mut Tx, grant_id: i64, at: Timestamp) -> Result<()> {
    for sql in [
        "UPDATE oauth_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
        "UPDATE oauth_tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL",
    ] {
        tx.run(sqlx::query(sql).bind(at.unix_micros()).bind(grant_id))
            .await?;
    }
    Ok(())
}

#[async_trait]
impl OAuthStore for SqlStore {
    async fn create_oauth_client(&self, client: NewOAuthClientRecord) -> Result<()> {
        let uris = serde_json::to_string(&client.redirect_uris).map_err(Error::internal)?;
        let query = sqlx::query(
            "INSERT INTO oauth_clients (client_id, name, secret_hash, redirect_uris, created_at,
                origin)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(client.client_id)
        .bind(client.name)
        .bind(client.secret_hash)
        .bind(uris)
        .bind(client.created_at.unix_micros())
        .bind(client.origin.as_str());
        self.write_run(query).await?;
        Ok(())
    }

    async fn find_oauth_client(&self, client_id: &str) -> Result<Option<OAuthClientRecord>> {
        let query = sqlx::query(
            "SELECT client_id, name, secret_hash, redirect_uris, origin FROM oauth_clients
             WHERE client_id = $1",
        );
        optional(&self.read, query.bind(client_id), |r| {
            Ok(OAuthClientRecord {
                client_id: r.text(0)?,
                name: r.text(1)?,
                secret_hash: r.opt_text(2)?,
                redirect_uris: serde_json::from_str(&r.text(3)?).map_err(Error::internal)?,
                origin: ClientOrigin::parse(&r.text(4)?),
            })
        })
        .await
    }

    async fn create_code(&self, code: CodeRecord) -> Result<()> {
        let query = sqlx::query(
            "INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, scope,
                resource, code_challenge, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(code.code_hash)
        .bind(code.client_id)
        .bind(code.user_id)
        .bind(code.redirect_uri)
        .bind(code.scope)
        .bind(code.resource)
        .bind(code.code_challenge)
        .bind(code.created_at.unix_micros())
        .bind(code.expires_at.unix_micros());
        self.write_run(query).await?;
        Ok(())
    }

    async fn exchange_code(
        &self,
        code_hash: &str,
        now: Timestamp,
        decide: CodeDecideFn,
    ) -> Result<Option<CodeState>> {
        let mut tx = self.begin_write().await?;
        let sql = format!(
            "SELECT client_id, user_id, redirect_uri, scope, resource, code_challenge,
                created_at, expires_at, used_at, grant_id
             FROM oauth_codes WHERE code_hash = $1{}",
            self.dialect.row_lock(" FOR UPDATE")
        );
        let query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(code_hash);
        let Some(row) = tx.fetch_optional(query).await.map_err(fault)? else {
            return Ok(None);
        };
        let mut state = CodeState {
            code: CodeRecord {
                code_hash: code_hash.to_string(),
                client_id: row.text(0)?,
                user_id: row.int(1)?,
                redirect_uri: row.text(2)?,
                scope: row.text(3)?,
                resource: row.text(4)?,
                code_challenge: row.opt_text(5)?,
                created_at: time(row.int(6)?),
                expires_at: time(row.int(7)?),
            },
            used_at: row.opt_int(8)?.map(time),
            grant_id: row.opt_int(9)?,
        };
        let use_up = sqlx::query("UPDATE oauth_codes SET used_at = $1 WHERE code_hash = $2")
            .bind(now.unix_micros())
            .bind(code_hash);
        match decide(&state) {
            TokenWrite::Issue(tokens) => {
                tx.run(use_up).await?;
                let code = &state.code;
                let grant_id: i64 = tx.scalar(sqlx::query(
                    "INSERT INTO oauth_grants (client_id, user_id, scope, resource, created_at)
                     VALUES ($1, $2, $3, $4, $5) RETURNING id",
                )
                .bind(&code.client_id)
                .bind(code.user_id)
                .bind(&code.scope)
                .bind(&code.resource)
                .bind(now.unix_micros()))
                .await
                .map_err(fault)?;
                let query =
                    sqlx::query("UPDATE oauth_codes SET grant_id = $1 WHERE code_hash = $2");
                tx.run(query.bind(grant_id).bind(code_hash)).await?;
                for token in tokens.iter() {
                    insert_token(&mut tx, grant_id, token).await?;
                }
                state.grant_id = Some(grant_id);
            }
            TokenWrite::UseUp => {
                tx.run(use_up).await?;
            }
            TokenWrite::RevokeGrant => {
                if let Some(grant_id) = state.grant_id {
                    revoke_grant_in(&mut tx, grant_id, now).await?;
                }
            }
            TokenWrite::Nothing => {}
        }
        tx.commit().await?;
        Ok(Some(state))
    }

    async fn find_access_token(
        &self,
        token_hash: &str,
        now: Timestamp,
    ) -> Result<Option<AccessTokenRecord>> {
        let query = sqlx::query(
            "SELECT t.id, g.user_id, u.username, u.team_id, COALESCE(t.scope, g.scope), g.resource,
                t.expires_at, g.id, c.name
             FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
             JOIN users u ON u.id = g.user_id
             JOIN oauth_clients c ON c.client_id = g.client_id
             WHERE t.token_hash = $1 AND t.kind = 'access' AND t.revoked_at IS NULL
               AND g.revoked_at IS NULL AND t.expires_at > $2",
        );
        optional(
            &self.read,
            query.bind(token_hash).bind(now.unix_micros()),
            |r| {
                Ok(AccessTokenRecord {
                    token_id: r.int(0)?,
                    user_id: r.int(1)?,
                    username: r.text(2)?,
                    team_id: r.opt_int(3)?,
                    scope: r.text(4)?,
                    resource: r.text(5)?,
                    expires_at: time(r.int(6)?),
                    grant_id: r.int(7)?,
                    client_name: r.text(8)?,
                })
            },
        )
        .await
    }

    async fn rotate_refresh_token(
        &self,
        token_hash: &str,
        now: Timestamp,
        decide: RefreshDecideFn,
    ) -> Result<Option<RefreshState>> {
        let mut tx = self.begin_write().await?;
        let sql = format!(
            "SELECT t.id, t.used_at, t.revoked_at, t.expires_at, g.id, g.client_id, g.user_id,
                g.scope, g.resource, g.revoked_at
             FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
             WHERE t.token_hash = $1 AND t.kind = 'refresh'{}",
            self.dialect.row_lock(" FOR UPDATE OF t")
        );
        let query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(token_hash);
        let Some(row) = tx.fetch_optional(query).await.map_err(fault)? else {
            return Ok(None);
        };
        let state = RefreshState {
            token_id: row.int(0)?,
            grant: GrantRecord {
                id: row.int(4)?,
                client_id: row.text(5)?,
                user_id: row.int(6)?,
                scope: row.text(7)?,
                resource: row.text(8)?,
            },
            used_at: row.opt_int(1)?.map(time),
            revoked: row.opt_int(2)?.is_some() || row.opt_int(9)?.is_some(),
            expires_at: time(row.int(3)?),
        };
        match decide(&state) {
            TokenWrite::Issue(tokens) => {
                let query = sqlx::query("UPDATE oauth_tokens SET used_at = $1 WHERE id = $2");
                tx.run(query.bind(now.unix_micros()).bind(state.token_id))
                    .await?;
                for token in tokens.iter() {
                    insert_token(&mut tx, state.grant.id, token).await?;
                }
            }
            TokenWrite::RevokeGrant => revoke_grant_in(&mut tx, state.grant.id, now).await?,
            TokenWrite::UseUp => {
                let query = sqlx::query("UPDATE oauth_tokens SET used_at = $1 WHERE id = $2");
                tx.run(query.bind(now.unix_micros()).bind(state.token_id))
                    .await?;
            }
            TokenWrite::Nothing => {}
        }
        tx.commit().await?;
        Ok(Some(state))
    }

    async fn revoke_grant(&self, grant_id: i64, at: Timestamp) -> Result<()> {
        let mut tx = self.begin_write().await?;
        revoke_grant_in(&mut tx, grant_id, at).await?;
        tx.commit().await
    }

    async fn revoke_token(&self, token_hash: &str, client_id: &str, at: Timestamp) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let query = sqlx::query(
            "SELECT t.id, t.kind, g.id, g.client_id FROM oauth_tokens t
             JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1",
        );
        let row = tx
            .fetch_optional(query.bind(token_hash))
            .await
            .map_err(fault)?;
        if let Some(row) = row
            && row.text(3)? == client_id
        {
            if row.text(1)? == "refresh" {
                revoke_grant_in(&mut tx, row.int(2)?, at).await?;
            } else {
                let query = sqlx::query("UPDATE oauth_tokens SET revoked_at = $1 WHERE id = $2");
                tx.run(query.bind(at.unix_micros()).bind(row.int(0)?))
                    .await?;
            }
        }
        tx.commit().await
    }
}
