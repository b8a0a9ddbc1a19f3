import { test } from "node:test";
import assert from "node:assert/strict";

import {
  deleteBlocks, duplicateBlock, moveBlocks, resizeBlock, restackBlock, rotateBlock, selectBlocks, toggleBlock,
} from "../actions/blocks.js";
import { addCode, addImage, addLine, addShape, addText, pasteBlock } from "../actions/create.js";
import {
  cssColour, setBackground, setBlockContent, setCodeText, setFill, setFragment, setLanguage, setStroke, styleContent,
} from "../actions/format.js";
import {
  addSlide, changeSetting, deckLoaded, deleteSlide, dropSlide, duplicateSlide, editNotes, editTitle, groupBelow, groupOut,
  label, moveSlide, openSlide, revisionSeen, slideSaved, slidesLoaded, titleSaved,
} from "../actions/slides.js";
import { blockOf, blocksOf, px, styleValue } from "../model/slide.js";
import { emptyState, slideDirty, titleDirty } from "../model/state.js";
import { BLOCKS, MIXED, stateWith } from "./fixtures.js";

const open = (html) => stateWith(html, emptyState, openSlide, deckLoaded);
const block = (state, key) => blockOf(state.slide.model, key);

test("moveBlocks moves every block given by the same whole-pixel distance", () => {
  const state = open(BLOCKS);
  const tr = moveBlocks(state, ["t1", "i1"], 10.4, -5);
  assert.equal(tr.name, "moveBlocks");
  assert.deepEqual(tr.changed, ["slide"]);
  const after = tr.after;
  assert.deepEqual([px(block(after, "t1"), "left"), px(block(after, "t1"), "top")], [90, 55]);
  assert.deepEqual([px(block(after, "i1"), "left"), px(block(after, "i1"), "top")], [910, 55]);
  assert.equal(block(after, "t2"), block(state, "t2"));
  assert.ok(after.slide.html.includes('style="left: 90px; top: 55px; width: 600px; height: 120px; z-index: 1;"'));
  assert.ok(slideDirty(after) && !slideDirty(state));
  assert.equal(moveBlocks(state, ["t1"], 0.2, 0), null, "less than a pixel is no move");
});

test("resizeBlock keeps at least 8 px; rotateBlock writes or removes a transform", () => {
  const state = open(BLOCKS);
  const small = resizeBlock(state, "t1", 3, 50.6).after;
  assert.deepEqual([px(block(small, "t1"), "width"), px(block(small, "t1"), "height")], [8, 51]);
  assert.equal(resizeBlock(state, "t1", 600, 120), null);
  const turned = rotateBlock(state, "t1", 450).after;
  assert.equal(styleValue(block(turned, "t1"), "transform"), "rotate(90deg)");
  assert.equal(styleValue(block(rotateBlock(turned, "t1", 360).after, "t1"), "transform"), null);
});

test("selection: select, toggle, and a deleted block leaves it", () => {
  let state = open(BLOCKS);
  state = selectBlocks(state, ["t1", "nope", "t2"]).after;
  assert.deepEqual([state.selection, state.lead], [["t1", "t2"], "t2"]);
  state = toggleBlock(state, "t2").after;
  assert.deepEqual([state.selection, state.lead], [["t1"], "t1"]);
  state = toggleBlock(state, "i1").after;
  assert.deepEqual([state.selection, state.lead], [["t1", "i1"], "i1"]);
  state = deleteBlocks(state, state.selection).after;
  assert.deepEqual(blocksOf(state.slide.model).map((b) => b.key), ["t2"]);
  assert.deepEqual([state.selection, state.lead], [[], null]);
});

