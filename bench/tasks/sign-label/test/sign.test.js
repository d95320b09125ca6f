import { test } from "node:test";
import assert from "node:assert/strict";
import { describe as label } from "../src/sign.js";

test("signs", () => {
  assert.equal(label(3), "positive");
  assert.equal(label(-2), "negative");
  assert.equal(label(0), "zero");
});
