import { test } from "node:test";
import assert from "node:assert/strict";

import { parseStyle, readTag, styleText } from "../model/markup.js";
import {
  blockOf, blocksOf, blockType, freeHtml, parseBlock, parseSlide, px, serializeSlide, withBlockStyle, withContentHtml,
  withSectionAttr, mapBlocks,
} from "../model/slide.js";
import { createStore, emptyState, transaction } from "../model/state.js";
import { BLOCKS, FREE, INERT, MIXED } from "./fixtures.js";

test("every fixture serialises byte for byte as it was read", () => {
  for (const html of [BLOCKS, FREE, MIXED, INERT, "<section></section>", "", "no section at all"]) {
    assert.equal(serializeSlide(parseSlide(html)), html);
  }
});

test("the blocks of a slide are found at the section's top level only", () => {
  assert.deepEqual(blocksOf(parseSlide(BLOCKS)).map((b) => b.key), ["t1", "t2", "i1"]);
  const mixed = parseSlide(MIXED);
  assert.deepEqual(blocksOf(mixed).map((b) => [b.key, blockType(b)]), [["h1", "html"], ["c1", "code"]]);
  assert.ok(freeHtml(mixed).includes("not a block"));
  assert.ok(freeHtml(mixed).includes("in a comment"));
  assert.equal(blocksOf(parseSlide(FREE)).length, 0);
});

test("a block's content is read with its nested divs and raw text", () => {
  const h1 = blockOf(parseSlide(MIXED), "h1");
  assert.equal(h1.content.html, "<div><div>deep</div></div><script>if (a <div) {}</script>");
});

test("blocks without an id get keys of their own, never the same twice", () => {
  const html = '<section><div class="sl-block" style="left:1px"></div><div class="sl-block" data-block-id="x"></div><div class="sl-block" data-block-id="x"></div></section>';
  assert.deepEqual(blocksOf(parseSlide(html)).map((b) => b.key), ["block-1", "x", "x~"]);
});

test("changing one block rewrites its tag only; the other blocks keep their text", () => {
  const slide = parseSlide(BLOCKS);
  const moved = mapBlocks(slide, ["t1"], (b) => withBlockStyle(b, { left: "120px" }));
  const html = serializeSlide(moved);
  assert.ok(html.includes('style="left: 120px; top: 60px; width: 600px; height: 120px; z-index: 1;"'));
  assert.ok(html.includes('<div class="sl-block-content" style="font-size:48px;color:#222"><h2>Old heading</h2>'));
  const rest = (h) => h.slice(h.indexOf('data-block-id="t2"'));
  assert.equal(rest(html), rest(BLOCKS));
  assert.equal(blockOf(moved, "t2"), blockOf(slide, "t2"), "untouched blocks are the same objects");
});

test("a block's content can be replaced and its section tag rewritten", () => {
  const slide = mapBlocks(parseSlide(BLOCKS), ["t1"], (b) => withContentHtml(b, "<h2>New</h2>"));
  assert.ok(serializeSlide(slide).includes('style="font-size:48px;color:#222"><h2>New</h2></div></div>'));
  const bare = withSectionAttr(slide, "data-id", null);
  assert.ok(serializeSlide(bare).startsWith("<section><div"));
  assert.equal(withSectionAttr(slide, "data-id", "s1"), slide);
});

test("pixels are read from a block's style, whole, 0 when absent", () => {
  const block = parseBlock('<div class="sl-block" style="left: 10.6px; top:-3px"></div>', "k");
  assert.deepEqual([px(block, "left"), px(block, "top"), px(block, "width")], [11, -3, 0]);
});

test("attributes are decoded, and styles split outside brackets and quotes", () => {
  const tag = readTag('<h2 title="a &amp; b" data-x=\'1\' hidden>', 0);
  assert.deepEqual(tag.attrs, [["title", "a & b"], ["data-x", "1"], ["hidden", ""]]);
  const style = parseStyle('clip-path: polygon(50% 0%, 100% 100%); background: url("a;b.png");color:red');
  assert.deepEqual(style, [["clip-path", "polygon(50% 0%, 100% 100%)"], ["background", 'url("a;b.png")'], ["color", "red"]]);
  assert.equal(styleText(style), 'clip-path: polygon(50% 0%, 100% 100%); background: url("a;b.png"); color: red;');
});

test("a store applies transactions made from its state and refuses stale ones", () => {
  const store = createStore();
  const seen = [];
  store.subscribe((_, tr) => seen.push(tr.name));
  const first = transaction(store.state, "a", { slides: [1] });
  const stale = transaction(store.state, "b", { slides: [2] });
  assert.equal(store.dispatch(first), true);
  assert.equal(store.dispatch(stale), false);
  assert.deepEqual(store.state.slides, [1]);
  assert.deepEqual(seen, ["a"]);
  assert.equal(transaction(store.state, "same", { slides: store.state.slides }), null);
  assert.deepEqual(Object.keys(emptyState()).sort(), ["deck", "lead", "saved", "savedTitle", "selection", "slide", "slides", "thumbs"]);
});
