import { test } from "node:test";
import assert from "node:assert/strict";
import { countdown } from "../src/countdown.js";

test("counts down to one", () => {
  assert.deepEqual(countdown(3), [3, 2, 1]);
  assert.deepEqual(countdown(1), [1]);
});
test("zero gives nothing", () => {
  assert.deepEqual(countdown(0), []);
});
