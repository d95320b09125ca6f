// Issue 49: uniqueItems held by the runtime's semantic guard. The grammar admits repeated items; the guard, fed the
// call's text, knows from the compiled plan which arrays must hold distinct items, compares completed items by
// canonical JSON value, and bans the tokens that would complete a repeat or leave the grammar only repeats to
// complete. Checked on the guard itself, and through the library on the hermes stand-in and the Qwen3.5 XML
// stand-in (tool choice required, default options): every call is valid for ajv and its raw text repeats no item.
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { compileSchema, compileToolGrammar } from "../../../src/grammar/index.js";
import { createRuntime, type Runtime } from "../../../src/index.js";
import { KeyGuard, KeyVocab } from "../../../src/engine/semantic/key-guard.js";
import { tinyModelPath, tinyQwen35ModelPath } from "../../helpers/models.js";

const obj = (xs: Record<string, unknown>) => ({ type: "object", properties: { xs: { type: "array", uniqueItems: true, ...xs } }, required: ["xs"], additionalProperties: false });

/** The three uniqueItems tools, and one over a long enum. */
const TOOLS: Record<string, ReturnType<typeof obj>> = {
  "integers 0–9, 4–6 items": obj({ items: { type: "integer", minimum: 0, maximum: 9 }, minItems: 4, maxItems: 6 }),
  "strings of at most 6 characters, 3–5 items": obj({ items: { type: "string", maxLength: 6 }, minItems: 3, maxItems: 5 }),
  "objects {k: a|b, on: boolean}, 3–4 items": obj({
    items: { type: "object", properties: { k: { enum: ["a", "b"] }, on: { type: "boolean" } }, required: ["k", "on"], additionalProperties: false },
    minItems: 3,
    maxItems: 4,
  }),
  // Too many arrays for the grammar to list (12 values, 5–8 items): held by the guard's literal list.
  "an enum of 12 words, 5–8 items": obj({ items: { enum: ["red", "green", "blue", "cyan", "magenta", "yellow", "black", "white", "grey", "orange", "purple", "pink"] }, minItems: 5, maxItems: 8 }),
};

describe("the guard's item state", () => {
  const vocab = new KeyVocab(['"', "1", ".0", ",", "]"]);
  const plan = (schema: unknown) => {
    const r = compileSchema(schema as never, { guardedUnique: true, maxTokens: 256 });
    if (!r.ok || !r.value.unique) throw new Error("no plan");
    return { kind: "value" as const, plan: r.value.unique, shapes: r.value.unique.root };
  };

  test("a repeated item is reported when it completes, compared by value (1 equals 1.0, key order ignored)", () => {
    const numbers = new KeyGuard(vocab, plan({ type: "array", items: { type: "number" }, uniqueItems: true }));
    expect(numbers.feed("[1, 2")).toBe(false);
    expect(numbers.feed(", 1.0")).toBe(false);
    expect(numbers.feed("]")).toBe(true);
    const objects = new KeyGuard(vocab, plan({ type: "array", items: { type: "object" }, uniqueItems: true }));
    expect(objects.feed('[{"a": 1, "b": [2]}, {"b": [2], "a": 1}')).toBe(false);
    expect(objects.feed(",")).toBe(true);
  });

  test("only the arrays the schema marks are compared: nested, and beside plain ones", () => {
    const g = new KeyGuard(vocab, plan({ type: "object", properties: { plain: { type: "array" }, tags: { type: "array", uniqueItems: true } } }));
    expect(g.feed('{"plain": [1, 1, 1], "tags": ["x", "y"')).toBe(false);
    expect(g.feed(', "x"]')).toBe(true);
    const nested = new KeyGuard(vocab, plan({ type: "array", items: { type: "array", uniqueItems: true } }));
    expect(nested.feed("[[1, 2], [1, 2], [3")).toBe(false);
    expect(nested.feed(", 3]")).toBe(true);
  });

  test("a schema with no uniqueItems has no plan (the guard pays nothing for items)", () => {
    const r = compileSchema({ type: "array", items: { type: "integer" } }, { guardedUnique: true });
    expect(r.ok && r.value.unique).toBe(undefined);
    const tools = compileToolGrammar([{ name: "t", parameters: obj({}) }], { toolChoice: "required" });
    expect(tools.ok && tools.value.tools[0]!.unique?.shapes.some((s) => s.unique)).toBe(true);
    // The report says the grammar text alone does not hold it: the guard does.
    expect(tools.ok && tools.value.constraint.guarded).toEqual([{ keyword: "uniqueItems", path: "/properties/xs/uniqueItems" }]);
    expect(r.ok && r.value.constraint.guarded).toEqual([]);
  });

  test("without a guard, uniqueItems is still refused (the grammar alone cannot hold it)", () => {
    const r = compileSchema({ type: "array", items: { type: "integer" }, uniqueItems: true });
    expect(r.ok ? "compiled" : r.error.code).toBe("unsupported_keyword");
  });
});

/** Items repeated in any array of the call's raw text (every array: the tools' arrays are all uniqueItems). */
function repeatedItems(args: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) {
      const seen = new Set<string>();
      for (const x of v) {
        const k = JSON.stringify(x, (_, y) => (y && typeof y === "object" && !Array.isArray(y) ? Object.fromEntries(Object.entries(y).sort()) : y));
        if (seen.has(k)) out.push(k);
        seen.add(k);
        walk(x);
      }
    } else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(args);
  return out;
}

describe("through the library, tool choice required, 6 seeds", () => {
  let hermes: Runtime | undefined;
  let qwen35: Runtime | undefined;
  beforeAll(async () => {
    hermes = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 2048, sequences: 1 });
    qwen35 = await createRuntime({ model: await tinyQwen35ModelPath(), threads: 1, contextSize: 2048, sequences: 1 });
  });
  afterAll(async () => {
    await hermes?.close();
    await qwen35?.close();
  });

  for (const [name, schema] of Object.entries(TOOLS)) {
    for (const model of ["hermes", "qwen35"] as const) {
      test(`${name}, ${model} stand-in: every call valid, no item repeated`, async () => {
        const rt = model === "hermes" ? hermes! : qwen35!;
        const valid = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
        for (let seed = 0; seed < 6; seed++) {
          const r = await rt.generate({
            messages: [{ role: "user", content: "Call the tool." }],
            tools: [{ type: "function", function: { name: "t", parameters: schema } }],
            toolChoice: "required",
            seed,
            maxTokens: 768,
          });
          expect(r.errors.map((e) => e.reason), `seed ${seed}: ${r.raw}`).toEqual([]);
          expect(r.toolCalls.length, `seed ${seed}: ${r.raw}`).toBeGreaterThan(0);
          for (const c of r.toolCalls) {
            const args = JSON.parse(c.arguments) as unknown;
            expect(valid(args), `seed ${seed}: ${c.arguments}`).toBe(true);
            expect(repeatedItems(args), `seed ${seed}: ${r.raw}`).toEqual([]);
          }
        }
      }, 600_000);
    }
  }
});
