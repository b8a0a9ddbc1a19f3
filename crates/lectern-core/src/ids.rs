//! Typed ids of the interface's resources, parsed once where they enter (REST paths, MCP
//! arguments): an integer or its decimal string in quotes (interface section 4), anything
//! else 422. An id of zero or below names no row: it parses, and every lookup of it is not
//! found, exactly like an id that does not exist (so a bad body still answers 422 first).

use std::fmt;

use crate::{Error, Result};

/// What the integer ids have in common, for adapters that parse any of them.
pub trait IntegerId: Sized {
    /// Parses `12` or `"12"`; `what` names the parameter in the 422 message.
    fn parse_id(what: &str, raw: &str) -> Result<Self>;
}

macro_rules! integer_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name(i64);

        impl $name {
            /// Parses `12` or `"12"`; `what` names the parameter in the 422 message.
            pub fn parse(what: &str, raw: &str) -> Result<Self> {
                let trimmed = raw.trim();
                let unquoted = trimmed
                    .strip_prefix('"')
                    .and_then(|s| s.strip_suffix('"'))
                    .unwrap_or(trimmed);
                unquoted
                    .parse()
                    .map($name)
                    .map_err(|_| Error::invalid(format!("{what} must be an integer, got {raw:?}")))
            }

            /// The id as stored, or `None` when no row can have it (zero or below).
            pub fn stored(self) -> Option<i64> {
                (self.0 > 0).then_some(self.0)
            }
        }

        impl IntegerId for $name {
            fn parse_id(what: &str, raw: &str) -> Result<Self> {
                $name::parse(what, raw)
            }
        }

        impl From<i64> for $name {
            fn from(id: i64) -> Self {
                $name(id)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

integer_id!(
    /// A deck's id (`{id}`, `{deck_id}`).
    DeckId
);
integer_id!(
    /// A private share link's id.
    ShareId
);
integer_id!(
    /// An export's id.
    ExportId
);

/// A slide's id: opaque text (interface 2.8), matched as given.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SlideId(pub String);

impl SlideId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SlideId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_integers_or_their_quoted_strings() {
        assert_eq!(DeckId::parse("id", "12").unwrap().stored(), Some(12));
        assert_eq!(DeckId::parse("id", "\"12\"").unwrap().stored(), Some(12));
        assert_eq!(DeckId::parse("id", " 7 ").unwrap().stored(), Some(7));
        for bad in ["", "abc", "1.5", "\"x\"", "99999999999999999999"] {
            assert!(DeckId::parse("id", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ids_of_zero_or_below_name_no_row() {
        assert_eq!(DeckId::parse("id", "0").unwrap().stored(), None);
        assert_eq!(ShareId::parse("id", "-3").unwrap().stored(), None);
        assert_eq!(ExportId::from(5).stored(), Some(5));
    }
}
