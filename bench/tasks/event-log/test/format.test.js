import { test } from "node:test";
import assert from "node:assert/strict";
import { formatEvent } from "../src/format.js";

test("zero padded date and time", () => {
  const at = { year: 2024, month: 3, day: 7, hour: 9, minute: 5 };
  assert.equal(formatEvent({ at, name: "deploy" }), "2024-03-07 09:05 deploy");
});
test("two-digit fields unchanged", () => {
  const at = { year: 2023, month: 12, day: 31, hour: 23, minute: 59 };
  assert.equal(formatEvent({ at, name: "freeze" }), "2023-12-31 23:59 freeze");
});
