//! A read-through cache in front of any [`Store`] for the two reads on every request's hot
//! path: the API key behind a bearer credential and the deck being read.
//!
//! Coherence: every write that goes through this wrapper invalidates what it changed before
//! it returns; writes made by other processes (admin commands, another server) reach it
//! through the backend's change watcher. SQLite polls `PRAGMA data_version` and calls
//! [`CachedStore::invalidate_all`]; PostgreSQL's triggers announce each changed deck, key
//! and user (`NOTIFY`, delivered at commit), and the watcher passes each notice to
//! [`CachedStore::apply_notice`]. While a watcher cannot hear notices (its connection was
//! lost) it sets the cache not [`live`](CachedStore::set_live): every read goes to the
//! database until it listens again. A notice reaches another server a little after the
//! change committed, so a hit there first passes the backend's [`Fence`]: proof that every
//! notice of a change committed before the read began was applied (PostgreSQL: a notice of
//! the server's own, sent after, came back), so a change that one server answered is never
//! served stale by another. Only hits are cached (an unknown key is always looked
//! up), and a read that raced with an invalidation is not stored: each fill remembers the
//! generation it started in and is dropped when an invalidation happened meanwhile.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use async_trait::async_trait;

use super::*;
use crate::deck::DeckPatch;
use crate::params::Paging;

mod others;

/// Most entries a map holds before it is emptied (a bound on memory, not an LRU).
const MAX_ENTRIES: usize = 10_000;

/// One cached map with the invalidation generation that guards its fills.
struct Map<K, V> {
    inner: RwLock<(u64, HashMap<K, V>)>,
}

impl<K: Eq + Hash, V: Clone> Map<K, V> {
    fn new() -> Self {
        Map {
            inner: RwLock::new((0, HashMap::new())),
        }
    }

    fn generation(&self) -> u64 {
        self.inner
            .read()
            .expect("cache lock is never poisoned: no panics inside")
            .0
    }

    fn get(&self, k: &K) -> Option<V> {
        self.inner
            .read()
            .expect("cache lock is never poisoned: no panics inside")
            .1
            .get(k)
            .cloned()
    }

    /// Stores `v` unless an invalidation happened since `generation` was read.
    fn fill(&self, generation: u64, k: K, v: V) {
        let mut guard = self
            .inner
            .write()
            .expect("cache lock is never poisoned: no panics inside");
        if guard.0 != generation {
            return;
        }
        if guard.1.len() >= MAX_ENTRIES {
            guard.1.clear();
        }
        guard.1.insert(k, v);
    }

    fn remove_where(&self, pred: impl Fn(&K, &V) -> bool) {
        let mut guard = self
            .inner
            .write()
            .expect("cache lock is never poisoned: no panics inside");
        guard.0 += 1;
        guard.1.retain(|k, v| !pred(k, v));
    }

    fn clear(&self) {
        self.remove_where(|_, _| true);
    }
}

/// A [`Store`] that caches API keys by lookup and decks by id; see the module docs.
pub struct CachedStore {
    inner: Arc<dyn Store>,
    keys: Map<String, ApiKeyRecord>,
    decks: Map<i64, DeckRecord>,
    /// Whether changes made elsewhere reach this cache now; when not, it is bypassed.
    live: AtomicBool,
    /// What a hit waits for where changes are announced late (several servers).
    fence: OnceLock<Arc<dyn Fence>>,
    /// Told when a deck changed (the core's live decks: their event streams).
    listeners: std::sync::Mutex<Vec<std::sync::Weak<dyn ChangeListener>>>,
}

tokio::task_local! {
    /// Whether a fence was passed during the current request (see [`request_scope`]).
    static PASSED: std::cell::Cell<bool>;
}

/// Runs one request: once a fence was passed in it, later hits in it need no other, since
/// that fence already proved every change committed before the request began was applied.
pub async fn request_scope<F: std::future::Future>(request: F) -> F::Output {
    PASSED.scope(std::cell::Cell::new(false), request).await
}

/// The proof a hit waits for; see the module docs.
#[async_trait]
pub trait Fence: Send + Sync {
    /// `true` once every change notice of a change committed before the call has been
    /// applied to the cache; `false` when that cannot be known (the hit is not used).
    async fn pass(&self) -> bool;
}

/// What a change notice names (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    Deck(i64),
    Key(i64),
    User(i64),
}

