// Who else has the deck open: this window says where it is (PUT .../presence: the slide it
// shows, whether its person is editing it) on each change and every 20 s, and that it left
// when it closes; what the others say arrives on the deck's event stream (sync/live.js).

/** How often this window says it is still there (ms); the server forgets after 60 s. */
const HEARTBEAT = 20000;

/** The others after `event` (a presence event), without this window's own (`client`):
 * a Map from client to { username, slide_id, editing }. */
export function presenceApplied(others, event, client) {
  if (!event || event.client === client) return others;
  const next = new Map(others);
  if (event.left) next.delete(event.client);
  else next.set(event.client, { username: event.username, slide_id: event.slide_id, editing: event.editing });
  return next;
}

/** Initials for a badge: "alice" → "A", "Ann Lee" → "AL". */
export function initials(name) {
  const parts = String(name || "?").trim().split(/[\s._-]+/).filter(Boolean);
  return parts.slice(0, 2).map((p) => p[0].toUpperCase()).join("") || "?";
}

export class Presence {
  /**
   * @param send (body, { keepalive }) => Promise: the PUT
   * @param where () => ({ slide_id, editing }): this window now
   * @param changed (others) => void: draws the others
   */
  constructor(send, where, changed) {
    this.send = send;
    this.where = where;
    this.changed = changed;
    this.client = (globalThis.crypto && crypto.randomUUID && crypto.randomUUID()) || `w${Math.random().toString(36).slice(2)}`;
    this.others = new Map();
    this.said = null;
  }

  /** Says where this window is when that changed (or `always`). */
  tell(always = false) {
    const now = this.where();
    const key = `${now.slide_id} ${now.editing}`;
    if (!always && key === this.said) return;
    this.said = key;
    this.send({ client: this.client, slide_id: now.slide_id ?? null, editing: now.editing }, {}).catch(() => {
      this.said = null; // said again with the next change or heartbeat
    });
  }

  start() {
    this.tell(true);
    setInterval(() => this.tell(true), HEARTBEAT);
    window.addEventListener("pagehide", () => {
      this.send({ client: this.client, slide_id: null, left: true }, { keepalive: true }).catch(() => {});
    });
  }

  /** A presence event from the stream. */
  heard(event) {
    const next = presenceApplied(this.others, event, this.client);
    if (next === this.others) return;
    this.others = next;
    this.changed(next);
  }
}
