// Exports of the deck (PDF, PowerPoint, ZIP) through the same operations as the API: create
// one, then read it until it is no longer pending.

import { errorOf } from "./api.js";

/** Waits `ms` milliseconds. */
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Creates an export with `options` (`{format, slide_notes?, slide_number?}`) and follows it
 * until it ends, calling `progress(export)` on each reading; answers the finished export
 * (`status` `completed` with its `download_url`, or `failed`), or throws an Error with the
 * API's message.
 */
export async function runExport(api, options, progress = () => {}) {
  const created = await api.request("POST", `/v1/decks/${api.deckId}/exports`, options);
  if (created.status !== 202) throw new Error(errorOf(created, "The export was not started"));
  let current = created.json.data;
  let wait = (created.json.meta && created.json.meta.poll_after_seconds) || 1;
  while (current.status === "pending") {
    progress(current);
    await pause(Math.min(wait, 2) * 1000);
    const read = await api.request("GET", `/v1/decks/${api.deckId}/exports/${current.id}`);
    if (read.status !== 200) throw new Error(errorOf(read, "The export could not be read"));
    current = read.json.data;
    wait = (read.json.meta && read.json.meta.poll_after_seconds) || 1;
  }
  return current;
}
