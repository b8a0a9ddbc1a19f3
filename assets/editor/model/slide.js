// One slide as data: its <section> tag, and its children as a list of parts, each either
// free reveal.js HTML (kept as text) or a block in Slides.com block markup (div.sl-block
// with data-block-type, data-block-id and left/top/width/height in its style, around
// div.sl-block-content). Every part keeps the exact text it was read from; a changed block
// or section tag is written again from its attributes, so a slide nobody changed serialises
// byte for byte as it was read, and a changed one differs only where it changed.
//
// Values are never mutated: every change returns a new slide whose untouched blocks are the
// same objects as before (the canvas redraws only the blocks that are not).

import { attr, elementEnd, openTag, parseStyle, readTag, styleText, walkTags, withAttr, withDeclaration } from "./markup.js";

const classes = (attrs) => (attr(attrs, "class") || "").split(/\s+/);

/** Reads the element whose opening tag is at `at`: tag, inner text and raw open/close. */
function element(html, at) {
  const tag = readTag(html, at);
  const { inner, end } = elementEnd(html, tag);
  return { attrs: tag.attrs, open: html.slice(at, tag.end), html: html.slice(tag.end, inner), close: html.slice(inner, end), end };
}

/** A block read from `html` (which starts with its opening tag), with model key `key`. */
function readBlock(html, key) {
  const outer = element(html, 0);
  const inner = outer.html;
  let content = null;
  let lead = inner;
  let tail = "";
  walkTags(inner, 0, (t, at) => {
    if (t.closing || t.name !== "div" || !classes(t.attrs).includes("sl-block-content")) return false;
    const c = element(inner, at);
    lead = inner.slice(0, at);
    tail = inner.slice(c.end);
    content = { attrs: c.attrs, open: c.open, html: c.html, close: c.close };
    return true;
  });
  return { key, attrs: outer.attrs, open: outer.open, lead, content, tail, close: outer.close, length: outer.end };
}

/** Parses a slide's HTML (one <section>) into a slide. */
export function parseSlide(html) {
  let start = -1;
  walkTags(html, 0, (t, at) => {
    if (!t.closing && t.name === "section") {
      start = at;
      return true;
    }
    return false;
  });
  if (start < 0) return { prefix: html, section: null, parts: [], suffix: "" };
  const tag = readTag(html, start);
  const { inner } = elementEnd(html, tag);
  const body = html.slice(tag.end, inner);
  const parts = [];
  const seen = new Set();
  let free = 0;
  let depth = 0;
  walkTags(body, 0, (t, at) => {
    if (t.name !== "div") return false;
    if (t.closing) {
      depth = Math.max(0, depth - 1);
      return false;
    }
    if (depth > 0 || !classes(t.attrs).includes("sl-block")) {
      depth += 1;
      return false;
    }
    if (at > free) parts.push({ free: body.slice(free, at) });
    let key = attr(t.attrs, "data-block-id") || `block-${seen.size + 1}`;
    while (seen.has(key)) key = `${key}~`;
    seen.add(key);
    const block = readBlock(body.slice(at), key);
    parts.push(block);
    free = at + block.length;
    return free;
  });
  if (free < body.length) parts.push({ free: body.slice(free) });
  return {
    prefix: html.slice(0, start),
    section: { attrs: tag.attrs, open: html.slice(start, tag.end) },
    parts,
    suffix: html.slice(inner),
  };
}

/** A block's HTML. */
export function blockHtml(b) {
  const content = b.content ? `${b.content.open ?? openTag("div", b.content.attrs)}${b.content.html}${b.content.close}` : "";
  return `${b.open ?? openTag("div", b.attrs)}${b.lead}${content}${b.tail}${b.close}`;
}

/** A slide's HTML. */
export function serializeSlide(slide) {
  if (!slide.section) return slide.prefix;
  const body = slide.parts.map((p) => ("free" in p ? p.free : blockHtml(p))).join("");
  return `${slide.prefix}${slide.section.open ?? openTag("section", slide.section.attrs)}${body}${slide.suffix}`;
}

