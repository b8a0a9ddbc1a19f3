import { test } from "node:test";
import assert from "node:assert/strict";

import { fileName } from "../view/export-panel.js";

test("a download is named after the deck's slug", () => {
  assert.equal(fileName({ url: "https://x.example/alice/board-review" }, "pdf"), "board-review.pdf");
  assert.equal(fileName({ url: "https://x.example/alice/board-review/" }, "zip"), "board-review.zip");
  assert.equal(fileName(null, "pptx"), "deck.pptx");
});
