import { test } from "node:test";
import assert from "node:assert/strict";
import { parseEvents } from "../sync/live.js";

test("events are read whole, JSON data parsed, comments skipped, the unfinished rest kept", () => {
  const text =
    ": keep-alive\n\n" +
    'event: revision\nid: 7\ndata: {"revision":7,"slide_ids":["a"]}\n\n' +
    "event: reset\r\ndata: {}\r\n\r\n" +
    "event: revision\nid: 8\ndata: {\"rev";
  const { events, rest } = parseEvents(text);
  assert.deepEqual(events, [
    { event: "revision", id: "7", data: { revision: 7, slide_ids: ["a"] } },
    { event: "reset", id: null, data: {} },
  ]);
  assert.equal(rest, 'event: revision\nid: 8\ndata: {"rev');
  const next = parseEvents(`${rest}ision":8}\n\n`);
  assert.deepEqual(next.events, [{ event: "revision", id: "8", data: { revision: 8 } }]);
  assert.equal(next.rest, "");
});
