// Issue 43 (parsing): a complete, valid call that ends an unclosed think block is the model's action: it comes
// back as a call with the diagnostic `call_in_reasoning`, and the text before it stays reasoning. A call followed
// by more reasoning, a fenced or quoted call, or an incomplete one stays reasoning. Batch and every two-way split
// agree (the split on the `<` of `</parameter>` included), in hermes, qwen3coder and qwen35.
import { describe, expect, it } from "vitest";
import type { ParseResult } from "../../src/parse/index.js";
import { counterIds, feedAll, normalizeEvents, resultOf } from "../parse/helpers.js";

const TOOLS = [
  {
    type: "function",
    function: {
      name: "editor",
      parameters: { type: "object", properties: { path: { type: "string" }, new_text: { type: "string" } }, required: ["path", "new_text"] },
    },
  },
];
const ARGS = { path: "manic_miner.html", new_text: "}});" };
const CALLS = {
  qwen35: "<tool_call>\n<function=editor>\n<parameter=path>\nmanic_miner.html\n</parameter>\n<parameter=new_text>\n}});\n</parameter>\n</function>\n</tool_call>",
  qwen3coder: "<tool_call>\n<function=editor>\n<parameter=path>\nmanic_miner.html\n</parameter>\n<parameter=new_text>\n}});\n</parameter>\n</function>\n</tool_call>",
  hermes: '<tool_call>\n{"name": "editor", "arguments": {"path": "manic_miner.html", "new_text": "}});"}}\n</tool_call>',
} as const;
const REASONING = "I need to fix the extra brace…";

function everySplit(text: string, opts: Parameters<typeof feedAll>[1]): ParseResult {
  const batchEvents = feedAll([text], { ...opts, newId: counterIds() });
  const batch = normalizeEvents(batchEvents);
  for (let i = 1; i < text.length; i++) {
    expect(normalizeEvents(feedAll([text.slice(0, i), text.slice(i)], { ...opts, newId: counterIds() }))).toEqual(batch);
  }
  return resultOf(batchEvents);
}

describe("issue 43: a call that ends an unclosed think block", () => {
  for (const format of ["qwen35", "qwen3coder", "hermes"] as const) {
    const call = CALLS[format];
    for (const thinking of ["auto", "closed"] as const) {
      it(`${format}, thinking ${thinking}: the call, with call_in_reasoning, at every two-way split`, () => {
        const r = everySplit(`<think>${REASONING}${call}`, { format, tools: TOOLS, thinking });
        expect(r.calls.map((c) => [c.name, c.parsedArguments])).toEqual([["editor", ARGS]]);
        expect(r.calls[0]!.diagnostics?.map((d) => d.code)).toEqual(["call_in_reasoning"]);
        expect(r.reasoning).toBe(REASONING);
        expect(r.content).toBe("");
        expect(r.errors).toEqual([]);
      });
    }
    it(`${format}, thinking open (the prompt opened the block): the call`, () => {
      const r = everySplit(`${REASONING}\n${call}\n`, { format, tools: TOOLS, thinking: "open" });
      expect(r.calls.map((c) => c.name)).toEqual(["editor"]);
      expect(r.reasoning).toBe(REASONING);
    });
    const stays: Array<[string, string]> = [
      ["followed by more reasoning", `<think>${REASONING}${call}\nbut first let me look at line 12.`],
      ["fenced", `<think>The call would be:\n\`\`\`\n${call}`],
      ["quoted", `<think>I would write \`${call}`],
      ["incomplete", `<think>${REASONING}${call.slice(0, -"</tool_call>".length)}`],
      ["closed by </think> after it", `<think>${REASONING}${call}</think>Done.`],
    ];
    for (const [what, text] of stays) {
      it(`${format}: a call ${what} stays reasoning`, () => {
        const r = everySplit(text, { format, tools: TOOLS, thinking: "auto" });
        expect(r.calls).toEqual([]);
        expect(r.errors).toEqual([]);
        expect(r.reasoning).toContain("editor");
      });
    }
  }
});
