// Issue 44: Qwen XML as Qwen3.5/3.6 and Qwen3-Coder really write it. A surplus `</function>` or `</parameter>`
// never leaks into a value and never rejects the call; drifted end markers (`</parameter1>`,
// `</parameter_function>`) close their values; a bare `null` for a nullable string is null. Each case is read
// batch and at every two-way split, in qwen3coder and qwen35, and each call reports what was tolerated.
import { describe, expect, it } from "vitest";
import type { ParseResult } from "../../src/parse/index.js";
import { counterIds, feedAll, normalizeEvents, resultOf } from "../parse/helpers.js";

const fn = (name: string, properties: Record<string, unknown>, required: string[]) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties, required } },
});
const TOOLS = [
  fn("bash", { command: { type: "string" } }, ["command"]),
  fn("get_weather", { city: { type: "string" }, unit: { type: ["string", "null"] }, note: { type: "string" } }, ["city"]),
];

const block = (body: string) => `<tool_call>\n${body}\n</tool_call>`;
const CASES: Array<{ what: string; text: string; args: Record<string, unknown>; name: string; codes: string[] }> = [
  {
    what: "a surplus </function> before </tool_call>",
    text: block("<function=bash>\n<parameter=command>\necho ready\n</parameter>\n</function>\n</function>"),
    name: "bash",
    args: { command: "echo ready" },
    codes: ["surplus_closer"],
  },
  {
    what: "a surplus </parameter>",
    text: block("<function=bash>\n<parameter=command>\necho ready\n</parameter>\n</parameter>\n</function>"),
    name: "bash",
    args: { command: "echo ready" },
    codes: ["surplus_closer"],
  },
  {
    what: "a drifted </parameter1>",
    text: block("<function=get_weather>\n<parameter=city>\nShanghai\n</parameter1>\n</function>"),
    name: "get_weather",
    args: { city: "Shanghai" },
    codes: ["drifted_marker"],
  },
  {
    what: "a drifted </parameter_function> with no </function>",
    text: block("<function=get_weather>\n<parameter=city>\nShanghai\n</parameter_function>"),
    name: "get_weather",
    args: { city: "Shanghai" },
    codes: ["drifted_marker"],
  },
  {
    what: "a drifted </parameter1> before the next parameter",
    text: block("<function=get_weather>\n<parameter=city>\nShanghai\n</parameter1>\n<parameter=note>\nhi\n</parameter>\n</function>"),
    name: "get_weather",
    args: { city: "Shanghai", note: "hi" },
    codes: ["drifted_marker"],
  },
  {
    what: "null for a [string, null] parameter",
    text: block("<function=get_weather>\n<parameter=city>\nShanghai\n</parameter>\n<parameter=unit>\nnull\n</parameter>\n</function>"),
    name: "get_weather",
    args: { city: "Shanghai", unit: null },
    codes: [],
  },
  {
    what: "Python's None for a [string, null] parameter",
    text: block("<function=get_weather>\n<parameter=city>\nShanghai\n</parameter>\n<parameter=unit>\nNone\n</parameter>\n</function>"),
    name: "get_weather",
    args: { city: "Shanghai", unit: null },
    codes: [],
  },
  {
    what: "null for a string-only parameter stays text",
    text: block("<function=get_weather>\n<parameter=city>\nnull\n</parameter>\n</function>"),
    name: "get_weather",
    args: { city: "null" },
    codes: [],
  },
  {
    what: "a closer followed by real content stays literal",
    text: block("<function=bash>\n<parameter=command>\ncat <<EOF\n</parameter>\nEOF\n</parameter>\n</function>"),
    name: "bash",
    args: { command: "cat <<EOF\n</parameter>\nEOF" },
    codes: [],
  },
];

function check(result: ParseResult, c: (typeof CASES)[number]): void {
  expect(result.errors).toEqual([]);
  expect(result.calls.map((call) => [call.name, call.parsedArguments])).toEqual([[c.name, c.args]]);
  expect((result.calls[0]!.diagnostics ?? []).map((d) => d.code)).toEqual(c.codes);
  expect(result.content).toBe("");
}

describe("issue 44: surplus and drifted closers, nullable null", () => {
  for (const format of ["qwen3coder", "qwen35"] as const) {
    for (const c of CASES) {
      it(`${format}: ${c.what}, batch and every two-way split`, () => {
        const opts = { format, tools: TOOLS, thinking: "closed" as const };
        const batchEvents = feedAll([c.text], { ...opts, newId: counterIds() });
        check(resultOf(batchEvents), c);
        const batch = normalizeEvents(batchEvents);
        for (let i = 1; i < c.text.length; i++) {
          const chunks = [c.text.slice(0, i), c.text.slice(i)];
          expect(normalizeEvents(feedAll(chunks, { ...opts, newId: counterIds() }))).toEqual(batch);
        }
      });
    }
  }
});
