//! A deck's live events (`GET /v1/decks/{deck_id}/events`): one `revision` event per new
//! revision, whoever made it and on whichever server; and where its presenter is, for the
//! audience pages that follow (`PresenterState`, passed between servers as messages).
//!
//! The store tells [`LiveDecks`] when a deck changed ([`ChangeListener`]: after a write
//! here, or when another server's change notice arrives). Per deck with listeners, one pump
//! task reads the revisions made since the last it sent and broadcasts them, so a write costs
//! one read however many listen. Each stream ([`DeckStream`]) subscribes first, then reads
//! what it missed from the store (a resume after `Last-Event-ID`), and skips what it already
//! sent; a gap in what it hears (it fell behind, or the pump started after a write) is read
//! from the store too. Revisions of a deck are numbered 1, 2, 3, ... so a gap shows.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, broadcast, watch};
use utoipa::ToSchema;

use crate::error::Result;
use crate::store::{RevisionRecord, Store};
use crate::time::Timestamp;
use crate::views::AuthorView;

/// Revision events a slow listener may fall behind by before it reads the store instead.
const BUFFER: usize = 256;
/// Revisions read from the store at once.
const BATCH: i64 = 500;
/// How often a quiet pump looks whether anyone still listens.
const IDLE_CHECK: Duration = Duration::from_secs(20);

/// A new revision of the deck (`event: revision`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RevisionEvent {
    pub deck_id: i64,
    pub revision: i64,
    /// The operation that made it (as `list_revisions` names it).
    pub operation: String,
    /// The slides it added, changed, removed or moved.
    pub slide_ids: Vec<String>,
    pub author: AuthorView,
    pub created_at: Timestamp,
}

impl RevisionEvent {
    fn new(deck_id: i64, r: RevisionRecord) -> Self {
        RevisionEvent {
            deck_id,
            revision: r.revision,
            operation: r.operation,
            slide_ids: r.slide_ids,
            author: AuthorView {
                user_id: r.author_id,
                username: r.author_username,
                via: r.via,
                label: r.label,
            },
            created_at: r.created_at,
        }
    }
}

/// Where the owner presenting from the speaker view is (`event: presenter`): reveal.js's
/// indices, and `live` false once the speaker view closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PresenterState {
    pub indexh: u32,
    pub indexv: u32,
    /// The fragment shown (-1: none yet).
    #[schema(minimum = -1)]
    pub fragment: i32,
    pub live: bool,
}

/// A message between servers: a deck's presenter moved.
#[derive(Serialize, Deserialize)]
struct PresenterMessage {
    deck_id: i64,
    presenter: PresenterState,
}

/// What a deck's stream sends.
#[derive(Debug, Clone)]
pub enum DeckEvent {
    Revision(Arc<RevisionEvent>),
    /// The revision to resume after is older than the kept history: reload the deck.
    Reset,
}

/// Told by the store when decks change.
pub trait ChangeListener: Send + Sync {
    /// Deck `deck_id` changed (a write committed, here or on another server).
    fn deck_changed(&self, deck_id: i64);
    /// Any deck may have changed unheard (a watcher reconnected, another process wrote).
    fn all_changed(&self);
    /// A message another server (or this one) published ([`LiveDecks::message_of`]).
    fn message(&self, _payload: &str) {}
}

/// The decks someone listens to, each with its pump.
#[derive(Default)]
pub struct LiveDecks {
    hubs: Mutex<HashMap<i64, Arc<Hub>>>,
    /// Where each presented deck's presenter is, for the audience pages that follow.
    presenters: Mutex<HashMap<i64, watch::Sender<Option<PresenterState>>>>,
}

struct Hub {
    sender: broadcast::Sender<Arc<RevisionEvent>>,
    changed: Notify,
}

impl ChangeListener for LiveDecks {
    fn deck_changed(&self, deck_id: i64) {
        if let Some(hub) = self.lock().get(&deck_id) {
            hub.changed.notify_one();
        }
    }

    fn all_changed(&self) {
        for hub in self.lock().values() {
            hub.changed.notify_one();
        }
    }

    fn message(&self, payload: &str) {
        match serde_json::from_str::<PresenterMessage>(payload) {
            Ok(m) => self.present(m.deck_id, m.presenter),
            Err(e) => tracing::warn!(error = %e, "an unreadable live message was ignored"),
        }
    }
}

impl LiveDecks {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Arc<Hub>>> {
        self.hubs.lock().expect("no panics inside")
    }

    /// Hears deck `deck_id`'s revisions after `revision` (its revision as just read),
    /// starting its pump when none runs.
    fn subscribe(
        self: &Arc<Self>,
        store: Arc<dyn Store>,
        deck_id: i64,
        revision: i64,
    ) -> broadcast::Receiver<Arc<RevisionEvent>> {
        let mut hubs = self.lock();
        if let Some(hub) = hubs.get(&deck_id) {
            return hub.sender.subscribe();
        }
        let (sender, receiver) = broadcast::channel(BUFFER);
        let hub = Arc::new(Hub {
            sender,
            changed: Notify::new(),
        });
        hubs.insert(deck_id, hub.clone());
        tokio::spawn(pump(Arc::downgrade(self), store, deck_id, revision, hub));
        receiver
    }

    /// The presenter of deck `deck_id` moved (here, or on another server).
    pub fn present(&self, deck_id: i64, state: PresenterState) {
        let mut presenters = self.presenters.lock().expect("no panics inside");
        let sender = presenters
            .entry(deck_id)
            .or_insert_with(|| watch::Sender::new(None));
        sender.send_if_modified(|now| {
            let changed = *now != Some(state);
            *now = Some(state);
            changed
        });
        if !state.live && sender.receiver_count() == 0 {
            presenters.remove(&deck_id);
        }
    }

