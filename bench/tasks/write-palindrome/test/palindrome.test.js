import { test } from "node:test";
import assert from "node:assert/strict";
import { isPalindrome } from "../src/palindrome.js";

test("palindromes", () => {
  assert.equal(isPalindrome("A man, a plan, a canal: Panama"), true);
  assert.equal(isPalindrome("racecar"), true);
  assert.equal(isPalindrome(""), true);
});
test("not palindromes", () => {
  assert.equal(isPalindrome("hello"), false);
  assert.equal(isPalindrome("ab1"), false);
});
