//! The stores the cache keeps nothing of (shares, media, exports, OAuth, teams, dumps):
//! their calls pass through, and the writes among them that change a cached deck or key
//! forget it.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl ShareStore for CachedStore {
    async fn create_share(
        &self,
        owner_id: i64,
        deck_id: i64,
        share: NewShareRecord,
        room: ShareRoomFn,
    ) -> Result<Option<ShareRecord>> {
        self.inner
            .create_share(owner_id, deck_id, share, room)
            .await
    }

    async fn list_shares(&self, deck_id: i64) -> Result<Vec<ShareRecord>> {
        self.inner.list_shares(deck_id).await
    }

    async fn revoke_share(&self, deck_id: i64, share_id: i64, at: Timestamp) -> Result<bool> {
        self.inner.revoke_share(deck_id, share_id, at).await
    }

    async fn find_share_access(&self, share_id: i64) -> Result<Option<ShareAccess>> {
        self.inner.find_share_access(share_id).await
    }

    async fn count_share_view(&self, share_id: i64, at: Timestamp) -> Result<i64> {
        self.inner.count_share_view(share_id, at).await
    }
}

#[async_trait]
impl MediaStore for CachedStore {
    async fn insert_media(&self, media: MediaRecord, quota_bytes: i64) -> Result<MediaInsert> {
        self.inner.insert_media(media, quota_bytes).await
    }

    async fn find_media_by_sha(&self, owner_id: i64, sha256: &str) -> Result<Option<MediaRecord>> {
        self.inner.find_media_by_sha(owner_id, sha256).await
    }

    async fn get_media(&self, owner_id: i64, media_id: &str) -> Result<Option<MediaRecord>> {
        self.inner.get_media(owner_id, media_id).await
    }

    async fn find_media(&self, media_id: &str) -> Result<Option<MediaRecord>> {
        self.inner.find_media(media_id).await
    }

    async fn media_among(&self, owner_id: i64, media_ids: &[String]) -> Result<Vec<MediaRecord>> {
        self.inner.media_among(owner_id, media_ids).await
    }

    async fn list_media(&self, owner_id: i64, paging: Paging) -> Result<(Vec<MediaRecord>, i64)> {
        self.inner.list_media(owner_id, paging).await
    }

    async fn delete_media(&self, owner_id: i64, media_id: &str) -> Result<Option<MediaRecord>> {
        self.inner.delete_media(owner_id, media_id).await
    }
}

#[async_trait]
impl ExportStore for CachedStore {
    async fn create_export(
        &self,
        owner_id: i64,
        deck_id: i64,
        format: &str,
        options: &str,
        at: Timestamp,
    ) -> Result<Option<ExportRecord>> {
        self.inner
            .create_export(owner_id, deck_id, format, options, at)
            .await
    }

    async fn get_export(
        &self,
        owner_id: i64,
        deck_id: i64,
        export_id: i64,
    ) -> Result<Option<ExportRecord>> {
        self.inner.get_export(owner_id, deck_id, export_id).await
    }

    async fn find_export(&self, export_id: i64) -> Result<Option<ExportRecord>> {
        self.inner.find_export(export_id).await
    }

    async fn claim_export(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        max_attempts: i64,
        per_account: i64,
    ) -> Result<Option<ExportRecord>> {
        self.inner
            .claim_export(now, lease_until, max_attempts, per_account)
            .await
    }

    async fn complete_export(&self, export_id: i64, file_key: &str, at: Timestamp) -> Result<()> {
        self.inner.complete_export(export_id, file_key, at).await
    }

    async fn fail_export(&self, export_id: i64, error: &str, at: Timestamp) -> Result<()> {
        self.inner.fail_export(export_id, error, at).await
    }

    async fn release_export(&self, export_id: i64) -> Result<()> {
        self.inner.release_export(export_id).await
    }

    async fn stale_export_files(
        &self,
        before: Timestamp,
        limit: i64,
    ) -> Result<Vec<(i64, String)>> {
        self.inner.stale_export_files(before, limit).await
    }

    async fn forget_export_file(&self, export_id: i64) -> Result<()> {
        self.inner.forget_export_file(export_id).await
    }

    async fn export_queue_depth(&self) -> Result<i64> {
        self.inner.export_queue_depth().await
    }

    async fn decks_needing_thumbnails(
        &self,
        quiet_since: Timestamp,
        limit: i64,
    ) -> Result<Vec<(i64, Timestamp)>> {
        self.inner
            .decks_needing_thumbnails(quiet_since, limit)
            .await
    }

