//! A deck's live events (`GET /v1/decks/{deck_id}/events`): one `revision` event per new
//! revision, whoever made it and on whichever server; who has the deck open in an editor
//! and on which slide (`presence`); and where its presenter is, for the audience pages that
//! follow (`PresenterState`). Presence and the presenter pass between servers as messages.
//!
//! The store tells [`LiveDecks`] when a deck changed (`store::ChangeListener`: after a write
//! here, or when another server's change notice arrives). Per deck with listeners, one pump
//! task reads the revisions made since the last it sent and broadcasts them, so a write costs
//! one read however many listen. Each stream ([`DeckStream`]) subscribes first, then reads
//! what it missed from the store (a resume after `Last-Event-ID`), and skips what it already
//! sent; a gap in what it hears (it fell behind, or the pump started after a write) is read
//! from the store too. Revisions of a deck are numbered 1, 2, 3, ... so a gap shows.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, broadcast, watch};
use utoipa::ToSchema;

use crate::error::Result;
use crate::store::{ChangeListener, RevisionRecord, Store};
use crate::time::Timestamp;
use crate::views::AuthorView;

/// Revision events a slow listener may fall behind by before it reads the store instead.
const BUFFER: usize = 256;
/// Revisions read from the store at once.
const BATCH: i64 = 500;
/// How often a quiet pump looks whether anyone still listens.
const IDLE_CHECK: Duration = Duration::from_secs(20);
/// How long a presence lasts without news (an editor says it is there more often).
const PRESENCE_TTL: Duration = Duration::from_secs(60);

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

/// Someone with the deck open in an editor (`event: presence`): on which slide, whether
/// editing it, or `left`. `client` tells one window of a person from another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PresenceEvent {
    pub user_id: i64,
    pub username: String,
    pub client: String,
    pub slide_id: Option<String>,
    pub editing: bool,
    pub left: bool,
}

/// A message between servers, with the server that sent it (which applied it already, and
/// hears its own messages back after later ones it applied too).
#[derive(Serialize, Deserialize)]
struct Envelope {
    origin: String,
    #[serde(flatten)]
    message: Message,
}

/// What a message between servers says.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Message {
    /// A deck's presenter moved.
    Presenter {
        deck_id: i64,
        presenter: PresenterState,
    },
    /// Someone's presence on a deck changed.
    Presence {
        deck_id: i64,
        presence: PresenceEvent,
    },
}

/// What a deck's stream sends.
#[derive(Debug, Clone)]
pub enum DeckEvent {
    Revision(Arc<RevisionEvent>),
    Presence(Arc<PresenceEvent>),
    /// The revision to resume after is older than the kept history: reload the deck.
    Reset,
}

/// The decks someone listens to, each with its pump.
pub struct LiveDecks {
    /// This server among those sharing the database (its messages come back to it).
    origin: String,
    hubs: Mutex<HashMap<i64, Arc<Hub>>>,
    /// Where each presented deck's presenter is, for the audience pages that follow.
    presenters: Mutex<HashMap<i64, watch::Sender<Option<PresenterState>>>>,
    /// Who has each deck open, by client, with when they last said so.
    #[allow(clippy::type_complexity)]
    presence: Mutex<HashMap<i64, HashMap<String, (Arc<PresenceEvent>, Instant)>>>,
}

/// What a deck's pump and its presence hand to the deck's streams.
#[derive(Debug, Clone)]
enum Live {
    Revision(Arc<RevisionEvent>),
    Presence(Arc<PresenceEvent>),
}

struct Hub {
    sender: broadcast::Sender<Live>,
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
        match serde_json::from_str::<Envelope>(payload) {
            Ok(e) if e.origin == self.origin => {}
            Ok(e) => match e.message {
                Message::Presenter { deck_id, presenter } => self.present(deck_id, presenter),
                Message::Presence { deck_id, presence } => self.presence(deck_id, presence),
            },
            Err(e) => tracing::warn!(error = %e, "an unreadable live message was ignored"),
        }
    }
}

