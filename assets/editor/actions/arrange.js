// Arranging several blocks: align their edges or centres (to the selection's bounds, or to
// the canvas for a single block), or spread three or more evenly across or down.

import { editSlide } from "./blocks.js";
import { blockOf, mapBlocks, px, withBlockStyle } from "../model/slide.js";

/** Each alignment: the axis it moves along and where on a box it lines up (0 start, 0.5
 * centre, 1 end). */
const ALIGN = {
  left: ["x", 0], centre: ["x", 0.5], right: ["x", 1],
  top: ["y", 0], middle: ["y", 0.5], bottom: ["y", 1],
};

const AXIS = { x: ["left", "width"], y: ["top", "height"] };

/** The blocks of `keys` that the open slide has, as { key, start, size } on `axis`. */
function boxes(state, keys, axis) {
  const [start, size] = AXIS[axis];
  return keys
    .map((key) => blockOf(state.slide?.model, key))
    .filter(Boolean)
    .map((b) => ({ key: b.key, start: px(b, start), size: px(b, size) }));
}

/** Moves each block of `places` ({key: new start}) along `axis`. */
function place(state, name, axis, places) {
  const [start] = AXIS[axis];
  const model = mapBlocks(state.slide.model, Object.keys(places), (b) =>
    px(b, start) === places[b.key] ? b : withBlockStyle(b, { [start]: `${places[b.key]}px` }),
  );
  return model === state.slide.model ? null : editSlide(state, name, model);
}

/** Aligns the blocks `keys` by `how` ("left", "centre", "right", "top", "middle", "bottom"):
 * to the bounds of them all, or to the canvas when there is one. */
export function alignBlocks(state, keys, how) {
  const [axis, at] = ALIGN[how] || [];
  if (!axis || !state.slide) return null;
  const list = boxes(state, keys, axis);
  if (list.length === 0) return null;
  const deck = state.deck || { width: 960, height: 700 };
  const [low, high] = list.length === 1
    ? [0, axis === "x" ? deck.width : deck.height]
    : [Math.min(...list.map((b) => b.start)), Math.max(...list.map((b) => b.start + b.size))];
  const line = low + (high - low) * at;
  const places = Object.fromEntries(list.map((b) => [b.key, Math.round(line - b.size * at)]));
  return place(state, "alignBlocks", axis, places);
}

/** Spreads three or more blocks `keys` along `axis` ("x" or "y") with equal gaps between
 * them, the first and last staying where they are. */
export function distributeBlocks(state, keys, axis) {
  if (!state.slide || !AXIS[axis]) return null;
  const list = boxes(state, keys, axis).sort((a, b) => a.start - b.start);
  if (list.length < 3) return null;
  const first = list[0];
  const last = list[list.length - 1];
  const gap = (last.start + last.size - first.start - list.reduce((sum, b) => sum + b.size, 0)) / (list.length - 1);
  const places = {};
  let at = first.start;
  for (const b of list) {
    places[b.key] = Math.round(at);
    at += b.size + gap;
  }
  return place(state, "distributeBlocks", axis, places);
}
