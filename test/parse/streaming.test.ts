// Property tests: any chunking of any text gives the batch result; mutated valid calls never throw and
// never yield a call that fails its schema.
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "../../src/parse/index.js";
import type { ParserOptions } from "../../src/parse/options.js";
import { counterIds, feedAll, jsonCall, normalizeEvents, TOOLS, xmlCall } from "./helpers.js";

const PIECES = [
  "<tool_call>", "</tool_call>", "<think>", "</think>", "<function=read_file>", "<function=search>", "</function>",
  "<parameter=path>", "<parameter=query>", "</parameter>", "<path>", "</path>", "```", "~~~", "\n```xml\n", "\n~~~\n",
  "\n", "\n\n", " ", "  ", "\t", "<", ">", "=", "{", "}", '"', "<tool_", "</tool", "<thi", "\n<func", "`", "``",
  '{"name": "read_file", "arguments": {"path": "a.ts"}}', '{"name": "search", "arguments": {"query": "q", "limit": 3}}',
  "\nsrc/index.ts\n", "7", "True", "hello", "world", "é", "😀", "\uFFFD", "</think>\n\n", "<|im_end|>",
  // Fences of every length 3-8 of both kinds: bare, with info strings, indented (0-3 counts, 4 does not),
  // closing lines with trailing blanks, and next to think tags (issue 13: a split run must stay one fence).
  ...[3, 4, 5, 6, 7, 8].flatMap((n) => ["`", "~"].flatMap((c) => {
    const run = c.repeat(n);
    return [`\n${run}`, `\n${run}\n`, `\n${run}js\n`, `\n  ${run} python\n`, `\n   ${run}`, `\n    ${run}\n`, `\n${run}  \n`, `${run}\n`, `</think>\n${run}\n`, `\n${run}\n<think>`];
  })),
];

const textArb = fc
  .array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...PIECES) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) }, { weight: 1, arbitrary: fc.string({ maxLength: 4, unit: "binary" }) }), { maxLength: 60 })
  .map((parts) => parts.join(""));

/** A text and a chunking of it (cut points). */
const chunkedArb = textArb.chain((text) =>
  fc.tuple(fc.constant(text), fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 20 })),
);

function split(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.filter((c) => c > 0 && c < text.length))].sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(text.slice(prev, p));
    prev = p;
  }
  out.push(text.slice(prev));
  return out;
}

const optionsArb: fc.Arbitrary<ParserOptions & { truncated: boolean }> = fc.record({
  format: fc.constantFrom("auto", "hermes", "qwen3coder") as fc.Arbitrary<"auto" | "hermes" | "qwen3coder">,
  thinking: fc.constantFrom("auto", "open", "closed") as fc.Arbitrary<"auto" | "open" | "closed">,
  withTools: fc.boolean(),
  truncated: fc.boolean(),
}).map(({ withTools, ...rest }) => ({ ...rest, ...(withTools ? { tools: TOOLS } : {}) }));

describe("streaming equals batch", () => {
  it("for random texts and random chunkings", () => {
    fc.assert(
      fc.property(chunkedArb, optionsArb, ([text, cuts], opts) => {
        const chunks = split(text, cuts);
        const batch = normalizeEvents(feedAll([text], { ...opts, newId: counterIds() }, opts.truncated));
        const stream = normalizeEvents(feedAll(chunks, { ...opts, newId: counterIds() }, opts.truncated));
        expect(stream).toEqual(batch);
      }),
      { numRuns: 600 },
    );
  });

  it("for one-character chunks", () => {
    fc.assert(
      fc.property(textArb, optionsArb, (text, opts) => {
        const batch = normalizeEvents(feedAll([text], { ...opts, newId: counterIds() }, opts.truncated));
        const stream = normalizeEvents(feedAll([...text].flatMap((c) => (c.length === 2 ? [c[0]!, c[1]!] : [c])), { ...opts, newId: counterIds() }, opts.truncated));
        expect(stream).toEqual(batch);
      }),
      { numRuns: 300 },
    );
  });

  it("text deltas concatenate to content, and every call's raw is its span of the output", () => {
    fc.assert(
      fc.property(chunkedArb, optionsArb, ([text, cuts], opts) => {
        const events = feedAll(split(text, cuts), opts, opts.truncated);
        const finish = events[events.length - 1]!;
        if (finish.type !== "finish") throw new Error("no finish");
        const deltas = events.filter((e) => e.type === "text-delta").map((e) => (e as { text: string }).text).join("");
        expect(deltas).toBe(finish.result.content);
        for (const call of finish.result.calls) expect(text.slice(call.start, call.end)).toBe(call.raw);
        for (const e of finish.result.errors) if (e.reason !== "too_large") expect(text.slice(e.start, e.end)).toBe(e.raw);
        expect(finish.result.diagnostics.accepted + Object.values(finish.result.diagnostics.rejected).reduce((a, b) => a + b, 0)).toBe(finish.result.diagnostics.detected);
      }),
      { numRuns: 300 },
    );
  });
});