impl Default for LiveDecks {
    fn default() -> Self {
        LiveDecks {
            origin: crate::secret::random_alphanumeric(16),
            hubs: Mutex::default(),
            presenters: Mutex::default(),
            presence: Mutex::default(),
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
    ) -> broadcast::Receiver<Live> {
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

    /// A message from this server to the others.
    fn envelope(&self, message: Message) -> String {
        let origin = self.origin.clone();
        serde_json::to_string(&Envelope { origin, message }).expect("a live message serialises")
    }

    /// The message that tells the other servers that deck `deck_id`'s presenter moved.
    pub fn presenter_message(&self, deck_id: i64, presenter: PresenterState) -> String {
        self.envelope(Message::Presenter { deck_id, presenter })
    }

    /// The message that tells the other servers of someone's presence on deck `deck_id`.
    pub fn presence_message(&self, deck_id: i64, presence: &PresenceEvent) -> String {
        let presence = presence.clone();
        self.envelope(Message::Presence { deck_id, presence })
    }

    /// Someone's presence on deck `deck_id` changed (here, or on another server): kept
    /// (until they leave or go quiet) and told to the deck's streams.
    pub fn presence(&self, deck_id: i64, event: PresenceEvent) {
        let event = Arc::new(event);
        {
            let mut all = self.presence.lock().expect("no panics inside");
            let deck = all.entry(deck_id).or_default();
            deck.retain(|_, (_, at)| at.elapsed() < PRESENCE_TTL);
            if event.left {
                deck.remove(&event.client);
            } else {
                deck.insert(event.client.clone(), (event.clone(), Instant::now()));
            }
            if deck.is_empty() {
                all.remove(&deck_id);
            }
        }
        if let Some(hub) = self.lock().get(&deck_id) {
            let _ = hub.sender.send(Live::Presence(event));
        }
    }

    /// Window `client` closed its stream of deck `deck_id`: if it said it was there, it
    /// left (answers the event to tell other servers, `None` when there was nothing to say).
    pub fn left(&self, deck_id: i64, client: &str) -> Option<PresenceEvent> {
        let was = {
            let all = self.presence.lock().expect("no panics inside");
            all.get(&deck_id)
                .and_then(|deck| deck.get(client))
                .map(|(e, _)| e.clone())
        }?;
        let left = PresenceEvent {
            slide_id: None,
            editing: false,
            left: true,
            ..(*was).clone()
        };
        self.presence(deck_id, left.clone());
        Some(left)
    }

    /// Who has deck `deck_id` open now.
    fn present_now(&self, deck_id: i64) -> Vec<Arc<PresenceEvent>> {
        let all = self.presence.lock().expect("no panics inside");
        all.get(&deck_id)
            .map(|deck| {
                deck.values()
                    .filter(|(_, at)| at.elapsed() < PRESENCE_TTL)
                    .map(|(event, _)| event.clone())
                    .collect()
            })
            .unwrap_or_default()
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
                        let event = Arc::new(RevisionEvent::new(deck_id, record));
                        let _ = hub.sender.send(Live::Revision(event));
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
    receiver: broadcast::Receiver<Live>,
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
        // Who is there already comes first.
        let pending = live
            .present_now(deck_id)
            .into_iter()
            .map(DeckEvent::Presence)
            .collect();
        let mut stream = DeckStream {
            store,
            deck_id,
            last: revision,
            pending,
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

    /// The deck it follows.
    pub fn deck_id(&self) -> i64 {
        self.deck_id
    }

    /// The next event (waits for it).
    pub async fn next(&mut self) -> Result<DeckEvent> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(event);
            }
            match self.receiver.recv().await {
                Ok(Live::Presence(event)) => return Ok(DeckEvent::Presence(event)),
                Ok(Live::Revision(event)) if event.revision <= self.last => {}
                Ok(Live::Revision(event)) if event.revision == self.last + 1 => {
                    self.last = event.revision;
                    return Ok(DeckEvent::Revision(event));
                }
                // A gap (the pump started after a write, or this listener fell behind):
                // what is missing is read from the store.
                Ok(Live::Revision(event)) => self.catch_up(event.revision).await?,
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
