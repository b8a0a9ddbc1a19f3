import { test } from "node:test";
import assert from "node:assert/strict";

import { alignBlocks, distributeBlocks } from "../actions/arrange.js";
import { deckLoaded, openSlide } from "../actions/slides.js";
import { blockOf, px } from "../model/slide.js";
import { emptyState } from "../model/state.js";
import { BLOCKS, stateWith } from "./fixtures.js";

const open = (html) => stateWith(html, emptyState, openSlide, deckLoaded);
const where = (state, key) => ["left", "top"].map((p) => px(blockOf(state.slide.model, key), p));

// t1: 80,60 600x120; t2: 80,220 800x200; i1: 900,60 300x200.
test("blocks align to the bounds of them all", () => {
  const state = open(BLOCKS);
  const right = alignBlocks(state, ["t1", "t2", "i1"], "right").after;
  assert.deepEqual([where(right, "t1")[0], where(right, "t2")[0], where(right, "i1")[0]], [600, 400, 900]);
  const middle = alignBlocks(state, ["t1", "t2"], "middle").after;
  assert.deepEqual([where(middle, "t1")[1], where(middle, "t2")[1]], [180, 140], "both centred on 240");
  assert.equal(alignBlocks(state, ["t1", "t2"], "left"), null, "already aligned: no change");
});

test("a single block aligns to the canvas", () => {
  const state = open(BLOCKS);
  assert.deepEqual(where(alignBlocks(state, ["t1"], "centre").after, "t1"), [180, 60]);
  assert.deepEqual(where(alignBlocks(state, ["t1"], "bottom").after, "t1"), [80, 580]);
});

test("three blocks spread with equal gaps; fewer do not", () => {
  const state = open(BLOCKS);
  // Down: t1 60..180, i1 60..260, t2 220..420 sorted by top: t1, i1, t2; total span 60..420,
  // sizes 120 + 200 + 200 = 520 > 360: the gap is -80.
  const spread = distributeBlocks(state, ["t1", "t2", "i1"], "y").after;
  assert.deepEqual([where(spread, "t1")[1], where(spread, "i1")[1], where(spread, "t2")[1]], [60, 100, 220]);
  assert.equal(distributeBlocks(state, ["t1", "t2"], "x"), null);
});
