// The seeded run of fuzz:schemas in the suite: mutants of the grammar corpus (keywords the compiler holds, relaxes,
// ignores or refuses, `$ref`s back to the root, dangling refs, ambiguous patterns) compile to a grammar or to an
// error with a stable code, under both policies, as a value and as a tool. `npm run fuzz:schemas` runs longer.

import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileAllWays, fuzzSchemas } from "../../bench/lib/schema-fuzz.js";

const CORPUS = new URL("../grammar/corpus/", import.meta.url).pathname;
const seeds = readdirSync(CORPUS).filter((f) => f.endsWith(".json")).map((f) => JSON.parse(readFileSync(CORPUS + f, "utf8")).tool.parameters as unknown);

describe("schema fuzz (seeded)", () => {
  it("400 mutants: no exception, no unstable code", () => {
    const r = fuzzSchemas(seeds, 400, 31);
    expect(r.failures).toEqual([]);
  });

  it("the check itself notices a throwing compile (a non-schema where a subschema goes is a stable code, not a throw)", () => {
    expect(compileAllWays({ type: "object", properties: { a: 5 } })).toEqual([]);
  });
});
