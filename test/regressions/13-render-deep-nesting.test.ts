// Issue 13, item 10: renderPrompt recursed once per nesting level of a past call's arguments (or a tool's
// schema), so history replayed by a library caller nested 10,000 deep overflowed the stack ("Maximum call stack
// size exceeded", exit 1 "unexpected failure" from `qtc run --messages`). Now it is a QtcException with a code.

import { describe, expect, test } from "vitest";
import { QtcException } from "../../src/errors.js";
import { MAX_RENDER_DEPTH, renderPrompt, type ChatMessage } from "../../src/prompt/index.js";

/** An object `depth` levels deep (objects and arrays alternating, one level each), the innermost `{"leaf": 1}`. */
function nested(depth: number): Record<string, unknown> {
  let value: unknown = { leaf: 1 };
  for (let level = 2; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value };
  return { a: value };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof QtcException) return e.code;
    return `not a QtcException: ${String(e)}`;
  }
  return "no error";
}

const history = (args: Record<string, unknown>): ChatMessage[] => [
  { role: "user", content: "go" },
  { role: "assistant", content: "", tool_calls: [{ function: { name: "f", arguments: args } }] },
  { role: "tool", content: "ok" },
];

describe("renderPrompt bounds nesting depth", () => {
  for (const format of ["hermes", "qwen3coder"] as const) {
    test(`${format}: past-call arguments nested 10,000 deep are invalid_messages`, () => {
      expect(codeOf(() => renderPrompt({ format, messages: history(nested(10_000)) }))).toBe("invalid_messages");
    });

    test(`${format}: a tool schema nested 10,000 deep is invalid_tools`, () => {
      const tools = [{ name: "f", parameters: { type: "object", properties: { x: nested(10_000) } } }];
      expect(codeOf(() => renderPrompt({ format, messages: [{ role: "user", content: "go" }], tools }))).toBe("invalid_tools");
    });

    test(`${format}: nesting up to the limit still renders`, () => {
      // The arguments object itself is one level; the limit counts every array and object on the way down.
      const prompt = renderPrompt({ format, messages: history(nested(MAX_RENDER_DEPTH - 2)) });
      expect(prompt).toContain('"leaf": 1');
    });
  }
});
