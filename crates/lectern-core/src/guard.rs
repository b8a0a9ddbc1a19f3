//! Limits on guessing: how many tries a client address, a share link or an account at an
//! address gets, and what a refusal says. The counting happens in the store, one statement
//! or one transaction per try, so parallel tries are counted one after the other and a try is
//! counted before its password is checked (the same rules on every server of a database).

use std::net::IpAddr;
use std::time::Duration;

use crate::time::Timestamp;

/// Tries per window, per kind of key. [`GuessLimits::default`] is what `lectern serve` uses.
#[derive(Debug, Clone)]
pub struct GuessLimits {
    /// Sign-in tries per client address, whatever the account.
    pub login_per_address: i64,
    /// The window of `login_per_address`.
    pub login_window: Duration,
    /// Password tries per share link, from anyone.
    pub share_per_link: i64,
    /// Password tries per client address, on any share link.
    pub share_per_address: i64,
    /// The window of the two share limits.
    pub share_window: Duration,
    /// Client registrations (`/oauth/register`) per client address.
    pub register_per_address: i64,
    /// The window of `register_per_address`.
    pub register_window: Duration,
}

impl Default for GuessLimits {
    fn default() -> Self {
        GuessLimits {
            login_per_address: 30,
            login_window: Duration::from_secs(5 * 60),
            share_per_link: 10,
            share_per_address: 5,
            share_window: Duration::from_secs(60),
            register_per_address: 20,
            register_window: Duration::from_secs(3600),
        }
    }
}

/// A try refused for now: retry after this many seconds (at least 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyTries {
    pub retry_after: i64,
}

/// The key a client address is counted under: an IPv4 address, or the /64 network of an IPv6
/// address (one host usually holds a whole /64, so single IPv6 addresses cost nothing to
/// change). An IPv4-mapped IPv6 address counts as its IPv4 address.
pub fn address_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// Whether the `tries`-th try of a window of `length` ending at `window_end` is within `max`;
/// when not, how long until the window ends. A parallel try may have opened the window after
/// this one read the clock, so the wait is capped at `length`.
pub fn window_verdict(
    tries: i64,
    window_end: Timestamp,
    length: Duration,
    max: i64,
    now: Timestamp,
) -> Result<(), TooManyTries> {
    if tries <= max {
        return Ok(());
    }
    let length = i64::try_from(length.as_micros()).unwrap_or(i64::MAX / 2);
    let left = (window_end.unix_micros() - now.unix_micros()).min(length);
    Err(TooManyTries {
        retry_after: (left + 999_999).div_euclid(1_000_000).max(1),
    })
}

/// The end of a window of `length` that starts at `now`.
pub fn window_end(now: Timestamp, length: Duration) -> Timestamp {
    let micros = i64::try_from(length.as_micros()).unwrap_or(i64::MAX / 2);
    Timestamp::from_unix_micros(now.unix_micros().saturating_add(micros))
}

/// Failed sign-ins of one account from one address allowed before each further try waits.
pub const FREE_LOGIN_FAILURES: i64 = 5;

/// Whether a sign-in may be tried after `failures` failures, the last at `last`: the first
/// [`FREE_LOGIN_FAILURES`] go at once; after them each try waits 30 s, doubling with every
/// further failure, at most 15 minutes. `Some(seconds)` to wait.
pub fn login_wait(failures: i64, last: Option<Timestamp>, now: Timestamp) -> Option<i64> {
    if failures < FREE_LOGIN_FAILURES {
        return None;
    }
    let doublings = (failures - FREE_LOGIN_FAILURES).min(5) as u32;
    let wait = (30 * 2i64.pow(doublings)).min(15 * 60);
    let until = last.map_or(0, |t| t.unix_micros()) + wait * 1_000_000;
    (now.unix_micros() < until).then(|| (until - now.unix_micros()) / 1_000_000 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_unix_micros(secs * 1_000_000)
    }

    #[test]
    fn addresses_count_as_ipv4_or_their_ipv6_network() {
        assert_eq!(address_key("203.0.113.9".parse().unwrap()), "203.0.113.9");
        assert_eq!(
            address_key("::ffff:203.0.113.9".parse().unwrap()),
            "203.0.113.9"
        );
        assert_eq!(
            address_key("2001:db8:1:2:aaaa::1".parse().unwrap()),
            address_key("2001:db8:1:2:bbbb::2".parse().unwrap()),
        );
        assert_ne!(
            address_key("2001:db8:1:2::1".parse().unwrap()),
            address_key("2001:db8:1:3::1".parse().unwrap()),
        );
    }

    #[test]
    fn tries_past_the_limit_wait_for_the_window_to_end() {
        let end = at(160);
        let minute = Duration::from_secs(60);
        assert!(window_verdict(1, end, minute, 3, at(100)).is_ok());
        assert!(window_verdict(3, end, minute, 3, at(100)).is_ok());
        assert_eq!(
            window_verdict(4, end, minute, 3, at(100)),
            Err(TooManyTries { retry_after: 60 })
        );
        assert_eq!(
            window_verdict(9, end, minute, 3, Timestamp::from_unix_micros(159_500_000)),
            Err(TooManyTries { retry_after: 1 })
        );
        // A parallel try that read the clock 10 ms later opened the window: still at most 60.
        assert_eq!(
            window_verdict(4, end, minute, 3, Timestamp::from_unix_micros(99_990_000)),
            Err(TooManyTries { retry_after: 60 })
        );
        assert_eq!(window_end(at(100), Duration::from_secs(60)), end);
    }

    #[test]
    fn sign_in_waits_grow_after_five_failures() {
        assert_eq!(login_wait(0, None, at(100)), None);
        assert_eq!(login_wait(4, Some(at(100)), at(100)), None);
        assert_eq!(login_wait(5, Some(at(100)), at(100)), Some(31));
        assert_eq!(login_wait(5, Some(at(100)), at(130)), None);
        assert_eq!(login_wait(6, Some(at(100)), at(130)), Some(31));
        assert_eq!(login_wait(40, Some(at(100)), at(100)), Some(901));
    }
}
