import { test } from "node:test";
import assert from "node:assert/strict";

import { moveBlocks } from "../actions/blocks.js";
import { setBlockContent } from "../actions/format.js";
import { deckLoaded, editNotes, openSlide, slidesLoaded } from "../actions/slides.js";
import { SlideHistory } from "../model/undo.js";
import { createStore, emptyState } from "../model/state.js";
import { blockOf, px } from "../model/slide.js";
import { BLOCKS } from "./fixtures.js";

function editor() {
  let clock = 0;
  const history = new SlideHistory(() => clock);
  const store = createStore(emptyState());
  store.subscribe((_, tr) => history.record(tr));
  store.run(deckLoaded, { id: 7, title: "Deck", revision: 3, width: 960, height: 700 });
  store.run(openSlide, "s1", BLOCKS, "");
  return { store, history, tick: (ms) => (clock += ms) };
}

const left = (store) => px(blockOf(store.state.slide.model, "t1"), "left");

test("five moves undo one by one, at once, and redo back", () => {
  const { store, history, tick } = editor();
  for (let i = 0; i < 5; i += 1) {
    tick(2000);
    store.run(moveBlocks, ["t1"], 10, 0);
  }
  assert.equal(left(store), 130);
  for (let i = 0; i < 5; i += 1) store.dispatch(history.undo(store.state));
  assert.equal(left(store), 80);
  assert.equal(store.state.slide.html, BLOCKS, "the first HTML again");
  assert.equal(history.undo(store.state), null, "nothing more to undo");
  store.dispatch(history.redo(store.state));
  store.dispatch(history.redo(store.state));
  assert.equal(left(store), 100);
  // A new edit forgets what was undone.
  store.run(moveBlocks, ["t1"], 1, 0);
  assert.ok(!history.canRedo);
});

test("typing within a second is one step; notes are undone too", () => {
  const { store, history, tick } = editor();
  store.run(setBlockContent, "t1", "<h2>O</h2>");
  tick(300);
  store.run(setBlockContent, "t1", "<h2>On</h2>");
  tick(300);
  store.run(setBlockContent, "t1", "<h2>One</h2>");
  tick(3000);
  store.run(editNotes, "Say it");
  store.dispatch(history.undo(store.state));
  assert.equal(store.state.slide.notes, "");
  store.dispatch(history.undo(store.state));
  assert.ok(store.state.slide.html.includes("<h2>Old heading</h2>"));
});

test("another slide, this one read again changed, or the slides read again start afresh", () => {
  const { store, history, tick } = editor();
  tick(2000);
  store.run(moveBlocks, ["t1"], 10, 0);
  store.run(openSlide, "s2", "<section><h2>Other</h2></section>", "");
  assert.ok(!history.canUndo);
  store.run(moveBlocks, ["t1"], 10, 0);
  store.run(openSlide, "s2", "<section><h2>Changed elsewhere</h2></section>", "");
  assert.ok(!history.canUndo);
  tick(2000);
  store.run(editNotes, "A note");
  assert.ok(history.canUndo);
  const listed = [{ id: "s2", position: { horizontal: 0, vertical: null }, title: "Other" }];
  store.run(slidesLoaded, listed);
  assert.ok(!history.canUndo, "a structural change: undo goes through the revisions");
  tick(2000);
  store.run(editNotes, "Another note");
  store.run(slidesLoaded, [{ ...listed[0], title: "Renamed" }]);
  assert.ok(history.canUndo, "titles read again after a save change nothing");
});
