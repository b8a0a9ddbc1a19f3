// Adding blocks to the selected slide: text, shapes, lines and arrows, code, free HTML,
// images, and a pasted block. Each is written in Slides.com block markup, centred on the
// canvas, on top of the others, and selected.

import { addBlock, newBlockId } from "./blocks.js";
import { escapeAttr, openTag } from "../model/markup.js";
import { blockAttr, parseBlock, withBlockAttr } from "../model/slide.js";

/** A new block of `type` around `content` (HTML), `width` x `height`, centred on the canvas
 * or on `at` ({x, y} in canvas pixels), kept on the canvas. */
export function newBlock(state, type, content, width, height, contentAttrs = [], id = newBlockId(), at = null) {
  const deck = state.deck || { width: 960, height: 700 };
  const centre = at || { x: deck.width / 2, y: deck.height / 2 };
  const inside = (start, size, total) => Math.round(Math.min(Math.max(start, 0), Math.max(total - size, 0)));
  const left = inside(centre.x - width / 2, width, deck.width);
  const top = inside(centre.y - height / 2, height, deck.height);
  const style = `left: ${left}px; top: ${top}px; width: ${width}px; height: ${height}px;`;
  const outer = openTag("div", [["class", "sl-block"], ["data-block-type", type], ["data-block-id", id], ["style", style]]);
  const inner = openTag("div", [["class", "sl-block-content"], ...contentAttrs]);
  return parseBlock(`${outer}${inner}${content}</div></div>`, id);
}

/** A text block (its text is then edited in place, selected so that typing replaces it). */
export function addText(state, id) {
  return addBlock(state, "addText", newBlock(state, "text", "<p>Text</p>", 600, 120, [], id));
}

/** A rectangle, ellipse or triangle filled with `fill`. */
export function addShape(state, kind, fill, id) {
  const outline = { ellipse: " border-radius: 50%;", triangle: " clip-path: polygon(50% 0%, 100% 100%, 0% 100%);" }[kind] || "";
  const style = `width: 100%; height: 100%; background-color: ${fill};${outline}`;
  return addBlock(state, "addShape", newBlock(state, "shape", "", 300, 200, [["style", style], ["data-shape-type", kind]], id));
}

/** A line, or an arrow pointing right, in `colour`, as SVG (what slides keep). */
export function addLine(state, arrow, colour, id) {
  const c = escapeAttr(colour);
  const head = arrow ? `<polygon points="300,20 282,10 282,30" fill="${c}"></polygon>` : "";
  const end = arrow ? 284 : 300;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" viewBox="0 0 300 40" preserveAspectRatio="none"><line x1="0" y1="20" x2="${end}" y2="20" stroke="${c}" stroke-width="4"></line>${head}</svg>`;
  return addBlock(state, arrow ? "addArrow" : "addLine", newBlock(state, "line", svg, 300, 40, [], id));
}

/** A code block in `language` (edited in place like text). */
export function addCode(state, language, id) {
  const l = escapeAttr(language);
  const code = `<pre><code class="language-${l}" data-language="${l}">// code</code></pre>`;
  return addBlock(state, "addCode", newBlock(state, "code", code, 600, 240, [], id));
}

/** A block of free HTML (edited in the block panel's field). */
export function addHtml(state, id) {
  return addBlock(state, "addHtml", newBlock(state, "html", "<div>HTML</div>", 400, 200, [], id));
}

/** An image block showing `url`, centred on the canvas or on `at` (where it was dropped). */
export function addImage(state, url, id, at = null) {
  const img = `<img src="${escapeAttr(url)}" alt="" style="width: 100%; height: 100%; object-fit: contain;">`;
  return addBlock(state, "addImage", newBlock(state, "image", img, 480, 320, [], id, at));
}

/** The block copied last (its HTML) pasted as a new block with an id of its own. */
export function pasteBlock(state, html, id = newBlockId()) {
  const block = parseBlock(html, id);
  if (!block || !(blockAttr(block, "class") || "").split(/\s+/).includes("sl-block")) return null;
  return addBlock(state, "pasteBlock", withBlockAttr(block, "data-block-id", id));
}
