//! Reads made inside a write transaction that several writes share: a deck's record and its
//! slides' order, packed into one row.

use lectern_core::Result;
use lectern_core::layout::SlideSlot;
use lectern_core::store::DeckRecord;

use crate::rows::{DECK_SELECT, deck_row, unpack_slots};
use crate::{Tx, fault};

/// The owner's deck, read inside a transaction.
pub(crate) async fn deck_in_tx(
    tx: &mut Tx,
    owner_id: i64,
    deck_id: i64,
) -> Result<Option<DeckRecord>> {
    let sql = sqlx::AssertSqlSafe(format!("{DECK_SELECT} WHERE d.id = $1 AND d.owner_id = $2"));
    tx.optional(sqlx::query(sql).bind(deck_id).bind(owner_id), deck_row)
        .await
}

/// One slide's slot as text: `id,rank,group`.
macro_rules! slot_text {
    () => {
        "id || ',' || rank || ',' || COALESCE(CAST(group_id AS TEXT), '')"
    };
}

/// The packed order of the slides a query selects (see [`slots_of`]).
pub(crate) const PACKED_ORDER: &str = concat!(
    "COALESCE(string_agg(",
    slot_text!(),
    ", ';' ORDER BY rank), '')"
);

/// [`PACKED_ORDER`] for a query that selects at most one slide: no ordered aggregate, for
/// which SQLite would open (and close) a temporary table of its own, page cache and all.
pub(crate) const ONE_SLOT: &str = concat!("COALESCE(MAX(", slot_text!(), "), '')");

/// What packs the slots a query selects: every slide of a deck, or `one` slide.
pub(crate) fn packed(one: bool) -> &'static str {
    if one { ONE_SLOT } else { PACKED_ORDER }
}

/// The slots of a deck's slides, or of its slide `only` (none when it has no such slide), read
/// in a write. The order comes back as one aggregated text value (`id,rank,group;...`): one
/// row instead of one per slide, which is what makes reading a 10,000-slide order cheap.
pub(crate) async fn slots_of(
    tx: &mut Tx,
    deck_id: i64,
    only: Option<&str>,
) -> Result<Vec<SlideSlot>> {
    let filter = if only.is_some() { " AND id = $2" } else { "" };
    let mut query = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {} FROM slides WHERE deck_id = $1{filter}",
        packed(only.is_some())
    )))
    .bind(deck_id);
    if let Some(id) = only {
        query = query.bind(id);
    }
    let packed: String = tx.scalar(query).await.map_err(fault)?;
    unpack_slots(&packed)
}
