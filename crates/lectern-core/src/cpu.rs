//! Work that costs CPU in proportion to what a client sent (parsing and sanitizing slide
//! HTML, reading imported documents) runs here: small inputs at once, larger ones on
//! tokio's blocking pool, at most one per core at a time, so that a heavy request never
//! holds an async worker and `/healthz` and other requests keep their pace.

use std::sync::OnceLock;

use serde_json::Value;
use tokio::sync::Semaphore;

/// Inputs with less text than this are parsed where they arrive: the blocking pool's hop
/// costs more than they do.
pub const INLINE_BYTES: usize = 16 * 1024;

fn permits() -> &'static Semaphore {
    static PERMITS: OnceLock<Semaphore> = OnceLock::new();
    PERMITS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Semaphore::new(cores)
    })
}

/// Runs `work` on the blocking pool, at most one per core at once.
pub async fn off_workers<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let _permit = permits()
        .acquire()
        .await
        .expect("the semaphore is never closed");
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// Runs `work` at once when `bytes` is small, else [`off_workers`].
pub async fn sized<T: Send + 'static>(
    bytes: usize,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    if bytes < INLINE_BYTES {
        work()
    } else {
        off_workers(work).await
    }
}

/// Parses a request body with `parse` (one of the core's `from_json`), off the async
/// workers when it carries much text.
pub async fn parse_body<T: Send + 'static>(
    body: Option<Value>,
    parse: fn(Option<Value>) -> crate::Result<T>,
) -> crate::Result<T> {
    let bytes = body.as_ref().map_or(0, text_bytes);
    sized(bytes, move || parse(body)).await
}

/// The bytes of text in a JSON value (its strings and keys), without copying it.
fn text_bytes(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(text_bytes).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| k.len() + text_bytes(v)).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_counted_through_arrays_and_objects() {
        let v = serde_json::json!({"ab": ["xyz", {"c": "de"}], "n": 5});
        assert_eq!(text_bytes(&v), 2 + 3 + 1 + 2 + 1);
    }

    #[tokio::test]
    async fn large_work_runs_off_the_calling_thread() {
        let here = std::thread::current().id();
        let there = sized(INLINE_BYTES, || std::thread::current().id()).await;
        assert_ne!(here, there);
        assert_eq!(sized(10, || std::thread::current().id()).await, here);
    }
}
