import { test } from "node:test";
import assert from "node:assert/strict";

import { deckLoaded, openSlide } from "../actions/slides.js";
import { setTextColour, setTextSize, textSize } from "../actions/format.js";
import { blockOf, contentStyle } from "../model/slide.js";
import { emptyState } from "../model/state.js";
import { BLOCKS, stateWith } from "./fixtures.js";

const open = (html) => stateWith(html, emptyState, openSlide, deckLoaded);
const block = (state, key) => blockOf(state.slide.model, key);

test("a size is the size a person reads: a heading's own", () => {
  const state = open(BLOCKS);
  // t1 holds an h2 (1.6 em) at 48 px: it reads as 77 px.
  assert.equal(textSize(block(state, "t1")), 77);
  const h2 = setTextSize(state, "t1", 64).after;
  assert.equal(contentStyle(block(h2, "t1"), "font-size"), "40px");
  assert.equal(textSize(block(h2, "t1")), 64);
  const p = setTextSize(state, "t2", 64).after;
  assert.equal(contentStyle(block(p, "t2"), "font-size"), "64px");
  assert.equal(textSize(block(state, "t2")), null, "a block without a size");
  assert.equal(setTextSize(state, "nope", 10), null);
});

test("a text colour reaches the headings in the block", () => {
  const state = open(BLOCKS);
  const after = setTextColour(state, "t1", "#ff0000").after;
  assert.equal(contentStyle(block(after, "t1"), "color"), "rgb(255, 0, 0)");
  assert.equal(contentStyle(block(after, "t1"), "--lectern-heading"), "rgb(255, 0, 0)");
});
