// How MaskBench checks an instance: by default as the runtime constrains a call (qtc's engine with the key guard),
// so a keyword the guard holds is judged as users get it; the grammar alone (GrammarChecker) on request.

import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { createChecker, EngineTables } from "../../bench/lib/maskbench-check.js";
import { MASKBENCH_DEFAULTS } from "../../bench/lib/maskbench.js";
import { compileSchema } from "../../src/grammar/index.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { tinyModel } from "../grammar/helpers.js";

let model: LlamaModel;
let engine: EngineTables;
beforeAll(async () => {
  ({ model } = await tinyModel());
  engine = EngineTables.create(model);
});

async function both(schema: JsonSchema) {
  const r = compileSchema(schema, { maxTokens: 512 });
  if (!r.ok) throw new Error(r.error.message);
  return { qtc: await createChecker("qtc", model, engine, r.value), grammar: await createChecker("grammar", model, engine, r.value) };
}

describe("MaskBench's instance checker", () => {
  it("is qtc's engine with the key guard by default", () => {
    expect(MASKBENCH_DEFAULTS.checker).toBe("qtc");
  });

  it("agrees with the grammar alone on what the grammar alone decides", async () => {
    const c = await both({ type: "object", properties: { n: { type: "integer", minimum: 1, maximum: 20 }, s: { enum: ["a", "bc"] } }, required: ["n"], additionalProperties: false });
    for (const text of ['{"n": 3}', '{"n": 3, "s": "bc"}', '{"n": 21}', '{"n": 3, "s": "b"}', '{"s": "a"}', '{"n": 3', '{"n": 3}x', '{"n":3}']) {
      expect(c.qtc.checkText(text).accepted, text).toBe(c.grammar.checkText(text).accepted);
    }
    expect(c.qtc.checkText('{"n": 3, "s": "bc"}').accepted).toBe(true);
  });

  it("refuses a key written twice, which the grammar alone admits (the runtime's key guard)", async () => {
    const c = await both({ type: "object", patternProperties: { "^k[0-9]$": { type: "integer", minimum: 0, maximum: 9 } }, additionalProperties: false });
    expect(c.grammar.checkText('{"k1": 1, "k1": 2}').accepted).toBe(true);
    expect(c.qtc.checkText('{"k1": 1, "k1": 2}').accepted).toBe(false);
    expect(c.qtc.checkText('{"k1": 1, "k2": 2}').accepted).toBe(true);
  });
});
