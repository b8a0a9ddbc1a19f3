// Where a dragged block lands: edges snap to the canvas's edges and centre and to the other
// blocks' edges and centres; a turned block snaps to 15° steps. Pure arithmetic on canvas
// pixels; the canvas view feeds it the pointer's distance divided by the scale.

import { blocksOf, px } from "../model/slide.js";

/** Screen pixels within which a moved edge snaps. */
export const SNAP = 6;

/** Where edges snap on `axis` ("x" or "y"): the canvas's edges and centre, and the edges
 * and centres of the blocks not in `moving`. */
export function snapLines(model, axis, length, moving) {
  const [start, size] = axis === "x" ? ["left", "width"] : ["top", "height"];
  const lines = [0, length / 2, length];
  for (const b of blocksOf(model)) {
    if (moving.includes(b.key)) continue;
    const a = px(b, start);
    const s = px(b, size);
    lines.push(a, a + s / 2, a + s);
  }
  return lines;
}

/** `value` moved onto the nearest of `lines` within `tolerance`. */
export function snap(value, lines, tolerance) {
  let best = value;
  let distance = tolerance;
  for (const line of lines) {
    if (Math.abs(value - line) <= distance) {
      distance = Math.abs(value - line);
      best = line;
    }
  }
  return best;
}

/** A box starting at `start` with `size`, moved so that the nearest of its edges or centre
 * within `tolerance` of one of `lines` lies on it. */
export function snapBox(start, size, lines, tolerance) {
  let best = start;
  let distance = tolerance;
  for (const line of lines) {
    for (const edge of [start, start + size / 2, start + size]) {
      if (Math.abs(edge - line) <= distance) {
        distance = Math.abs(edge - line);
        best = start + (line - edge);
      }
    }
  }
  return best;
}

/**
 * How far a drag of (`dx`, `dy`) canvas pixels moves the blocks `keys`: block `lead` (the
 * one pressed) snaps, the others keep their distance to it. `scale` is screen pixels per
 * canvas pixel.
 */
export function dragDelta(model, size, keys, lead, dx, dy, scale) {
  const block = blocksOf(model).find((b) => b.key === lead);
  if (!block) return [Math.round(dx), Math.round(dy)];
  const tolerance = SNAP / scale;
  const left = px(block, "left");
  const top = px(block, "top");
  const x = Math.round(snapBox(left + dx, px(block, "width"), snapLines(model, "x", size.width, keys), tolerance));
  const y = Math.round(snapBox(top + dy, px(block, "height"), snapLines(model, "y", size.height, keys), tolerance));
  return [x - left, y - top];
}

/** The lines (canvas pixels) that block `key`'s edges or centre lie on in `model`, among
 * the canvas's and the blocks' not in `moving`: what a drag shows as guides. */
export function guidesFor(model, size, moving, key) {
  const block = blocksOf(model).find((b) => b.key === key);
  if (!block) return { x: [], y: [] };
  const on = (axis, start, length) => {
    const a = px(block, start);
    const s = px(block, length);
    const lines = snapLines(model, axis, axis === "x" ? size.width : size.height, moving);
    return [...new Set(lines.filter((l) => [a, a + s / 2, a + s].some((edge) => Math.abs(edge - l) < 0.5)))];
  };
  return { x: on("x", "left", "width"), y: on("y", "top", "height") };
}

/** The edges each of the eight resize handles moves. */
const HANDLE_EDGES = {
  nw: ["left", "top"], n: ["top"], ne: ["right", "top"], e: ["right"],
  se: ["right", "bottom"], s: ["bottom"], sw: ["left", "bottom"], w: ["left"],
};

/**
 * The place `{left, top, width, height}` block `key` gets when its `handle` ("nw", "n", ...,
 * "w") is dragged by (`dx`, `dy`): the edges the handle moves snap; at least 8 px a side;
 * with `keepRatio` the block keeps its proportions (a side handle moves the edge across
 * from the other side along).
 */
export function resizeFrom(model, size, key, handle, dx, dy, scale, keepRatio = false) {
  const block = blocksOf(model).find((b) => b.key === key);
  const edges = HANDLE_EDGES[handle] || HANDLE_EDGES.se;
  const moves = (edge) => edges.includes(edge);
  const tolerance = SNAP / scale;
  const [w0, h0] = [px(block, "width"), px(block, "height")];
  let left = px(block, "left");
  let top = px(block, "top");
  let right = left + w0;
  let bottom = top + h0;
  const xs = snapLines(model, "x", size.width, [key]);
  const ys = snapLines(model, "y", size.height, [key]);
  if (moves("left")) left = Math.min(snap(left + dx, xs, tolerance), right - 8);
  if (moves("right")) right = Math.max(snap(right + dx, xs, tolerance), left + 8);
  if (moves("top")) top = Math.min(snap(top + dy, ys, tolerance), bottom - 8);
  if (moves("bottom")) bottom = Math.max(snap(bottom + dy, ys, tolerance), top + 8);
  if (keepRatio && w0 > 0 && h0 > 0) {
    const ratio = w0 / h0;
    let w = right - left;
    let h = bottom - top;
    const horizontal = moves("left") || moves("right");
    const vertical = moves("top") || moves("bottom");
    if (horizontal && vertical) {
      // From a corner, the side the pointer moved further leads.
      if (Math.abs(w - w0) >= Math.abs(h - h0)) h = w / ratio;
      else w = h * ratio;
    } else if (horizontal) {
      h = w / ratio;
    } else {
      w = h * ratio;
    }
    if (moves("left")) left = right - w;
    else right = left + w;
    if (moves("top")) top = bottom - h;
    else bottom = top + h;
  }
  return { left: Math.round(left), top: Math.round(top), width: Math.round(right - left), height: Math.round(bottom - top) };
}

/** The angle (degrees, 0-359) of a pointer at (`x`, `y`) around a centre (`cx`, `cy`),
 * 0 straight above; within 4° of a multiple of 15° it snaps to it. */
export function angleAround(cx, cy, x, y) {
  let a = (Math.atan2(y - cy, x - cx) * 180) / Math.PI + 90;
  a = ((Math.round(a) % 360) + 360) % 360;
  const nearest = Math.round(a / 15) * 15;
  return Math.abs(a - nearest) <= 4 ? nearest % 360 : a;
}

/** The keys of the blocks a rectangle { left, top, right, bottom } touches. */
export function blocksTouching(model, area) {
  return blocksOf(model).filter((b) => {
    const left = px(b, "left");
    const top = px(b, "top");
    return left < area.right && left + px(b, "width") > area.left && top < area.bottom && top + px(b, "height") > area.top;
  }).map((b) => b.key);
}
