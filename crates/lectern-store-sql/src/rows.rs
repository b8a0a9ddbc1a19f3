//! Rows as the store reads them: typed column access on `Any` rows (booleans are
//! integers on SQLite), the column lists of deck, user, team, share and export rows and
//! their decoding, `LIKE` patterns, and the packed form in which a deck's slide order is
//! read.

use lectern_core::deck::{DeckLook, Visibility};
use lectern_core::layout::SlideSlot;
use lectern_core::store::{
    DeckRecord, ExportRecord, MediaRecord, ShareRecord, TeamDeckListRecord, TeamRecord, UserRecord,
};
use lectern_core::time::Timestamp;
use lectern_core::{Error, Result};
use sqlx::any::{AnyRow, AnyTypeInfoKind};
use sqlx::{Row, ValueRef};

use crate::fault;

/// Typed column access by index.
pub trait Columns {
    fn text(&self, i: usize) -> Result<String>;
    fn opt_text(&self, i: usize) -> Result<Option<String>>;
    fn bytes(&self, i: usize) -> Result<Vec<u8>>;
    fn opt_bytes(&self, i: usize) -> Result<Option<Vec<u8>>>;
    fn int(&self, i: usize) -> Result<i64>;
    fn opt_int(&self, i: usize) -> Result<Option<i64>>;
    fn real(&self, i: usize) -> Result<f64>;
    fn opt_real(&self, i: usize) -> Result<Option<f64>>;
    fn boolean(&self, i: usize) -> Result<bool>;
    /// A boolean stored as a boolean (PostgreSQL) or as 0/1 (SQLite).
    fn opt_boolean(&self, i: usize) -> Result<Option<bool>>;
}

impl Columns for AnyRow {
    fn text(&self, i: usize) -> Result<String> {
        self.try_get(i).map_err(fault)
    }
    fn opt_text(&self, i: usize) -> Result<Option<String>> {
        self.try_get(i).map_err(fault)
    }
    fn bytes(&self, i: usize) -> Result<Vec<u8>> {
        self.try_get(i).map_err(fault)
    }
    fn opt_bytes(&self, i: usize) -> Result<Option<Vec<u8>>> {
        self.try_get(i).map_err(fault)
    }
    fn int(&self, i: usize) -> Result<i64> {
        self.try_get(i).map_err(fault)
    }
    fn opt_int(&self, i: usize) -> Result<Option<i64>> {
        self.try_get(i).map_err(fault)
    }
    fn real(&self, i: usize) -> Result<f64> {
        self.try_get(i).map_err(fault)
    }
    fn opt_real(&self, i: usize) -> Result<Option<f64>> {
        self.try_get(i).map_err(fault)
    }
    fn boolean(&self, i: usize) -> Result<bool> {
        self.opt_boolean(i)?
            .ok_or_else(|| Error::internal(format!("column {i} is NULL, not a boolean")))
    }
    fn opt_boolean(&self, i: usize) -> Result<Option<bool>> {
        let raw = self.try_get_raw(i).map_err(fault)?;
        if raw.is_null() {
            return Ok(None);
        }
        let is_bool = raw.type_info().kind() == AnyTypeInfoKind::Bool;
        Ok(Some(if is_bool {
            self.try_get(i).map_err(fault)?
        } else {
            self.int(i)? != 0
        }))
    }
}

/// Columns of a deck row with its owner's username and slide count; pairs with
/// [`deck_row`]. Append a `WHERE` with the backend's placeholders.
pub const DECK_SELECT: &str = "SELECT d.id, d.owner_id, u.username, d.title, d.description, d.slug,
    d.visibility, d.css, d.look, d.created_at, d.updated_at, d.trashed_at, d.slide_count, u.name,
    u.team_id, d.thumbnail_token, d.revision FROM decks d JOIN users u ON u.id = d.owner_id";

/// Columns of a user row; pairs with [`user_row`].
pub const USER_SELECT: &str = "SELECT id, username, email, name, description, website_url,
    twitter_handle, team_id, created_at, updated_at FROM users";

