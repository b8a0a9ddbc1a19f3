// The deck's event stream (GET /v1/decks/{id}/events, Server-Sent Events), read with fetch
// because EventSource cannot send the session's CSRF header. Each `revision` event is handed
// on; after a lost connection the stream is opened again after the last event seen
// (Last-Event-ID), so nothing made meanwhile is missed.

/** How long to wait before opening the stream again, doubling up to a limit (ms). */
const RETRY_FIRST = 1000;
const RETRY_MOST = 15000;

/**
 * The complete events at the start of `text` and what is left after them: each event is
 * { event, id, data } (data parsed as JSON when it is; comment lines skipped).
 */
export function parseEvents(text) {
  const events = [];
  let rest = text.replace(/\r\n/g, "\n");
  for (let end = rest.indexOf("\n\n"); end >= 0; end = rest.indexOf("\n\n")) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    let event = "message";
    let id = null;
    const data = [];
    let named = false;
    for (const line of block.split("\n")) {
      if (line.startsWith(":") || line === "") continue;
      const at = line.indexOf(":");
      const field = at < 0 ? line : line.slice(0, at);
      const value = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
      if (field === "event") [event, named] = [value, true];
      else if (field === "id") id = value;
      else if (field === "data") data.push(value);
    }
    if (!named && data.length === 0) continue; // a keep-alive comment
    const raw = data.join("\n");
    let parsed = raw;
    try {
      parsed = JSON.parse(raw);
    } catch (_) {
      // Not JSON: kept as text.
    }
    events.push({ event, id, data: parsed });
  }
  return { events, rest };
}

/** Follows deck `deckId`'s events through `open(lastEventId)` (a fetch Response), calling
 * `on(event)` for each, until `stop()`. */
export class LiveDeck {
  constructor(open, on) {
    this.open = open;
    this.on = on;
    this.last = null;
    this.stopped = false;
    this.controller = null;
  }

  async run() {
    let wait = RETRY_FIRST;
    while (!this.stopped) {
      try {
        this.controller = new AbortController();
        const response = await this.open(this.last, this.controller.signal);
        if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
        wait = RETRY_FIRST;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const { events, rest } = parseEvents(buffer + value);
          buffer = rest;
          for (const event of events) {
            if (event.id !== null) this.last = event.id;
            this.on(event);
          }
        }
      } catch (_) {
        // Offline, or the server went away: try again a little later.
      }
      if (this.stopped) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, RETRY_MOST);
    }
  }

  stop() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
  }
}
