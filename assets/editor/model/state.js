// The editor's state as plain data, the transactions that change it, and the store that
// holds it. A transaction is { before, after, name, changed }: the state it was made from,
// the state it makes, the action's name and which of the state's fields it changed (the
// views redraw what changed; the saver saves what differs from the last save).

import { parseSlide, serializeSlide } from "./slide.js";

/** The state before anything is loaded. */
export function emptyState() {
  return {
    // The deck as the API last answered: id, title, revision, width, height, theme_color,
    // theme_font, visibility, description.
    deck: null,
    // The title as last saved (the deck's title may be ahead of it while typing).
    savedTitle: null,
    // The slides as the API lists them: { id, position: { horizontal, vertical }, title }.
    slides: [],
    // Each slide's HTML by id, for the thumbnails.
    thumbs: {},
    // The selected slide: { id, html (what its HTML field holds), notes, model (parsed) }.
    slide: null,
    // The selected slide as last read or saved: { id, html, notes }.
    saved: null,
    // The selected blocks' keys, and the one the handles and tools act on.
    selection: [],
    lead: null,
  };
}

/** A transaction named `name` from `state` that sets the fields of `changes`. */
export function transaction(state, name, changes) {
  const changed = Object.keys(changes).filter((k) => changes[k] !== state[k]);
  if (changed.length === 0) return null;
  return { before: state, after: { ...state, ...changes }, name, changed };
}

/** The selected slide with `model` as its content (its HTML follows). */
export function withModel(slide, model) {
  if (model === slide.model) return slide;
  return { ...slide, model, html: serializeSlide(model) };
}

/** A slide as read from the API, ready to be edited. */
export function openedSlide(id, html, notes) {
  return { id, html, notes, model: parseSlide(html) };
}

/** Whether the selected slide differs from its last save. */
export function slideDirty(state) {
  const { slide, saved } = state;
  return Boolean(slide && saved && (slide.html !== saved.html || slide.notes !== saved.notes));
}

/** Whether the deck's title differs from its last save. */
export function titleDirty(state) {
  return Boolean(state.deck && state.savedTitle !== null && state.deck.title !== state.savedTitle);
}

/** Holds the state; `dispatch` applies a transaction and tells every listener. */
export function createStore(initial = emptyState()) {
  let state = initial;
  const listeners = [];
  return {
    get state() {
      return state;
    },
    /** Applies `tr` (null: nothing); one made from an older state is refused (false). */
    dispatch(tr) {
      if (!tr) return true;
      if (tr.before !== state) return false;
      state = tr.after;
      for (const listener of listeners) listener(state, tr);
      return true;
    },
    /** Runs `action(state, ...args)` and dispatches its transaction. */
    run(action, ...args) {
      return this.dispatch(action(state, ...args));
    },
    subscribe(listener) {
      listeners.push(listener);
    },
  };
}