test("added blocks are centred, on top, selected, in block markup", () => {
  const state = open(BLOCKS);
  const text = addText(state, "n1").after;
  const b = block(text, "n1");
  assert.deepEqual([px(b, "left"), px(b, "top"), styleValue(b, "z-index")], [180, 290, "3"]);
  assert.deepEqual([text.selection, text.lead], [["n1"], "n1"]);
  assert.ok(text.slide.html.includes('<div class="sl-block" data-block-type="text" data-block-id="n1" style="left: 180px; top: 290px; width: 600px; height: 120px; z-index: 3;"><div class="sl-block-content"><p>Text</p></div></div></section>'));
  const tri = addShape(state, "triangle", "#2a76dd", "s").after.slide.html;
  assert.ok(tri.includes('style="width: 100%; height: 100%; background-color: #2a76dd; clip-path: polygon(50% 0%, 100% 100%, 0% 100%);" data-shape-type="triangle"'));
  assert.ok(addLine(state, true, "#000", "l").after.slide.html.includes("<polygon"));
  assert.ok(addCode(state, "rust", "c").after.slide.html.includes('<code class="language-rust" data-language="rust">'));
  assert.ok(addImage(state, 'https://x/a"b.png', "i").after.slide.html.includes('src="https://x/a&quot;b.png"'));
  assert.equal(addText(emptyState(), "x"), null);
});

test("duplicate, paste and restack", () => {
  const state = open(BLOCKS);
  const dup = duplicateBlock(state, "t1", "d1").after;
  const copy = block(dup, "d1");
  assert.deepEqual([px(copy, "left"), px(copy, "top"), styleValue(copy, "z-index")], [100, 80, "3"]);
  assert.ok(dup.slide.html.includes('data-block-id="d1"'));
  const pasted = pasteBlock(state, '<div class="sl-block" data-block-id="t1" style="left:1px"><div class="sl-block-content">x</div></div>', "p1").after;
  assert.ok(pasted.slide.html.includes('data-block-id="p1"') && block(pasted, "p1"));
  assert.equal(pasteBlock(state, "<p>not a block</p>", "p2"), null);
  const up = restackBlock(state, "t1", 1).after;
  // i1 has no z-index: it is lowest, then t1 (1), then t2 (2); t1 goes above t2.
  assert.deepEqual(["t1", "t2", "i1"].map((k) => styleValue(block(up, k), "z-index")), ["3", "2", "1"]);
  assert.equal(restackBlock(up, "t1", 1), null, "the top block goes no higher");
  assert.equal(restackBlock(state, "i1", -1), null, "the lowest no lower");
});

test("formatting: content style, shapes, fragments, code and background", () => {
  const state = open(BLOCKS);
  const styled = styleContent(state, "t1", "color", "#222222").after;
  assert.ok(styled.slide.html.includes('style="font-size: 48px; color: rgb(34, 34, 34);"'));
  const shape = addShape(state, "rect", "#2a76dd", "s").after;
  assert.equal(setStroke(state, ["t1"], "#222222", 3), null, "only shapes get a stroke");
  const stroked = setStroke(shape, ["s"], "#222222", 3).after;
  assert.ok(stroked.slide.html.includes("border: 3px solid rgb(34, 34, 34);"));
  assert.ok(!setStroke(stroked, ["s"], "#222222", 0).after.slide.html.includes("border:"));
  assert.ok(setFill(shape, ["s"], "#ff0000").after.slide.html.includes("background-color: rgb(255, 0, 0)"));
  const fragment = setFragment(state, "t1", 0).after;
  assert.ok(fragment.slide.html.includes('<div class="sl-block fragment" data-block-type="text" data-block-id="t1"'));
  assert.ok(fragment.slide.html.includes('data-fragment-index="0">'));
  assert.equal(setFragment(fragment, "t1", null).after.slide.html, state.slide.html.replace('style="left:80px;top:60px;width:600px;height:120px;z-index:1"', 'style="left:80px;top:60px;width:600px;height:120px;z-index:1"'));
  assert.equal(cssColour("#0a0B0c"), "rgb(10, 11, 12)");
  assert.equal(cssColour("red"), "red");
  const content = setBlockContent(state, "t1", "<h2>New</h2>").after.slide.html;
  assert.ok(content.includes('<div class="sl-block-content" style="font-size:48px;color:#222"><h2>New</h2></div>'));
  const bg = setBackground(state, "#000000").after;
  assert.ok(bg.slide.html.startsWith('<section data-id="s1" data-background-color="#000000">'));
});

