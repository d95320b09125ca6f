const { test } = require("node:test");
const assert = require("node:assert/strict");
const { isEligible } = require("../src/eligibility.js");

test("an adult registered citizen may vote", () => {
  assert.equal(isEligible({ age: 30, citizen: true, registered: true }), true);
  assert.equal(isEligible({ age: 18, citizen: true, registered: true }), true);
});
test("minors may not vote", () => {
  assert.equal(isEligible({ age: 17, citizen: true, registered: true }), false);
});
test("non-citizens and unregistered adults may not vote", () => {
  assert.equal(isEligible({ age: 40, citizen: false, registered: true }), false);
  assert.equal(isEligible({ age: 40, citizen: true, registered: false }), false);
});