    /// Where deck `deck_id`'s presenter is, now and as it moves.
    pub fn follow(&self, deck_id: i64) -> watch::Receiver<Option<PresenterState>> {
        let mut presenters = self.presenters.lock().expect("no panics inside");
        presenters
            .entry(deck_id)
            .or_insert_with(|| watch::Sender::new(None))
            .subscribe()
    }

    /// The message that tells the other servers that deck `deck_id`'s presenter moved.
    pub fn message_of(deck_id: i64, presenter: PresenterState) -> String {
        serde_json::to_string(&PresenterMessage { deck_id, presenter })
            .expect("a presenter message serialises")
    }

    /// Decks with a pump running (for tests and metrics).
    pub fn decks(&self) -> usize {
        self.lock().len()
    }
}

/// Sends deck `deck_id`'s new revisions to its listeners, from `latest` on, until nobody
/// listens.
async fn pump(
    live: Weak<LiveDecks>,
    store: Arc<dyn Store>,
    deck_id: i64,
    mut latest: i64,
    hub: Arc<Hub>,
) {
    loop {
        let woke = tokio::time::timeout(IDLE_CHECK, hub.changed.notified())
            .await
            .is_ok();
        if hub.sender.receiver_count() == 0 {
            let Some(live) = live.upgrade() else { return };
            let mut hubs = live.lock();
            // Checked again under the lock that subscribing takes.
            if hub.sender.receiver_count() == 0 {
                hubs.remove(&deck_id);
                return;
            }
        }
        if !woke {
            continue;
        }
        loop {
            match store.revisions_after(deck_id, latest, BATCH).await {
                Ok((records, _)) => {
                    let full = records.len() as i64 == BATCH;
                    for record in records {
                        latest = record.revision;
                        let _ = hub
                            .sender
                            .send(Arc::new(RevisionEvent::new(deck_id, record)));
                    }
                    if !full {
                        break;
                    }
                }
                // The listeners read the store themselves when they notice the gap.
                Err(e) => {
                    tracing::warn!(deck_id, error = %e, "reading new revisions for the event stream failed");
                    break;
                }
            }
        }
    }
}

/// One listener's stream of a deck's events.
pub struct DeckStream {
    store: Arc<dyn Store>,
    deck_id: i64,
    /// The newest revision sent.
    last: i64,
    pending: VecDeque<DeckEvent>,
    receiver: broadcast::Receiver<Arc<RevisionEvent>>,
}

impl DeckStream {
    /// A stream of deck `deck_id` (now at `revision`) for `live`'s listeners; resumes after
    /// `last_event_id` when given.
    pub(crate) async fn open(
        live: &Arc<LiveDecks>,
        store: Arc<dyn Store>,
        deck_id: i64,
        revision: i64,
        last_event_id: Option<i64>,
    ) -> Result<DeckStream> {
        let receiver = live.subscribe(store.clone(), deck_id, revision);
        let mut stream = DeckStream {
            store,
            deck_id,
            last: revision,
            pending: VecDeque::new(),
            receiver,
        };
        match last_event_id {
            Some(after) if after < revision => {
                stream.last = after;
                stream.catch_up(revision).await?;
            }
            Some(after) if after > revision => stream.pending.push_back(DeckEvent::Reset),
            _ => {}
        }
        Ok(stream)
    }

    /// The next event (waits for it).
    pub async fn next(&mut self) -> Result<DeckEvent> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(event);
            }
            match self.receiver.recv().await {
                Ok(event) if event.revision <= self.last => {}
                Ok(event) if event.revision == self.last + 1 => {
                    self.last = event.revision;
                    return Ok(DeckEvent::Revision(event));
                }
                // A gap (the pump started after a write, or this listener fell behind):
                // what is missing is read from the store.
                Ok(event) => self.catch_up(event.revision).await?,
                Err(broadcast::error::RecvError::Lagged(_)) => self.catch_up(i64::MAX).await?,
                // The pump holds the sender while anyone listens: never closed under us.
                Err(broadcast::error::RecvError::Closed) => {
                    return Err(crate::Error::internal("the deck's event pump stopped"));
                }
            }
        }
    }

    /// Queues the revisions after the last sent, up to `upto` (at most one batch); a resume
    /// point the kept history no longer reaches queues a reset instead.
    async fn catch_up(&mut self, upto: i64) -> Result<()> {
        let (records, oldest) = self
            .store
            .revisions_after(self.deck_id, self.last, BATCH)
            .await?;
        if oldest.is_some_and(|oldest| oldest > self.last + 1) {
            // The client reloads the deck: what follows is what comes after the newest.
            self.pending.push_back(DeckEvent::Reset);
            let mut batch = records;
            while let Some(newest) = batch.last() {
                self.last = newest.revision;
                if (batch.len() as i64) < BATCH {
                    break;
                }
                batch = self
                    .store
                    .revisions_after(self.deck_id, self.last, BATCH)
                    .await?
                    .0;
            }
            return Ok(());
        }
        for record in records.into_iter().take_while(|r| r.revision <= upto) {
            self.last = record.revision;
            self.pending
                .push_back(DeckEvent::Revision(Arc::new(RevisionEvent::new(
                    self.deck_id,
                    record,
                ))));
        }
        Ok(())
    }
}
