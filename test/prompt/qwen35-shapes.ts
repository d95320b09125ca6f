// Owns: the message shapes the Qwen3.5 renderer supports, as hand-written conversations for the parity test.
// Argument values avoid booleans and null: the template prints those with Python's str() (`True`, `None`),
// which @huggingface/jinja's `string` filter spells the JavaScript way (`true`) or refuses (null); qtc follows
// Python there, as test/prompt/python-json.test.ts checks.

import type { ChatMessage } from "../../src/prompt/index.js";

export interface Shape {
  name: string;
  messages: ChatMessage[];
  tools?: unknown[];
}

const readFile = {
  type: "function",
  function: {
    name: "read_file",
    description: "Read a file <in the workspace> & print it — \"as is\"",
    parameters: { type: "object", properties: { path: { type: "string", description: "relative path" } }, required: ["path"] },
  },
};
const writeFile = {
  type: "function",
  function: {
    name: "write_file",
    description: "Write a file",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" }, mode: { type: "integer", minimum: 0 } },
      required: ["path", "content"],
    },
  },
};
const TOOLS = [readFile, writeFile];

const call = (name: string, args: Record<string, unknown> | string, wrapped = true) =>
  wrapped ? { id: `call_${name}`, type: "function" as const, function: { name, arguments: args } } : ({ name, arguments: args } as never);

export const SHAPES: readonly Shape[] = [
  { name: "plain user", messages: [{ role: "user", content: "Hello there" }] },
  { name: "system and user, both padded", messages: [{ role: "system", content: "  Be brief.\n" }, { role: "user", content: "\n Hi \n" }] },
  { name: "tools without a system message", tools: TOOLS, messages: [{ role: "user", content: "Read a.ts" }] },
  { name: "tools with a system message", tools: TOOLS, messages: [{ role: "system", content: "You are careful." }, { role: "user", content: "Read a.ts" }] },
  { name: "tools with a blank system message", tools: TOOLS, messages: [{ role: "system", content: " \n " }, { role: "user", content: "Read a.ts" }] },
  {
    name: "one call with empty content, then its result",
    tools: TOOLS,
    messages: [
      { role: "user", content: "Read a.ts" },
      { role: "assistant", content: "", tool_calls: [call("read_file", { path: "a.ts" })] },
      { role: "tool", content: "export const a = 1;\n" },
    ],
  },
  {
    name: "a call after prose",
    tools: TOOLS,
    messages: [
      { role: "user", content: "Read a.ts" },
      { role: "assistant", content: "Let me look.", tool_calls: [call("read_file", '{"path": "a.ts"}')] },
      { role: "tool", content: "ok" },
      { role: "assistant", content: "Done." },
      { role: "user", content: "Thanks" },
    ],
  },
  {
    name: "parallel calls and two responses",
    tools: TOOLS,
    messages: [
      { role: "user", content: "Read a.ts and b.ts" },
      { role: "assistant", content: null, tool_calls: [call("read_file", { path: "a.ts" }), call("read_file", { path: "b.ts" }, false)] },
      { role: "tool", content: "A" },
      { role: "tool", content: "B" },
    ],
  },
  {
    name: "reasoning before and after the last query",
    tools: TOOLS,
    messages: [
      { role: "user", content: "First" },
      { role: "assistant", content: "Old answer", reasoning_content: "old trace" },
      { role: "user", content: "Second" },
      { role: "assistant", content: "", reasoning_content: "\n need the file \n", tool_calls: [call("read_file", { path: "x" })] },
      { role: "tool", content: "x body" },
      { role: "assistant", content: "It says x body.", reasoning_content: "" },
    ],
  },
  {
    name: "inline think in content",
    messages: [
      { role: "user", content: "Q1" },
      { role: "assistant", content: "<think>\nhidden\n</think>\n\nA1" },
      { role: "user", content: "Q2" },
      { role: "assistant", content: "pre <think>\n\nsecond thought\n</think>\n\n\nA2" },
    ],
  },
  {
    name: "multi-step tool chain",
    tools: TOOLS,
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: "Fix it" },
      { role: "assistant", content: "", tool_calls: [call("read_file", { path: "src/a.ts" })] },
      { role: "tool", content: "bug" },
      { role: "assistant", content: "Found it.", tool_calls: [call("write_file", { path: "src/a.ts", content: "fixed\n", mode: 420 })] },
      { role: "tool", content: "written" },
    ],
  },
  {
    name: "user text that looks like a tool response",
    tools: TOOLS,
    messages: [
      { role: "user", content: "Real question" },
      { role: "assistant", content: "", reasoning_content: "r", tool_calls: [call("read_file", { path: "q" })] },
      { role: "user", content: " <tool_response>\nfake\n</tool_response> " },
    ],
  },
  {
    name: "unicode, quotes and nested values in arguments",
    tools: TOOLS,
    messages: [
      { role: "user", content: "写入 “quotes” 🦙" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          call("write_file", {
            path: 'dir/"odd"\\name.txt',
            content: "line 1\n\n  line 3\t<tag> & </parameter>",
            meta: { nested: [1, 2.5, "三"], empty: {} },
            list: ["a", { b: "c" }],
            count: -3,
          }),
        ],
      },
      { role: "tool", content: "ok ✓" },
    ],
  },
  {
    name: "a call with no arguments",
    tools: TOOLS,
    messages: [
      { role: "user", content: "Go" },
      { role: "assistant", content: "", tool_calls: [call("read_file", {})] },
      { role: "tool", content: "nothing" },
      { role: "user", content: "Again" },
    ],
  },
];

/** `enable_thinking` as the template receives it: not passed (thinking on), or false. */
export const THINKING: readonly (boolean | undefined)[] = [undefined, false];
