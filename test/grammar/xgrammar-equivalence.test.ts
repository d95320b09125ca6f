// The xgrammar dialect, judged by xgrammar itself (web-xgrammar 0.1.27, WASM, the Qwen3 vocabulary) beside
// qtc's engine on qtc's GBNF: for the guarantee suite's 10 schemas and the 5 harness tools, in both formats,
// every grammar compiles in xgrammar (within the test's timeout), accepts the canonical spelling of every valid
// instance and every call qtc's GBNF generates with the synthetic tiny model (seeded), and rejects every invalid
// instance qtc's engine rejects. Where the xgrammar grammar leaves a bound to the validator (string lengths, counts
// past XG_MAX_UNROLL: 0.1.27 compiles bounded repetition into seconds of compile or ~0.2 s masks), the closest
// thing is tested: xgrammar admits it and qtc's parser rejects the call. MaskBench-format fixtures go through
// compileXgrammarSchema (MaskBench itself carries no licence file, so none of its data is committed).

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { LlamaContext, LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaOrdered } from "../../bench/lib/maskbench-order.js";
import { canonicalJson } from "../../src/grammar/canonical-json.js";
import { compileSchema, compileToolGrammar, compileXgrammar, compileXgrammarSchema } from "../../src/grammar/index.js";
import { XgrammarSession } from "../../src/engines/xgrammar-check.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { parse } from "../../src/parse/index.js";
import { normalizeTools } from "../../src/tools/normalize.js";
import type { ToolDefinition } from "../../src/tools/types.js";
import { Generator } from "./generate.js";
import { formatsAjv, loadCorpus, renderCall, tinyModel } from "./helpers.js";
import type { JsonSchema } from "../../src/tools/types.js";

const SCHEMAS = ["harness-read-file", "harness-grep", "enum-weather", "nested-object", "array-of-objects", "optional-params", "numeric-bounds", "recursive-tree", "formats", "additional-schema"];
const FORMATS = ["hermes", "qwen3coder"] as const;
const SEEDS = 3;
const HARNESS_SEEDS = 4;
const ONE_CALL = "<tool_call>\n{\"name\": \"run_tests\", \"arguments\": {}}\n</tool_call>";
const PROMPT = "<|im_start|>user\nDo the task with a tool.<|im_end|>\n<|im_start|>assistant\n";
const ROOT = new URL("../../", import.meta.url).pathname;
const HARNESS = normalizeTools(JSON.parse(readFileSync(join(ROOT, "grammars/harness-tools.json"), "utf8")));
const MASKBENCH_DIR = join(ROOT, "test/fixtures/maskbench");
const MASKBENCH = readdirSync(MASKBENCH_DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => ({ name: f, ...(JSON.parse(readFileSync(join(MASKBENCH_DIR, f), "utf8")) as { schema: object; tests: { valid: boolean; data: unknown }[] }) }));

