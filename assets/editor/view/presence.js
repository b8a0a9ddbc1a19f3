// The others who have the deck open (sync/presence.js), drawn as badges on the slides they
// are on in the slide list: their initials, outlined while they edit the slide.

import { initials } from "../sync/presence.js";

/** Draws `others` (client → { username, slide_id, editing }) on the list in `list`. */
export function drawPresence(list, others) {
  for (const badge of list.querySelectorAll(".presence")) badge.remove();
  for (const [client, other] of others) {
    if (!other.slide_id) continue;
    const item = [...list.querySelectorAll(".slide-item")].find((b) => b.dataset.slideId === other.slide_id);
    if (!item) continue;
    const badge = document.createElement("span");
    badge.className = other.editing ? "presence editing" : "presence";
    badge.dataset.client = client;
    badge.textContent = initials(other.username);
    badge.title = `${other.username}${other.editing ? " is editing this slide" : " is on this slide"}`;
    badge.setAttribute("aria-label", badge.title);
    item.append(badge);
  }
}