fn parse_stored<T>(what: &str, raw: &str, parse: fn(&str) -> Option<T>) -> Result<T> {
    parse(raw).ok_or_else(|| Error::internal(format!("stored {what} {raw:?} is not valid")))
}

fn time(micros: i64) -> Timestamp {
    Timestamp::from_unix_micros(micros)
}

/// Decodes a row selected with [`DECK_SELECT`].
pub fn deck_row(row: &impl Columns) -> Result<DeckRecord> {
    Ok(DeckRecord {
        id: row.int(0)?,
        owner_id: row.int(1)?,
        owner_username: row.text(2)?,
        title: row.text(3)?,
        description: row.text(4)?,
        slug: row.text(5)?,
        visibility: parse_stored("visibility", &row.text(6)?, Visibility::parse)?,
        css: row.text(7)?,
        look: DeckLook::from_json(&row.text(8)?)?,
        created_at: time(row.int(9)?),
        updated_at: time(row.int(10)?),
        trashed_at: row.opt_int(11)?.map(time),
        slide_count: row.int(12)?,
        owner_name: row.text(13)?,
        owner_team_id: row.opt_int(14)?,
        thumbnail_token: row.opt_text(15)?,
        revision: row.int(16)?,
    })
}

/// Decodes a row selected with [`USER_SELECT`].
pub fn user_row(row: &impl Columns) -> Result<UserRecord> {
    Ok(UserRecord {
        id: row.int(0)?,
        username: row.text(1)?,
        email: row.text(2)?,
        name: row.text(3)?,
        description: row.text(4)?,
        website_url: row.text(5)?,
        twitter_handle: row.text(6)?,
        team_id: row.opt_int(7)?,
        created_at: time(row.int(8)?),
        updated_at: time(row.int(9)?),
    })
}

/// Columns of a team row; pairs with [`team_row`].
pub const TEAM_SELECT: &str = "SELECT id, name, slug, created_at FROM teams";

/// Decodes a row selected with [`TEAM_SELECT`].
pub fn team_row(row: &impl Columns) -> Result<TeamRecord> {
    Ok(TeamRecord {
        id: row.int(0)?,
        name: row.text(1)?,
        slug: row.text(2)?,
        created_at: time(row.int(3)?),
    })
}

/// Columns of a team deck list row; pairs with [`team_deck_row`]. Append the team filter.
pub const TEAM_DECK_SELECT: &str = "SELECT d.id, d.title, d.description, d.slug, d.visibility,
    u.id, u.name, u.username, d.thumbnail_token, d.revision FROM decks d JOIN users u ON u.id = d.owner_id";

/// Decodes a row selected with [`TEAM_DECK_SELECT`].
pub fn team_deck_row(row: &impl Columns) -> Result<TeamDeckListRecord> {
    Ok(TeamDeckListRecord {
        id: row.int(0)?,
        title: row.text(1)?,
        description: row.text(2)?,
        slug: row.text(3)?,
        visibility: parse_stored("visibility", &row.text(4)?, Visibility::parse)?,
        owner_id: row.int(5)?,
        owner_name: row.text(6)?,
        owner_username: row.text(7)?,
        thumbnail_token: row.opt_text(8)?,
        revision: row.int(9)?,
    })
}

