// What a person does to the deck and its slides: open a slide, type its notes, its HTML or
// the deck's title, and the changes the server makes to the slide order (add, duplicate,
// delete, move, group, drop in the list) and to the deck's settings. The first are
// transactions; the second are requests ({ method, path, payload, select }) that the saver
// sends, after which the state is read again (the server owns the order of slides).

import { openedSlide, titleDirty, transaction } from "../model/state.js";
import { blockOf, parseSlide, serializeSlide, withSectionAttr } from "../model/slide.js";
import { layoutHtml } from "./layouts.js";

/** The deck as the API answered (`deck`: its data object). */
export function deckLoaded(state, deck) {
  // A title being typed stays on screen (it is saved next).
  const title = titleDirty(state) ? state.deck.title : deck.title;
  return transaction(state, "deckLoaded", { deck: { ...deck, title }, savedTitle: deck.title });
}

/** The slide list as the API answered, and each slide's HTML by id (null: kept). */
export function slidesLoaded(state, slides, thumbs = null) {
  return transaction(state, "slidesLoaded", { slides, thumbs: thumbs || state.thumbs });
}

/** The deck's revision after a write answered `revision` (never goes back). */
export function revisionSeen(state, revision) {
  if (!state.deck || typeof revision !== "number" || revision <= state.deck.revision) return null;
  return transaction(state, "revisionSeen", { deck: { ...state.deck, revision } });
}

/** Slide `id` as read from the API, selected; its block selection kept if it was open. */
export function openSlide(state, id, html, notes, known = true) {
  const slide = openedSlide(id, html, known ? notes || "" : null);
  const same = state.slide && state.slide.id === id;
  const selection = same ? state.selection.filter((k) => blockOf(slide.model, k)) : [];
  const lead = selection.includes(state.lead) ? state.lead : null;
  return transaction(state, "openSlide", { slide, saved: { id, html, notes: slide.notes }, selection, lead });
}

/** Slide `id` opened offline from its thumbnail: its notes are not known (null), and not
 * editable until it is read. */
export const openSlideOffline = (state, id, html) => openSlide(state, id, html, null, false);

/** The selected slide's speaker notes typed. */
export function editNotes(state, notes) {
  if (!state.slide) return null;
  return transaction(state, "editNotes", { slide: { ...state.slide, notes } });
}

/** The selected slide's HTML typed in its field. */
export function editHtml(state, html) {
  if (!state.slide) return null;
  return transaction(state, "editHtml", { slide: { ...state.slide, html, model: parseSlide(html) } });
}

/** The deck's title typed. */
export function editTitle(state, title) {
  if (!state.deck) return null;
  return transaction(state, "editTitle", { deck: { ...state.deck, title } });
}

/** The selected slide's unsaved edits dropped (it is about to be deleted or reloaded). */
export function discardEdits(state) {
  if (!state.slide || !state.saved) return null;
  return transaction(state, "discardEdits", { slide: openedSlide(state.saved.id, state.saved.html, state.saved.notes) });
}

/** The selected slide saved as `sent` ({ id, html, notes }). */
export function slideSaved(state, sent) {
  const thumbs = state.thumbs[sent.id] === sent.html ? state.thumbs : { ...state.thumbs, [sent.id]: sent.html };
  return transaction(state, "slideSaved", { saved: sent, thumbs });
}

/** The deck's title saved as `title`. */
export function titleSaved(state, title) {
  return transaction(state, "titleSaved", { savedTitle: title });
}

/** The position of the selected slide in the list (-1: none). */
export const selectedIndex = (state) => state.slides.findIndex((s) => s.id === state.slide?.id);

/** A slide's label in the list: "2.1 Title". */
export function label(slide) {
  const p = slide.position;
  const number = p.vertical == null ? `${p.horizontal + 1}` : `${p.horizontal + 1}.${p.vertical + 1}`;
  return `${number} ${slide.title || "Untitled slide"}`;
}

const slidesPath = (state, rest = "") => `/v1/decks/${state.deck.id}/slides${rest}`;
const created = (json) => json.data.id;

