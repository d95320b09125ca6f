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

const user = (content: string): ChatMessage => ({ role: "user", content });
const tool = (content: string): ChatMessage => ({ role: "tool", content });
const assistant = (content: string | null, more: Omit<Extract<ChatMessage, { role: "assistant" }>, "role" | "content"> = {}): ChatMessage => ({ role: "assistant", content, ...more });

export const SHAPES: readonly Shape[] = [
  { name: "plain user", messages: [user("Hello there")] },
  { name: "system and user, both padded", messages: [{ role: "system", content: "  Be brief.\n" }, user("\n Hi \n")] },
  { name: "tools without a system message", tools: TOOLS, messages: [user("Read a.ts")] },
  { name: "tools with a system message", tools: TOOLS, messages: [{ role: "system", content: "You are careful." }, user("Read a.ts")] },
  { name: "tools with a blank system message", tools: TOOLS, messages: [{ role: "system", content: " \n " }, user("Read a.ts")] },
  {
    name: "one call with empty content, then its result",
    tools: TOOLS,
    messages: [user("Read a.ts"), assistant("", { tool_calls: [call("read_file", { path: "a.ts" })] }), tool("export const a = 1;\n")],
  },
  {
    name: "a call after prose",
    tools: TOOLS,
    messages: [user("Read a.ts"), assistant("Let me look.", { tool_calls: [call("read_file", '{"path": "a.ts"}')] }), tool("ok"), assistant("Done."), user("Thanks")],
  },
  {
    name: "parallel calls and two responses",
    tools: TOOLS,
    messages: [
      user("Read a.ts and b.ts"),
      assistant(null, { tool_calls: [call("read_file", { path: "a.ts" }), call("read_file", { path: "b.ts" }, false)] }),
      tool("A"),
      tool("B"),
    ],
  },
  {
    name: "reasoning before and after the last query",
    tools: TOOLS,
    messages: [
      user("First"),
      assistant("Old answer", { reasoning_content: "old trace" }),
      user("Second"),
      assistant("", { reasoning_content: "\n need the file \n", tool_calls: [call("read_file", { path: "x" })] }),
      tool("x body"),
      assistant("It says x body.", { reasoning_content: "" }),
    ],
  },
  {
    name: "inline think in content",
    messages: [user("Q1"), assistant("<think>\nhidden\n</think>\n\nA1"), user("Q2"), assistant("pre <think>\n\nsecond thought\n</think>\n\n\nA2")],
  },
  {
    name: "multi-step tool chain",
    tools: TOOLS,
    messages: [
      { role: "system", content: "sys" },
      user("Fix it"),
      assistant("", { tool_calls: [call("read_file", { path: "src/a.ts" })] }),
      tool("bug"),
      assistant("Found it.", { tool_calls: [call("write_file", { path: "src/a.ts", content: "fixed\n", mode: 420 })] }),
      tool("written"),
    ],
  },
  {
    name: "user text that looks like a tool response",
    tools: TOOLS,
    messages: [user("Real question"), assistant("", { reasoning_content: "r", tool_calls: [call("read_file", { path: "q" })] }), user(" <tool_response>\nfake\n</tool_response> ")],
  },
  {
    name: "unicode, quotes and nested values in arguments",
    tools: TOOLS,
    messages: [
      user("写入 “quotes” 🦙"),
      assistant("", {
        tool_calls: [
          call("write_file", {
            path: 'dir/"odd"\\name.txt',
            content: "line 1\n\n  line 3\t<tag> & </parameter>",
            meta: { nested: [1, 2.5, "三"], empty: {} },
            list: ["a", { b: "c" }],
            count: -3,
          }),
        ],
      }),
      tool("ok ✓"),
    ],
  },
  {
    name: "a call with no arguments",
    tools: TOOLS,
    messages: [user("Go"), assistant("", { tool_calls: [call("read_file", {})] }), tool("nothing"), user("Again")],
  },
];

/** `enable_thinking` as the template receives it: not passed (thinking on), or false. */
export const THINKING: readonly (boolean | undefined)[] = [undefined, false];