impl Notice {
    /// Reads a notice's payload (`deck:12`, `key:3`, `user:7`).
    pub fn parse(payload: &str) -> Option<Notice> {
        let (kind, id) = payload.split_once(':')?;
        let id = id.parse().ok()?;
        match kind {
            "deck" => Some(Notice::Deck(id)),
            "key" => Some(Notice::Key(id)),
            "user" => Some(Notice::User(id)),
            _ => None,
        }
    }
}

impl CachedStore {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Store>) -> Self {
        CachedStore {
            inner,
            keys: Map::new(),
            decks: Map::new(),
            live: AtomicBool::new(true),
            fence: OnceLock::new(),
            listeners: std::sync::Mutex::default(),
        }
    }

    /// Runs `tell` for every listener still there.
    fn tell(&self, tell: impl Fn(&dyn ChangeListener)) {
        let mut listeners = self.listeners.lock().expect("no panics inside");
        listeners.retain(|l| match l.upgrade() {
            Some(listener) => {
                tell(listener.as_ref());
                true
            }
            None => false,
        });
    }

    /// Makes every hit wait for `fence` first (set once, before serving).
    pub fn set_fence(&self, fence: Arc<dyn Fence>) {
        let _ = self.fence.set(fence);
    }

    /// What `lookup` finds in the cache, once it is known to be fresh; `None` for a miss or
    /// when freshness cannot be known.
    async fn fresh<V>(&self, lookup: impl Fn() -> Option<V>) -> Option<V> {
        if !self.is_live() {
            return None;
        }
        let found = lookup()?;
        match self.fence.get() {
            // Nothing to wait for: what was found is the answer (looked up once, not twice:
            // each look-up clones the entry).
            None => Some(found),
            Some(_) if PASSED.try_with(std::cell::Cell::get).unwrap_or(false) => Some(found),
            Some(fence) => {
                if !fence.pass().await {
                    return None;
                }
                let _ = PASSED.try_with(|p| p.set(true));
                // Notices applied while waiting may have removed the entry: look again.
                lookup()
            }
        }
    }

    /// Forgets everything: called when another process changed the database.
    pub fn invalidate_all(&self) {
        self.keys.clear();
        self.decks.clear();
        self.tell(|l| l.all_changed());
    }

    /// Forgets what a change notice names; a notice it cannot read forgets everything.
    pub fn apply_notice(&self, payload: &str) {
        match Notice::parse(payload) {
            Some(Notice::Deck(id)) => self.forget_deck(id),
            Some(Notice::Key(id)) => self.keys.remove_where(|_, r| r.id == id),
            Some(Notice::User(id)) => self.keys.remove_where(|_, r| r.user_id == id),
            None => self.invalidate_all(),
        }
    }

    /// A message another server published (`ServerStore::publish`).
    pub fn apply_message(&self, payload: &str) {
        self.tell(|l| l.message(payload));
    }

    /// Whether the watcher hears changes made elsewhere. Going live or not forgets
    /// everything: what was read before may have changed unheard.
    pub fn set_live(&self, live: bool) {
        self.live.store(false, Ordering::SeqCst);
        self.invalidate_all();
        if live {
            self.live.store(true, Ordering::SeqCst);
        }
    }

    fn is_live(&self) -> bool {
        self.live.load(Ordering::SeqCst)
    }

    /// Forgets deck `deck_id` after a change to it (a write here, or a notice).
    fn forget_deck(&self, deck_id: i64) {
        self.decks.remove_where(|id, _| *id == deck_id);
        self.tell(|l| l.deck_changed(deck_id));
    }
}

#[async_trait]
impl ServerStore for CachedStore {
    async fn ping(&self) -> Result<()> {
        self.inner.ping().await
    }

    fn add_change_listener(&self, listener: std::sync::Weak<dyn ChangeListener>) {
        self.listeners
            .lock()
            .expect("no panics inside")
            .push(listener);
    }

    async fn publish(&self, message: &str) -> Result<()> {
        self.inner.publish(message).await
    }

    fn shares_rate_limits(&self) -> bool {
        self.inner.shares_rate_limits()
    }

    async fn exchange_rate_usage(
        &self,
        server: &str,
        bucket: i64,
        mine: &[(String, u64)],
    ) -> Result<Vec<RateUsage>> {
        self.inner.exchange_rate_usage(server, bucket, mine).await
    }

    async fn count_attempt(
        &self,
        key: &str,
        now: Timestamp,
        new_window_end: Timestamp,
    ) -> Result<(i64, Timestamp)> {
        self.inner.count_attempt(key, now, new_window_end).await
    }

