// What a person does to the blocks of the selected slide: select, move, resize, rotate,
// delete, duplicate and restack. Each action is a pure function from the state to a
// transaction (null when there is nothing to do); the mouse, the keyboard, the toolbar and
// the block panel's fields all call the same ones.

import { transaction, withModel } from "../model/state.js";
import { blockOf, blocksOf, mapBlocks, px, styleValue, withBlockStyle } from "../model/slide.js";

/** A new block id, as Slides.com writes them. */
export const newBlockId = () => Math.random().toString(36).slice(2, 10);

/** A transaction that puts `model` in the selected slide (and the selection given). */
export function editSlide(state, name, model, selection) {
  if (!state.slide) return null;
  const changes = { slide: withModel(state.slide, model) };
  if (selection) Object.assign(changes, selection);
  return transaction(state, name, changes);
}

/** Selects the blocks `keys` (none: nothing selected); `lead` gets the handles. */
export function selectBlocks(state, keys, lead = keys[keys.length - 1] ?? null) {
  const known = keys.filter((k) => blockOf(state.slide?.model, k));
  const same = known.length === state.selection.length && known.every((k, i) => k === state.selection[i]);
  return transaction(state, "selectBlocks", { selection: same ? state.selection : known, lead: known.includes(lead) ? lead : null });
}

/** Adds block `key` to the selection, or takes it out (Shift+click). */
export function toggleBlock(state, key) {
  if (state.selection.includes(key)) {
    const rest = state.selection.filter((k) => k !== key);
    return selectBlocks(state, rest, rest[rest.length - 1] ?? null);
  }
  return selectBlocks(state, [...state.selection, key], key);
}

/** Moves the blocks `keys` by (`dx`, `dy`) canvas pixels (whole pixels). */
export function moveBlocks(state, keys, dx, dy) {
  const x = Math.round(dx);
  const y = Math.round(dy);
  if (!state.slide || (x === 0 && y === 0)) return null;
  const model = mapBlocks(state.slide.model, keys, (b) => {
    const changes = {};
    if (x !== 0) changes.left = `${px(b, "left") + x}px`;
    if (y !== 0) changes.top = `${px(b, "top") + y}px`;
    return withBlockStyle(b, changes);
  });
  return editSlide(state, "moveBlocks", model);
}

/** Gives block `key` a size of `width` x `height` canvas pixels (at least 8). */
export function resizeBlock(state, key, width, height) {
  const block = state.slide && blockOf(state.slide.model, key);
  if (!block) return null;
  const w = Math.max(8, Math.round(width));
  const h = Math.max(8, Math.round(height));
  if (w === px(block, "width") && h === px(block, "height")) return null;
  const model = mapBlocks(state.slide.model, [key], (b) => withBlockStyle(b, { width: `${w}px`, height: `${h}px` }));
  return editSlide(state, "resizeBlock", model);
}

/** Puts block `key` at `{left, top, width, height}` (a resize from any side), at least 8 px
 * a side. */
export function placeBlock(state, key, { left, top, width, height }) {
  const block = state.slide && blockOf(state.slide.model, key);
  if (!block) return null;
  const box = [left, top, Math.max(8, width), Math.max(8, height)].map((v) => Math.round(v));
  const now = ["left", "top", "width", "height"].map((p) => px(block, p));
  if (box.every((v, i) => v === now[i])) return null;
  const [l, t, w, h] = box;
  const model = mapBlocks(state.slide.model, [key], (b) => withBlockStyle(b, { left: `${l}px`, top: `${t}px`, width: `${w}px`, height: `${h}px` }));
  return editSlide(state, "placeBlock", model);
}

/** Turns block `key` to `angle` degrees (0: upright). */
export function rotateBlock(state, key, angle) {
  if (!state.slide) return null;
  const a = ((Math.round(angle) % 360) + 360) % 360;
  const model = mapBlocks(state.slide.model, [key], (b) => withBlockStyle(b, { transform: a ? `rotate(${a}deg)` : null }));
  return editSlide(state, "rotateBlock", model);
}

/** Removes the blocks `keys`; nothing is selected afterwards. */
export function deleteBlocks(state, keys) {
  if (!state.slide) return null;
  const gone = new Set(keys);
  const parts = state.slide.model.parts.filter((p) => "free" in p || !gone.has(p.key));
  if (parts.length === state.slide.model.parts.length) return null;
  return editSlide(state, "deleteBlocks", { ...state.slide.model, parts }, { selection: [], lead: null });
}

/** The highest z-index of the slide's blocks (0 when none has one). */
export function topLayer(model) {
  return Math.max(0, ...blocksOf(model).map((b) => Number(styleValue(b, "z-index")) || 0));
}

/**
 * Adds `block` on top of the others at the end of the slide and selects it; its key is its
 * block id.
 */
export function addBlock(state, name, block) {
  if (!state.slide || !state.slide.model.section) return null;
  let key = block.key;
  while (blockOf(state.slide.model, key)) key = `${key}~`;
  const placed = withBlockStyle({ ...block, key }, { "z-index": String(topLayer(state.slide.model) + 1) });
  const model = { ...state.slide.model, parts: [...state.slide.model.parts, placed] };
  return editSlide(state, name, model, { selection: [key], lead: key });
}

/** A copy of block `key`, 20 px lower and to the right, on top (Ctrl+D). */
export function duplicateBlock(state, key, id = newBlockId()) {
  const block = state.slide && blockOf(state.slide.model, key);
  if (!block) return null;
  const copy = withBlockStyle(
    { ...block, key: id, attrs: block.attrs.map(([n, v]) => [n, n === "data-block-id" ? id : v]), open: null },
    { left: `${px(block, "left") + 20}px`, top: `${px(block, "top") + 20}px` },
  );
  return addBlock(state, "duplicateBlock", copy);
}

/** Moves block `key` one step up (1) or down (-1) the stacking order. */
export function restackBlock(state, key, direction) {
  if (!state.slide) return null;
  const order = blocksOf(state.slide.model).map((b, i) => ({ key: b.key, i, z: Number(styleValue(b, "z-index")) || 0 }));
  order.sort((x, y) => x.z - y.z || x.i - y.i);
  const at = order.findIndex((o) => o.key === key);
  const swap = at + direction;
  if (at < 0 || swap < 0 || swap >= order.length) return null;
  [order[at], order[swap]] = [order[swap], order[at]];
  const layer = new Map(order.map((o, z) => [o.key, String(z + 1)]));
  const model = mapBlocks(state.slide.model, [...layer.keys()], (b) =>
    styleValue(b, "z-index") === layer.get(b.key) ? b : withBlockStyle(b, { "z-index": layer.get(b.key) }),
  );
  return editSlide(state, "restackBlock", model);
}
