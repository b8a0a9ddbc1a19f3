// Requests to the REST API with the session's CSRF token; writes carry the deck's revision
// as a precondition (If-Match), and the revisions before this page's own writes are kept
// for undo.

/**
 * A client for deck `deckId`; `revision()` gives the deck's revision the page knows.
 * `undoable.undo` holds the revisions before this page's writes, `undoable.redo` the ones
 * an undo left.
 */
export function createApi(deckId, csrf, revision) {
  const undoable = { undo: [], redo: [] };

  /** One request; answers { status, json } (json null when the body is none). */
  async function request(method, path, payload, { precondition = false, remember = true } = {}) {
    const headers = { "X-CSRF-Token": csrf, Accept: "application/json" };
    if (payload !== undefined) headers["Content-Type"] = "application/json";
    const before = revision();
    if (precondition) headers["If-Match"] = `"${deckId}-${before}"`;
    const response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    const json = await response.json().catch(() => null);
    const changed = json && json.data && json.data.revision > before;
    if (precondition && remember && response.ok && changed) {
      undoable.undo.push(before);
      undoable.redo = [];
    }
    return { status: response.status, json };
  }

  /** Uploads an image file to the account's media library; answers { status, json }. */
  async function upload(file) {
    const response = await fetch(`/v1/media?name=${encodeURIComponent(file.name || "image")}`, {
      method: "POST",
      headers: { "X-CSRF-Token": csrf, "Content-Type": file.type || "application/octet-stream" },
      credentials: "same-origin",
      body: file,
    });
    return { status: response.status, json: await response.json().catch(() => null) };
  }

  /** Opens the deck's event stream (sync/live.js), after `lastEventId` when given, for
   * window `client` (sync/presence.js: the window left when the stream ends). */
  function events(lastEventId, signal, client) {
    const headers = { "X-CSRF-Token": csrf, Accept: "text/event-stream" };
    if (lastEventId !== null && lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
    const query = client ? `?client=${encodeURIComponent(client)}` : "";
    return fetch(`/v1/decks/${deckId}/events${query}`, { headers, credentials: "same-origin", signal });
  }

  /** Says where this window is (sync/presence.js); `keepalive` when the page closes. */
  async function presence(body, { keepalive = false } = {}) {
    const response = await fetch(`/v1/decks/${deckId}/presence`, {
      method: "PUT",
      headers: { "X-CSRF-Token": csrf, "Content-Type": "application/json" },
      credentials: "same-origin",
      keepalive,
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`status ${response.status}`);
  }

  return { deckId, request, upload, events, presence, undoable };
}

/** The error message of an answer, or `fallback`. */
export const errorOf = (r, fallback) => (r.json && r.json.error) || fallback;
