// Issue 38: sampling qtc's tool grammar produced `{"comment1": "x", "comment1": "y"}` (patternProperties
// `^comment[1-9]$`): a context-free grammar cannot say "no key twice". The runtime's key guard keeps, per open
// object, the keys completed, and bans the tokens that would complete one again: no constrained output repeats a key.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime, type Runtime } from "../../src/index.js";
import { readQwen3Vocab } from "../../src/model/qwen3-vocab.js";
import { findDuplicateKey } from "../../src/parse/duplicate-keys.js";
import { tinyModelPath } from "../helpers/models.js";

let rt: Runtime;
/** Every token that starts with `}`, pushed down: the model keeps adding members (random weights close at once). */
const keepGoing: Record<number, number> = {};
beforeAll(async () => {
  (await readQwen3Vocab()).tokens.forEach((t, id) => {
    if (t.startsWith("}")) keepGoing[id] = -100;
  });
  rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1024, sequences: 1 });
});
afterAll(async () => {
  await rt?.close();
});

const messages = [{ role: "user" as const, content: "Leave a few comments." }];
const tool = (parameters: object) => [{ type: "function" as const, function: { name: "annotate", parameters } }];
const SCHEMAS = {
  patterns: { type: "object", patternProperties: { "^k[0-2]$": { type: "integer", minimum: 0, maximum: 9 } }, additionalProperties: false },
  nested: {
    type: "object",
    properties: { notes: { type: "object", patternProperties: { "^comment[1-3]$": { type: "string", maxLength: 4 }, "^k[0-2]$": { type: "integer" } }, additionalProperties: false } },
    required: ["notes"],
    additionalProperties: false,
  },
};

/** Keys in a value, nested ones included. */
function keysIn(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + keysIn(x), 0);
  if (v === null || typeof v !== "object") return 0;
  return Object.values(v).reduce((n: number, x) => n + 1 + keysIn(x), 0);
}

describe("issue 38: no constrained output repeats a key", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    // The nested key space (6 keys in 2 patterns) takes look-aheads at each member: fewer seeds keep the file short.
    const seeds = name === "nested" ? 8 : 20;
    test(`${name}: ${seeds} seeds, tool choice required, default options`, async () => {
      let members = 0;
      for (let seed = 0; seed < seeds; seed++) {
        const r = await rt.generate({ messages, tools: tool(schema), toolChoice: "required", seed, maxTokens: 200, logitBias: keepGoing });
        expect(r.errors.map((e) => e.reason), `seed ${seed}: ${r.raw}`).toEqual([]);
        expect(findDuplicateKey(r.raw.slice(r.raw.indexOf("{"))), `seed ${seed}: ${r.raw}`).toBeUndefined();
        expect(r.toolCalls.length, `seed ${seed}`).toBeGreaterThan(0);
        for (const c of r.toolCalls) members += keysIn(JSON.parse(c.arguments));
      }
      expect(members).toBeGreaterThanOrEqual(seeds * 3);
    }, 300_000);
  }
});
