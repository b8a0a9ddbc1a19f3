//! A deck's live events for its readers (`GET /v1/decks/{deck_id}/events`; the pumps and
//! streams are `crate::events`).

use super::*;
use crate::events::{DeckStream, PresenceEvent, PresenterState};

/// Where a person with the deck open in an editor is (`PUT .../presence`).
#[derive(Debug, Clone, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PresenceUpdate {
    /// One window of the person (any string of 1 to 64 characters it keeps).
    pub client: String,
    /// The slide it shows; null for none.
    pub slide_id: Option<String>,
    #[serde(default)]
    pub editing: bool,
    /// The window closed.
    #[serde(default)]
    pub left: bool,
}

impl Lectern {
    /// The deck's event stream for a reader: from now on, or after `last_event_id` (a
    /// revision), with the revisions made since first.
    pub async fn deck_events(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        last_event_id: Option<i64>,
    ) -> Result<DeckStream> {
        caller.require(Scope::Read)?;
        let deck = self.active_deck(caller, deck_id).await?;
        DeckStream::open(
            &self.live,
            self.store.clone(),
            deck.id,
            deck.revision,
            last_event_id,
        )
        .await
    }

    /// The owner presents deck `deck_id` from the speaker view, now at `state`: the deck's
    /// audience pages follow, on every server.
    pub async fn present_deck(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        state: PresenterState,
    ) -> Result<()> {
        caller.require(Scope::Manage)?;
        let deck = self.active_deck(caller, deck_id).await?;
        self.live.present(deck.id, state);
        self.store
            .publish(&self.live.presenter_message(deck.id, state))
            .await
    }

    /// The caller's window `update.client` shows deck `deck_id` (a slide of it, perhaps
    /// editing it), or left it: told to the deck's streams on every server.
    pub async fn set_presence(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        update: PresenceUpdate,
    ) -> Result<()> {
        let deck = self.readable_deck(caller, deck_id).await?;
        let client = update.client.trim();
        if client.is_empty() || client.chars().count() > 64 {
            return Err(Error::invalid("client must be 1 to 64 characters"));
        }
        if update
            .slide_id
            .as_ref()
            .is_some_and(|s| s.chars().count() > 64)
        {
            return Err(Error::invalid("slide_id is at most 64 characters"));
        }
        let event = PresenceEvent {
            user_id: caller.user_id,
            username: caller.username.clone(),
            client: client.to_string(),
            slide_id: update.slide_id,
            editing: update.editing && !update.left,
            left: update.left,
        };
        self.live.presence(deck.id, event.clone());
        self.store
            .publish(&self.live.presence_message(deck.id, &event))
            .await
    }

    /// Window `client`'s stream of deck `deck_id` ended (it closed, or lost its
    /// connection): if it was there, it left, on every server.
    pub async fn stream_closed(&self, deck_id: i64, client: &str) {
        if let Some(left) = self.live.left(deck_id, client)
            && let Err(e) = self
                .store
                .publish(&self.live.presence_message(deck_id, &left))
                .await
        {
            tracing::warn!(error = %e, "telling the other servers that a window left failed");
        }
    }

    /// Where the presenter of deck `deck_id` is, now and as it moves. The caller has
    /// checked that the deck may be viewed (its page was shown to the same visitor).
    pub fn follow_presenter(
        &self,
        deck_id: i64,
    ) -> tokio::sync::watch::Receiver<Option<PresenterState>> {
        self.live.follow(deck_id)
    }

    /// Decks someone follows live on this server.
    pub fn live_decks(&self) -> usize {
        self.live.decks()
    }
}
