// Undo and redo of the open slide's edits, on the page: instant (the slide's earlier HTML and
// notes put back as a transaction), then saved as any edit is, a new revision. Typing in one
// place within a second is one step. Another slide opened, or this one read again with other
// content (a reload after another writer's change), or the slides read again after a change
// of the deck's structure, starts afresh: from there undo goes through the deck's revisions
// (sync/saver.js).

import { transaction } from "./state.js";
import { blockOf, parseSlide } from "./slide.js";

/** Transactions that read the slide rather than edit it. */
const READS = new Set(["openSlide", "discardEdits", "slideSaved", "deckLoaded", "slidesLoaded", "revisionSeen"]);

/** Edits that run together while a person types. */
const TYPING = new Set(["setBlockContent", "setCodeText", "editNotes", "editHtml"]);

/** Steps kept. */
const LIMIT = 200;

/** The deck's slides and their places (not their titles, which follow each save). */
const structure = (slides) => slides.map((s) => `${s.id}@${s.position.horizontal}.${s.position.vertical}`).join(",");

/** The slide's content as an undo step. */
const stepOf = (slide) => ({ html: slide.html, notes: slide.notes });

export class SlideHistory {
  constructor(now = () => Date.now()) {
    this.now = now;
    this.undone = [];
    this.redone = [];
    this.slideId = null;
    this.last = { name: null, at: 0 };
  }

  /** Takes note of transaction `tr` (the store's listener). */
  record(tr) {
    const before = tr.before.slide;
    const after = tr.after.slide;
    // The deck's slides read again changed (a slide added, moved or removed, a restore):
    // what came before is undone through the revisions, in the order it happened.
    const restart = (tr.name === "slidesLoaded" && structure(tr.before.slides) !== structure(tr.after.slides))
      || (tr.name === "openSlide" && before && before.html !== after.html);
    if (!after || after.id !== this.slideId || restart) {
      this.undone = [];
      this.redone = [];
      this.slideId = after ? after.id : null;
      this.last = { name: null, at: 0 };
      return;
    }
    if (READS.has(tr.name) || tr.name === "undoEdit" || tr.name === "redoEdit") return;
    if (!before || (before.html === after.html && before.notes === after.notes)) return;
    const at = this.now();
    const joined = TYPING.has(tr.name) && this.last.name === tr.name && at - this.last.at < 1000;
    if (!joined) {
      this.undone.push(stepOf(before));
      if (this.undone.length > LIMIT) this.undone.shift();
    }
    this.redone = [];
    this.last = { name: tr.name, at };
  }

  get canUndo() {
    return this.undone.length > 0;
  }

  get canRedo() {
    return this.redone.length > 0;
  }

  /** The transaction that puts the step before back (null: none). */
  undo(state) {
    return this.move(state, this.undone, this.redone, "undoEdit");
  }

  /** The transaction that puts the step undone last back (null: none). */
  redo(state) {
    return this.move(state, this.redone, this.undone, "redoEdit");
  }

  move(state, from, to, name) {
    if (!state.slide || state.slide.id !== this.slideId || from.length === 0) return null;
    const step = from.pop();
    to.push(stepOf(state.slide));
    this.last = { name: null, at: 0 };
    const model = parseSlide(step.html);
    const slide = { ...state.slide, html: step.html, notes: step.notes, model };
    const selection = state.selection.filter((k) => blockOf(model, k));
    return transaction(state, name, { slide, selection, lead: selection.includes(state.lead) ? state.lead : null });
  }
}
