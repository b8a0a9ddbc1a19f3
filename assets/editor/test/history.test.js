import { test } from "node:test";
import assert from "node:assert/strict";

import { describe } from "../view/history-panel.js";

test("a revision reads as what was done, by whom, through what, when", () => {
  const author = { user_id: 1, username: "alice", via: "web", label: null };
  assert.equal(
    describe({ revision: 12, operation: "update_slide", slide_ids: ["a"], author, created_at: "2026-11-29T12:40:03Z" }),
    "#12 Changed a slide · alice (web) · 2026-11-29 12:40",
  );
  assert.equal(
    describe({ revision: 13, operation: "restore", restored_revision: 9, slide_ids: [], author: { ...author, via: "api_key", label: "CI" }, created_at: "2026-11-29T12:41:00Z" }),
    "#13 Restored #9 · alice (CI) · 2026-11-29 12:41",
  );
  assert.equal(
    describe({ revision: 3, operation: "remove_slides", slide_ids: ["a", "b"], author: { username: null, via: "mcp", label: null }, created_at: "2026-11-29T08:00:00Z" }),
    "#3 Removed slides (2 slides) · a removed account (mcp) · 2026-11-29 08:00",
  );
});
