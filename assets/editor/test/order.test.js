import { test } from "node:test";
import assert from "node:assert/strict";
import { reorder, withIds } from "../model/order.js";

/** A list from a picture: "a b/c d" is a, then b and c in a group, then d. */
function list(picture) {
  return picture.split(" ").flatMap((stack, h) => {
    const ids = stack.split("/");
    return ids.map((id, v) => ({ id, position: { horizontal: h, vertical: ids.length > 1 ? v : null } }));
  });
}

/** The list back as a picture. */
function picture(slides) {
  const stacks = [];
  for (const s of slides) (stacks[s.position.horizontal] ||= []).push(s.id);
  return stacks.map((ids) => ids.join("/")).join(" ");
}

const add = (payload) => ({ kind: "add", payload, slide: { id: "n" } });

test("a new slide stands alone after a lone slide, joins a group after a grouped one, ends the deck without a place", () => {
  assert.equal(picture(reorder(list("a b/c d"), add({ insert_after_slide_id: "a" }))), "a n b/c d");
  assert.equal(picture(reorder(list("a b/c d"), add({ insert_after_slide_id: "b" }))), "a b/n/c d");
  assert.equal(picture(reorder(list("a b/c d"), add({ insert_before_slide_id: "a" }))), "n a b/c d");
  assert.equal(picture(reorder(list("a b/c d"), add({}))), "a b/c d n");
});

test("moves keep the order given and join the target's group", () => {
  assert.equal(picture(reorder(list("a b c d"), { kind: "move", payload: { slide_ids: ["d", "a"], insert_after_slide_id: "b" } })), "b d a c");
  assert.equal(picture(reorder(list("a b/c d"), { kind: "move", payload: { slide_ids: ["d"], insert_before_slide_id: "c" } })), "a b/d/c");
  assert.equal(picture(reorder(list("a b/c"), { kind: "move", payload: { slide_ids: ["c"], insert_before_slide_id: "a" } })), "c a b");
});

test("grouping puts a slide below another or after a stack; deleting drops empty stacks", () => {
  assert.equal(picture(reorder(list("a b c"), { kind: "group", payload: { slide_ids: ["c"], below_slide_id: "a" } })), "a/c b");
  assert.equal(picture(reorder(list("a/c b"), { kind: "group", payload: { slide_ids: ["c"], after_stack_of_slide_id: "a" } })), "a c b");
  assert.equal(picture(reorder(list("a b/c d"), { kind: "delete", payload: { slide_ids: ["b", "c"] } })), "a d");
});

test("a change naming a slide the list lacks, or deleting every slide, is no guess", () => {
  assert.equal(reorder(list("a b"), { kind: "move", payload: { slide_ids: ["x"], insert_after_slide_id: "a" } }), null);
  assert.equal(reorder(list("a b"), add({ insert_after_slide_id: "x" })), null);
  assert.equal(reorder(list("a b"), { kind: "delete", payload: { slide_ids: ["a", "b"] } }), null);
});

test("local ids are replaced by the server's in every field", () => {
  const ids = new Map([["new-1", "s9"]]);
  assert.deepEqual(withIds({ slide_ids: ["new-1", "s2"], insert_after_slide_id: "new-1", html: "new-1x" }, ids), {
    slide_ids: ["s9", "s2"],
    insert_after_slide_id: "s9",
    html: "new-1x",
  });
});
