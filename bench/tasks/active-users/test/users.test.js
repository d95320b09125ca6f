const { test } = require("node:test");
const assert = require("node:assert/strict");
const { activeUsers } = require("../src/users.js");

test("only verified, enabled users", () => {
  const users = [
    { name: "ann", verified: true, disabled: false },
    { name: "bob", verified: false, disabled: false },
    { name: "cid", verified: true, disabled: true },
    { name: "dee", verified: true, disabled: false },
  ];
  assert.deepEqual(activeUsers(users), ["ann", "dee"]);
});
