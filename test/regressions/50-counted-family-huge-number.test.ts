// Issue 50, session 32: a rule named with a huge number (an integer bounded by 9007199254740991, as a real client's
// tool list bounds one) made the counted-family search size an array by that number, and `qtc serve` answered 500.
// The search now skips numbers past the count of rules; the grammar still masks, and a long string's deep
// positions still share a mask.

import { expect, test } from "vitest";
import { countedFamilies } from "../../src/engine/count-shift.js";
import { compileGbnf } from "../../src/engine/gbnf-program.js";

/** `count` members of `name<n> ::= "x" name<n-1> | ""`, as GBNF lines. */
const chain = (name: string, count: number) => Array.from({ length: count + 1 }, (_, n) => `${name}${n} ::= ${n === 0 ? '""' : `"x" ${name}${n - 1} | ""`}`);

test("a rule numbered 9007199254740991 beside a long counted family: no throw, the family still found", () => {
  const integers = ["integer-min-0-max-9007199254740991 ::= [0-9]", "integer-min-0-max-10 ::= [0-9] | \"10\""];
  const gbnf = ["root ::= item300 | integer-min-0-max-9007199254740991 | integer-min-0-max-10", ...integers, ...chain("item", 300)].join("\n");
  const program = compileGbnf(gbnf);
  const families = countedFamilies(program, 4);
  expect(families?.countOf(program.ruleNames.indexOf("item300"))).toBe(300);
  expect(families?.countOf(program.ruleNames.indexOf("integer-min-0-max-9007199254740991"))).toBe(-1);
});
