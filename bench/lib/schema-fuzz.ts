// Owns: fuzzing the grammar compiler with mutated schemas (seeded): each mutant compiled as a value and as a tool
// under both policies must give a grammar or an error with a stable code, never an exception (`internal`). Used
// by a seeded run in the suite and by `npm run fuzz:schemas` (longer, optionally over a MaskBench copy).

import { compileSchema, compileToolGrammar } from "../../dist/grammar/compile.js";
import { INPUT_ERROR_CODES } from "../../dist/errors.js";
import type { JsonSchema } from "../../dist/tools/types.js";
import { seededRandom } from "../../dist/random.js";

const KEYWORDS: [string, unknown][] = [
  ["not", { type: "string" }], ["oneOf", [{ type: "string" }, { $ref: "#" }]], ["anyOf", [{ $ref: "#" }, { type: "null" }]],
  ["allOf", [{ pattern: "^a" }, { pattern: "b$" }]], ["patternProperties", { "^x": { type: "integer" } }], ["if", { required: ["a"] }],
  ["then", { required: ["b"] }], ["minProperties", 2], ["maxProperties", 1], ["format", "email"], ["format", "ipv6"], ["pattern", "^([a-z]*)*$"],
  ["pattern", "(\\S+\\s*)*"], ["multipleOf", 0.5], ["minimum", 0.25], ["uniqueItems", true], ["additionalProperties", false], ["additionalProperties", { $ref: "#" }],
  ["items", { $ref: "#" }], ["$ref", "#/definitions/missing"], ["$ref", "#"], ["enum", []], ["const", null], ["type", ["string", "null"]], ["type", "wat"],
  ["minLength", 3], ["maxLength", 1], ["required", ["zz"]], ["javaType", "x"], ["properties", { "abcdefghijklmnopqrstuvwx": { type: "string" } }],
  ["dependentRequired", { a: ["b"] }], ["propertyNames", { maxLength: 2 }], ["minItems", 3], ["maxItems", 0], ["nullable", true],
];

/** Subschema positions of a schema (objects only), to pick where a mutation lands. */
function spots(s: unknown, out: Record<string, unknown>[] = [], depth = 0): Record<string, unknown>[] {
  if (depth > 12 || s === null || typeof s !== "object") return out;
  if (!Array.isArray(s)) out.push(s as Record<string, unknown>);
  for (const v of Object.values(s as object)) spots(v, out, depth + 1);
  return out;
}

/** One mutant of `schema`: a copy with 1–3 keywords set somewhere inside. */
export function mutate(schema: unknown, next: () => number): unknown {
  const copy = structuredClone(schema);
  const places = spots(copy);
  if (places.length === 0) return copy;
  const n = 1 + Math.floor(next() * 3);
  for (let i = 0; i < n; i++) {
    const place = places[Math.floor(next() * places.length)]!;
    const [k, v] = KEYWORDS[Math.floor(next() * KEYWORDS.length)]!;
    place[k] = structuredClone(v);
  }
  return copy;
}

const STABLE = new Set<string>(INPUT_ERROR_CODES);

/** Compile one mutant four ways; the problems found (an exception, or a code outside the stable set). */
export function compileAllWays(schema: unknown): string[] {
  const problems: string[] = [];
  const check = (what: string, run: () => { ok: boolean; error?: { code: string } }) => {
    try {
      const r = run();
      if (!r.ok && (!r.error || !STABLE.has(r.error.code) || r.error.code === "internal")) problems.push(`${what}: code ${r.error?.code}`);
    } catch (e) {
      problems.push(`${what}: threw ${e instanceof Error ? e.message.slice(0, 120) : String(e)}`);
    }
  };
  for (const unsupported of ["strict", "validate"] as const) {
    check(`value ${unsupported}`, () => compileSchema(schema as JsonSchema, { maxTokens: 512, unsupported }));
    check(`tool ${unsupported}`, () => compileToolGrammar([{ name: "t", parameters: schema as JsonSchema }], { maxTokens: 512, unsupported, toolChoice: "required" }));
  }
  return problems;
}

/** Run `runs` mutants of the seed schemas; the failing ones with their problems. */
export function fuzzSchemas(seeds: readonly unknown[], runs: number, seed = 1): { runs: number; failures: { schema: unknown; problems: string[] }[] } {
  const next = seededRandom(seed);
  const failures: { schema: unknown; problems: string[] }[] = [];
  for (let i = 0; i < runs; i++) {
    const schema = mutate(seeds[i % seeds.length], next);
    const problems = compileAllWays(schema);
    if (problems.length > 0) failures.push({ schema, problems });
  }
  return { runs, failures };
}
