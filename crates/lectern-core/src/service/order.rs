//! The slide order of recently read decks, kept with the revision it was read at. A deck's
//! order changes only through a write that makes a new revision, so the order of (deck,
//! revision) never goes stale: a reader that sees the deck at the cached revision uses the
//! cached order, any other revision reads it again. `get_slide` and `list_slides` then cost
//! the same on a 10-slide and a 10,000-slide deck (the order is read once per revision, not
//! once per request).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::store::{DeckOrders, SlideCount};

use super::*;

/// Most revisions an order is carried across (each one's operation is read to check it).
const MAX_CARRY: i64 = 64;

/// One deck's order at one revision, with each slide's position. The order itself is
/// shared: revisions that changed no slide's place share one.
pub(crate) struct Order {
    pub revision: i64,
    data: Arc<OrderData>,
}

struct OrderData {
    /// Shared with the store when a write decides on this order ([`KnownOrder`]), and with
    /// the orders before and after it (a persistent vector).
    slots: Slots,
    /// Each slide's position, made when first asked for (a write that adds a slide needs
    /// only the new slide's).
    positions: OnceLock<Vec<Position>>,
    /// Each slide's index in `slots`, made on the first look-up by id (an order cached by a
    /// write may only ever be written on again).
    index: OnceLock<HashMap<String, usize>>,
}

impl Order {
    #[cfg(test)]
    pub(crate) fn new(revision: i64, slots: Vec<SlideSlot>) -> Order {
        Order::shared(revision, Slots::from(slots))
    }

    /// An order whose slots are shared with whoever made them (a write's `after`).
    pub(crate) fn shared(revision: i64, slots: Slots) -> Order {
        Order {
            revision,
            data: Arc::new(OrderData {
                slots,
                positions: OnceLock::new(),
                index: OnceLock::new(),
            }),
        }
    }

    /// This order for a write to decide on.
    pub(crate) fn known(&self) -> KnownOrder {
        KnownOrder {
            revision: self.revision,
            slots: self.data.slots.clone(),
        }
    }

    /// The same order at a later revision that moved no slide.
    fn at(&self, revision: i64) -> Order {
        Order {
            revision,
            data: self.data.clone(),
        }
    }

    pub fn slots(&self) -> &Slots {
        &self.data.slots
    }

    pub fn positions(&self) -> &[Position] {
        self.data
            .positions
            .get_or_init(|| layout::positions(&self.data.slots))
    }

    /// Where slide `id` is, for a slide just added: looked for from the end (where new
    /// slides usually are) unless the index was made already, so that adding at the end
    /// does not index the whole deck.
    pub fn position_of_new(&self, id: &str) -> Option<Position> {
        if self.data.index.get().is_some() {
            return self.position(id);
        }
        let slots = &self.data.slots;
        if slots.last().is_some_and(|s| s.id == id) {
            return slots.last_position();
        }
        let i = slots.iter().rposition(|s| s.id == id)?;
        match self.data.positions.get() {
            Some(positions) => Some(positions[i]),
            None => layout::position_at(&self.data.slots, i),
        }
    }

    /// Where slide `id` is, if the deck has it.
    pub fn position(&self, id: &str) -> Option<Position> {
        let index = self.data.index.get_or_init(|| {
            let slots = &self.data.slots;
            slots
                .iter()
                .enumerate()
                .map(|(i, s)| (s.id.clone(), i))
                .collect()
        });
        index.get(id).map(|&i| self.positions()[i])
    }
}

impl SlideCount for Order {
    fn slide_count(&self) -> usize {
        self.slots().len()
    }
}

/// The cache: deck id -> its order at the newest revision read, within
/// [`crate::store::MAX_ORDER_SLIDES`] slides over all its decks.
#[derive(Default)]
pub(crate) struct Orders {
    decks: Mutex<DeckOrders<Arc<Order>>>,
    /// The reads of a deck's order under way, by deck, with the revision their reader saw:
    /// requests that miss the cache at the same revision wait for that one read instead of
    /// each reading the whole order (on a big deck, each read holds a copy of it).
    reading: Mutex<HashMap<i64, Reading>>,
}

/// One read of a deck's order, shared by the requests that wait for it.
type Reading = (i64, Arc<tokio::sync::OnceCell<Arc<Order>>>);

/// `mutex` locked (nothing panics while holding the cache's locks).
fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().expect("order cache lock: no panics inside")
}

impl Orders {
    fn get(&self, deck_id: i64, revision: i64) -> Option<Arc<Order>> {
        locked(&self.decks)
            .get(deck_id)
            .filter(|o| o.revision == revision)
            .cloned()
    }

