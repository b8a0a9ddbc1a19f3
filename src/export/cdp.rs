//! The DevTools protocol over Chromium's pipe (`--remote-debugging-pipe`): each message is
//! one JSON object ended by a NUL byte, commands on the browser's fd 3, answers and events on
//! fd 4. The renderer needs a dozen commands and no events, so this is a small client
//! of its own rather than a generated binding of the whole protocol.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Answers awaited, by command id; `None` once the browser closed its pipe.
type Waiting = Arc<Mutex<Option<HashMap<u64, Answer>>>>;
type Answer = oneshot::Sender<Result<Value, String>>;

/// A DevTools connection to one browser.
pub struct Cdp {
    to_browser: tokio::sync::Mutex<Box<dyn AsyncWrite + Send + Unpin>>,
    waiting: Waiting,
    next_id: AtomicU64,
    reader: JoinHandle<()>,
}

impl Cdp {
    /// Speaks to the browser over `to_browser` (its fd 3) and `from_browser` (its fd 4).
    pub fn new(
        to_browser: impl AsyncWrite + Send + Unpin + 'static,
        from_browser: impl AsyncRead + Send + Unpin + 'static,
    ) -> Self {
        let waiting: Waiting = Arc::new(Mutex::new(Some(HashMap::new())));
        let reader = tokio::spawn(read_answers(from_browser, waiting.clone()));
        Cdp {
            to_browser: tokio::sync::Mutex::new(Box::new(to_browser)),
            waiting,
            next_id: AtomicU64::new(1),
            reader,
        }
    }

    /// Whether the browser's side of the pipe is still open.
    pub fn alive(&self) -> bool {
        !self.reader.is_finished()
    }

    /// Runs `method` with `params`, on the page attached as `session` when given, and returns
    /// its result.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = session.into();
        }
        let (tx, rx) = oneshot::channel();
        match lock(&self.waiting).as_mut() {
            Some(calls) => calls.insert(id, tx),
            None => return Err(format!("{method}: the browser is gone")),
        };
        // A call given up on (a render's time limit) stops waiting for its answer.
        let _forget = Forget(&self.waiting, id);
        let mut bytes = serde_json::to_vec(&message).map_err(|e| e.to_string())?;
        bytes.push(0);
        {
            let mut pipe = self.to_browser.lock().await;
            pipe.write_all(&bytes)
                .await
                .map_err(|e| format!("{method}: the browser is gone ({e})"))?;
            pipe.flush().await.map_err(|e| e.to_string())?;
        }
        match rx.await {
            Ok(answer) => answer.map_err(|e| format!("{method}: {e}")),
            Err(_) => Err(format!("{method}: the browser is gone")),
        }
    }
}

impl Drop for Cdp {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Removes a call's entry when the call ends, answered or not.
struct Forget<'a>(&'a Waiting, u64);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        if let Some(calls) = lock(self.0).as_mut() {
            calls.remove(&self.1);
        }
    }
}

fn lock(waiting: &Waiting) -> std::sync::MutexGuard<'_, Option<HashMap<u64, Answer>>> {
    waiting.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Hands each answer to its caller until the browser closes its pipe; events are dropped.
async fn read_answers(from_browser: impl AsyncRead + Unpin, waiting: Waiting) {
    let mut reader = BufReader::new(from_browser);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(0, &mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if buffer.last() == Some(&0) {
            buffer.pop();
        }
        let Ok(message) = serde_json::from_slice::<Value>(&buffer) else {
            continue;
        };
        let Some(id) = message.get("id").and_then(Value::as_u64) else {
            continue;
        };
        let answer = match message.get("error") {
            Some(error) => Err(error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("failed")
                .to_string()),
            None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
        };
        if let Some(tx) = lock(&waiting).as_mut().and_then(|calls| calls.remove(&id)) {
            let _ = tx.send(answer);
        }
    }
    // Callers still waiting learn that the browser is gone.
    lock(&waiting).take();
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// A browser stand-in on the other end of two in-memory pipes.
    #[tokio::test]
    async fn answers_reach_their_callers_in_any_order_and_errors_carry_the_message() {
        let (to_browser, mut browser_in) = tokio::io::duplex(4096);
        let (mut browser_out, from_browser) = tokio::io::duplex(4096);
        let cdp = Arc::new(Cdp::new(to_browser, from_browser));
        let first = tokio::spawn({
            let cdp = cdp.clone();
            async move { cdp.call(None, "A.one", json!({})).await }
        });
        let second = tokio::spawn({
            let cdp = cdp.clone();
            async move { cdp.call(Some("s1"), "A.two", json!({"x": 1})).await }
        });
        // Read both commands, then answer the second first.
        let mut seen = Vec::new();
        let mut byte = [0u8; 1];
        let mut messages: Vec<Value> = Vec::new();
        while messages.len() < 2 {
            browser_in.read_exact(&mut byte).await.unwrap();
            if byte[0] == 0 {
                messages.push(serde_json::from_slice(&seen).unwrap());
                seen.clear();
            } else {
                seen.push(byte[0]);
            }
        }
        let by_method = |m: &str| messages.iter().find(|v| v["method"] == m).cloned().unwrap();
        let two = by_method("A.two");
        assert_eq!(two["sessionId"], "s1");
        assert_eq!(two["params"]["x"], 1);
        let event = json!({"method": "Page.loadEventFired", "params": {}});
        let answer_two = json!({"id": two["id"], "result": {"ok": 2}});
        let answer_one =
            json!({"id": by_method("A.one")["id"], "error": {"code": -32000, "message": "nope"}});
        for message in [event, answer_two, answer_one] {
            let mut bytes = serde_json::to_vec(&message).unwrap();
            bytes.push(0);
            browser_out.write_all(&bytes).await.unwrap();
        }
        assert_eq!(second.await.unwrap().unwrap(), json!({"ok": 2}));
        assert_eq!(first.await.unwrap().unwrap_err(), "A.one: nope");
        // The browser closes its pipe: a waiting call fails instead of hanging.
        let third = tokio::spawn({
            let cdp = cdp.clone();
            async move { cdp.call(None, "A.three", json!({})).await }
        });
        drop(browser_out);
        let gone = third.await.unwrap().unwrap_err();
        assert!(gone.contains("gone"), "{gone}");
        assert!(!cdp.alive());
    }
}
