//! A deck's live events for its readers (`GET /v1/decks/{deck_id}/events`; the pumps and
//! streams are `crate::events`).

use super::*;
use crate::events::{DeckStream, PresenterState};

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
            .publish(&crate::events::LiveDecks::message_of(deck.id, state))
            .await
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
