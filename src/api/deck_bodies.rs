//! `get_deck`'s serialized answers, kept for decks read again unchanged.

use std::collections::HashMap;
use std::sync::RwLock;

use axum::body::Bytes;
use lectern_core::store::DeckRecord;

/// The most body bytes [`DeckBodies`] keeps (its records take about as much again); past it
/// it forgets them all.
const KEPT_BYTES: usize = 4 << 20;

/// `get_deck`'s answers without `deck_html`, kept by deck id beside the record each was made
/// from: a deck read again unchanged (the core reads it from its cache) answers the bytes it
/// answered last instead of building its view and serializing it again (a tenth of such a
/// read's cost each). A body is used only for a record equal to its own in every field (the
/// view is a function of the record, see `Lectern::deck_view`), so a deck changed in any way
/// (a new revision, a thumbnail) is answered afresh.
#[derive(Default)]
pub struct DeckBodies(RwLock<KeptBodies>);

#[derive(Default)]
struct KeptBodies {
    bodies: HashMap<i64, (DeckRecord, Bytes)>,
    bytes: usize,
}

impl DeckBodies {
    pub(crate) fn get(&self, deck: &DeckRecord) -> Option<Bytes> {
        let kept = self.0.read().expect("no panics while the lock is held");
        let (seen, body) = kept.bodies.get(&deck.id)?;
        (seen == deck).then(|| body.clone())
    }

    pub(crate) fn keep(&self, deck: DeckRecord, body: Bytes) {
        let mut kept = self.0.write().expect("no panics while the lock is held");
        if kept.bytes + body.len() > KEPT_BYTES {
            *kept = KeptBodies::default();
        }
        kept.bytes += body.len();
        if let Some((_, old)) = kept.bodies.insert(deck.id, (deck, body)) {
            kept.bytes -= old.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use lectern_core::deck::{DeckLook, defaults};
    use lectern_core::time::Timestamp;

    use super::*;

    fn record(id: i64, title: &str, thumbnail: Option<&str>) -> DeckRecord {
        DeckRecord {
            id,
            owner_id: 1,
            owner_username: "ann".into(),
            title: title.into(),
            description: String::new(),
            slug: "intro".into(),
            visibility: defaults::VISIBILITY,
            css: String::new(),
            look: DeckLook::default(),
            created_at: Timestamp::from_unix_micros(1),
            updated_at: Timestamp::from_unix_micros(2),
            trashed_at: None,
            slide_count: 1,
            owner_name: "Ann".into(),
            owner_team_id: None,
            thumbnail_token: thumbnail.map(str::to_string),
            revision: 3,
        }
    }

    /// A kept body is answered only for a record equal to the one it was made from: the
    /// same deck at the same revision that differs anywhere else (a thumbnail drawn since)
    /// is not answered from it, nor is another deck.
    #[test]
    fn a_kept_body_answers_only_the_same_record() {
        let bodies = DeckBodies::default();
        let first = record(7, "Intro", None);
        assert_eq!(bodies.get(&first), None);
        bodies.keep(first.clone(), Bytes::from_static(b"first"));
        assert_eq!(bodies.get(&first), Some(Bytes::from_static(b"first")));
        assert_eq!(bodies.get(&record(7, "Intro", Some("t1"))), None);
        assert_eq!(bodies.get(&record(7, "Outro", None)), None);
        assert_eq!(bodies.get(&record(8, "Intro", None)), None);
        let drawn = record(7, "Intro", Some("t1"));
        bodies.keep(drawn.clone(), Bytes::from_static(b"drawn"));
        assert_eq!(bodies.get(&drawn), Some(Bytes::from_static(b"drawn")));
        assert_eq!(bodies.get(&first), None, "replaced");
    }

    /// Past [`KEPT_BYTES`] the kept bodies are forgotten, so they never hold more.
    #[test]
    fn kept_bodies_stay_under_their_limit() {
        let bodies = DeckBodies::default();
        let body = Bytes::from(vec![b'x'; KEPT_BYTES / 3 + 1]);
        for id in 0..3 {
            bodies.keep(record(id, "Intro", None), body.clone());
        }
        let kept = bodies.0.read().unwrap();
        assert!(kept.bytes <= KEPT_BYTES, "{}", kept.bytes);
        assert_eq!(kept.bytes, body.len(), "the third body starts afresh");
        assert!(kept.bodies.contains_key(&2) && kept.bodies.len() == 1);
    }
}