    /// The read of deck `deck_id`'s order at `revision` to wait for: the one under way for
    /// that revision, or a new one (which replaces one for another revision).
    fn reading(&self, deck_id: i64, revision: i64) -> Reading {
        let mut reading = locked(&self.reading);
        match reading.get(&deck_id) {
            Some((r, cell)) if *r == revision => (revision, cell.clone()),
            _ => {
                let read = (revision, Arc::default());
                reading.insert(deck_id, read.clone());
                read
            }
        }
    }

    /// The read `read` of deck `deck_id` is over (whether it found the order or not).
    fn read_done(&self, deck_id: i64, read: &Reading) {
        let mut reading = locked(&self.reading);
        if reading
            .get(&deck_id)
            .is_some_and(|(_, cell)| Arc::ptr_eq(cell, &read.1))
        {
            reading.remove(&deck_id);
        }
    }

    /// Deck `deck_id`'s order at `revision` or newer, by `read` (the order as read, with the
    /// revision it is the order of), cached. The requests that miss the cache for one
    /// revision at once share one read: it began after each of them saw that revision, so it
    /// finds that revision or a newer one. A read that fails leaves nothing: a request still
    /// waiting for it reads again.
    async fn read_shared<F, R>(&self, deck_id: i64, revision: i64, read: F) -> Result<Arc<Order>>
    where
        F: FnOnce() -> R,
        R: std::future::Future<Output = Result<crate::store::SlideOrder>>,
    {
        let reading = self.reading(deck_id, revision);
        let found = reading
            .1
            .get_or_try_init(|| async {
                let read = read().await?;
                let order = Arc::new(Order::shared(read.revision, read.slots));
                self.put(deck_id, order.clone());
                Ok::<_, Error>(order)
            })
            .await
            .cloned();
        self.read_done(deck_id, &reading);
        found
    }

    /// The deck's cached order, whatever its revision.
    pub(crate) fn latest(&self, deck_id: i64) -> Option<Arc<Order>> {
        locked(&self.decks).get(deck_id).cloned()
    }

    /// Keeps `order` unless the cache holds a newer one of its deck.
    pub(crate) fn put(&self, deck_id: i64, order: Arc<Order>) {
        let mut decks = locked(&self.decks);
        if decks
            .get(deck_id)
            .is_none_or(|o| o.revision <= order.revision)
        {
            decks.put(deck_id, order);
        }
    }
}

impl Lectern {
    /// The order of `deck` at its revision (or at a newer one, if a write came in between).
    pub(crate) async fn order(&self, deck: &DeckRecord) -> Result<Arc<Order>> {
        self.order_at(deck.id, deck.revision).await
    }

    /// The order of deck `deck_id` at `revision` (or newer), from the cache or read (one read
    /// for the requests that miss at once: [`Orders::read_shared`]).
    pub(crate) async fn order_at(&self, deck_id: i64, revision: i64) -> Result<Arc<Order>> {
        if let Some(order) = self.orders.get(deck_id, revision) {
            return Ok(order);
        }
        self.orders
            .read_shared(deck_id, revision, || self.store.slide_order(deck_id))
            .await
    }

    /// The order after a write that made `revision` and moved no slide, from `slots`, the
    /// order of the revision before as the store carried it over: it shares the cached
    /// order's positions and index when it is a copy of it, so that the answer takes no
    /// pass over the deck.
    pub(crate) fn carried_order(&self, deck_id: i64, revision: i64, slots: Slots) -> Arc<Order> {
        let order = match self.orders.latest(deck_id) {
            Some(cached) if cached.slots().is_copy_of(&slots) => cached.at(revision),
            _ => Order::shared(revision, slots),
        };
        let order = Arc::new(order);
        self.orders.put(deck_id, order.clone());
        order
    }