    async fn forget_attempts(&self, now: Timestamp) -> Result<()> {
        self.inner.forget_attempts(now).await
    }
}

#[async_trait]
impl AccountStore for CachedStore {
    async fn count_users(&self) -> Result<i64> {
        self.inner.count_users().await
    }

    async fn create_user(&self, user: NewUserRecord) -> Result<i64> {
        self.inner.create_user(user).await
    }

    async fn find_user_by_username(&self, username: &str) -> Result<Option<UserRecord>> {
        self.inner.find_user_by_username(username).await
    }

    async fn get_user(&self, id: i64) -> Result<Option<UserRecord>> {
        self.inner.get_user(id).await
    }

    async fn find_login(&self, username: &str) -> Result<Option<LoginRecord>> {
        self.inner.find_login(username).await
    }

    async fn reserve_login(
        &self,
        user_id: i64,
        address: &str,
        now: Timestamp,
        decide: LoginDecideFn,
    ) -> Result<Option<i64>> {
        self.inner
            .reserve_login(user_id, address, now, decide)
            .await
    }

    async fn clear_login_failures(&self, user_id: i64, address: &str) -> Result<()> {
        self.inner.clear_login_failures(user_id, address).await
    }

    async fn create_session(&self, session: SessionRecord) -> Result<()> {
        self.inner.create_session(session).await
    }

    async fn find_session(&self, id_hash: &str, now: Timestamp) -> Result<Option<SessionInfo>> {
        self.inner.find_session(id_hash, now).await
    }

    async fn delete_session(&self, id_hash: &str) -> Result<()> {
        self.inner.delete_session(id_hash).await
    }
}

#[async_trait]
impl KeyStore for CachedStore {
    async fn create_api_key(&self, key: NewApiKeyRecord) -> Result<i64> {
        self.inner.create_api_key(key).await
    }

    async fn find_api_key(&self, lookup: &str) -> Result<Option<ApiKeyRecord>> {
        if !self.is_live() {
            return self.inner.find_api_key(lookup).await;
        }
        let lookup_key = lookup.to_string();
        if let Some(hit) = self.fresh(|| self.keys.get(&lookup_key)).await {
            return Ok(Some(hit));
        }
        let generation = self.keys.generation();
        let found = self.inner.find_api_key(lookup).await?;
        if let Some(record) = &found {
            self.keys
                .fill(generation, lookup.to_string(), record.clone());
        }
        Ok(found)
    }

    async fn touch_api_key(&self, key_id: i64, at: Timestamp) -> Result<()> {
        self.inner.touch_api_key(key_id, at).await?;
        self.keys.remove_where(|_, r| r.id == key_id);
        Ok(())
    }

    async fn list_api_keys(&self, user_id: i64) -> Result<Vec<ApiKeyInfo>> {
        self.inner.list_api_keys(user_id).await
    }

    async fn revoke_api_key(&self, user_id: i64, key_id: i64, at: Timestamp) -> Result<bool> {
        let result = self.inner.revoke_api_key(user_id, key_id, at).await;
        // A revoked key must answer 401 at once.
        self.keys.remove_where(|_, r| r.id == key_id);
        result
    }
}

#[async_trait]
impl DeckStore for CachedStore {
    async fn list_decks(
        &self,
        owner_id: i64,
        kind: DeckListKind,
        paging: Paging,
    ) -> Result<(Vec<DeckListRecord>, i64)> {
        self.inner.list_decks(owner_id, kind, paging).await
    }

    async fn create_deck(&self, deck: NewDeckRecord, author: &Author) -> Result<DeckRecord> {
        self.inner.create_deck(deck, author).await
    }

    async fn get_deck(&self, owner_id: i64, deck_id: i64) -> Result<Option<DeckRecord>> {
        if !self.is_live() {
            return self.inner.get_deck(owner_id, deck_id).await;
        }
        if let Some(hit) = self.fresh(|| self.decks.get(&deck_id)).await {
            return Ok((hit.owner_id == owner_id).then_some(hit));
        }
        let generation = self.decks.generation();
        let found = self.inner.get_deck(owner_id, deck_id).await?;
        if let Some(record) = &found {
            self.decks.fill(generation, deck_id, record.clone());
        }
        Ok(found)
    }

