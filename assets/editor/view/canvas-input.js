// The canvas's pointer and keyboard: a click selects a block (Shift+click adds it, a
// rectangle dragged on the empty canvas selects those it touches), a drag moves the
// selection, the eight handles resize and the top knob rotates (each drawn as a preview of the
// action's transaction while the pointer moves, dispatched once when it is let go); a
// double-click edits text or code in place; the arrow keys, Delete, Ctrl+D, Enter, Tab and
// Escape, and copy and paste of a block. Every change is one of actions/.

import { deleteBlocks, duplicateBlock, moveBlocks, placeBlock, rotateBlock, selectBlocks, toggleBlock } from "../actions/blocks.js";
import { pasteBlock } from "../actions/create.js";
import { angleAround, blocksTouching, dragDelta, guidesFor, resizeFrom } from "../actions/geometry.js";
import { blockHtml, blockOf, blockType, blocksOf } from "../model/slide.js";

/** The block copied last (its HTML), pasted by Ctrl+V on any slide of the page. */
let copied = null;

/** Wires the canvas view `c`'s input. */
export function installInput(c) {
  c.frame.addEventListener("pointerdown", (event) => pointerDown(c, event));
  c.frame.addEventListener("dblclick", (event) => doubleClick(c, event));
  c.frame.addEventListener("keydown", (event) => key(c, event));
  c.frame.addEventListener("copy", (event) => copy(c, event));
  c.frame.addEventListener("paste", (event) => {
    if (c.editing || !copied || !c.store.state.slide) return;
    event.preventDefault();
    c.store.run(pasteBlock, copied);
  });
}

/** Follows the pointer of `event` until it is released: `move` on every move, `done` after. */
function track(c, event, move, done) {
  c.frame.setPointerCapture(event.pointerId);
  const up = () => {
    c.frame.removeEventListener("pointermove", move);
    c.frame.removeEventListener("pointerup", up);
    c.frame.removeEventListener("pointercancel", up);
    done();
  };
  c.frame.addEventListener("pointermove", move);
  c.frame.addEventListener("pointerup", up);
  c.frame.addEventListener("pointercancel", up);
}

/** Shows `action`'s result on the canvas while the pointer moves; dispatches it at the end
 * (made again from the store's state, which a save may have moved on meanwhile). */
function gesture(c, event, action) {
  const start = c.store.state;
  let last = null;
  track(c, event, (e) => {
    const args = action(start, e);
    if (!args) return;
    last = args;
    const tr = args[0](start, ...args.slice(1));
    c.preview = tr ? tr.after : start;
    c.draw(c.preview);
    // Where the block pressed lines up with the canvas or another block, a guide shows.
    const key = c.preview.lead;
    if (args[0] !== rotateBlock && key) c.showGuides(guidesFor(c.preview.slide.model, c.size, c.preview.selection, key));
  }, () => {
    c.showGuides(null);
    c.preview = null;
    if (last) c.store.run(...last);
    c.draw(c.store.state);
  });
}

function pointerDown(c, event) {
  if (event.button !== 0) return;
  const view = event.target.closest(".canvas-board > .sl-block");
  if (c.editing && view && c.editing.key === view.dataset.key) return; // text selection
  c.frame.focus({ preventScroll: true });
  if (!view) return marquee(c, event);
  const key = view.dataset.key;
  // Shift+click adds to the selection or takes away; Shift on a handle keeps proportions.
  if (event.shiftKey && !event.target.classList.contains("canvas-handle")) return c.store.run(toggleBlock, key);
  if (!c.store.state.selection.includes(key)) c.store.run(selectBlocks, [key]);
  event.preventDefault();
  const x = event.clientX;
  const y = event.clientY;
  if (event.target.classList.contains("canvas-rotate")) {
    const box = view.getBoundingClientRect();
    const [cx, cy] = [box.left + box.width / 2, box.top + box.height / 2];
    return gesture(c, event, (_, e) => [rotateBlock, key, angleAround(cx, cy, e.clientX, e.clientY)]);
  }
  // A handle resizes from its side or corner; pictures keep their proportions (Shift frees
  // them), other blocks keep theirs with Shift.
  const handle = event.target.classList.contains("canvas-handle") && (event.target.dataset.handle || "se");
  const picture = blockType(blockOf(c.store.state.slide.model, key)) === "image";
  let moved = false;
  gesture(c, event, (start, e) => {
    const dx = (e.clientX - x) / c.scale;
    const dy = (e.clientY - y) / c.scale;
    if (!moved && Math.abs(dx) + Math.abs(dy) < 1) return null;
    moved = true;
    const model = start.slide.model;
    if (handle) return [placeBlock, key, resizeFrom(model, c.size, key, handle, dx, dy, c.scale, picture !== e.shiftKey)];
    // The block pressed snaps; the others of the selection keep their distance to it.
    return [moveBlocks, start.selection, ...dragDelta(model, c.size, start.selection, key, dx, dy, c.scale)];
  });
}

