//! Slide orders kept in memory by deck, within a bound on their slides in all. The core's
//! order cache (`service/order.rs`) and the orders a store's writer keeps between writes
//! (`lectern-store-sql`, `writer.rs`) are both one of these, so a big deck the cache let go
//! is not kept by the writer either.

use std::collections::HashMap;
use std::sync::Arc;

use super::KnownOrder;

/// One deck's slide order, as a [`DeckOrders`] counts it.
pub trait SlideCount {
    /// The slides the order holds.
    fn slide_count(&self) -> usize;
}

impl SlideCount for KnownOrder {
    fn slide_count(&self) -> usize {
        self.slots.len()
    }
}

impl<T: SlideCount> SlideCount for Arc<T> {
    fn slide_count(&self) -> usize {
        T::slide_count(self)
    }
}

/// The most slides the orders of one [`DeckOrders`] hold in all (about 200 bytes each).
pub const MAX_ORDER_SLIDES: usize = 50_000;

/// Slide orders by deck id: at most `MAX_DECKS` decks and [`MAX_ORDER_SLIDES`] slides.
/// Putting an order past either bound forgets all the others first (a bound on memory, not
/// an LRU); a deck bigger than the bound is kept alone, so that its next use need not read
/// it again.
#[derive(Debug)]
pub struct DeckOrders<V, const MAX_DECKS: usize = { usize::MAX }> {
    decks: HashMap<i64, V>,
    /// The slides of all the orders in `decks`.
    slides: usize,
}

impl<V, const MAX_DECKS: usize> Default for DeckOrders<V, MAX_DECKS> {
    fn default() -> Self {
        DeckOrders {
            decks: HashMap::new(),
            slides: 0,
        }
    }
}

impl<V: SlideCount, const MAX_DECKS: usize> DeckOrders<V, MAX_DECKS> {
    pub fn get(&self, deck_id: i64) -> Option<&V> {
        self.decks.get(&deck_id)
    }

    /// Keeps `order` as deck `deck_id`'s, in place of the one kept so far.
    pub fn put(&mut self, deck_id: i64, order: V) {
        if let Some(old) = self.decks.remove(&deck_id) {
            self.slides -= old.slide_count();
        }
        if self.decks.len() >= MAX_DECKS || self.slides + order.slide_count() > MAX_ORDER_SLIDES {
            self.clear();
        }
        self.slides += order.slide_count();
        self.decks.insert(deck_id, order);
    }

    pub fn clear(&mut self) {
        self.decks.clear();
        self.slides = 0;
    }

    /// The decks whose order is kept.
    pub fn len(&self) -> usize {
        self.decks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.decks.is_empty()
    }

    /// The slides of all the orders kept.
    pub fn slides(&self) -> usize {
        self.slides
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An order of `n` slides.
    struct Sized(usize);

    impl SlideCount for Sized {
        fn slide_count(&self) -> usize {
            self.0
        }
    }

    #[test]
    fn orders_stay_within_their_bounds_and_keep_the_one_just_put() {
        const MAX_DECKS: usize = 64;
        let mut orders = DeckOrders::<Sized, MAX_DECKS>::default();
        orders.put(1, Sized(10));
        orders.put(2, Sized(20));
        orders.put(1, Sized(30));
        assert_eq!(
            orders.slides(),
            50,
            "a deck's newer order replaces its older one"
        );
        // A deck bigger than the bound is still kept, alone: its next use needs it.
        orders.put(3, Sized(MAX_ORDER_SLIDES + 1));
        assert!(orders.get(1).is_none() && orders.get(2).is_none());
        assert_eq!(orders.get(3).map(|o| o.0), Some(MAX_ORDER_SLIDES + 1));
        orders.put(4, Sized(1));
        assert!(orders.get(3).is_none() && orders.get(4).is_some());
        assert_eq!(orders.slides(), 1);
        let last = 5 + 2 * MAX_DECKS as i64;
        for deck in 5..=last {
            orders.put(deck, Sized(1));
            assert!(orders.len() <= MAX_DECKS, "at most so many decks");
        }
        assert!(orders.get(last).is_some(), "the order just put stays");
        assert_eq!(orders.slides(), orders.len());
    }
}