const corpus = new Map(loadCorpus().map((e) => [e.name, e]));
const entries = SCHEMAS.map((n) => corpus.get(n)!);
const validCount = entries.reduce((n, e) => n + e.valid.length, 0) * FORMATS.length;
const invalidCount = entries.reduce((n, e) => n + e.invalid.length, 0) * FORMATS.length;
const generatedCount = SCHEMAS.length * FORMATS.length * SEEDS + FORMATS.length * HARNESS_SEEDS;
const ajv = formatsAjv();
/** Issue 31's keywords: what, schema, valid values, invalid values (canonical spelling, members in schema order). */
const ISSUE_31: [string, JsonSchema, unknown[], unknown[]][] = [
  [
    "one pattern, additionalProperties false",
    { type: "object", patternProperties: { "^x-": { type: "string" } }, additionalProperties: false },
    [{}, { "x-a": "s" }, { "x-a": "s", "x-long-vendor-extension-name": "" }],
    [{ "x-a": 1 }, { y: "s" }, { "x-a": "s", y: "s" }],
  ],
  [
    "two disjoint patterns beside a listed member, additionalProperties false",
    { type: "object", properties: { id: { type: "integer" } }, patternProperties: { "^a[0-9]+$": { type: "integer" }, "^b[0-9]+$": { type: "string" } }, additionalProperties: false },
    [{ id: 1 }, { id: 1, a1: 2, b22: "s" }, { b1: "x" }],
    [{ a1: "s" }, { b1: 1 }, { c: 1 }, { a: 1 }, { id: "1" }],
  ],
  [
    "a pattern beside an additionalProperties schema",
    { type: "object", properties: { id: { type: "integer" } }, patternProperties: { "^n_": { type: "integer" } }, additionalProperties: { type: "integer", minimum: 0 } },
    [{ id: 1, n_a: -5 }, { z: 3 }, { n_a: -1, n_b: 2 }],
    [{ n_a: "s" }, { z: -1 }, { z: "s" }, { id: "1" }],
  ],
  [
    "extra keys that avoid the patterns (a character outside `^[a-z0-9]+$`, a first character other than `/`)",
    { type: "object", properties: { Id: { type: "integer" } }, patternProperties: { "^[a-z0-9]+$": { type: "integer" }, "^/": { type: "string" } }, additionalProperties: { type: "boolean" } },
    [{ ab: 1, "/x": "s", Ab: true }, { Id: 1, "x.y": true, "a-b": false }, { "/": "/" }],
    [{ ab: true }, { Ab: 1 }, { "/x": true }, { "a-b": "s" }, { Id: true }],
  ],
  [
    "a pattern that matches every non-empty key, additionalProperties false",
    { type: "object", patternProperties: { ".+": { type: "integer" } }, additionalProperties: false },
    [{}, { a: 1 }, { "a b": 2, c: 3 }],
    [{ a: "s" }, { "": 1 }, { "\n": 1 }],
  ],
  [
    "a member that is false beside extra members",
    { type: "object", properties: { a: false, b: { type: "integer" } } },
    [{ b: 1 }, { c: 1 }, { b: 1, c: "x" }],
    [{ a: 1 }, { b: 1, a: "x" }],
  ],
  [
    "dependentRequired beside extra members",
    { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, dependentRequired: { a: ["b"] } },
    [{}, { b: 1 }, { a: 1, b: 2 }, { c: 1 }],
    [{ a: 1 }, { a: 1, c: 2 }, { a: "s", b: 1 }],
  ],
  [
    "not required",
    { type: "object", properties: { a: { type: "integer" } }, not: { required: ["a"] } },
    [{}, { b: 1 }],
    [{ a: 1 }, { b: 1, a: 2 }],
  ],
  [
    "if/then/else on a member",
    {
      type: "object",
      properties: { kind: { enum: ["n", "s"] }, v: {} },
      required: ["kind", "v"],
      additionalProperties: false,
      if: { properties: { kind: { const: "n" } } },
      then: { properties: { v: { type: "integer" } } },
      else: { properties: { v: { type: "string" } } },
    },
    [{ kind: "n", v: 1 }, { kind: "s", v: "x" }],
    [{ kind: "n", v: "x" }, { kind: "s", v: 1 }, { kind: "n" }],
  ],
];
const seen = { valid: 0, generated: 0, invalidByXgrammar: 0, invalidByValidator: 0 };

let session: XgrammarSession;
let model: LlamaModel;
let context: LlamaContext;
let generator: Generator;

beforeAll(async () => {
  session = await XgrammarSession.create();
  ({ model } = await tinyModel());
  context = await model.createContext({ contextSize: 1024, threads: 1, sequences: 1 });
  generator = new Generator(model, context.getSequence());
}, 60_000);

afterAll(async () => {
  session?.dispose();
  await context?.dispose();
});

/** Seeded GBNF generations (tool choice required) for these tools: every text is valid calls for qtc's parser. */
async function generated(tools: ToolDefinition[], format: (typeof FORMATS)[number], seeds: number, base: number): Promise<string[]> {
  const texts: string[] = [];
  for (let i = 0; i < seeds; i++) {
    // Generated by the grammar alone (no runtime guard): the worst-case split, whose calls fit the budget by themselves.
    const gbnf = compileToolGrammar(tools, { format, toolChoice: "required", maxTokens: 256, maxCalls: 2, budgetSplit: "worst-case" });
    if (!gbnf.ok) throw new Error(gbnf.error.message);
    const g = await generator.run(gbnf.value, { maxTokens: 256, seed: base + i, prompt: PROMPT });
    expect(parse(g.text, { tools, format }).errors, g.text).toEqual([]);
    texts.push(g.text);
  }
  return texts;
}