/** A new slide in `layout` (layouts.js) after the selected slide's stack. */
export function addSlide(state, layout = "title-body") {
  const i = selectedIndex(state);
  const payload = { html: layoutHtml(layout, state.deck) };
  if (i >= 0) {
    const stack = state.slides.filter((s) => s.position.horizontal === state.slides[i].position.horizontal);
    payload.insert_after_slide_id = stack[stack.length - 1].id;
  }
  return { kind: "add", method: "POST", path: slidesPath(state), payload, select: created };
}

/** A copy of the selected slide (HTML and notes) right after it. */
export function duplicateSlide(state) {
  if (!state.slide) return null;
  const { model } = state.slide;
  const html = model.section ? serializeSlide(withSectionAttr(model, "data-id", null)) : state.slide.html;
  const payload = { html, insert_after_slide_id: state.slide.id };
  if (state.slide.notes) payload.notes = state.slide.notes;
  return { kind: "add", method: "POST", path: slidesPath(state), payload, select: created };
}

/** Deletes the selected slide; its neighbour is selected next. */
export function deleteSlide(state) {
  const i = selectedIndex(state);
  if (i < 0) return null;
  const neighbour = state.slides[i + 1] || state.slides[i - 1];
  const payload = { slide_ids: [state.slide.id] };
  return { kind: "delete", method: "DELETE", path: slidesPath(state), payload, select: () => neighbour && neighbour.id, discard: true };
}

/** Moves the selected slide one place up (-1) or down (1) the list. */
export function moveSlide(state, delta) {
  const i = selectedIndex(state);
  const j = i + delta;
  if (i < 0 || j < 0 || j >= state.slides.length) return null;
  const id = state.slide.id;
  const payload = { slide_ids: [id] };
  payload[delta < 0 ? "insert_before_slide_id" : "insert_after_slide_id"] = state.slides[j].id;
  return { kind: "move", method: "PATCH", path: slidesPath(state, "/move"), payload, select: () => id };
}

/** Puts the selected slide below the slide above it (a vertical group). */
export function groupBelow(state) {
  const i = selectedIndex(state);
  if (i <= 0) return null;
  const id = state.slide.id;
  const payload = { slide_ids: [id], below_slide_id: state.slides[i - 1].id };
  return { kind: "group", method: "PATCH", path: slidesPath(state, "/group"), payload, select: () => id };
}

/** Takes the selected slide out of its vertical group, after the group. */
export function groupOut(state) {
  const slide = state.slides[selectedIndex(state)];
  if (!slide) return null;
  const mate = state.slides.find((s) => s.id !== slide.id && s.position.horizontal === slide.position.horizontal);
  if (slide.position.vertical == null || !mate) return { error: "This slide is not in a vertical group" };
  const payload = { slide_ids: [slide.id], after_stack_of_slide_id: mate.id };
  return { kind: "group", method: "PATCH", path: slidesPath(state, "/group"), payload, select: () => slide.id };
}

/** Slide `moved` dropped on slide `target` in the list: "before", "after" or "below" it. */
export function dropSlide(state, moved, target, kind) {
  const payload = { slide_ids: [moved] };
  if (kind === "below") payload.below_slide_id = target;
  else if (kind === "before") payload.insert_before_slide_id = target;
  else payload.insert_after_slide_id = target;
  const group = kind === "below";
  return { kind: group ? "group" : "move", method: "PATCH", path: slidesPath(state, group ? "/group" : "/move"), payload, select: () => moved };
}

/** A deck setting changed (update_deck); numbers for width and height. */
export function changeSetting(state, field, value) {
  const v = field === "width" || field === "height" ? Number(value) : value;
  return { method: "PATCH", path: `/v1/decks/${state.deck.id}`, payload: { [field]: v }, setting: true };
}

/** Slides the server numbered while the page used local ids for them (made offline). */
export function slidesRenamed(state, ids) {
  const id = state.slide && ids.get(state.slide.id);
  if (!id) return null;
  return transaction(state, "slidesRenamed", { slide: { ...state.slide, id }, saved: { ...state.saved, id } });
}
