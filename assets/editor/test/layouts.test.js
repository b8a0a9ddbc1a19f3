import { test } from "node:test";
import assert from "node:assert/strict";

import { LAYOUTS, layoutHtml } from "../actions/layouts.js";
import { blockType, blocksOf, parseSlide, px } from "../model/slide.js";

test("every layout is blocks inside the deck's canvas, each with an id of its own", () => {
  const deck = { width: 1280, height: 720 };
  const types = {
    "title-body": ["text", "text"],
    title: ["text", "text"],
    "two-columns": ["text", "text", "text"],
    section: ["text"],
    "image-caption": ["image", "text"],
    blank: [],
  };
  assert.deepEqual(Object.keys(LAYOUTS).sort(), Object.keys(types).sort());
  for (const [name, want] of Object.entries(types)) {
    const blocks = blocksOf(parseSlide(layoutHtml(name, deck)));
    assert.deepEqual(blocks.map(blockType), want, name);
    assert.equal(new Set(blocks.map((b) => b.key)).size, blocks.length, `${name}: one id each`);
    for (const b of blocks) {
      assert.ok(px(b, "left") >= 0 && px(b, "left") + px(b, "width") <= deck.width, `${name}: across`);
      assert.ok(px(b, "top") >= 0 && px(b, "top") + px(b, "height") <= deck.height, `${name}: down`);
    }
  }
});

test("an unknown layout is the default one, on a 960 x 700 canvas without a deck", () => {
  const blocks = blocksOf(parseSlide(layoutHtml("no such layout", null)));
  assert.deepEqual(blocks.map(blockType), ["text", "text"]);
  assert.equal(px(blocks[1], "width"), Math.round(0.88 * 960));
});