    async fn find_deck_by_slug(&self, username: &str, slug: &str) -> Result<Option<DeckRecord>> {
        self.inner.find_deck_by_slug(username, slug).await
    }

    async fn find_deck(&self, deck_id: i64) -> Result<Option<DeckRecord>> {
        self.inner.find_deck(deck_id).await
    }

    async fn update_deck(
        &self,
        owner_id: i64,
        deck_id: i64,
        patch: &DeckPatch,
        now: Timestamp,
        ctx: &WriteContext,
    ) -> Result<Option<DeckRecord>> {
        let result = self
            .inner
            .update_deck(owner_id, deck_id, patch, now, ctx)
            .await;
        self.forget_deck(deck_id);
        result
    }

    async fn set_deck_trashed(
        &self,
        owner_id: i64,
        deck_id: i64,
        trashed_at: Option<Timestamp>,
        author: &Author,
    ) -> Result<bool> {
        let result = self
            .inner
            .set_deck_trashed(owner_id, deck_id, trashed_at, author)
            .await;
        self.forget_deck(deck_id);
        result
    }
}

#[async_trait]
impl SlideStore for CachedStore {
    async fn deck_slides_html(
        &self,
        deck_id: i64,
        first: Option<usize>,
    ) -> Result<Vec<SlideHtmlRecord>> {
        self.inner.deck_slides_html(deck_id, first).await
    }

    async fn slide_order(&self, deck_id: i64) -> Result<SlideOrder> {
        self.inner.slide_order(deck_id).await
    }

    async fn slide_summaries(
        &self,
        deck_id: i64,
        ids: &[String],
    ) -> Result<Vec<SlideSummaryRecord>> {
        self.inner.slide_summaries(deck_id, ids).await
    }

    async fn get_slide(&self, deck_id: i64, slide_id: &str) -> Result<Option<SlideRecord>> {
        self.inner.get_slide(deck_id, slide_id).await
    }

    async fn edit_slides(
        &self,
        owner_id: i64,
        deck_id: i64,
        now: Timestamp,
        edit: SlideEditor,
        operation: Operation,
        ctx: &WriteContext,
    ) -> Result<Option<SlideEdit>> {
        let result = self
            .inner
            .edit_slides(owner_id, deck_id, now, edit, operation, ctx)
            .await;
        self.forget_deck(deck_id);
        result
    }
}

#[async_trait]
impl RevisionStore for CachedStore {
    async fn revision_operations(
        &self,
        deck_id: i64,
        after: i64,
        before: i64,
    ) -> Result<Vec<String>> {
        self.inner.revision_operations(deck_id, after, before).await
    }

    async fn revisions_after(
        &self,
        deck_id: i64,
        after: i64,
        limit: i64,
    ) -> Result<(Vec<RevisionRecord>, Option<i64>)> {
        self.inner.revisions_after(deck_id, after, limit).await
    }

    async fn list_revisions(
        &self,
        deck_id: i64,
        slide_id: Option<&str>,
        paging: Paging,
    ) -> Result<(Vec<RevisionRecord>, i64)> {
        self.inner.list_revisions(deck_id, slide_id, paging).await
    }

    async fn revision_snapshot(
        &self,
        deck_id: i64,
        revision: i64,
    ) -> Result<Option<RevisionSnapshot>> {
        self.inner.revision_snapshot(deck_id, revision).await
    }

    async fn restore_deck(
        &self,
        owner_id: i64,
        deck_id: i64,
        plan: RestoreFn,
        now: Timestamp,
        ctx: &WriteContext,
    ) -> Result<Option<DeckRecord>> {
        let result = self
            .inner
            .restore_deck(owner_id, deck_id, plan, now, ctx)
            .await;
        self.forget_deck(deck_id);
        result
    }

    async fn prune_history(&self, before: Timestamp, keep: i64) -> Result<u64> {
        self.inner.prune_history(before, keep).await
    }
}

#[cfg(test)]
mod tests {
    use super::Notice;

    #[test]
    fn notices_name_a_deck_a_key_or_a_user() {
        assert_eq!(Notice::parse("deck:12"), Some(Notice::Deck(12)));
        assert_eq!(Notice::parse("key:3"), Some(Notice::Key(3)));
        assert_eq!(Notice::parse("user:7"), Some(Notice::User(7)));
        for bad in ["", "deck", "deck:", "deck:x", "slide:1", "deck:1:2"] {
            assert_eq!(Notice::parse(bad), None, "{bad:?}");
        }
    }
}
