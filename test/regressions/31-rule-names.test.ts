// Issue 31: JsonSchemaStore's meta.schema.json (MaskBench) compiled into 58,400 rules in 81-92 s, 50 s of it in
// RuleSet.freshName, which scanned every numeric suffix from 2 for each new rule of a hint used before. It now
// remembers the next suffix per name. What this guards is that the names stay what they were: the first free
// suffix, also around names taken by addNamed or by another hint (the speed-up itself is not asserted: tests
// never time).

import { describe, expect, it } from "vitest";
import { RuleSet } from "../../src/grammar/gbnf.js";

describe("RuleSet names (issue 31, meta.schema.json)", () => {
  it("a reused hint gets the first free numeric suffix, skipping names taken in other ways", () => {
    const r = new RuleSet();
    expect(r.add("item", '"a"')).toBe("item");
    expect(r.add("item", '"b"')).toBe("item-2");
    r.addNamed("item-3", '"c"');
    expect(r.add("item-4", '"d"')).toBe("item-4");
    expect(r.add("item", '"e"')).toBe("item-5");
    expect(r.add("item", '"a"')).toBe("item");
    expect(r.reserve("item")).toBe("item-6");
    expect(r.add("root", '"f"')).toBe("root-2");
    expect(r.add("root", '"g"')).toBe("root-3");
  });

  it("thousands of rules of one hint are named item, item-2, … item-N in order", () => {
    const r = new RuleSet();
    const names = Array.from({ length: 5000 }, (_, i) => r.add("item", `"${i}"`));
    expect(names[0]).toBe("item");
    expect(names.slice(1)).toEqual(Array.from({ length: 4999 }, (_, i) => `item-${i + 2}`));
  });
});
