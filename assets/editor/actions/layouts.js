// The layouts a new slide starts from: blocks placed on the deck's canvas (title, title and
// body, two columns, section header, image with caption, blank). Every placeholder is a text
// block (or an image block) a person double-clicks and types into.

import { newBlockId } from "./blocks.js";
import { escapeAttr } from "../model/markup.js";

/** A light picture that says where an image goes (an SVG, as a data URL). */
const IMAGE_PLACEHOLDER =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400"><rect width="640" height="400" fill="#e8ebf0"/>' +
      '<text x="320" y="210" font-family="sans-serif" font-size="28" text-anchor="middle" fill="#6b7280">Image</text></svg>',
  );

/** One block of `type` at fractions (`x`, `y`, `w`, `h`) of the canvas, around `content`. */
function block(deck, type, [x, y, w, h], content, contentStyle = "") {
  const r = (v, total) => Math.round(v * total);
  const style = `left: ${r(x, deck.width)}px; top: ${r(y, deck.height)}px; width: ${r(w, deck.width)}px; height: ${r(h, deck.height)}px;`;
  const inner = contentStyle ? `<div class="sl-block-content" style="${escapeAttr(contentStyle)}">` : '<div class="sl-block-content">';
  return `<div class="sl-block" data-block-type="${type}" data-block-id="${newBlockId()}" style="${style}">${inner}${content}</div></div>`;
}

const title = (deck, text = "Title") => block(deck, "text", [0.06, 0.06, 0.88, 0.16], `<h2>${text}</h2>`);
const body = (deck, box) => block(deck, "text", box, "<ul><li>First point</li><li>Second point</li></ul>", "text-align: left;");

/** The layouts by name, with the label the menu shows and the blocks they place. */
export const LAYOUTS = {
  "title-body": { label: "Title and body", blocks: (d) => [title(d), body(d, [0.06, 0.26, 0.88, 0.64])] },
  title: {
    label: "Title slide",
    blocks: (d) => [
      block(d, "text", [0.08, 0.3, 0.84, 0.2], "<h1>Title</h1>"),
      block(d, "text", [0.08, 0.54, 0.84, 0.12], "<p><em>Subtitle</em></p>"),
    ],
  },
  "two-columns": {
    label: "Two columns",
    blocks: (d) => [title(d), body(d, [0.06, 0.26, 0.42, 0.64]), body(d, [0.52, 0.26, 0.42, 0.64])],
  },
  section: { label: "Section header", blocks: (d) => [block(d, "text", [0.08, 0.38, 0.84, 0.24], "<h1>Section</h1>")] },
  "image-caption": {
    label: "Image with caption",
    blocks: (d) => [
      block(d, "image", [0.15, 0.07, 0.7, 0.68], `<img src="${IMAGE_PLACEHOLDER}" alt="" style="width: 100%; height: 100%; object-fit: contain;">`),
      block(d, "text", [0.1, 0.78, 0.8, 0.12], "<p>Caption</p>"),
    ],
  },
  blank: { label: "Blank", blocks: () => [] },
};

/** The HTML of a new slide in `layout` on `deck`'s canvas. */
export function layoutHtml(layout, deck) {
  const size = { width: (deck && deck.width) || 960, height: (deck && deck.height) || 700 };
  const chosen = LAYOUTS[layout] || LAYOUTS["title-body"];
  return `<section>${chosen.blocks(size).join("")}</section>`;
}
