import { test } from "node:test";
import assert from "node:assert/strict";

import { trimCode } from "../code.js";

test("data-trim drops blank edge lines and the shared indentation only", () => {
  assert.equal(trimCode("\n    def f(x):\n        return x\n  \n"), "def f(x):\n    return x");
  assert.equal(trimCode("a\n  b"), "a\n  b");
  assert.equal(trimCode("\n\n"), "");
  assert.equal(trimCode("  one\n\n  two"), "one\n\ntwo");
});
