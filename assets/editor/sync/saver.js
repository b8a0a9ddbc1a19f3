// Saving: what differs from the last save (the title, the selected slide's HTML and notes)
// is sent a moment after the last change, through update_deck and update_slide with the
// deck's revision as a precondition. Every request waits for the one before it, each
// carrying the revision the previous one answered, so two quick changes never race each
// other into a 412. An edit made while a save is under way stays different from what was
// sent, so it is saved next. Offline, changes are kept and retried: edits to text as they
// are, changes to the slide list (add, move, group, delete) shown at once and sent in order
// when back online, slides made offline taking the ids the server gives them. A conflict
// with another writer keeps the person's text and asks what to do.

import { errorOf } from "./api.js";
import { slideDirty, titleDirty } from "../model/state.js";
import { sectionsById } from "../model/slide.js";
import { reorder, withIds } from "../model/order.js";
import {
  deckLoaded, discardEdits, openSlide, openSlideOffline, revisionSeen, slideSaved, slidesLoaded, slidesRenamed, titleSaved,
} from "../actions/slides.js";

/** How long after the last change it is saved (ms), and retried when offline. */
const SAVE_DELAY = 700;
const RETRY_DELAY = 3000;

const CONFLICT = {
  title: "The deck changed elsewhere (another tab, a program or an assistant) since you opened it.",
  slide: "This deck changed elsewhere (another tab, a program or an assistant) while you were typing. Your text is still here.",
  slides: "The deck changed elsewhere; reload to see the current slides.",
  setting: "The deck changed elsewhere; reload to see its current settings.",
  travel: "The deck changed elsewhere since your last change; reload to see it.",
};

export class Saver {
  /**
   * @param store the editor's store
   * @param api the REST client (sync/api.js)
   * @param ui { status(text, kind), conflict(message, { reload, overwrite }) }
   */
  constructor(store, api, ui) {
    this.store = store;
    this.api = api;
    this.ui = ui;
    this.timer = null;
    this.saving = false;
    this.conflicted = false;
    this.queue = Promise.resolve();
    // Whether the last request failed for want of a connection.
    this.offline = false;
    // Changes to the slide list made offline, in order, waiting to be sent.
    this.pending = [];
    // Slides made offline: local id → the server's id once sent.
    this.ids = new Map();
    this.made = 0;
  }

  get dirty() {
    return this.pending.length > 0 || slideDirty(this.store.state) || titleDirty(this.store.state);
  }

