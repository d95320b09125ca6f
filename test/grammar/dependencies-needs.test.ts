// More than 4 dependencies that are lists of names, split on the names they need (src/grammar/dependencies.ts;
// issue 49's MaskBench coverage: an address's 5 dependencies on 3 names, a shape's 6 on 3): the grammar admits
// exactly the objects ajv calls valid, over every object of the listed members.

import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { canonicalJson } from "../../src/grammar/canonical-json.js";
import { judgeTextWithGbnf } from "../../src/engine/text-judge.js";
import type { JsonSchema } from "../../src/tools/types.js";

/** Every object over these member names (each present or not, in the listed order), values 1. */
function objects(names: readonly string[]): Record<string, number>[] {
  const out: Record<string, number>[] = [];
  for (let mask = 0; mask < 1 << names.length; mask++) out.push(Object.fromEntries(names.filter((_, i) => mask & (1 << i)).map((n) => [n, 1])));
  return out;
}

const props = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, { type: "integer" }]));

const CASES: [string, string[], JsonSchema][] = [
  ["a chain (an address)", ["box", "ext", "street", "city", "region", "country"], { dependencies: { box: ["street"], ext: ["street"], street: ["region"], city: ["region"], region: ["country"] } }],
  ["six triggers on three names (a shape)", ["base", "height", "length", "radius", "width", "tri", "rect", "circ"], { dependencies: { base: ["tri"], height: ["tri", "rect"], length: ["rect"], radius: ["circ"], width: ["rect"], tri: [] } }],
  ["five triggers on one name, one of them required", ["a", "b", "c", "d", "e", "type"], { required: ["a"], dependencies: { a: ["type"], b: ["type"], c: ["type"], d: ["type"], e: ["type"] } }],
];

describe("more than 4 dependencies on at most 4 names (issue 49)", () => {
  for (const [what, names, extra] of CASES) {
    it(`${what}: the grammar admits exactly the valid objects`, () => {
      const schema: JsonSchema = { type: "object", properties: props(names), additionalProperties: false, ...extra };
      const r = compileSchema(schema, { maxTokens: 512, unsupported: "strict" });
      if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
      const valid = new Ajv({ strict: false }).compile(schema);
      let admitted = 0;
      for (const o of objects(names)) {
        const admits = judgeTextWithGbnf(r.value.gbnf, canonicalJson(o)) === "accepted";
        if (admits) admitted++;
        expect(admits, canonicalJson(o)).toBe(valid(o));
      }
      expect(admitted).toBeGreaterThan(1);
    });
  }
});