describe("xgrammar dialect in xgrammar 0.1.27, beside qtc's engine on the GBNF", () => {
  for (const entry of entries) {
    for (const format of FORMATS) {
      it(`${entry.name} (${format}): ${entry.valid.length} valid and ${SEEDS} generated calls accepted, ${entry.invalid.length} invalid rejected as qtc's engine rejects them`, async () => {
        const options = { format, toolChoice: "required" as const, maxTokens: 1024 };
        const xg = compileXgrammar([entry.tool], options);
        const gbnf = compileToolGrammar([entry.tool], { ...options, parallel: false });
        if (!xg.ok || !gbnf.ok) throw new Error(`${entry.name}: compile failed`);
        const compiled = await session.compile(xg.value.ebnf);
        const checker = await GrammarChecker.create(model, gbnf.value);
        for (const args of entry.valid) {
          const text = renderCall(format, entry.tool.name, args);
          expect(checker.checkText(text).accepted, `qtc's engine, valid ${text}`).toBe(true);
          expect(await session.accepts(compiled, text), `xgrammar, valid ${text}`).toBe(true);
          seen.valid++;
        }
        const base = 1 + 1000 * SCHEMAS.indexOf(entry.name) + (format === "hermes" ? 0 : 500);
        for (const text of await generated([entry.tool], format, SEEDS, base)) {
          expect(await session.accepts(compiled, text), `xgrammar, generated ${text}`).toBe(true);
          seen.generated++;
        }
        for (const args of entry.invalid) {
          const text = renderCall(format, entry.tool.name, args);
          expect(checker.checkText(text).accepted, `qtc's engine, invalid ${text}`).toBe(false);
          if (!(await session.accepts(compiled, text))) {
            seen.invalidByXgrammar++;
            continue;
          }
          // Admitted by xgrammar: only a bound it leaves to the validator may allow that, and the parser must refuse.
          expect(xg.value.leftToValidator.length, `xgrammar admits invalid ${text} with nothing left to the validator`).toBeGreaterThan(0);
          expect(parse(text, { tools: [entry.tool], format }).errors.length, `the validator on ${text}`).toBeGreaterThan(0);
          seen.invalidByValidator++;
        }
        compiled.dispose();
      }, 120_000);
    }
  }

  for (const format of FORMATS) {
    it(`harness tools (${format}): auto and required grammars compile and accept ${HARNESS_SEEDS} generated calls each`, async () => {
      const auto = await session.compile(okOf(compileXgrammar(HARNESS, { format, toolChoice: "auto" })).ebnf);
      const required = await session.compile(okOf(compileXgrammar(HARNESS, { format, toolChoice: "required" })).ebnf);
      for (const text of await generated(HARNESS, format, HARNESS_SEEDS, format === "hermes" ? 9000 : 9500)) {
        expect(await session.accepts(required, text), `required, ${text}`).toBe(true);
        expect(await session.accepts(auto, `Let me look.\n${text}`), `auto, ${text}`).toBe(true);
        seen.generated++;
      }
      // Under auto without parallel calls, the output ends after its one call.
      if (format === "hermes") {
        const single = await session.compile(okOf(compileXgrammar(HARNESS, { format, toolChoice: "auto", parallel: false })).ebnf);
        expect(await session.accepts(single, `Ok.${ONE_CALL}`)).toBe(true);
        expect(await session.accepts(single, `Ok.${ONE_CALL}\n${ONE_CALL}`)).toBe(false);
      }
      // Under auto, text with no call is an answer; under required it is not.
      expect(await session.accepts(auto, "Done.")).toBe(true);
      expect(await session.accepts(required, "Done.")).toBe(false);
    }, 120_000);
  }

  for (const fixture of MASKBENCH) {
    it(`MaskBench-format ${fixture.name}: the same verdicts as qtc's engine on ${fixture.tests.length} instances (or the same refusal)`, async () => {
      const gbnf = compileSchema(fixture.schema as never, { maxTokens: 1024 });
      const xg = compileXgrammarSchema(fixture.schema as never, { maxTokens: 1024 });
      expect(xg.ok).toBe(gbnf.ok);
      if (!gbnf.ok || !xg.ok) return;
      const compiled = await session.compile(xg.value.ebnf);
      const checker = await GrammarChecker.create(model, gbnf.value);
      for (const t of fixture.tests) {
        const text = schemaOrdered(t.data, fixture.schema);
        expect(await session.accepts(compiled, text), `xgrammar on ${text}`).toBe(checker.checkText(text).accepted);
      }
    }, 60_000);
  }

  // Keywords issue 31 made the value tree hold exactly (patternKeys, members listed as never, the variants of
  // dependencies and not): both engines must give ajv's verdict on every instance (none is left to the validator).
  for (const [what, schema, valid, invalid] of ISSUE_31) {
    it(`issue 31, ${what}: ${valid.length} valid accepted and ${invalid.length} invalid rejected by qtc's engine, xgrammar and ajv`, async () => {
      const options = { maxTokens: 1024, budgetSplit: "shared" as const };
      const gbnf = okOf(compileSchema(schema, options));
      const xg = okOf(compileXgrammarSchema(schema, options));
      const compiled = await session.compile(xg.ebnf);
      const checker = await GrammarChecker.create(model, gbnf);
      const validate = ajv.compile(schema as object);
      for (const [value, expected] of [...valid.map((v) => [v, true] as const), ...invalid.map((v) => [v, false] as const)]) {
        const text = canonicalJson(value);
        expect(validate(value), `ajv on ${text}`).toBe(expected);
        expect(checker.checkText(text).accepted, `qtc's engine on ${text}`).toBe(expected);
        expect(await session.accepts(compiled, text), `xgrammar on ${text}`).toBe(expected);
      }
      compiled.dispose();
    }, 60_000);
  }

  it(`in all: ${validCount} valid and ${generatedCount} generated calls accepted, ${invalidCount} invalid rejected (xgrammar or, for bounds left to it, the validator)`, () => {
    expect(seen.valid).toBe(validCount);
    expect(seen.generated).toBe(generatedCount);
    expect(seen.invalidByXgrammar + seen.invalidByValidator).toBe(invalidCount);
    process.stdout.write(`xgrammar rejected ${seen.invalidByXgrammar} invalid instances itself; the validator ${seen.invalidByValidator}\n`);
  });
});

function okOf<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
