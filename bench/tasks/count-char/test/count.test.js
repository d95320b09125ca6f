import { test } from "node:test";
import assert from "node:assert/strict";
import { countChar } from "../src/count.js";

test("counts", () => {
  assert.equal(countChar("banana", "a"), 3);
  assert.equal(countChar("banana", "z"), 0);
  assert.equal(countChar("", "a"), 0);
});