/** A rectangle dragged on the empty canvas selects the blocks it touches (with Shift, adds
 * them to the selection). */
function marquee(c, event) {
  const board = c.slide.slides.getBoundingClientRect();
  const at = (e) => [(e.clientX - board.left) / c.scale, (e.clientY - board.top) / c.scale];
  const [x0, y0] = at(event);
  const keep = event.shiftKey ? c.store.state.selection : [];
  const box = document.createElement("div");
  box.className = "canvas-marquee";
  let area = null;
  event.preventDefault();
  track(c, event, (e) => {
    const [x1, y1] = at(e);
    area = { left: Math.min(x0, x1), top: Math.min(y0, y1), right: Math.max(x0, x1), bottom: Math.max(y0, y1) };
    if (!box.isConnected) c.slide.slides.append(box);
    Object.assign(box.style, {
      left: `${area.left}px`,
      top: `${area.top}px`,
      width: `${area.right - area.left}px`,
      height: `${area.bottom - area.top}px`,
    });
  }, () => {
    box.remove();
    const model = c.store.state.slide?.model;
    const touched = area && model ? blocksTouching(model, area) : [];
    c.store.run(selectBlocks, [...new Set([...keep, ...touched])]);
  });
}

function doubleClick(c, event) {
  // The block under the pointer: a press takes pointer capture (to drag), which makes the
  // canvas itself the double-click's target.
  const under = document.elementFromPoint(event.clientX, event.clientY) || event.target;
  const view = under.closest(".canvas-board > .sl-block");
  if (!view && c.free.childNodes.length > 0) {
    // The slide's free reveal.js HTML is one block edited as HTML: the editor opens it.
    c.hooks.editFree();
    return;
  }
  if (!view || !["text", "html", "code"].includes(view.dataset.blockType || "text")) return;
  if (c.editing && c.editing.key === view.dataset.key) return; // selecting words
  c.startEditing(view.dataset.key);
  if (c.editing) selectWordAt(c.editing.content, event.clientX, event.clientY);
}

/** Selects the word at the screen point (`x`, `y`) of `content`, being edited, or puts the
 * caret there: a double-click's selection, which the press's drag handling prevented. */
function selectWordAt(content, x, y) {
  const caret = document.caretRangeFromPoint && document.caretRangeFromPoint(x, y);
  if (!caret || !content.contains(caret.startContainer)) return;
  const node = caret.startContainer;
  const at = caret.startOffset;
  const range = document.createRange();
  range.setStart(node, at);
  if (node.nodeType === Node.TEXT_NODE) {
    for (const word of new Intl.Segmenter(undefined, { granularity: "word" }).segment(node.data)) {
      if (word.isWordLike && word.index <= at && at <= word.index + word.segment.length) {
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word.segment.length);
        break;
      }
    }
  }
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

function key(c, event) {
  const state = c.store.state;
  if (c.editing) {
    if (event.key === "Escape") {
      const editing = c.editing.key;
      c.stopEditing();
      c.draw(c.store.state);
      c.store.run(selectBlocks, [editing]);
      c.frame.focus();
    }
    return;
  }
  const keys = blocksOf(state.slide?.model).map((b) => b.key);
  const lead = state.lead;
  if (event.key === "Tab" && !event.ctrlKey && !event.metaKey) {
    // Tab walks the blocks (Shift+Tab back); past the last one focus leaves the canvas.
    const at = keys.indexOf(lead);
    const next = at < 0 && event.shiftKey ? keys.length - 1 : at + (event.shiftKey ? -1 : 1);
    if (next >= 0 && next < keys.length) {
      event.preventDefault();
      c.store.run(selectBlocks, [keys[next]]);
    }
    return;
  }
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "a") {
    // Outside text, Ctrl+A selects the slide's blocks, not the page.
    event.preventDefault();
    c.store.run(selectBlocks, keys);
    return;
  }
  if (state.selection.length === 0) return;
  const step = event.shiftKey ? 10 : 1;
  const nudge = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[event.key];
  if (nudge) {
    event.preventDefault();
    event.stopPropagation();
    c.store.run(moveBlocks, state.selection, ...nudge);
  } else if (event.key === "Delete" || event.key === "Backspace") {
    event.preventDefault();
    c.store.run(deleteBlocks, state.selection);
  } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "d") {
    event.preventDefault();
    if (lead) c.store.run(duplicateBlock, lead);
  } else if (event.key === "Enter" && lead) {
    event.preventDefault();
    c.startEditing(lead);
  } else if (event.key === "Escape") {
    c.store.run(selectBlocks, []);
  }
}

/** Copies the selected block (not while its text is edited: then the text is copied). */
function copy(c, event) {
  const block = blockOf(c.store.state.slide?.model, c.store.state.lead);
  if (c.editing || !block) return;
  event.preventDefault();
  copied = blockHtml(block);
  event.clipboardData.setData("text/html", copied);
  event.clipboardData.setData("text/plain", c.view(block.key)?.textContent || "");
}
