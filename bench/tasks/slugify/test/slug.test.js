const { test } = require("node:test");
const assert = require("node:assert/strict");
const { slugify } = require("../src/slug.js");

test("slugs", () => {
  assert.equal(slugify("Hello, World!"), "hello-world");
  assert.equal(slugify("  Many   spaces here "), "many-spaces-here");
  assert.equal(slugify("Node 20 & ESM"), "node-20-esm");
});
