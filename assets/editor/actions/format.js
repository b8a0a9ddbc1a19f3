// Formatting the selected blocks and the slide: text style of a block's content, shape
// fill, stroke and corners, fragments, a code block's language, a block's content, and the
// slide's background. Pure functions from the state to a transaction (null: no change).

import { editSlide } from "./blocks.js";
import { readTag, openTag, withAttr } from "../model/markup.js";
import {
  blockAttr, blockOf, blockType, contentStyle, mapBlocks, withBlockAttr, withContentHtml, withContentStyle, withSectionAttr,
} from "../model/slide.js";

/** "#rrggbb" as a browser serialises a colour in a style: "rgb(r, g, b)"; others as given. */
export function cssColour(colour) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour.trim());
  if (!m) return colour;
  return `rgb(${m.slice(1).map((h) => Number.parseInt(h, 16)).join(", ")})`;
}

const shapes = (state, keys) => keys.filter((k) => {
  const b = blockOf(state.slide?.model, k);
  return b && blockType(b) === "shape";
});

function changeBlocks(state, name, keys, change) {
  if (!state.slide) return null;
  const model = mapBlocks(state.slide.model, keys, change);
  return model === state.slide.model ? null : editSlide(state, name, model);
}

/** Sets `property` of block `key`'s content style (font size, colour, alignment). */
export function styleContent(state, key, property, value) {
  const v = property === "color" ? cssColour(value) : value;
  return changeBlocks(state, "styleContent", [key], (b) => withContentStyle(b, { [property]: v }));
}

/** How much larger than its block's text each heading is (slides.css). */
const HEADING_SCALE = { h1: 2.5, h2: 1.6, h3: 1.3, h4: 1, h5: 0.9, h6: 0.8 };

/** The tag of the first element in a block's content ("p", "h2", ...), or null. */
export function firstTag(block) {
  const m = /<([a-z][a-z0-9]*)/i.exec((block && block.content && block.content.html) || "");
  return m ? m[1].toLowerCase() : null;
}

/** The size in px a person reads for text block `block`: its first element's (a heading is
 * its scale times the block's size); null when the block sets none. */
export function textSize(block) {
  const size = Number.parseFloat(contentStyle(block, "font-size") || "");
  if (!Number.isFinite(size)) return null;
  return Math.round(size * (HEADING_SCALE[firstTag(block)] || 1));
}

/** Sets block `key`'s text to `px` pixels as a person reads it: a heading in it gets that
 * size (the block's size is `px` divided by the heading's scale). */
export function setTextSize(state, key, px) {
  const block = blockOf(state.slide?.model, key);
  if (!block) return null;
  const size = Math.round((Number(px) / (HEADING_SCALE[firstTag(block)] || 1)) * 100) / 100;
  return changeBlocks(state, "setTextSize", [key], (b) => withContentStyle(b, { "font-size": `${size}px` }));
}

/** Colours block `key`'s text, headings included (their colour is the theme's heading
 * variable, set here for the block). */
export function setTextColour(state, key, colour) {
  const c = cssColour(colour);
  return changeBlocks(state, "setTextColour", [key], (b) => withContentStyle(b, { color: c, "--lectern-heading": c }));
}

/** Sets block `key`'s text in `family` (a CSS font-family list; empty: the theme's), its
 * headings too (their face is the theme's heading variable, set here for the block). */
export function setTextFont(state, key, family) {
  const f = family || null;
  return changeBlocks(state, "setTextFont", [key], (b) => withContentStyle(b, { "font-family": f, "--lectern-heading-font": f }));
}

/** Fills the shapes among `keys` with `colour`. */
export function setFill(state, keys, colour) {
  return changeBlocks(state, "setFill", shapes(state, keys), (b) => withContentStyle(b, { "background-color": cssColour(colour) }));
}

/** Outlines the shapes among `keys` with `width` px of `colour` (0: no outline). */
export function setStroke(state, keys, colour, width) {
  const w = Math.max(0, Math.round(Number(width) || 0));
  const border = w > 0 ? `${w}px solid ${cssColour(colour)}` : null;
  return changeBlocks(state, "setStroke", shapes(state, keys), (b) => withContentStyle(b, { border }));
}

