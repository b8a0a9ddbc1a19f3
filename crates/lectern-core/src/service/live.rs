//! A deck's live events for its readers (`GET /v1/decks/{deck_id}/events`; the pumps and
//! streams are `crate::events`).

use super::*;
use crate::events::DeckStream;

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

    /// Decks someone follows live on this server.
    pub fn live_decks(&self) -> usize {
        self.live.decks()
    }
}