/// `needle` as a `LIKE` pattern matching it anywhere (with `\\` as the escape character).
pub fn like_pattern(needle: &str) -> String {
    let mut p = String::with_capacity(needle.len() + 2);
    p.push('%');
    for c in needle.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// `notify_on_view` read as an integer: SQLite's migration declares it `BOOLEAN`, a column
/// type the `Any` driver refuses (every other SQLite flag is an `INTEGER` column).
pub const NOTIFY_ON_VIEW: &str = "CAST(notify_on_view AS INTEGER)";

/// Columns of a share link row; pairs with [`share_row`].
pub const SHARE_SELECT: &str = "SELECT id, deck_id, name, token, password_hash IS NOT NULL,
    expires_at, CAST(notify_on_view AS INTEGER), view_count, first_viewed_at, created_at
    FROM share_links";

/// Decodes a row selected with [`SHARE_SELECT`].
pub fn share_row(row: &impl Columns) -> Result<ShareRecord> {
    Ok(ShareRecord {
        id: row.int(0)?,
        deck_id: row.int(1)?,
        name: row.text(2)?,
        token: row.text(3)?,
        password_protected: row.boolean(4)?,
        expires_at: row.opt_int(5)?.map(time),
        notify_on_view: row.boolean(6)?,
        view_count: row.int(7)?,
        first_viewed_at: row.opt_int(8)?.map(time),
        created_at: time(row.int(9)?),
    })
}

/// Columns of an export row; pairs with [`export_row`].
pub const EXPORT_SELECT: &str = "SELECT e.id, e.deck_id, e.format, e.options, e.status, e.error,
    e.attempts, e.file_key, e.created_at, e.completed_at FROM exports e";

/// Decodes a row selected with [`EXPORT_SELECT`].
pub fn export_row(row: &impl Columns) -> Result<ExportRecord> {
    Ok(ExportRecord {
        id: row.int(0)?,
        deck_id: row.int(1)?,
        format: row.text(2)?,
        options: row.text(3)?,
        status: row.text(4)?,
        error: row.opt_text(5)?,
        attempts: row.int(6)?,
        file_key: row.opt_text(7)?,
        created_at: time(row.int(8)?),
        completed_at: row.opt_int(9)?.map(time),
    })
}

/// The columns of a media row, unqualified (for `RETURNING`).
pub const MEDIA_COLUMNS: &str =
    "id, owner_id, name, content_type, bytes, width, height, sha256, file_key, created_at";

/// The media row selection (alias `m`).
pub const MEDIA_SELECT: &str = "SELECT m.id, m.owner_id, m.name, m.content_type, m.bytes,
    m.width, m.height, m.sha256, m.file_key, m.created_at FROM media m";

/// Decodes a row selected with [`MEDIA_SELECT`] or [`MEDIA_COLUMNS`].
pub fn media_row(row: &impl Columns) -> Result<MediaRecord> {
    Ok(MediaRecord {
        id: row.text(0)?,
        owner_id: row.int(1)?,
        name: row.text(2)?,
        content_type: row.text(3)?,
        bytes: row.int(4)?,
        width: row.opt_int(5)?,
        height: row.opt_int(6)?,
        sha256: row.text(7)?,
        file_key: row.text(8)?,
        created_at: time(row.int(9)?),
    })
}

/// Parses a deck's slide order read as one aggregated text value `id,rank,group;...` (ids
/// and ranks are letters and digits; group may be empty). One row instead of one per slide
/// is what makes reading a 10,000-slide order cheap.
pub fn unpack_slots<C: FromIterator<SlideSlot>>(packed: &str) -> Result<C> {
    if packed.is_empty() {
        return Ok(std::iter::empty().collect());
    }
    packed
        .split(';')
        .map(|item| {
            let mut parts = item.splitn(3, ',');
            let (Some(id), Some(rank), Some(group)) = (parts.next(), parts.next(), parts.next())
            else {
                return Err(Error::internal(format!(
                    "malformed slide order entry {item:?}"
                )));
            };
            let group =
                if group.is_empty() {
                    None
                } else {
                    Some(group.parse().map_err(|_| {
                        Error::internal(format!("malformed slide group in {item:?}"))
                    })?)
                };
            Ok(SlideSlot {
                id: id.to_string(),
                rank: rank.to_string(),
                group,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_orders_unpack() {
        assert!(unpack_slots::<Vec<_>>("").unwrap().is_empty());
        let slots: Vec<_> = unpack_slots("a,a0,;b,a1,3").unwrap();
        assert_eq!(slots[0].group, None);
        assert_eq!(slots[1].group, Some(3));
        assert_eq!(slots[1].rank, "a1");
        assert!(unpack_slots::<Vec<_>>("broken").is_err());
    }
}
