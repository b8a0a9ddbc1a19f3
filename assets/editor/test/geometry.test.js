import { test } from "node:test";
import assert from "node:assert/strict";

import { angleAround, blocksTouching, dragDelta, resizeFrom, snap, snapBox } from "../actions/geometry.js";
import { parseSlide } from "../model/slide.js";
import { BLOCKS } from "./fixtures.js";

const size = { width: 960, height: 700 };

test("a value snaps to the nearest line within the tolerance", () => {
  assert.equal(snap(103, [0, 100, 480], 6), 100);
  assert.equal(snap(110, [0, 100, 480], 6), 110);
  assert.equal(snapBox(475, 10, [0, 480], 6), 475, "its centre is on the line already");
  assert.equal(snapBox(473, 10, [0, 480, 960], 3), 475);
});

test("a drag snaps the pressed block's edges to the canvas and the other blocks", () => {
  const model = parseSlide(BLOCKS);
  // t1 is 600 wide at 80: dragged 97 px, its right edge (777) is 3 from i1's... none; its
  // centre (477) is 3 from the canvas's centre (480).
  assert.deepEqual(dragDelta(model, size, ["t1"], "t1", 97, 0, 1), [100, 0]);
  assert.deepEqual(dragDelta(model, size, ["t1"], "t1", 50, 7.4, 2), [50, 7]);
  // At half scale 12 canvas pixels snap: its top goes back onto i1's top (60).
  assert.deepEqual(dragDelta(model, size, ["t1"], "t1", 50, 7.4, 0.5), [50, 0]);
});

test("each of the eight handles moves its edges; proportions kept on request", () => {
  const model = parseSlide(BLOCKS);
  // t1: left 80, top 60, 600 x 120. Its right edge dragged 278 px (to 958) snaps to the
  // canvas's right edge, 960: 880 wide.
  assert.deepEqual(resizeFrom(model, size, "t1", "se", 278, 0, 1), { left: 80, top: 60, width: 880, height: 120 });
  assert.deepEqual(resizeFrom(model, size, "t1", "nw", -40, -20, 1), { left: 40, top: 40, width: 640, height: 140 });
  assert.deepEqual(resizeFrom(model, size, "t1", "n", 30, -30, 1), { left: 80, top: 30, width: 600, height: 150 });
  assert.deepEqual(resizeFrom(model, size, "t1", "w", 700, 0, 1), { left: 672, top: 60, width: 8, height: 120 }, "8 px at least");
  // Shift on a corner: 600 x 120 stays 5:1, the width leading when the pointer moved as far
  // across as down.
  assert.deepEqual(resizeFrom(model, size, "t1", "se", 100, 100, 1, true), { left: 80, top: 60, width: 700, height: 140 });
  // Dragged mostly downwards, the height leads and the width follows.
  assert.deepEqual(resizeFrom(model, size, "t1", "se", 10, 30, 1, true), { left: 80, top: 60, width: 750, height: 150 });
  // A side handle with proportions kept moves the other side along.
  assert.deepEqual(resizeFrom(model, size, "t1", "e", -300, 0, 1, true), { left: 80, top: 60, width: 300, height: 60 });
});

test("rotation snaps to 15° steps; a rectangle touches the blocks it overlaps", () => {
  assert.equal(angleAround(0, 0, 10, 0), 90);
  assert.equal(angleAround(0, 0, 0, -10), 0);
  assert.equal(angleAround(0, 0, 10, 10.5), 135);
  assert.equal(angleAround(0, 0, 10, 3), 105);
  assert.equal(angleAround(0, 0, 10, 4), 112);
  assert.deepEqual(blocksTouching(parseSlide(BLOCKS), { left: 50, top: 50, right: 650, bottom: 250 }), ["t1", "t2"]);
});

test("a dragged block's guides are the lines its edges or centre lie on", async () => {
  const { guidesFor } = await import("../actions/geometry.js");
  const model = parseSlide(BLOCKS);
  // t1 (80..680 across, 60..180 down) shares its left edge with t2 (80) and its top with
  // i1 (60); nothing lines up with its centre or its other edges.
  assert.deepEqual(guidesFor(model, size, ["t1"], "t1"), { x: [80], y: [60] });
  assert.deepEqual(guidesFor(model, size, ["t1"], "nope"), { x: [], y: [] });
});