    /// The order after a write that made `revision` (it did: the caller knows) and moved no
    /// slide (a content edit), without reading the order when the cache holds the order of
    /// another revision and every revision between the two is recorded and moved no slide
    /// either (concurrent content edits of one deck finish in any order, so the cached one
    /// may be older or newer).
    pub(crate) async fn order_after_content_edit(
        &self,
        deck_id: i64,
        revision: i64,
    ) -> Result<Arc<Order>> {
        if let Some(order) = self.orders.get(deck_id, revision) {
            return Ok(order);
        }
        if let Some(cached) = self.orders.latest(deck_id)
            && (cached.revision - revision).abs() <= MAX_CARRY
        {
            // The revisions that separate the two orders: strictly between the older
            // cached one and ours, or ours excluded up to the newer cached one included.
            let (after, before) = if cached.revision < revision {
                (cached.revision, revision)
            } else {
                (revision, cached.revision + 1)
            };
            let kept = before - after == 1 || {
                let between = self
                    .store
                    .revision_operations(deck_id, after, before)
                    .await?;
                between.len() as i64 == before - after - 1
                    && between.iter().all(|op| Operation::keeps_order(op))
            };
            if kept {
                if cached.revision < revision {
                    let carried = Arc::new(cached.at(revision));
                    self.orders.put(deck_id, carried.clone());
                    return Ok(carried);
                }
                return Ok(cached);
            }
        }
        self.order_at(deck_id, revision).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(id: &str, rank: &str, group: Option<i64>) -> SlideSlot {
        SlideSlot {
            id: id.into(),
            rank: rank.into(),
            group,
        }
    }

    #[test]
    fn an_order_knows_each_slides_position() {
        let order = Order::new(
            3,
            vec![
                slot("a", "a", None),
                slot("b", "b", Some(1)),
                slot("c", "c", Some(1)),
            ],
        );
        let at = |h, v| Position {
            horizontal: h,
            vertical: v,
        };
        assert_eq!(order.position("a"), Some(at(0, None)));
        assert_eq!(order.position("b"), Some(at(1, Some(0))));
        assert_eq!(order.position("c"), Some(at(1, Some(1))));
        assert_eq!(order.position("d"), None);
        // A slide just added is found from the end: the last one by the order's stack count.
        let fresh = Order::new(
            4,
            vec![
                slot("a", "a", None),
                slot("b", "b", None),
                slot("c", "c", Some(2)),
                slot("d", "d", Some(2)),
            ],
        );
        assert_eq!(fresh.position_of_new("d"), Some(at(2, Some(1))));
        assert_eq!(fresh.position_of_new("b"), Some(at(1, None)));
        assert_eq!(fresh.position_of_new("e"), None);
        assert_eq!(order.position_of_new("c"), Some(at(1, Some(1))));
    }

    #[test]
    fn the_cache_answers_only_for_the_revision_it_holds_and_keeps_the_newest() {
        let orders = Orders::default();
        orders.put(1, Arc::new(Order::new(5, vec![slot("a", "a", None)])));
        assert!(orders.get(1, 5).is_some());
        assert!(orders.get(1, 6).is_none(), "another revision reads again");
        orders.put(1, Arc::new(Order::new(4, vec![])));
        assert_eq!(
            orders.get(1, 5).map(|o| o.slots().len()),
            Some(1),
            "older kept out"
        );
        orders.put(1, Arc::new(Order::new(6, vec![])));
        assert!(orders.get(1, 6).is_some() && orders.get(1, 5).is_none());
    }

    #[test]
    fn requests_missing_one_revision_share_one_read() {
        let orders = Orders::default();
        let first = orders.reading(1, 5);
        let second = orders.reading(1, 5);
        assert!(
            Arc::ptr_eq(&first.1, &second.1),
            "same deck and revision: one read"
        );
        assert!(
            !Arc::ptr_eq(&orders.reading(2, 5).1, &first.1),
            "another deck reads"
        );
        // A request that saw a newer revision cannot use a read that may have begun before
        // it: it starts its own, and the older read's end leaves the newer one in place.
        let newer = orders.reading(1, 6);
        assert!(!Arc::ptr_eq(&newer.1, &first.1));
        orders.read_done(1, &first);
        assert!(Arc::ptr_eq(&orders.reading(1, 6).1, &newer.1));
        orders.read_done(1, &newer);
        assert!(
            !Arc::ptr_eq(&orders.reading(1, 6).1, &newer.1),
            "done: read again"
        );
    }

    #[tokio::test]
    async fn requests_missing_at_once_take_the_order_of_one_read() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        let orders = Orders::default();
        let reads = AtomicUsize::new(0);
        let read = |revision: i64| {
            let reads = &reads;
            move || async move {
                reads.fetch_add(1, SeqCst);
                tokio::task::yield_now().await;
                Ok(crate::store::SlideOrder {
                    revision,
                    slots: Slots::from(vec![slot("a", "a", None)]),
                })
            }
        };
        let (x, y) = tokio::join!(
            orders.read_shared(1, 5, read(5)),
            orders.read_shared(1, 5, read(5))
        );
        assert_eq!(reads.load(SeqCst), 1, "one read for both");
        assert!(Arc::ptr_eq(&x.unwrap(), &y.unwrap()));
        assert!(orders.get(1, 5).is_some(), "the order read is cached");
        // The read is over: a later miss reads again.
        orders.read_shared(1, 6, read(6)).await.unwrap();
        assert_eq!(reads.load(SeqCst), 2);
    }

    #[test]
    fn the_cache_empties_itself_past_its_bound() {
        let orders = Orders::default();
        let big: Vec<SlideSlot> = (0..crate::store::MAX_ORDER_SLIDES / 2 + 1)
            .map(|i| slot(&i.to_string(), "r", None))
            .collect();
        orders.put(1, Arc::new(Order::new(1, big.clone())));
        orders.put(2, Arc::new(Order::new(1, big)));
        assert!(orders.get(1, 1).is_none() && orders.get(2, 1).is_some());
        assert_eq!(
            orders.decks.lock().unwrap().slides(),
            crate::store::MAX_ORDER_SLIDES / 2 + 1
        );
    }
}
