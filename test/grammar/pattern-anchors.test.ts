// Anchors inside a group that starts or ends a top-level alternative (src/grammar/regex.ts; issue 49's MaskBench
// coverage: `^$|(^…$)`, `(^a$)|(^b$)`, `^([^,]|$)`): the group's alternatives are lifted to the top, and the
// grammar admits exactly the strings qtc's validator accepts. Anchors anywhere else stay refused.

import { describe, expect, it } from "vitest";
import { parsePattern } from "../../src/grammar/regex.js";
import { admitsExactlyValid } from "./helpers.js";

const STRINGS = ["", "a", "b", "ab", "ba", "abc", "xab", "x", "1.2", "12.34", "1.", ".5", "a b", "a b c", "gs://x", "http://x", "http://xy", "zhttp://x", ",", "a,", ",a", "1", "x1.2"];

const PATTERNS = [
  "^$|(^(?:\\S+\\s+){0,2}\\S+$)",
  "(^[0-9]+\\.[0-9]+$)",
  "^([^,]|$)",
  "(^gs://(.+))|(^http://x)",
  "(^a$)|(^b$)",
  "(^|x)ab",
  "(a|^b)c?$",
  "^x?(1|$)",
];

describe("anchors inside a group at the start or end of a top-level alternative (issue 49)", () => {
  for (const pattern of PATTERNS) {
    it(`${pattern}: the grammar admits exactly the strings the validator accepts`, async () => {
      const schema = { type: "string", pattern };
      await admitsExactlyValid(schema, STRINGS);
    });
  }

  it("refuses anchors that cannot be lifted: in a repeated group, after other items, before other items, nested", () => {
    for (const p of ["(^a)*", "x(^a)", "(a$)b", "((^a))", "^(a|$)b", "(^a|b)x(c|$)"]) expect(parsePattern(p).ok, p).toBe(false);
  });
});