/** Rounds the corners of the shapes among `keys` by `radius` px. */
export function setRadius(state, keys, radius) {
  const r = Math.max(0, Math.round(Number(radius) || 0));
  return changeBlocks(state, "setRadius", shapes(state, keys), (b) => withContentStyle(b, { "border-radius": `${r}px` }));
}

/** Makes block `key` a fragment shown at step `order`, or not one (null). */
export function setFragment(state, key, order) {
  return changeBlocks(state, "setFragment", [key], (b) => {
    const classes = (blockAttr(b, "class") || "").split(/\s+/).filter((c) => c && c !== "fragment");
    if (order !== null && order !== undefined) classes.push("fragment");
    const index = order === null || order === undefined ? null : String(Math.max(0, Math.round(order)));
    return withBlockAttr(withBlockAttr(b, "class", classes.join(" ")), "data-fragment-index", index);
  });
}

/** The `<code>` element of a code block's content: where its tag and its text are. */
function codeElement(html) {
  const at = html.search(/<code[\s>]/i);
  if (at < 0) return null;
  const tag = readTag(html, at);
  const close = html.toLowerCase().lastIndexOf("</code>");
  return close < tag.end ? null : { at, tag, close };
}

/** Sets the language of code block `key`. */
export function setLanguage(state, key, language) {
  return changeBlocks(state, "setLanguage", [key], (b) => {
    const code = b.content && blockType(b) === "code" ? codeElement(b.content.html) : null;
    if (!code) return b;
    const attrs = withAttr(withAttr(code.tag.attrs, "class", `language-${language}`), "data-language", language);
    const html = b.content.html;
    return withContentHtml(b, `${html.slice(0, code.at)}${openTag("code", attrs)}${html.slice(code.tag.end)}`);
  });
}

/** The alt text of image block `key`'s picture (what a screen reader says), or null. */
export function altText(block) {
  const html = (block && blockType(block) === "image" && block.content && block.content.html) || "";
  const at = html.search(/<img[\s>]/i);
  if (at < 0) return null;
  const alt = readTag(html, at).attrs.find(([name]) => name === "alt");
  return alt ? alt[1] : "";
}

/** Sets the alt text of image block `key`'s picture. */
export function setAltText(state, key, text) {
  return changeBlocks(state, "setAltText", [key], (b) => {
    const html = b.content && blockType(b) === "image" ? b.content.html : "";
    const at = html.search(/<img[\s>]/i);
    if (at < 0) return b;
    const tag = readTag(html, at);
    const img = openTag("img", withAttr(tag.attrs, "alt", text.trim()));
    return withContentHtml(b, `${html.slice(0, at)}${img}${html.slice(tag.end)}`);
  });
}

/** Replaces the content of block `key` with `html`. */
export function setBlockContent(state, key, html) {
  return changeBlocks(state, "setBlockContent", [key], (b) => withContentHtml(b, html));
}

/** Replaces the text of code block `key`'s `<code>` element with `html`. */
export function setCodeText(state, key, html) {
  return changeBlocks(state, "setCodeText", [key], (b) => {
    const code = b.content ? codeElement(b.content.html) : null;
    if (!code) return b;
    const c = b.content.html;
    return withContentHtml(b, `${c.slice(0, code.tag.end)}${html}${c.slice(code.close)}`);
  });
}

/** Sets the slide's background colour (reveal.js's data-background-color). */
export function setBackground(state, colour) {
  if (!state.slide) return null;
  return editSlide(state, "setBackground", withSectionAttr(state.slide.model, "data-background-color", colour));
}

/** Sets the slide's background image (reveal.js's data-background-image), or removes it. */
export function setBackgroundImage(state, url) {
  if (!state.slide) return null;
  return editSlide(state, "setBackgroundImage", withSectionAttr(state.slide.model, "data-background-image", url || null));
}
