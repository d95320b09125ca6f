// The parser's `text: "exact"` (issue 52, row 7): an answer a constraint holds keeps its whitespace; only the blank
// line the template writes after `</think>` and the whitespace next to call blocks are dropped. Streaming equals
// batch: every split of the output into two chunks gives the same deltas, joined, as the content.

import { describe, expect, test } from "vitest";
import { createParser, parse } from "../../src/parse/index.js";

const tools = [{ name: "f", parameters: { type: "object", properties: { a: { type: "string" } }, required: ["a"] } }];
const CALL = '<tool_call>\n{"name": "f", "arguments": {"a": "x"}}\n</tool_call>';

function streamed(text: string, at: number, thinking: "auto" | "closed"): { deltas: string; content: string } {
  const parser = createParser({ tools, format: "hermes", thinking, text: "exact" });
  const events = [...parser.feed(text.slice(0, at)), ...parser.feed(text.slice(at)), ...parser.end()];
  const finish = events.at(-1)!;
  if (finish.type !== "finish") throw new Error("no finish");
  return { deltas: events.map((e) => (e.type === "text-delta" ? e.text : "")).join(""), content: finish.result.content };
}

describe('parser text: "exact"', () => {
  const cases: [string, string, "auto" | "closed", string][] = [
    ["spaces around a choice", " x ", "closed", " x "],
    ["a regex's indentation and final newline", "  def f():\n    return 1\n", "closed", "  def f():\n    return 1\n"],
    ["a whitespace-only answer", "   ", "closed", "   "],
    ["the template's blank line after </think> only", "<think>\nr\n</think>\n\n x \n", "auto", " x \n"],
    ["calls: their framing is not the answer's", `${CALL}\n${CALL}\n`, "closed", ""],
  ];
  for (const [what, text, thinking, content] of cases) {
    test(`${what}: the content, and the same deltas for every split`, () => {
      expect(parse(text, { tools, format: "hermes", thinking, text: "exact" }).content).toBe(content);
      for (let at = 0; at <= text.length; at++) expect(streamed(text, at, thinking), `split at ${at}`).toEqual({ deltas: content, content });
    });
  }

  test("the default still trims", () => {
    expect(parse(" x ", { format: "hermes", thinking: "closed" }).content).toBe("x");
  });
});