    async fn set_thumbnail(&self, deck_id: i64, token: &str, version: Timestamp) -> Result<()> {
        let result = self.inner.set_thumbnail(deck_id, token, version).await;
        self.forget_deck(deck_id);
        result
    }

    async fn deck_by_thumbnail(&self, token: &str) -> Result<Option<i64>> {
        self.inner.deck_by_thumbnail(token).await
    }

    async fn server_secret(&self, name: &str, fresh: &str, at: Timestamp) -> Result<String> {
        self.inner.server_secret(name, fresh, at).await
    }
}

#[async_trait]
impl OAuthStore for CachedStore {
    async fn create_oauth_client(&self, client: NewOAuthClientRecord) -> Result<()> {
        self.inner.create_oauth_client(client).await
    }

    async fn find_oauth_client(&self, client_id: &str) -> Result<Option<OAuthClientRecord>> {
        self.inner.find_oauth_client(client_id).await
    }

    async fn create_code(&self, code: CodeRecord) -> Result<()> {
        self.inner.create_code(code).await
    }

    async fn exchange_code(
        &self,
        code_hash: &str,
        now: Timestamp,
        decide: CodeDecideFn,
    ) -> Result<Option<CodeState>> {
        self.inner.exchange_code(code_hash, now, decide).await
    }

    async fn find_access_token(
        &self,
        token_hash: &str,
        now: Timestamp,
    ) -> Result<Option<AccessTokenRecord>> {
        self.inner.find_access_token(token_hash, now).await
    }

    async fn rotate_refresh_token(
        &self,
        token_hash: &str,
        now: Timestamp,
        decide: RefreshDecideFn,
    ) -> Result<Option<RefreshState>> {
        self.inner
            .rotate_refresh_token(token_hash, now, decide)
            .await
    }

    async fn revoke_grant(&self, grant_id: i64, at: Timestamp) -> Result<()> {
        self.inner.revoke_grant(grant_id, at).await
    }

    async fn revoke_token(&self, token_hash: &str, client_id: &str, at: Timestamp) -> Result<()> {
        self.inner.revoke_token(token_hash, client_id, at).await
    }
}

#[async_trait]
impl TeamStore for CachedStore {
    async fn get_team(&self, id: i64) -> Result<Option<TeamRecord>> {
        self.inner.get_team(id).await
    }

    async fn find_team_by_slug(&self, slug: &str) -> Result<Option<TeamRecord>> {
        self.inner.find_team_by_slug(slug).await
    }

    async fn find_or_create_team(
        &self,
        slug: &str,
        name: &str,
        at: Timestamp,
    ) -> Result<TeamRecord> {
        self.inner.find_or_create_team(slug, name, at).await
    }

    async fn set_user_team(
        &self,
        user_id: i64,
        team_id: Option<i64>,
        at: Timestamp,
    ) -> Result<bool> {
        let result = self.inner.set_user_team(user_id, team_id, at).await;
        // Cached keys carry the account's team: leaving a team takes effect at once.
        self.keys.clear();
        result
    }

    async fn list_team_decks(
        &self,
        team_id: i64,
        public_only: bool,
        paging: Paging,
    ) -> Result<(Vec<TeamDeckListRecord>, i64)> {
        self.inner
            .list_team_decks(team_id, public_only, paging)
            .await
    }

    async fn search_decks(
        &self,
        owner_id: i64,
        team_id: Option<i64>,
        needle: &str,
        paging: Paging,
    ) -> Result<(Vec<DeckSearchRecord>, i64)> {
        self.inner
            .search_decks(owner_id, team_id, needle, paging)
            .await
    }

    async fn get_team_deck(&self, team_id: i64, deck_id: i64) -> Result<Option<DeckRecord>> {
        self.inner.get_team_deck(team_id, deck_id).await
    }
}

#[async_trait]
impl DumpStore for CachedStore {
    async fn count_rows(&self, table: &'static dump::TableSpec) -> Result<i64> {
        self.inner.count_rows(table).await
    }

    async fn export_rows(&self, table: &'static dump::TableSpec) -> Result<Vec<dump::Row>> {
        self.inner.export_rows(table).await
    }

    async fn import_rows(&self, table: &'static dump::TableSpec, rows: &[dump::Row]) -> Result<()> {
        let result = self.inner.import_rows(table, rows).await;
        self.invalidate_all();
        result
    }

    async fn finish_import(&self) -> Result<()> {
        self.inner.finish_import().await
    }
}
