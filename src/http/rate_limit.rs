//! Request-rate limits (interface sections 4 and 7; `--rate-limit`, requests per minute).
//!
//! Every REST request and MCP tool call counts against its credential: the API key, or the OAuth access token.
//! A request without a valid credential counts against the client's address. Limits are a
//! GCRA bucket per key (the `governor` crate): up to `limit` requests at once, refilled at
//! `limit` per minute. Every limited response carries `RateLimit-Limit`,
//! `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the bucket is full again); a
//! request over the limit answers 429 with `Retry-After`.
//!
//! Several servers on one PostgreSQL database share the limit without a round trip per
//! request: each server counts what it let through per key, and once a second
//! [`RateLimits::sync`] swaps those counts with the other servers' through the database and
//! charges theirs to its own buckets. Between two syncs a key can exceed its limit by what
//! the other servers let through in that second. On SQLite (one serving process) there is
//! nothing to share.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use governor::clock::Clock;
use governor::middleware::StateInformationMiddleware;
use governor::{Quota, RateLimiter};
use lectern_core::auth::{Caller, Credential};
use lectern_core::store::RateUsage;

use crate::http::error::ApiError;

/// What a request is counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RateKey {
    /// An API key, by id.
    ApiKey(i64),
    /// An OAuth access token, by id.
    Token(i64),
    /// The client address of a request without a valid credential.
    Address(IpAddr),
    /// A person signed in through the browser, by account (the editor's requests).
    Web(i64),
}

impl RateKey {
    /// The key of an authenticated caller: its credential.
    pub fn for_caller(caller: &Caller) -> Self {
        match &caller.credential {
            Credential::ApiKey { key_id, .. } => RateKey::ApiKey(*key_id),
            Credential::OAuth { token_id, .. } => RateKey::Token(*token_id),
            Credential::Session => RateKey::Web(caller.user_id),
        }
    }

    /// Parses the form [`fmt::Display`] writes (shared with other servers).
    fn parse(s: &str) -> Option<Self> {
        let (kind, rest) = s.split_once(':')?;
        match kind {
            "k" => rest.parse().ok().map(RateKey::ApiKey),
            "t" => rest.parse().ok().map(RateKey::Token),
            "a" => rest.parse().ok().map(RateKey::Address),
            "w" => rest.parse().ok().map(RateKey::Web),
            _ => None,
        }
    }
}

impl fmt::Display for RateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RateKey::ApiKey(id) => write!(f, "k:{id}"),
            RateKey::Token(id) => write!(f, "t:{id}"),
            RateKey::Address(ip) => write!(f, "a:{ip}"),
            RateKey::Web(id) => write!(f, "w:{id}"),
        }
    }
}

type Limiter = RateLimiter<
    RateKey,
    governor::state::keyed::DefaultKeyedStateStore<RateKey>,
    governor::clock::DefaultClock,
    StateInformationMiddleware,
>;

/// The outcome of counting one request.
#[derive(Debug, Clone, Copy)]
pub struct Decision {
    /// The configured requests per minute.
    pub limit: u32,
    /// Requests still allowed right now.
    pub remaining: u32,
    /// Seconds until the bucket is full again.
    pub reset_secs: u64,
    /// Set when the request is over the limit: seconds until one is allowed again.
    pub retry_after_secs: Option<u64>,
}

impl Decision {
    /// Whether the request may go on.
    pub fn allowed(&self) -> bool {
        self.retry_after_secs.is_none()
    }

    /// Writes the `RateLimit-*` headers (and `Retry-After` when over the limit).
    pub fn write_headers(&self, headers: &mut HeaderMap) {
        headers.insert("ratelimit-limit", HeaderValue::from(self.limit));
        headers.insert("ratelimit-remaining", HeaderValue::from(self.remaining));
        headers.insert("ratelimit-reset", HeaderValue::from(self.reset_secs));
        if let Some(secs) = self.retry_after_secs {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
    }

    /// What a request over the limit is told (REST's 429 body, MCP's tool error).
    pub fn message(&self) -> String {
        format!(
            "rate limit exceeded: at most {} requests per minute; retry in {} s",
            self.limit,
            self.retry_after_secs.unwrap_or(1)
        )
    }

    /// The 429 answer for a request over the limit.
    pub fn too_many_requests(&self) -> Response {
        let mut response =
            ApiError::new(StatusCode::TOO_MANY_REQUESTS, self.message()).into_response();
        self.write_headers(response.headers_mut());
        response
    }
}

/// The per-process limiter (shared with other servers through [`RateLimits::sync`]).
pub struct RateLimits {
    /// Requests per minute per key; 0 when limiting is off.
    limit: u32,
    limiter: Option<Limiter>,
    /// Requests let through per key since the last sync; `None` unless shared.
    unsynced: Option<Mutex<HashMap<RateKey, u64>>>,
    /// Other servers' counts already charged, by (server, key, bucket).
    seen: Mutex<HashMap<(String, String, i64), u64>>,
    /// This process's name among the servers sharing the database.
    server: String,
}

impl RateLimits {
    /// A limiter allowing `per_minute` requests per key (`0`: no limit). `shared` starts
    /// counting for [`RateLimits::sync`].
    pub fn new(per_minute: u32, shared: bool) -> Arc<Self> {
        let limiter = NonZeroU32::new(per_minute).map(|n| {
            RateLimiter::keyed(Quota::per_minute(n)).with_middleware::<StateInformationMiddleware>()
        });
        Arc::new(RateLimits {
            limit: per_minute,
            unsynced: (shared && limiter.is_some()).then(Default::default),
            limiter,
            seen: Mutex::default(),
            server: lectern_core::secret::random_alphanumeric(16),
        })
    }

