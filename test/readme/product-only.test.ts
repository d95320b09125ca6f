// The README is about the product: it names no issue numbers and tells no session history (those are in the
// project's records and CHANGELOG.md, not in what a new user reads first).

import { expect, it } from "vitest";
import { readmeText } from "./readme-blocks.js";

/** Lines of `markdown` that cite an issue or a work session. */
export function historyLines(markdown: string): string[] {
  return markdown
    .split("\n")
    .filter((l) => /\bissues?[ -]#?\d+|(?<![\w/&])#\d+\b|\bsession \d+|\bround \d+/i.test(l));
}

it("the README names no issue number and no session", () => {
  expect(historyLines(readmeText())).toEqual([]);
});

it("catches each spelling", () => {
  const lines = ["fixed in issue 38", "see #38", "(session 10, below)", "the issue-14 redesign", "day one, round 5", "`hf:user/repo#x` and &#38; stay", "color #fff"];
  expect(historyLines(lines.join("\n"))).toEqual(lines.slice(0, 5));
});
