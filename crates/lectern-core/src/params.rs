//! Parsing of request values shared by every operation: paging and booleans in query
//! strings (ids are in [`crate::ids`]). Each parser answers 422 with a message naming the
//! parameter.

use serde::Serialize;

use crate::{Error, Result};

/// A page of a list: `page` from 1, `per_page` within the operation's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub page: u32,
    pub per_page: u32,
}

impl Paging {
    /// Limits of the deck lists (interface section 8).
    pub const DECKS: (u32, u32) = (20, 100);
    /// Limits of `list_slides`.
    pub const SLIDES: (u32, u32) = (50, 200);

    /// Parses the optional raw query values against `(default, max)` per_page limits.
    pub fn parse(page: Option<&str>, per_page: Option<&str>, limits: (u32, u32)) -> Result<Self> {
        let (default_per_page, max_per_page) = limits;
        let page = match page {
            None => 1,
            Some(raw) => parse_bounded("page", raw, 1, u32::MAX)?,
        };
        let per_page = match per_page {
            None => default_per_page,
            Some(raw) => parse_bounded("per_page", raw, 1, max_per_page)?,
        };
        Ok(Paging { page, per_page })
    }

    /// Rows to skip.
    pub fn offset(&self) -> i64 {
        (self.page as i64 - 1) * self.per_page as i64
    }

    /// Rows to return.
    pub fn limit(&self) -> i64 {
        self.per_page as i64
    }

    /// The `meta` object of a paged answer.
    pub fn meta(&self, total: i64) -> PageMeta {
        PageMeta {
            page: self.page,
            per_page: self.per_page,
            total,
        }
    }
}

/// `meta` of a paged list (interface 2.1).
#[derive(Debug, Clone, Copy, Serialize, utoipa::ToSchema)]
pub struct PageMeta {
    pub page: u32,
    pub per_page: u32,
    pub total: i64,
}

fn parse_bounded(name: &str, raw: &str, min: u32, max: u32) -> Result<u32> {
    let msg = || {
        if max == u32::MAX {
            format!("{name} must be an integer >= {min}, got {raw:?}")
        } else {
            format!("{name} must be an integer from {min} to {max}, got {raw:?}")
        }
    };
    let n: i64 = raw.trim().parse().map_err(|_| Error::invalid(msg()))?;
    if n < min as i64 || n > max as i64 {
        return Err(Error::invalid(msg()));
    }
    Ok(n as u32)
}

/// Parses a boolean query value: `true`/`false` in any case (also `1`/`0`); absent is
/// `false`.
pub fn parse_bool(name: &str, raw: Option<&str>) -> Result<bool> {
    match raw.map(|r| r.trim().to_ascii_lowercase()).as_deref() {
        None => Ok(false),
        Some("true" | "1") => Ok(true),
        Some("false" | "0") => Ok(false),
        Some(other) => Err(Error::invalid(format!(
            "{name} must be true or false, got {other:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_defaults_and_limits() {
        assert_eq!(
            Paging::parse(None, None, Paging::DECKS).unwrap(),
            Paging {
                page: 1,
                per_page: 20
            }
        );
        assert_eq!(
            Paging::parse(Some("3"), Some("100"), Paging::DECKS).unwrap(),
            Paging {
                page: 3,
                per_page: 100
            }
        );
        for (page, per_page) in [
            ("0", "1"),
            ("1", "0"),
            ("1", "101"),
            ("x", "1"),
            ("1", "2.5"),
            ("-1", "5"),
        ] {
            assert!(Paging::parse(Some(page), Some(per_page), Paging::DECKS).is_err());
        }
        assert!(Paging::parse(None, Some("200"), Paging::SLIDES).is_ok());
        assert!(Paging::parse(None, Some("201"), Paging::SLIDES).is_err());
    }

    #[test]
    fn booleans() {
        assert!(!parse_bool("b", None).unwrap());
        assert!(parse_bool("b", Some("true")).unwrap());
        assert!(!parse_bool("b", Some("0")).unwrap());
        assert!(parse_bool("b", Some("True")).unwrap());
        assert!(parse_bool("b", Some("yes")).is_err());
    }
}
