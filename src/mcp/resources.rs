//! MCP resources: each of the caller's decks is `lectern://decks/{id}` (listed by
//! `resources/list`, read as its JSON by `resources/read`), and `resources/subscribe` sends
//! `notifications/resources/updated` on every new revision while the session is subscribed
//! (the deck's event stream, `lectern_core::events`, read by one task per subscription).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lectern_core::auth::Caller;
use lectern_core::events::DeckEvent;
use lectern_core::ids::DeckId;
use lectern_core::params::Paging;
use lectern_core::{Error, Lectern};
use rmcp::model::{
    ListResourcesResult, ReadResourceResult, Resource, ResourceContents,
    ResourceUpdatedNotificationParam,
};
use rmcp::service::Peer;
use rmcp::{ErrorData as McpError, RoleServer};

/// The scheme and path before a deck's id.
const PREFIX: &str = "lectern://decks/";

/// A session's subscriptions: the task that sends each URI's updates.
#[derive(Default)]
pub(super) struct Subscriptions(Mutex<HashMap<String, tokio::task::AbortHandle>>);

impl Drop for Subscriptions {
    fn drop(&mut self) {
        for task in self.0.lock().expect("no panics inside").values() {
            task.abort();
        }
    }
}

/// A deck's URI.
fn uri(deck_id: i64) -> String {
    format!("{PREFIX}{deck_id}")
}

/// The deck a URI names.
fn deck_of(uri: &str) -> Result<DeckId, McpError> {
    uri.strip_prefix(PREFIX)
        .and_then(|id| DeckId::parse("the deck id", id).ok())
        .ok_or_else(|| McpError::resource_not_found(format!("no such resource: {uri}"), None))
}

/// A core error as the protocol's: an unknown (or another account's) deck is not found.
fn protocol_error(e: Error) -> McpError {
    match e {
        Error::NotFound(m) => McpError::resource_not_found(m, None),
        Error::Internal(_) => {
            tracing::error!(error = %e, "an MCP resource request failed");
            McpError::internal_error("internal error", None)
        }
        other => McpError::invalid_params(other.to_string(), None),
    }
}

/// `resources/list`: one page of the caller's decks (the cursor is the page number).
pub(super) async fn list(
    core: &Lectern,
    caller: &Caller,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, McpError> {
    let page = cursor.unwrap_or("1");
    let paging = Paging::parse(Some(page), Some("100"), Paging::DECKS).map_err(protocol_error)?;
    let decks = core
        .list_decks(caller, paging)
        .await
        .map_err(protocol_error)?;
    let resources: Vec<Resource> = decks
        .items
        .iter()
        .map(|d| {
            Resource::new(uri(d.id), d.title.clone())
                .with_title(d.title.clone())
                .with_description(format!("Deck {} at revision {}", d.id, d.revision))
                .with_mime_type("application/json")
        })
        .collect();
    let mut result = ListResourcesResult::with_all_items(resources);
    let shown = u64::from(decks.meta.page) * u64::from(decks.meta.per_page);
    if shown < decks.meta.total as u64 {
        result.next_cursor = Some((decks.meta.page + 1).to_string());
    }
    Ok(result)
}

/// `resources/read`: the deck as `get_deck` answers it, with its slides' HTML.
pub(super) async fn read(
    core: &Lectern,
    caller: &Caller,
    uri: &str,
) -> Result<ReadResourceResult, McpError> {
    let deck = core
        .get_deck(caller, deck_of(uri)?, true)
        .await
        .map_err(protocol_error)?;
    let text = serde_json::to_string(&deck).expect("a deck serialises");
    let contents = ResourceContents::TextResourceContents {
        uri: uri.to_string(),
        mime_type: Some("application/json".into()),
        text,
        meta: None,
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// `resources/subscribe`: from now on, each new revision of the deck sends
/// `notifications/resources/updated` to `peer`, until unsubscribed or the session ends.
pub(super) async fn subscribe(
    core: &Lectern,
    caller: &Caller,
    subscriptions: &Arc<Subscriptions>,
    uri: String,
    peer: Peer<RoleServer>,
) -> Result<(), McpError> {
    let mut stream = core
        .deck_events(caller, deck_of(&uri)?, None)
        .await
        .map_err(protocol_error)?;
    let updated = uri.clone();
    let task = tokio::spawn(async move {
        while let Ok(event) = stream.next().await {
            if let DeckEvent::Revision(_) | DeckEvent::Reset = event {
                let notice = ResourceUpdatedNotificationParam::new(updated.clone());
                if peer.notify_resource_updated(notice).await.is_err() {
                    return; // the session is gone
                }
            }
        }
    });
    let old = subscriptions
        .0
        .lock()
        .expect("no panics inside")
        .insert(uri, task.abort_handle());
    if let Some(old) = old {
        old.abort();
    }
    Ok(())
}

/// `resources/unsubscribe`.
pub(super) fn unsubscribe(subscriptions: &Subscriptions, uri: &str) {
    if let Some(task) = subscriptions
        .0
        .lock()
        .expect("no panics inside")
        .remove(uri)
    {
        task.abort();
    }
}
