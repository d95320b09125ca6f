import { test } from "node:test";
import assert from "node:assert/strict";
import { titleCase } from "../src/title.js";

test("every word", () => {
  assert.equal(titleCase("the old man and the sea"), "The Old Man And The Sea");
  assert.equal(titleCase("HELLO world"), "Hello World");
  assert.equal(titleCase("a"), "A");
});
