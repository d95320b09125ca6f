import { describe, expect, it } from "vitest";
import { duplicateKeyMessage, findDuplicateKey } from "../../src/parse/duplicate-keys.js";

describe("findDuplicateKey", () => {
  it("finds the first key written twice in one object and says where that object sits", () => {
    expect(findDuplicateKey('{"a": 1, "a": 2}')).toEqual({ key: "a", at: "" });
    expect(findDuplicateKey('{"x": [1, {"b": 0}, {"c": {"k": 1, "k": 2}}]}')).toEqual({ key: "k", at: "x[2].c" });
    expect(findDuplicateKey('{"a": 1, "\\u0061": 2}')).toEqual({ key: "a", at: "" });
    expect(findDuplicateKey("{'a': 1, 'a': 2}")).toEqual({ key: "a", at: "" });
  });

  it("answers undefined for distinct keys, equal keys in sibling objects, and keys inside strings", () => {
    expect(findDuplicateKey('{"a": 1, "b": {"a": 2}}')).toBeUndefined();
    expect(findDuplicateKey('[{"a": 1}, {"a": 1}]')).toBeUndefined();
    expect(findDuplicateKey('{"a": "{\\"a\\": 1}", "b": "a"}')).toBeUndefined();
    expect(findDuplicateKey('{"a": "it\'s", "b": 1}')).toBeUndefined();
    expect(findDuplicateKey('{"a": 1, "a')).toBeUndefined();
  });

  it("writes a message that names the key", () => {
    expect(duplicateKeyMessage("f", { key: "a", at: "arguments" })).toContain('"a" twice in arguments');
  });
});
