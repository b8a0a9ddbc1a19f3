//! Timestamps as the interface shows them: UTC, ISO 8601 / RFC 3339, microsecond precision
//! (the precision both storage backends keep, so a value survives a round trip unchanged).

use serde::{Serialize, Serializer};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// A point in time, always UTC, truncated to whole microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

impl Timestamp {
    /// The current time.
    pub fn now() -> Self {
        Self::from_unix_micros(OffsetDateTime::now_utc().unix_timestamp_nanos() as i64 / 1000)
    }

    /// From microseconds since the Unix epoch (how SQLite stores it).
    pub fn from_unix_micros(micros: i64) -> Self {
        let dt = OffsetDateTime::from_unix_timestamp_nanos(micros as i128 * 1000)
            .unwrap_or(OffsetDateTime::UNIX_EPOCH);
        Timestamp(dt)
    }

    /// Microseconds since the Unix epoch.
    pub fn unix_micros(self) -> i64 {
        (self.0.unix_timestamp_nanos() / 1000) as i64
    }

    /// The underlying date-time.
    pub fn as_offset(self) -> OffsetDateTime {
        self.0
    }

    /// Parses an RFC 3339 date-time (any offset), truncating to microseconds.
    pub fn parse_rfc3339(s: &str) -> Option<Self> {
        let dt = OffsetDateTime::parse(s, &Rfc3339).ok()?;
        Some(Self::from_unix_micros(
            (dt.unix_timestamp_nanos() / 1000) as i64,
        ))
    }

    /// RFC 3339 text in UTC, e.g. `2026-11-22T16:40:43.123456Z`.
    pub fn to_rfc3339(self) -> String {
        self.0
            .format(&Rfc3339)
            .expect("a UTC date-time between years 0 and 9999 always formats as RFC 3339")
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_micros_and_text() {
        let t = Timestamp::now();
        assert_eq!(Timestamp::from_unix_micros(t.unix_micros()), t);
        assert_eq!(Timestamp::parse_rfc3339(&t.to_rfc3339()), Some(t));
        assert!(t.to_rfc3339().ends_with('Z'));
    }
}
