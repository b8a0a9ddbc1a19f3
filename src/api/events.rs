//! A deck's live events (an extension of the interface): Server-Sent Events, one
//! `revision` event per new revision, resumable with `Last-Event-ID` (the core's
//! `lectern_core::events` reads and fans them out); and the presenter's place, which the
//! speaker view sends and the audience pages follow.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::Stream;
use lectern_core::Error;
use lectern_core::events::{DeckEvent, PresenterState, RevisionEvent};
use lectern_core::service::live::PresenceUpdate;

use crate::api::params::*;
use crate::api::responses::*;
use crate::http::error::ApiError;
use crate::http::extract::{Auth, IdPath, JsonBody, Manage, QueryParams};
use crate::state::AppState;

/// How often a quiet stream sends a comment line, so that proxies keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `deck_events`: the deck's events as they happen (`text/event-stream`). After
/// `Last-Event-ID` (or `?last_event_id=`), the revisions made since it come first, in order;
/// one older than the kept history answers `event: reset` (read the deck again).
#[utoipa::path(get, path = "/v1/decks/{deck_id}/events", operation_id = "deck_events", tag = "events",
    params(DeckIdParam,
        ("Last-Event-ID" = Option<i64>, Header, description = "Resume after this revision"),
        ("last_event_id" = Option<i64>, Query, description = "Resume after this revision (for clients that cannot set the header)"),
        ("client" = Option<String>, Query, description = "The editor window listening (as in set_presence): when the stream ends, it left")),
    responses((status = 200, description = "An event stream: `event: revision` with this body as `data` and the revision as `id`; `event: reset`; comment lines while quiet",
            content_type = "text/event-stream", body = RevisionEvent),
        Unauthorized, NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn deck_events(
    State(state): State<AppState>,
    Auth(caller): Auth,
    IdPath(deck_id): IdPath,
    headers: HeaderMap,
    query: QueryParams,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let header = headers
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or("?"));
    let last =
        match header.or(query.get("last_event_id")) {
            None | Some("") => None,
            Some(text) => Some(text.trim().parse::<i64>().map_err(|_| {
                Error::invalid("Last-Event-ID must be a revision number (an integer)")
            })?),
        };
    let stream = state.core.deck_events(&caller, deck_id, last).await?;
    // An editor names its window: when this stream ends, the window left.
    let window = query
        .get("client")
        .filter(|c| !c.is_empty())
        .map(|client| Window {
            core: state.core.clone(),
            deck_id: stream.deck_id(),
            client: client.to_string(),
        });
    let events = futures::stream::unfold((stream, window), |(mut stream, window)| async move {
        let event = match stream.next().await {
            Ok(DeckEvent::Revision(revision)) => Event::default()
                .event("revision")
                .id(revision.revision.to_string())
                .json_data(&*revision)
                .expect("a revision event serialises"),
            Ok(DeckEvent::Presence(presence)) => Event::default()
                .event("presence")
                .json_data(&*presence)
                .expect("a presence event serialises"),
            Ok(DeckEvent::Reset) => Event::default().event("reset").data("{}"),
            Err(e) => {
                tracing::warn!(error = %e, "a deck's event stream ended");
                return None;
            }
        };
        Some((Ok(event), (stream, window)))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)))
}

/// An editor window's stream: when it is dropped (the window closed or lost its
/// connection), the window left the deck.
struct Window {
    core: lectern_core::Lectern,
    deck_id: i64,
    client: String,
}

impl Drop for Window {
    fn drop(&mut self) {
        let (core, deck_id, client) = (
            self.core.clone(),
            self.deck_id,
            std::mem::take(&mut self.client),
        );
        tokio::spawn(async move { core.stream_closed(deck_id, &client).await });
    }
}

/// `present_deck`: the owner presenting from the speaker view is now at this slide; the
/// deck's audience pages (its URL, fullscreen URL and share links) follow within moments, on
/// every server. `live: false` when the speaker view closes.
#[utoipa::path(put, path = "/v1/decks/{deck_id}/presenter", operation_id = "present_deck", tag = "events",
    params(DeckIdParam),
    request_body = PresenterState,
    responses((status = 204, description = "The audience pages follow"), Unauthorized, Forbidden,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn present_deck(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<StatusCode, ApiError> {
    let presenter: PresenterState = serde_json::from_value(body.unwrap_or_default())
        .map_err(|e| Error::invalid(format!("invalid presenter state: {e}")))?;
    state.core.present_deck(&caller, deck_id, presenter).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `set_presence`: the caller's window (`client`) shows the deck, on a slide and perhaps
/// editing it, or `left` it; the deck's event streams tell it as `event: presence` (an
/// editor says so every 20 s; a presence unheard of for 60 s is gone).
#[utoipa::path(put, path = "/v1/decks/{deck_id}/presence", operation_id = "set_presence", tag = "events",
    params(DeckIdParam),
    request_body = PresenceUpdate,
    responses((status = 204, description = "The deck's listeners are told"), Unauthorized, Forbidden,
        NotFound, Invalid, RateLimited),
    security(("bearer" = []), ("oauth2" = ["manage"])))]
pub async fn set_presence(
    State(state): State<AppState>,
    Manage(caller): Manage,
    IdPath(deck_id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<StatusCode, ApiError> {
    let update: PresenceUpdate = serde_json::from_value(body.unwrap_or_default())
        .map_err(|e| Error::invalid(format!("invalid presence: {e}")))?;
    state.core.set_presence(&caller, deck_id, update).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// An audience page's stream of where the presenter of deck `deck_id` is
/// (`event: presenter`), now and as it moves; the page was shown to the same visitor.
pub(crate) fn presenter_stream(state: &AppState, deck_id: i64) -> Response {
    let receiver = state.core.follow_presenter(deck_id);
    let events = futures::stream::unfold((receiver, true), |(mut receiver, first)| async move {
        loop {
            if !(first && receiver.borrow().is_some()) && receiver.changed().await.is_err() {
                return None;
            }
            let now = *receiver.borrow_and_update();
            if let Some(presenter) = now {
                let event = Event::default()
                    .event("presenter")
                    .json_data(presenter)
                    .expect("a presenter state serialises");
                return Some((Ok::<_, Infallible>(event), (receiver, false)));
            }
        }
    });
    let mut response = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response();
    response.headers_mut().insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    response
}
