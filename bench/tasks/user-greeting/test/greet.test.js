import { test } from "node:test";
import assert from "node:assert/strict";
import { greet } from "../src/greet.js";

test("greeting", () => {
  assert.equal(greet({ first: "Ada", last: "Lovelace" }), "Hello, Ada Lovelace!");
  assert.equal(greet({ first: "Alan", last: "Turing" }), "Hello, Alan Turing!");
});
