// Issue 51 (parsing): Qwen3.8 may open its next think block after a finished turn (llama.cpp #27733 discards the
// whole generation then). A trailing `<think>` never loses the turn: after a call, after an answer and after
// closed reasoning, in every thinking start mode, batch and at every two-way split. Before the fix, a call that
// ended an unclosed think block (the prompt opened it: thinking "open", or the output did) and was followed by a
// trailing `<think>` stayed reasoning: the call was lost.
import { describe, expect, it } from "vitest";
import type { ParseResult, ThinkingStart } from "../../src/parse/index.js";
import { counterIds, feedAll, normalizeEvents, resultOf } from "../parse/helpers.js";

const TOOLS = [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
const CALLS = {
  qwen38: "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>",
  hermes: '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/a.ts"}}\n</tool_call>',
} as const;
const TRAILING = ["<think>", "\n<think>", "\n\n<think>\n", "<think>\n\n"];

function everySplit(text: string, opts: Parameters<typeof feedAll>[1]): ParseResult {
  const batchEvents = feedAll([text], { ...opts, newId: counterIds() });
  const batch = normalizeEvents(batchEvents);
  for (let i = 1; i < text.length; i++) {
    expect(normalizeEvents(feedAll([text.slice(0, i), text.slice(i)], { ...opts, newId: counterIds() })), `split at ${i}`).toEqual(batch);
  }
  return resultOf(batchEvents);
}

describe("issue 51: a trailing <think> keeps the turn", () => {
  for (const format of ["qwen38", "hermes"] as const) {
    const call = CALLS[format];
    const parse = (text: string, thinking: ThinkingStart) => everySplit(text, { format, tools: TOOLS, thinking });
    for (const tail of TRAILING) {
      const t = JSON.stringify(tail);
      it(`${format}, ${t} after a call ending the block the prompt opened (thinking open): the call`, () => {
        for (const text of [`${call}${tail}`, `Let me read it.\n${call}${tail}`]) {
          const r = parse(text, "open");
          expect(r.calls.map((c) => [c.name, c.parsedArguments])).toEqual([["read_file", { path: "src/a.ts" }]]);
          expect(r.content).toBe("");
          expect(r.errors).toEqual([]);
        }
      });

      it(`${format}, ${t} after a call ending an unclosed <think> of the output (thinking auto): the call`, () => {
        const r = parse(`<think>Let me read it.\n${call}${tail}`, "auto");
        expect(r.calls.map((c) => c.name)).toEqual(["read_file"]);
        expect(r.reasoning).toBe("Let me read it.");
      });

      it(`${format}, ${t} after a call (closed reasoning or none): the call, in every mode`, () => {
        for (const [text, thinking] of [
          [`${call}${tail}`, "closed"],
          [`${call}${tail}`, "auto"],
          [`Reasoning.\n</think>\n\n${call}${tail}`, "open"],
          [`<think>\nReasoning.\n</think>\n\n${call}${tail}`, "auto"],
        ] as const) {
          const r = parse(text, thinking);
          expect(r.calls.map((c) => c.name), `${thinking}: ${text}`).toEqual(["read_file"]);
          expect(r.content).toBe("");
        }
      });

      it(`${format}, ${t} after an answer: the answer`, () => {
        for (const [text, thinking] of [
          [`The file is empty.${tail}`, "closed"],
          [`The file is empty.${tail}`, "auto"],
          [`Reasoning.\n</think>\n\nThe file is empty.${tail}`, "open"],
          [`<think>\nReasoning.\n</think>\n\nThe file is empty.${tail}`, "auto"],
        ] as const) {
          const r = parse(text, thinking);
          expect(r.content, `${thinking}: ${text}`).toBe("The file is empty.");
          expect(r.calls).toEqual([]);
        }
      });

      it(`${format}, ${t} after closed reasoning alone: the reasoning`, () => {
        expect(parse(`Reasoning.\n</think>\n\n${tail}`, "open").reasoning).toBe("Reasoning.");
        expect(parse(`<think>\nReasoning.\n</think>\n\n${tail}`, "auto").reasoning).toBe("Reasoning.");
      });
    }

    it(`${format}: a <think> followed by more reasoning after the call still leaves the call reasoning (issue 43's rule)`, () => {
      const r = parse(`${call}\n<think>\nActually, first check b.ts.`, "open");
      expect(r.calls).toEqual([]);
    });
  }
});