  /** Runs `task` after every task queued before it. */
  serially(task) {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => {});
    return next;
  }

  /** After a transaction: the changes it left unsaved are saved a moment later. */
  changed() {
    if (!this.dirty) return;
    this.ui.status("Unsaved changes", "dirty");
    this.schedule(SAVE_DELAY);
  }

  schedule(delay) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.serially(() => this.save()), delay);
  }

  /** Follows the revision an answer carries. */
  follow(json) {
    this.store.run(revisionSeen, json && json.data && json.data.revision);
  }

  /** Writes `payload` with the revision as a precondition; true when it was written. */
  async write(method, path, payload, conflict) {
    const r = await this.api.request(method, path, payload, { precondition: true });
    this.offline = false;
    this.lastError = errorOf(r, "Not saved");
    if (r.status === 412) {
      this.showConflict(CONFLICT[conflict]);
      return null;
    }
    if (r.status !== 200 && r.status !== 201) {
      this.ui.status(this.lastError, "error");
      return null;
    }
    this.follow(r.json);
    return r;
  }

  async save() {
    clearTimeout(this.timer);
    if (this.saving || this.conflicted) return;
    this.saving = true;
    this.ui.status("Saving…", "saving");
    const deck = this.api.deckId;
    try {
      if (this.pending.length > 0 && !(await this.flush())) return;
      let state = this.store.state;
      if (titleDirty(state)) {
        const title = state.deck.title;
        if (!(await this.write("PATCH", `/v1/decks/${deck}`, { title }, "title"))) return;
        this.store.run(titleSaved, title);
      }
      state = this.store.state;
      if (slideDirty(state)) {
        const { id, html, notes } = state.slide;
        const patch = {};
        if (html !== state.saved.html) patch.html = html;
        if (notes !== state.saved.notes) patch.notes = notes;
        const path = `/v1/decks/${deck}/slides/${encodeURIComponent(id)}`;
        if (!(await this.write("PATCH", path, patch, "slide"))) return;
        this.store.run(slideSaved, { id, html, notes });
        if (patch.html !== undefined) await this.loadSlides(); // titles follow the HTML
      }
      if (this.dirty) {
        // Edits made while the request was under way (a drag, a key) are saved next.
        this.ui.status("Unsaved changes", "dirty");
        this.schedule(SAVE_DELAY);
        return;
      }
      this.offline = false;
      const open = this.store.state.slide;
      if (open && open.notes === null) await this.select(open.id); // opened offline: read it
      this.ui.status("All changes saved", "saved");
    } catch (_) {
      this.offline = true;
      this.ui.status(this.waiting("Offline: changes kept, retrying"), "offline");
      this.schedule(RETRY_DELAY);
    } finally {
      this.saving = false;
    }
  }

  /** The offline status, with the number of slide changes waiting. */
  waiting(text) {
    const n = this.pending.length;
    return n === 0 ? text : `${text}; ${n} change${n === 1 ? "" : "s"} to the slides waiting to be sent`;
  }

  /** Sends the changes to the slide list made offline, in order; false when one was not
   * made (the others are dropped, said aloud, and the list read again). Throws offline. */
  async flush() {
    while (this.pending.length > 0) {
      const op = this.pending[0];
      const r = await this.write(op.method, op.path, withIds(op.payload, this.ids), "slides");
      if (!r) {
        const n = this.pending.length;
        this.pending = [];
        if (!this.conflicted) {
          await this.refresh(null);
          this.ui.status(`${n} change${n === 1 ? "" : "s"} made offline could not be made: ${this.lastError}`, "error");
        }
        return false;
      }
      this.pending.shift();
      if (op.local) this.ids.set(op.local, r.json.data.id);
    }
    this.store.run(slidesRenamed, this.ids);
    await this.refresh(this.store.state.slide && this.store.state.slide.id);
    return true;
  }

  /** Shows a change to the slide list at once and keeps it to send when back online. */
  later(op) {
    const state = this.store.state;
    let slide = null;
    if (op.kind === "add") {
      this.made += 1;
      slide = { id: `offline-${this.made}`, title: "" };
    }
    const slides = reorder(state.slides, { ...op, slide });
    if (!slides) return this.refused();
    this.pending.push({ ...op, local: slide && slide.id });
    const thumbs = slide ? { ...state.thumbs, [slide.id]: op.payload.html } : state.thumbs;
    this.store.run(slidesLoaded, slides, thumbs);
    // The slide to open next, unless the open one has edits to keep (they are saved first).
    const next = slide ? slide.id : op.select(null);
    if (next && next !== state.slide?.id && !slideDirty(this.store.state)) this.selectOffline(next);
    this.ui.status(this.waiting("Offline: changes kept, retrying"), "offline");
    this.schedule(RETRY_DELAY);
  }

  /** Saves, then tells whether nothing is left unsaved and no conflict waits. */
  async settled() {
    await this.save();
    return !this.dirty && !this.conflicted;
  }

  async loadDeck() {
    const r = await this.api.request("GET", `/v1/decks/${this.api.deckId}?include_deck_html=true`);
    if (r.status !== 200) throw new Error(errorOf(r, `status ${r.status}`));
    const { deck_html: html, ...deck } = r.json.data;
    this.store.run(deckLoaded, deck);
    this.store.run(slidesLoaded, this.store.state.slides, sectionsById(html || ""));
  }

  async loadSlides() {
    const slides = [];
    for (let page = 1; ; page += 1) {
      const r = await this.api.request("GET", `/v1/decks/${this.api.deckId}/slides?per_page=200&page=${page}`);
      if (r.status !== 200) throw new Error(errorOf(r, `status ${r.status}`));
      slides.push(...r.json.data);
      if (slides.length >= r.json.meta.total || r.json.data.length === 0) break;
    }
    this.store.run(slidesLoaded, slides);
  }

  /** Opens slide `id` once the selected one is saved. */
  async select(id) {
    if (this.offline) return this.selectOffline(id);
    if (slideDirty(this.store.state)) await this.save();
    if (this.offline) return this.selectOffline(id);
    if (slideDirty(this.store.state)) return; // the save failed: stay on the unsaved slide
    let r;
    try {
      r = await this.api.request("GET", `/v1/decks/${this.api.deckId}/slides/${encodeURIComponent(id)}`);
    } catch (_) {
      this.offline = true;
      return this.selectOffline(id);
    }
    if (r.status !== 200) {
      this.ui.status(errorOf(r, "This slide could not be read"), "error");
      return;
    }
    this.follow(r.json);
    this.store.run(openSlide, id, r.json.data.html, r.json.data.notes);
  }

  /** Offline: slide `id` opened from its thumbnail while the open one's edits wait; its
   * notes are read when back online. */
  selectOffline(id) {
    const state = this.store.state;
    if (slideDirty(state)) {
      return this.ui.status(this.waiting("Offline: this slide's edits are kept; other slides open when back online"), "offline");
    }
    const html = state.thumbs[id];
    if (html === undefined) return this.ui.status(this.waiting("Offline: this slide opens when back online"), "offline");
    const made = this.pending.find((op) => op.local === id);
    if (made) this.store.run(openSlide, id, html, made.payload.notes);
    else this.store.run(openSlideOffline, id, html);
  }

  /** Reads the deck and its slides again, and opens `selectId` (or the first slide). */
  async refresh(selectId) {
    await this.loadDeck();
    await this.loadSlides();
    const { slides } = this.store.state;
    const keep = slides.find((s) => s.id === selectId) ? selectId : slides[0] && slides[0].id;
    if (keep) await this.select(keep);
    this.ui.status("All changes saved", "saved");
  }

  /**
   * A revision made elsewhere (the event stream; null: the stream was reset): the list and
   * thumbnails are read again, and the open slide too unless it holds unsaved edits that
   * the change touched (their save then meets it as a conflict, as before). Revisions this
   * page made, or already read, pass.
   */
  external(revision) {
    if (revision && revision.revision <= (this.store.state.deck?.revision ?? 0)) return undefined;
    return this.serially(async () => {
      const state = this.store.state;
      if (revision && revision.revision <= (state.deck?.revision ?? 0)) return;
      const open = state.slide && state.slide.id;
      const touched = !revision || (open && revision.slide_ids.includes(open));
      if ((touched && slideDirty(state)) || this.pending.length > 0 || this.conflicted) return;
      try {
        await this.refresh(open);
      } catch (_) {
        // Offline: read when the next change arrives.
      }
    });
  }

  /** Sends a slide request (actions/slides.js), then reads the slides again. */
  structural(op) {
    if (!op) return Promise.resolve();
    if (op.error) return Promise.resolve(this.ui.status(op.error, "error"));
    if (op.discard) this.store.run(discardEdits);
    return this.serially(async () => {
      if (!(await this.settled())) return this.offline && !this.conflicted ? this.later(op) : this.refused();
      this.ui.status("Saving…", "saving");
      let r;
      try {
        r = await this.write(op.method, op.path, op.payload, "slides");
      } catch (_) {
        this.offline = true;
        return this.later(op);
      }
      if (r) await this.refresh(op.select(r.json));
    });
  }

  /** Says that a change was not made (it is never queued unseen). */
  refused() {
    if (this.conflicted) return;
    const offline = this.offline || navigator.onLine === false;
    this.ui.status(
      offline
        ? this.waiting("Offline: that change was not made. Try again when back online")
        : "That change was not made: the slide's edits are not saved yet.",
      offline ? "offline" : "error",
    );
  }

  /** Sends a deck setting (update_deck). */
  setting(op) {
    return this.serially(async () => {
      if (!(await this.settled())) return this.refused();
      this.ui.status("Saving…", "saving");
      const r = await this.write(op.method, op.path, op.payload, "setting");
      if (!r) return;
      this.store.run(deckLoaded, r.json.data);
      this.ui.status("All changes saved", "saved");
    });
  }

  /** Undo (back) or redo (forward): the deck restored to a revision of this page's. */
  travel(back) {
    const { undo, redo } = this.api.undoable;
    const [from, to] = back ? [undo, redo] : [redo, undo];
    return this.serially(async () => {
      if (!(await this.settled())) return this.refused();
      const target = from.pop();
      if (target === undefined) return this.ui.status(back ? "Nothing to undo" : "Nothing to redo", "saved");
      const current = this.store.state.deck.revision;
      if (await this.restoreNow(target)) to.push(current);
      else from.push(target);
    });
  }

  /** The deck restored to `revision` (the history panel), as a new revision; answers
   * whether it was. */
  restore(revision) {
    return this.serially(async () => (await this.settled()) && this.restoreNow(revision));
  }

  /** Restores `revision` now, checked against the revision this page knows. */
  async restoreNow(revision) {
    this.ui.status("Saving…", "saving");
    const path = `/v1/decks/${this.api.deckId}/revisions/${revision}/restore`;
    const r = await this.api.request("POST", path, undefined, { precondition: true, remember: false });
    if (r.status !== 200) {
      if (r.status === 412) this.showConflict(CONFLICT.travel);
      else this.ui.status(errorOf(r, "Not restored"), "error");
      return false;
    }
    this.follow(r.json);
    await this.refresh(this.store.state.slide && this.store.state.slide.id);
    return true;
  }

  showConflict(message) {
    this.conflicted = true;
    this.ui.conflict(message, {
      // Drops the unsaved text (the view copied it to the clipboard) and reads the deck.
      reload: () => this.serially(async () => {
        this.conflicted = false;
        this.store.run(discardEdits);
        await this.refresh(this.store.state.slide && this.store.state.slide.id);
      }),
      // Saves the person's version over the other writer's.
      overwrite: () => this.serially(async () => {
        this.conflicted = false;
        await this.loadDeck();
        await this.save();
      }),
    });
    this.ui.status("Conflict", "conflict");
  }
}
