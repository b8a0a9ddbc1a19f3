//! Teams: finding and creating them, membership, the team members' shared decks, and deck
//! search across an account's own and its team's decks.

use async_trait::async_trait;
use lectern_core::Result;
use lectern_core::params::Paging;
use lectern_core::store::{
    DeckRecord, DeckSearchRecord, TeamDeckListRecord, TeamRecord, TeamStore,
};
use lectern_core::time::Timestamp;

use crate::rows::{
    Columns, DECK_SELECT, TEAM_DECK_SELECT, TEAM_SELECT, deck_row, like_pattern, team_deck_row,
    team_row,
};
use crate::{Query, SqlStore, all, fault, optional};

impl SqlStore {
    /// Runs `rows`, then `count` (the same filter without paging) for the total.
    async fn page<T>(
        &self,
        rows: (Query<'_>, fn(&sqlx::any::AnyRow) -> Result<T>),
        count: Query<'_>,
    ) -> Result<(Vec<T>, i64)> {
        let items = all(&self.read, rows.0, rows.1).await?;
        let total = optional(&self.read, count, |r| r.int(0)).await?;
        Ok((items, total.unwrap_or(0)))
    }
}

#[async_trait]
impl TeamStore for SqlStore {
    async fn get_team(&self, id: i64) -> Result<Option<TeamRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{TEAM_SELECT} WHERE id = $1"));
        optional(&self.read, sqlx::query(sql).bind(id), team_row).await
    }

    async fn find_team_by_slug(&self, slug: &str) -> Result<Option<TeamRecord>> {
        let sql = sqlx::AssertSqlSafe(format!("{TEAM_SELECT} WHERE slug = $1"));
        optional(&self.read, sqlx::query(sql).bind(slug), team_row).await
    }

    async fn find_or_create_team(
        &self,
        slug: &str,
        name: &str,
        at: Timestamp,
    ) -> Result<TeamRecord> {
        let mut tx = self.begin_write().await?;
        let query = sqlx::query(
            "INSERT INTO teams (name, slug, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (slug) DO NOTHING",
        );
        tx.run(query.bind(name).bind(slug).bind(at.unix_micros()))
            .await?;
        let sql = sqlx::AssertSqlSafe(format!("{TEAM_SELECT} WHERE slug = $1"));
        let row = tx
            .fetch_one(sqlx::query(sql).bind(slug))
            .await
            .map_err(fault)?;
        let team = team_row(&row)?;
        tx.commit().await?;
        Ok(team)
    }

    async fn set_user_team(
        &self,
        user_id: i64,
        team_id: Option<i64>,
        at: Timestamp,
    ) -> Result<bool> {
        let query = sqlx::query("UPDATE users SET team_id = $1, updated_at = $2 WHERE id = $3");
        let query = query.bind(team_id).bind(at.unix_micros()).bind(user_id);
        Ok(self.write_run(query).await? > 0)
    }

    async fn list_team_decks(
        &self,
        team_id: i64,
        public_only: bool,
        paging: Paging,
    ) -> Result<(Vec<TeamDeckListRecord>, i64)> {
        let filter = if public_only {
            "u.team_id = $1 AND d.visibility = 'all' AND d.trashed_at IS NULL"
        } else {
            "u.team_id = $1 AND d.visibility IN ('team', 'all') AND d.trashed_at IS NULL"
        };
        let sql = sqlx::AssertSqlSafe(format!(
            "{TEAM_DECK_SELECT} WHERE {filter} ORDER BY d.created_at DESC, d.id DESC LIMIT $2 OFFSET $3"
        ));
        let rows = sqlx::query(sql)
            .bind(team_id)
            .bind(paging.limit())
            .bind(paging.offset());
        let count = sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM decks d JOIN users u ON u.id = d.owner_id WHERE {filter}"
        ));
        self.page((rows, team_deck_row), sqlx::query(count).bind(team_id))
            .await
    }

    async fn search_decks(
        &self,
        owner_id: i64,
        team_id: Option<i64>,
        needle: &str,
        paging: Paging,
    ) -> Result<(Vec<DeckSearchRecord>, i64)> {
        let pattern = like_pattern(needle);
        let like = self.dialect.ilike();
        let title_match = format!("d.title {like} $1 ESCAPE '\\'");
        let filter = format!(
            "d.trashed_at IS NULL
               AND (d.owner_id = $2 OR (u.team_id = $3 AND d.visibility IN ('team', 'all')))
               AND ({title_match} OR EXISTS (SELECT 1 FROM slides s
                    WHERE s.deck_id = d.id AND s.html {like} $1 ESCAPE '\\'))"
        );
        let select =
            TEAM_DECK_SELECT.replacen(" FROM decks d", &format!(", {title_match} FROM decks d"), 1);
        let sql = sqlx::AssertSqlSafe(format!(
            "{select} WHERE {filter} ORDER BY d.created_at DESC, d.id DESC LIMIT $4 OFFSET $5"
        ));
        let rows = sqlx::query(sql)
            .bind(pattern.clone())
            .bind(owner_id)
            .bind(team_id)
            .bind(paging.limit())
            .bind(paging.offset());
        let count = sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM decks d JOIN users u ON u.id = d.owner_id WHERE {filter}"
        ));
        let count = sqlx::query(count)
            .bind(pattern)
            .bind(owner_id)
            .bind(team_id);
        let hit = |r: &sqlx::any::AnyRow| {
            Ok(DeckSearchRecord {
                deck: team_deck_row(r)?,
                title_matched: r.boolean(10)?,
            })
        };
        self.page((rows, hit), count).await
    }

    async fn get_team_deck(&self, team_id: i64, deck_id: i64) -> Result<Option<DeckRecord>> {
        let sql = sqlx::AssertSqlSafe(format!(
            "{DECK_SELECT} WHERE d.id = $1 AND u.team_id = $2
               AND d.visibility IN ('team', 'all') AND d.trashed_at IS NULL"
        ));
        optional(
            &self.read,
            sqlx::query(sql).bind(deck_id).bind(team_id),
            deck_row,
        )
        .await
    }
}