    /// No limit at all (tools and tests that build an `AppState` by hand).
    pub fn off() -> Arc<Self> {
        Self::new(0, false)
    }

    /// Whether limiting is on.
    pub fn enabled(&self) -> bool {
        self.limiter.is_some()
    }

    /// Counts one request against `key`; `None` when limiting is off.
    pub fn check(&self, key: &RateKey) -> Option<Decision> {
        let limiter = self.limiter.as_ref()?;
        let per_request = 60.0 / f64::from(self.limit);
        Some(match limiter.check_key(key) {
            Ok(state) => {
                if let Some(unsynced) = &self.unsynced {
                    *unsynced
                        .lock()
                        .expect("the usage map is never left poisoned")
                        .entry(key.clone())
                        .or_default() += 1;
                }
                let remaining = state.remaining_burst_capacity();
                let used = f64::from(self.limit - remaining.min(self.limit));
                Decision {
                    limit: self.limit,
                    remaining,
                    reset_secs: (used * per_request).ceil() as u64,
                    retry_after_secs: None,
                }
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(limiter.clock().now());
                let retry = wait.as_secs_f64().ceil().max(1.0);
                let full = wait.as_secs_f64() + f64::from(self.limit - 1) * per_request;
                Decision {
                    limit: self.limit,
                    remaining: 0,
                    reset_secs: full.ceil() as u64,
                    retry_after_secs: Some(retry as u64),
                }
            }
        })
    }

    /// Charges `n` requests that another server let through to `key` (as far as the bucket
    /// holds them; an empty bucket is already limited).
    fn charge(&self, key: &RateKey, mut n: u64) {
        let Some(limiter) = &self.limiter else { return };
        while n > 0 {
            let chunk = n.min(u64::from(self.limit)) as u32;
            let Some(chunk) = NonZeroU32::new(chunk) else {
                return;
            };
            match limiter.check_key_n(key, chunk) {
                Ok(Ok(_)) => n -= u64::from(chunk.get()),
                // Not all fit: take them one at a time until the bucket is empty.
                _ => {
                    while n > 0 && limiter.check_key(key).is_ok() {
                        n -= 1;
                    }
                    return;
                }
            }
        }
    }

    /// One exchange with the other servers: publishes this server's counts since the last
    /// call and charges theirs. A no-op unless the limiter is shared.
    pub async fn sync(&self, core: &lectern_core::Lectern) -> lectern_core::Result<()> {
        let Some(unsynced) = &self.unsynced else {
            return Ok(());
        };
        let mine: Vec<(String, u64)> = std::mem::take(
            &mut *unsynced
                .lock()
                .expect("the usage map is never left poisoned"),
        )
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect();
        let bucket = usage_bucket();
        let others: Vec<RateUsage> =
            match core.exchange_rate_usage(&self.server, bucket, &mine).await {
                Ok(rows) => rows,
                Err(e) => {
                    // Keep this round's counts for the next exchange.
                    let mut map = unsynced
                        .lock()
                        .expect("the usage map is never left poisoned");
                    for (key, n) in mine {
                        if let Some(key) = RateKey::parse(&key) {
                            *map.entry(key).or_default() += n;
                        }
                    }
                    return Err(e);
                }
            };
        let mut charges = Vec::new();
        {
            let mut seen = self
                .seen
                .lock()
                .expect("the seen map is never left poisoned");
            for row in others {
                let before = seen
                    .insert((row.server, row.key.clone(), row.bucket), row.requests)
                    .unwrap_or(0);
                if row.requests > before {
                    charges.push((row.key, row.requests - before));
                }
            }
            seen.retain(|(_, _, b), _| *b >= bucket - 1);
        }
        for (key, n) in charges {
            if let Some(key) = RateKey::parse(&key) {
                self.charge(&key, n);
            }
        }
        Ok(())
    }

    /// Forgets keys whose buckets are full again (bounded memory under many addresses).
    pub fn shrink(&self) {
        if let Some(limiter) = &self.limiter {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

/// Usage is exchanged in 10-second buckets (a server that joins late charges at most the
/// last 20 seconds of the others' requests).
fn usage_bucket() -> i64 {
    lectern_core::time::Timestamp::now().unix_micros() / 10_000_000
}

/// Runs the exchange once a second and the cleanup once a minute, for the process's life.
pub async fn run_sync(limits: Arc<RateLimits>, core: lectern_core::Lectern) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut rounds: u64 = 0;
    loop {
        tick.tick().await;
        if let Err(e) = limits.sync(&core).await {
            tracing::warn!(error = %e, "sharing rate-limit counts with the other servers failed");
        }
        rounds += 1;
        if rounds.is_multiple_of(60) {
            limits.shrink();
        }
    }
}

/// The client address of a request (the TCP peer).
pub fn client_address(req: &Request) -> IpAddr {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |ConnectInfo(a)| a.ip())
}
