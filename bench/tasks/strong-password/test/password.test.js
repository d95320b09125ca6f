import { test } from "node:test";
import assert from "node:assert/strict";
import { isStrong } from "../src/password.js";

test("strong passwords", () => {
  assert.equal(isStrong("Secret123"), true);
  assert.equal(isStrong("ABCDEFG1"), true);
});
test("weak passwords", () => {
  assert.equal(isStrong("secret123"), false);
  assert.equal(isStrong("Secret"), false);
  assert.equal(isStrong("SecretPass"), false);
});
