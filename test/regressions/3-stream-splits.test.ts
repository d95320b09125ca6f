// Issue 3: every split of these outputs into two or three chunks gives the batch events. They cover what the
// scanner must hold back: a fence or bare block at offset 0 (checked without a prepended newline), tags cut
// anywhere, a lone </think> deciding the start, and an unclosed final block.
import { describe, expect, it } from "vitest";
import { counterIds, feedAll, normalizeEvents, TOOLS } from "../parse/helpers.js";

const FIXTURES = [
  "```\n<tool_call>\n{}\n</tool_call>\n```\n<tool_call>\n{\"name\": \"run_tests\", \"arguments\": {}}\n</tool_call>",
  "  <function=read_file>\n<path>a</path>\n</function>\ntext",
  "plan</think>\n\n~~~\nx\n~~~\n<tool_call>\n<function=run_tests>\n</function>\n</tool_call>",
  "<think>a</think>b\n  ```\n</tool_call><think>c</think>\n<tool_call>\n{\"name\": \"read_file\", \"arg",
];

function* splits(text: string): Generator<string[]> {
  for (let i = 1; i < text.length; i++) {
    yield [text.slice(0, i), text.slice(i)];
    for (let j = i + 1; j < text.length; j += 3) yield [text.slice(0, i), text.slice(i, j), text.slice(j)];
  }
}

describe("every 2- and 3-chunk split equals batch", () => {
  for (const [n, text] of FIXTURES.entries()) {
    it(`fixture ${n}`, () => {
      for (const thinking of ["auto", "closed"] as const) {
        const opts = { tools: TOOLS, thinking };
        const batch = normalizeEvents(feedAll([text], { ...opts, newId: counterIds() }, true));
        for (const chunks of splits(text)) {
          expect(normalizeEvents(feedAll(chunks, { ...opts, newId: counterIds() }, true))).toEqual(batch);
        }
      }
    });
  }
});