// --- mutated valid calls -------------------------------------------------------------------------------

const ajv = new Ajv2020({ strict: false, allErrors: true });
const SCHEMAS = new Map(
  TOOLS.map((t) => {
    const name = "function" in t ? t.function.name : t.name;
    const schema = ("function" in t ? t.function.parameters : "input_schema" in t ? t.input_schema : t.parameters) as Record<string, unknown>;
    return [name, { schema, validate: ajv.compile(schema) }] as const;
  }),
);

const word = fc.stringMatching(/^[a-z][a-z0-9_./ -]{0,12}$/);
const validCallArb: fc.Arbitrary<{ name: string; args: Record<string, unknown> }> = fc.oneof(
  fc.record({ name: fc.constant("read_file"), args: fc.record({ path: word }) }),
  fc.record({ name: fc.constant("grep"), args: fc.record({ pattern: word, path: word }) }),
  fc.record({ name: fc.constant("write_file"), args: fc.record({ path: word, content: fc.string({ maxLength: 40 }) }) }),
  fc.record({ name: fc.constant("run_tests"), args: fc.constant({}) }),
  fc.record({
    name: fc.constant("search"),
    args: fc.record(
      { query: fc.string({ minLength: 1, maxLength: 10 }), limit: fc.integer({ min: 1, max: 50 }), mode: fc.constantFrom("fast", "exact"), verbose: fc.boolean() },
      { requiredKeys: ["query"] },
    ),
  }),
);

function render(call: { name: string; args: Record<string, unknown> }, xml: boolean): string {
  if (!xml) return jsonCall(call.name, call.args);
  const params = Object.fromEntries(Object.entries(call.args).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  return xmlCall(call.name, params);
}

const mutationArb = fc.oneof(
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), text: fc.oneof(fc.constantFrom(...PIECES, "}", "]", ",", '"', "\\", "\n"), fc.string({ maxLength: 4 })) }),
  fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
);

function mutate(text: string, muts: Array<fc.Arbitrary<unknown> extends never ? never : { kind: string; at: number; len?: number; text?: string }>): string {
  let t = text;
  for (const m of muts) {
    const at = t.length === 0 ? 0 : m.at % (t.length + 1);
    if (m.kind === "delete") t = t.slice(0, at) + t.slice(at + (m.len ?? 1));
    else if (m.kind === "insert") t = t.slice(0, at) + (m.text ?? "") + t.slice(at);
    else if (m.kind === "duplicate") t = t.slice(0, at) + t.slice(at, at + (m.len ?? 1)) + t.slice(at);
    else t = t.slice(0, at);
  }
  return t;
}

describe("mutated valid calls", () => {
  it("parse unmutated as exactly the call that was rendered", () => {
    fc.assert(
      fc.property(validCallArb, fc.boolean(), (call, xml) => {
        const r = parse(render(call, xml), { tools: TOOLS });
        expect(r.errors).toEqual([]);
        expect(r.calls.map((c) => [c.name, c.parsedArguments])).toEqual([[call.name, call.args]]);
      }),
      { numRuns: 300 },
    );
  });

  it("never throw and never produce a call that fails its schema", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(validCallArb, fc.boolean()), { minLength: 1, maxLength: 3 }),
        fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
        fc.constantFrom("auto", "hermes", "qwen3coder") as fc.Arbitrary<"auto" | "hermes" | "qwen3coder">,
        fc.boolean(),
        (calls, muts, format, truncated) => {
          const text = mutate(calls.map(([c, xml]) => render(c, xml)).join("\n"), muts);
          const r = parse(text, { tools: TOOLS, format, truncated, thinking: "closed" });
          for (const call of r.calls) {
            const tool = SCHEMAS.get(call.name);
            expect(tool).toBeDefined();
            expect(tool!.validate(call.parsedArguments)).toBe(true);
            const props = Object.keys((tool!.schema.properties ?? {}) as object);
            if (tool!.schema.additionalProperties !== true) for (const k of Object.keys(call.parsedArguments)) expect(props).toContain(k);
            expect(JSON.parse(call.arguments)).toEqual(call.parsedArguments);
            expect(text.slice(call.start, call.end)).toBe(call.raw);
          }
          expect(r.calls.length + r.errors.length).toBe(r.diagnostics.detected);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
