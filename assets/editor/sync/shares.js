// The deck's private share links, through the same operations as the API: list, create,
// revoke.

import { errorOf } from "./api.js";

/** The deck's share links (empty when they cannot be read). */
export async function listShares(api) {
  const r = await api.request("GET", `/v1/decks/${api.deckId}/share`);
  return r.status === 200 ? r.json.data : [];
}

/** Creates a share link; answers an error message, or null. */
export async function createShare(api, payload) {
  const r = await api.request("POST", `/v1/decks/${api.deckId}/share`, payload);
  return r.status === 201 ? null : errorOf(r, "The link was not created");
}

/** Revokes share link `id`; answers an error message, or null. */
export async function revokeShare(api, id) {
  const r = await api.request("DELETE", `/v1/decks/${api.deckId}/share/${id}`);
  return r.status === 204 ? null : errorOf(r, "Not revoked");
}
