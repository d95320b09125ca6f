// Issue 13: the JSON error locator (used for tools files and call bodies) recursed up to 10,000 levels and
// overflowed the stack on deeply nested text; it must report a position instead of throwing.

import { describe, expect, test } from "vitest";
import { jsonErrorOffset } from "../../src/tools/json-position.js";

describe("jsonErrorOffset on deeply nested text", () => {
  test.each([20_000, 100_000])("%i open brackets give an offset, not a stack overflow", (levels) => {
    const text = "[".repeat(levels);
    const offset = jsonErrorOffset(text);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(text.length);
  });

  test("valid text nested within the limit is still valid", () => {
    expect(jsonErrorOffset(`${"[".repeat(500)}${"]".repeat(500)}`)).toBeUndefined();
  });
});
