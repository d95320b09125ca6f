import { test } from "node:test";
import assert from "node:assert/strict";
import { toCsvRow } from "../src/csv.js";

test("plain fields", () => {
  assert.equal(toCsvRow(["a", 1, true]), "a,1,true");
});
test("quoted fields", () => {
  assert.equal(toCsvRow(["x,y", "z"]), '"x,y",z');
  assert.equal(toCsvRow(['say "hi"']), '"say ""hi"""');
  assert.equal(toCsvRow(["two\nlines"]), '"two\nlines"');
});
