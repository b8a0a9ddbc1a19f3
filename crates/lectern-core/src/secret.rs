//! Secrets: API keys, passwords and random tokens. A secret is generated here, shown once,
//! and stored only as a hash; comparisons are constant-time. `Secret` never prints its value.

use std::fmt;

use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use rand::RngExt;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Text that must never reach a log: `Debug` and `Display` print a placeholder.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value itself, for the one place that needs it (hashing, showing it once).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// A random string of ASCII letters and digits from the thread's CSPRNG.
pub fn random_alphanumeric(len: usize) -> String {
    rand::rng()
        .sample_iter(Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}

/// Lowercase hex SHA-256 of the input.
pub fn sha256_hex(input: &str) -> String {
    sha256_hex_bytes(input.as_bytes())
}

/// Lowercase hex SHA-256 of bytes.
pub fn sha256_hex_bytes(input: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(input);
    let mut out = String::with_capacity(64);
    for byte in digest.iter() {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    out
}

/// Constant-time equality of two strings (length is not secret).
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

/// The recognisable start of every Lectern API key.
pub const API_KEY_PREFIX: &str = "lk_";
/// Length of the public lookup part that follows the prefix.
const API_KEY_LOOKUP_LEN: usize = 8;
/// Length of the secret part (62^40 ≈ 2^238 possibilities).
const API_KEY_SECRET_LEN: usize = 40;

/// A freshly generated API key: the full key (shown once) and what is stored.
#[derive(Debug)]
pub struct NewApiKey {
    /// The whole key, `lk_` + lookup id + secret.
    pub key: Secret,
    /// The public part used to find the stored row: `lk_` + 8 characters. Shown in key lists.
    pub lookup: String,
    /// SHA-256 of the whole key; the only form in which the key is stored.
    pub hash: String,
}

impl NewApiKey {
    /// Generates a new random key.
    pub fn generate() -> Self {
        let lookup = format!(
            "{API_KEY_PREFIX}{}",
            random_alphanumeric(API_KEY_LOOKUP_LEN)
        );
        let key = format!("{lookup}{}", random_alphanumeric(API_KEY_SECRET_LEN));
        let hash = sha256_hex(&key);
        NewApiKey {
            key: Secret(key),
            lookup,
            hash,
        }
    }
}

/// Splits a presented API key into its lookup part, or `None` when it cannot be a key.
/// API keys have 256-bit entropy, so a fast hash (SHA-256) is the right tool; passwords,
/// which people choose, get argon2 below.
pub fn api_key_lookup(presented: &str) -> Option<&str> {
    let total = API_KEY_PREFIX.len() + API_KEY_LOOKUP_LEN + API_KEY_SECRET_LEN;
    if presented.len() != total
        || !presented.starts_with(API_KEY_PREFIX)
        || !presented
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return None;
    }
    Some(&presented[..API_KEY_PREFIX.len() + API_KEY_LOOKUP_LEN])
}

/// Whether a presented key matches a stored hash, in constant time.
pub fn api_key_matches(presented: &str, stored_hash: &str) -> bool {
    constant_time_eq(&sha256_hex(presented), stored_hash)
}

/// The threads that hash and check passwords: argon2 takes tens of milliseconds of a core
/// (and 19 MiB) per password, so it runs on Tokio's blocking pool, never on a request's
/// worker thread, and at most one password per core at a time; further ones wait their
/// turn here instead of piling up threads and memory.
fn password_slots() -> &'static tokio::sync::Semaphore {
    static SLOTS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    SLOTS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        tokio::sync::Semaphore::new(cores)
    })
}

/// Runs `work` on the blocking pool once a password slot is free.
pub(crate) async fn on_password_thread<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> crate::Result<T> {
    let _slot = password_slots()
        .acquire()
        .await
        .expect("the password semaphore is never closed");
    tokio::task::spawn_blocking(work)
        .await
        .map_err(crate::Error::internal)
}

/// [`hash_password`] off the request's thread (see [`password_slots`]).
pub async fn hash_password_async(password: &Secret) -> crate::Result<String> {
    let password = password.clone();
    on_password_thread(move || hash_password(&password)).await?
}

/// [`verify_password`] off the request's thread (see [`password_slots`]); a fault counts as
/// a wrong password.
pub async fn verify_password_async(password: &Secret, phc: &str) -> bool {
    let (password, phc) = (password.clone(), phc.to_string());
    on_password_thread(move || verify_password(&password, &phc))
        .await
        .unwrap_or(false)
}

/// Hashes a password with argon2id and a fresh salt (PHC string). Blocks for tens of
/// milliseconds: async code calls [`hash_password_async`].
pub fn hash_password(password: &Secret) -> crate::Result<String> {
    Argon2::default()
        .hash_password(password.expose().as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| crate::Error::internal(format!("password hashing failed: {e}")))
}

/// Checks a password against a PHC string made by [`hash_password`]. Blocks for tens of
/// milliseconds: async code calls [`verify_password_async`].
pub fn verify_password(password: &Secret, phc: &str) -> bool {
    match argon2::password_hash::phc::PasswordHash::new(phc) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.expose().as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stored hashes (API keys, tokens, history texts) are lowercase hex SHA-256:
    /// known answers, so that a change of the encoding cannot orphan them.
    #[test]
    fn sha256_hex_gives_the_known_lowercase_digests() {
        assert_eq!(
            sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn generated_keys_have_the_prefix_and_verify_only_against_their_hash() {
        let k = NewApiKey::generate();
        assert!(k.key.expose().starts_with("lk_"));
        assert_eq!(api_key_lookup(k.key.expose()), Some(k.lookup.as_str()));
        assert!(api_key_matches(k.key.expose(), &k.hash));
        let other = NewApiKey::generate();
        assert!(!api_key_matches(other.key.expose(), &k.hash));
        assert_ne!(k.key, other.key);
    }

    #[test]
    fn malformed_keys_have_no_lookup_part() {
        assert_eq!(api_key_lookup(""), None);
        assert_eq!(api_key_lookup("lk_short"), None);
        let k = NewApiKey::generate();
        let mut bad = k.key.expose().to_string();
        bad.replace_range(0..3, "xx_");
        assert_eq!(api_key_lookup(&bad), None);
    }

    #[test]
    fn secrets_do_not_print() {
        let s = Secret::new("hunter2");
        assert!(!format!("{s:?}").contains("hunter2"));
    }

    #[test]
    fn passwords_verify_with_argon2() {
        let pw = Secret::new("correct horse");
        let h = hash_password(&pw).unwrap();
        assert!(h.starts_with("$argon2"));
        assert!(verify_password(&pw, &h));
        assert!(!verify_password(&Secret::new("wrong"), &h));
    }

    /// On a runtime with one thread, other tasks keep running while passwords are checked:
    /// argon2 runs beside the runtime, not on it.
    #[tokio::test(flavor = "current_thread")]
    async fn password_checks_leave_the_async_threads_free() {
        let pw = Secret::new("correct horse");
        let h = hash_password_async(&pw).await.unwrap();
        let ticks = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let ticker = tokio::spawn({
            let ticks = ticks.clone();
            async move {
                loop {
                    ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    tokio::task::yield_now().await;
                }
            }
        });
        for _ in 0..3 {
            assert!(verify_password_async(&pw, &h).await);
        }
        assert!(!verify_password_async(&Secret::new("wrong"), &h).await);
        ticker.abort();
        assert!(
            ticks.load(std::sync::atomic::Ordering::Relaxed) > 100,
            "the runtime's only thread was busy hashing"
        );
    }
}
