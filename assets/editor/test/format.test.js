import { test } from "node:test";
import assert from "node:assert/strict";

import { deckLoaded, openSlide } from "../actions/slides.js";
import { setTextColour, setTextFont, setTextSize, textSize } from "../actions/format.js";
import { blockOf, contentStyle } from "../model/slide.js";
import { emptyState } from "../model/state.js";
import { BLOCKS, stateWith } from "./fixtures.js";

const open = (html) => stateWith(html, emptyState, openSlide, deckLoaded);
const block = (state, key) => blockOf(state.slide.model, key);

test("a size is the size a person reads: a heading's own", () => {
  const state = open(BLOCKS);
  // t1 holds an h2 (1.6 em) at 48 px: it reads as 77 px.
  assert.equal(textSize(block(state, "t1")), 77);
  const h2 = setTextSize(state, "t1", 64).after;
  assert.equal(contentStyle(block(h2, "t1"), "font-size"), "40px");
  assert.equal(textSize(block(h2, "t1")), 64);
  const p = setTextSize(state, "t2", 64).after;
  assert.equal(contentStyle(block(p, "t2"), "font-size"), "64px");
  assert.equal(textSize(block(state, "t2")), null, "a block without a size");
  assert.equal(setTextSize(state, "nope", 10), null);
});

test("a text colour reaches the headings in the block", () => {
  const state = open(BLOCKS);
  const after = setTextColour(state, "t1", "#ff0000").after;
  assert.equal(contentStyle(block(after, "t1"), "color"), "rgb(255, 0, 0)");
  assert.equal(contentStyle(block(after, "t1"), "--lectern-heading"), "rgb(255, 0, 0)");
});

test("an image's alt text is read and written on its picture", async () => {
  const { altText, setAltText } = await import("../actions/format.js");
  const state = open(BLOCKS);
  assert.equal(altText(block(state, "i1")), "Logo");
  assert.equal(altText(block(state, "t1")), null, "a text block has none");
  const after = setAltText(state, "i1", ' A "quoted" logo ').after;
  assert.equal(altText(block(after, "i1")), 'A "quoted" logo');
  assert.ok(after.slide.html.includes('alt="A &quot;quoted&quot; logo"'), after.slide.html);
  assert.ok(after.slide.html.includes('src="https://images.example.org/logo.png"'));
});

test("a dropped image lands centred where it was dropped, kept on the canvas", async () => {
  const { addImage } = await import("../actions/create.js");
  const { px } = await import("../model/slide.js");
  const state = open(BLOCKS);
  const at = addImage(state, "/media/a.png", "img", { x: 300, y: 400 }).after;
  const placed = block(at, "img");
  assert.deepEqual([px(placed, "left"), px(placed, "top")], [60, 240]);
  const corner = block(addImage(state, "/media/a.png", "img", { x: 950, y: 690 }).after, "img");
  assert.deepEqual([px(corner, "left"), px(corner, "top")], [480, 380], "960 - 480, 700 - 320");
  const centred = block(addImage(state, "/media/a.png", "img").after, "img");
  assert.deepEqual([px(centred, "left"), px(centred, "top")], [240, 190]);
});

test("a font applies to the block's text and its headings; none gives the theme's back", () => {
  const state = open(BLOCKS);
  const set = setTextFont(state, "t1", "Merriweather, serif").after;
  assert.equal(contentStyle(block(set, "t1"), "font-family"), "Merriweather, serif");
  assert.equal(contentStyle(block(set, "t1"), "--lectern-heading-font"), "Merriweather, serif");
  assert.equal(contentStyle(block(set, "t1"), "font-size"), "48px", "its other styles stay");
  const back = setTextFont(set, "t1", "").after;
  assert.equal(contentStyle(block(back, "t1"), "font-family"), null);
});