test("a code block's language and text change inside its <code> element", () => {
  const state = open(MIXED);
  const python = setLanguage(state, "c1", "python").after.slide.html;
  assert.ok(python.includes('<pre><code class="language-python" data-language="python">fn main() {}</code></pre>'));
  const typed = setCodeText(state, "c1", "let x = 1;").after.slide.html;
  assert.ok(typed.includes('data-language="rust">let x = 1;</code></pre>'));
  assert.equal(setLanguage(state, "h1", "python"), null);
});

test("notes, title and saves: what differs from the last save is dirty", () => {
  let state = open(BLOCKS);
  state = editNotes(state, "Say hello").after;
  assert.ok(slideDirty(state));
  state = slideSaved(state, { id: "s1", html: state.slide.html, notes: "Say hello" }).after;
  assert.ok(!slideDirty(state));
  state = editTitle(state, "New title").after;
  assert.ok(titleDirty(state));
  // The deck read again while typing keeps the typed title.
  state = deckLoaded(state, { ...state.deck, title: "Deck", revision: 4 }).after;
  assert.equal(state.deck.title, "New title");
  state = titleSaved(state, "New title").after;
  assert.ok(!titleDirty(state));
  assert.equal(revisionSeen(state, 2), null);
  assert.equal(revisionSeen(state, 9).after.deck.revision, 9);
});

test("reopening the same slide keeps the block selection that still exists", () => {
  let state = selectBlocks(open(BLOCKS), ["t1", "t2"]).after;
  state = openSlide(state, "s1", BLOCKS.replace(/<div class="sl-block" data-block-type="text" data-block-id="t2".*?<\/div><\/div>/, ""), "").after;
  assert.deepEqual([state.selection, state.lead], [["t1"], null]);
  state = openSlide(state, "s2", BLOCKS, "").after;
  assert.deepEqual(state.selection, []);
});

test("slide requests name the operation, its body and the slide selected after", () => {
  let state = open(BLOCKS);
  const slides = [
    { id: "s0", position: { horizontal: 0, vertical: null }, title: "Zero" },
    { id: "s1", position: { horizontal: 1, vertical: 0 }, title: "One" },
    { id: "s2", position: { horizontal: 1, vertical: 1 }, title: "" },
  ];
  state = slidesLoaded(state, slides).after;
  assert.equal(addSlide(state).payload.insert_after_slide_id, "s2");
  assert.match(addSlide(state).payload.html, /^<section><div class="sl-block" data-block-type="text"[^>]*><div class="sl-block-content"><h2>Title<\/h2>/);
  assert.equal(addSlide(state).select({ data: { id: "n" } }), "n");
  const dup = duplicateSlide(state);
  assert.ok(dup.payload.html.startsWith("<section><div") && dup.payload.insert_after_slide_id === "s1");
  assert.deepEqual(moveSlide(state, -1).payload, { slide_ids: ["s1"], insert_before_slide_id: "s0" });
  assert.equal(moveSlide(state, -1).path, "/v1/decks/7/slides/move");
  assert.deepEqual(groupBelow(state).payload, { slide_ids: ["s1"], below_slide_id: "s0" });
  assert.deepEqual(groupOut(state).payload, { slide_ids: ["s1"], after_stack_of_slide_id: "s2" });
  assert.equal(deleteSlide(state).select(), "s2");
  assert.equal(dropSlide(state, "s0", "s2", "below").path, "/v1/decks/7/slides/group");
  assert.deepEqual(dropSlide(state, "s0", "s2", "before").payload, { slide_ids: ["s0"], insert_before_slide_id: "s2" });
  assert.deepEqual(changeSetting(state, "width", "1280").payload, { width: 1280 });
  assert.deepEqual([label(slides[1]), label(slides[2]), label(slides[0])], ["2.1 One", "2.2 Untitled slide", "1 Zero"]);
  state = slidesLoaded(state, [slides[0], { ...slides[1], position: { horizontal: 1, vertical: null } }]).after;
  assert.equal(groupOut(state).error, "This slide is not in a vertical group");
});
