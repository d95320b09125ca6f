// Issue 49: `contains` beside `prefixItems` was refused ("keyword contains is not supported"). It is now held by
// the rewrite in src/grammar/contains.ts, the prefix items counted as JSON Schema 2020-12 counts them. The issue's
// tool, with and without items and with minContains/maxContains, compiles in hermes, qwen3coder and qwen35 under
// tool choice required; every call qtc's engine admits (over every array of up to 5 items from a small alphabet,
// rendered as the format renders past calls) is valid for ajv, and too few, too many and a wrong prefix are refused;
// through the runtime on the tiny model and on the tiny Qwen3.5 stand-in (constrained, required), 20 seeds each give
// a valid call.
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { judgeTextWithGbnf } from "../../src/engine/text-judge.js";
import { getFormat } from "../../src/formats/index.js";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { createRuntime, type Runtime } from "../../src/index.js";
import { renderToolCall } from "../../src/prompt/render-calls.js";
import { tinyQwen35ModelPath } from "../helpers/models.js";
import { expectValidEverySeed, useTinyRuntime } from "../helpers/seeded-calls.js";

const rt = useTinyRuntime();
let qwen35: Runtime | undefined;
beforeAll(async () => {
  qwen35 = await createRuntime({ model: await tinyQwen35ModelPath(), threads: 1, contextSize: 1024, sequences: 1 });
});
afterAll(async () => {
  await qwen35?.close();
});

const FORMATS = ["hermes", "qwen3coder", "qwen35"] as const;
const arrayOf = (xs: Record<string, unknown>) => ({
  type: "object",
  properties: { xs: { type: "array", prefixItems: [{ const: 1 }, { const: 2 }], contains: { type: "integer", minimum: 100 }, ...xs } },
  required: ["xs"],
  additionalProperties: false,
});
/** [schema, a valid call's array it admits, invalid arrays it refuses]. */
const SCHEMAS: Record<string, [ReturnType<typeof arrayOf>, unknown[], unknown[][]]> = {
  "prefixItems [1, 2], contains integer ≥ 100": [arrayOf({}), [1, 2, 150], [[1, 2], [], [2, 1, 150], [1, 2, 5]]],
  "the same with items integer": [arrayOf({ items: { type: "integer" } }), [1, 2, 150, 5], [[1, 2], [1, 2, "x", 150], [1, 150]]],
  "the same with minContains 2, maxContains 3": [arrayOf({ items: { type: "integer" }, minContains: 2, maxContains: 3 }), [1, 2, 150, 150, 5], [[1, 2, 150], [1, 2, 150, 150, 150, 150], [150, 2, 150]]],
};

/** Every array of 0..5 items drawn from `alphabet`. */
function arrays(alphabet: readonly unknown[]): unknown[][] {
  const out: unknown[][] = [[]];
  let layer: unknown[][] = [[]];
  for (let n = 1; n <= 5; n++) {
    layer = layer.flatMap((a) => alphabet.map((x) => [...a, x]));
    out.push(...layer);
  }
  return out;
}

describe("issue 49: contains beside prefixItems, in every format", () => {
  for (const [name, [schema, good, bad]] of Object.entries(SCHEMAS)) {
    for (const format of FORMATS) {
      test(`${name}, ${format}: compiled under strict; every admitted call is valid`, () => {
        const r = compileToolGrammar([{ name: "pick", parameters: schema }], { format, toolChoice: "required", unsupported: "strict", maxTokens: 256 });
        if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
        // The call tags are special tokens in the grammar; judged here as their text (the values are what is tested).
        const f = getFormat(format);
        const gbnf = r.value.gbnf.replaceAll(`<[${f.open.token}]>`, JSON.stringify(f.open.text)).replaceAll(`<[${f.close.token}]>`, JSON.stringify(f.close.text));
        const admits = (xs: unknown[]) => judgeTextWithGbnf(gbnf, renderToolCall({ name: "pick", arguments: { xs } }, f)) === "accepted";
        // allErrors as qtc's validator has it (without it ajv 8.20 skips `contains` on [] beside prefixItems).
        const valid = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
        let admitted = 0;
        for (const xs of arrays([1, 2, 150, 5])) {
          if (!admits(xs)) continue;
          admitted++;
          expect(valid({ xs }), JSON.stringify(xs)).toBe(true);
        }
        expect(admitted).toBeGreaterThan(0);
        expect(admits(good), JSON.stringify(good)).toBe(true);
        for (const xs of bad) {
          expect(valid({ xs }), JSON.stringify(xs)).toBe(false);
          expect(admits(xs), JSON.stringify(xs)).toBe(false);
        }
      });
    }
    test(`${name}: 20 seeds through the runtime give valid calls (hermes stand-in${"items" in schema.properties.xs ? ", Qwen3.5 stand-in" : ""})`, async () => {
      await expectValidEverySeed(rt(), schema);
      // Items of any value on the Qwen3.5 stand-in: the stack overflow is gone (regression 50-closing-inside-character),
      // but inside a JSON string in an XML parameter the closing is not found, so a long string is cut at the limit
      // (seed 1: truncated): a gap of the closing search, not of contains; listed in issue 49's note.
      if ("items" in schema.properties.xs) await expectValidEverySeed(qwen35!, schema);
    }, 600_000);
  }
});
