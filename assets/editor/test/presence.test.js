import { test } from "node:test";
import assert from "node:assert/strict";
import { initials, presenceApplied } from "../sync/presence.js";

test("others come, move, edit and leave; this window's own news is not another person", () => {
  let others = new Map();
  const mine = presenceApplied(others, { client: "me", username: "alice", slide_id: "s1", editing: false, left: false }, "me");
  assert.equal(mine, others);
  others = presenceApplied(others, { client: "t2", username: "alice", slide_id: "s1", editing: false, left: false }, "me");
  others = presenceApplied(others, { client: "t3", username: "bob", slide_id: "s2", editing: true, left: false }, "me");
  assert.deepEqual([...others.keys()], ["t2", "t3"]);
  others = presenceApplied(others, { client: "t2", username: "alice", slide_id: "s3", editing: true, left: false }, "me");
  assert.deepEqual(others.get("t2"), { username: "alice", slide_id: "s3", editing: true });
  others = presenceApplied(others, { client: "t3", username: "bob", slide_id: null, editing: false, left: true }, "me");
  assert.deepEqual([...others.keys()], ["t2"]);
});

test("badges show one or two initials", () => {
  assert.equal(initials("alice"), "A");
  assert.equal(initials("Ann Lee"), "AL");
  assert.equal(initials("j.doe"), "JD");
  assert.equal(initials(""), "?");
});