/** A block parsed from `html` (its first element), given the model key `key`. */
export function parseBlock(html, key) {
  const at = html.indexOf("<div");
  if (at < 0) return null;
  const block = readBlock(html.slice(at), key);
  delete block.length;
  return block;
}

/** The slide's blocks, in order. */
export const blocksOf = (slide) => (slide ? slide.parts.filter((p) => !("free" in p)) : []);

/** The block with model key `key`, or null. */
export const blockOf = (slide, key) => blocksOf(slide).find((b) => b.key === key) || null;

/** The slide's HTML apart from its blocks (what the canvas draws behind them). */
export const freeHtml = (slide) => (slide ? slide.parts.filter((p) => "free" in p).map((p) => p.free).join("") : "");

/** Attribute `name` of a block, or null. */
export const blockAttr = (block, name) => attr(block.attrs, name);

/** A block's type ("text" when it names none). */
export const blockType = (block) => blockAttr(block, "data-block-type") || "text";

/** The block's inline style as [property, value] pairs. */
export const styleOf = (block) => parseStyle(blockAttr(block, "style") || "");

/** A property of the block's style, or null. */
export function styleValue(block, property) {
  const found = styleOf(block).find(([p]) => p === property);
  return found ? found[1] : null;
}

/** A length of the block's style in whole pixels (0 when absent). */
export function px(block, property) {
  return Math.round(Number.parseFloat(styleValue(block, property) ?? "0") || 0);
}

/** The block with attribute `name` set (or removed, with null); its tag is written again. */
export function withBlockAttr(block, name, value) {
  if (blockAttr(block, name) === (value ?? null)) return block;
  return { ...block, attrs: withAttr(block.attrs, name, value), open: null };
}

/** The block with each property of `changes` set in its style (null removes it). */
export function withBlockStyle(block, changes) {
  let declarations = styleOf(block);
  for (const [p, v] of Object.entries(changes)) declarations = withDeclaration(declarations, p, v);
  return withBlockAttr(block, "style", styleText(declarations));
}

/** The block with its content's HTML replaced (blocks without content are kept). */
export function withContentHtml(block, html) {
  if (!block.content || block.content.html === html) return block;
  return { ...block, content: { ...block.content, html } };
}

/** The block with each property of `changes` set in its content's style. */
export function withContentStyle(block, changes) {
  if (!block.content) return block;
  let declarations = parseStyle(attr(block.content.attrs, "style") || "");
  for (const [p, v] of Object.entries(changes)) declarations = withDeclaration(declarations, p, v);
  const attrs = withAttr(block.content.attrs, "style", styleText(declarations));
  return { ...block, content: { ...block.content, attrs, open: null } };
}

/** A property of the block content's style, or null. */
export function contentStyle(block, property) {
  if (!block.content) return null;
  const found = parseStyle(attr(block.content.attrs, "style") || "").find(([p]) => p === property);
  return found ? found[1] : null;
}

/** The slide with every block whose key is in `keys` replaced by `change(block)`. */
export function mapBlocks(slide, keys, change) {
  const wanted = new Set(keys);
  let changed = false;
  const parts = slide.parts.map((p) => {
    if ("free" in p || !wanted.has(p.key)) return p;
    const next = change(p);
    if (next !== p) changed = true;
    return next;
  });
  return changed ? { ...slide, parts } : slide;
}

/** An attribute of the slide's <section>, or null. */
export const sectionAttr = (slide, name) => (slide && slide.section ? attr(slide.section.attrs, name) : null);

/** The slide with attribute `name` of its <section> set (or removed, with null). */
export function withSectionAttr(slide, name, value) {
  if (!slide.section || sectionAttr(slide, name) === value) return slide;
  return { ...slide, section: { attrs: withAttr(slide.section.attrs, name, value), open: null } };
}

/** Each slide's HTML in a deck's HTML, by slide id (the sections that carry a data-id). */
export function sectionsById(deckHtml) {
  const out = {};
  walkTags(deckHtml, 0, (t, at) => {
    if (t.closing || t.name !== "section") return false;
    const id = attr(t.attrs, "data-id");
    if (!id) return false;
    const { end } = elementEnd(deckHtml, t);
    out[id] = deckHtml.slice(at, end);
    return end;
  });
  return out;
}
