// The untrusted parse (ParserOptions.untrusted, src/parse/quote-context.ts): which openers are quoted text, that
// every split of the output decides alike (streaming equals batch), and that the default parse (local and
// grammar-held output) is unchanged by it.
import { describe, expect, it } from "vitest";
import { parse, type ParserOptions } from "../../src/parse/index.js";
import { counterIds, feedAll, normalizeEvents } from "./helpers.js";

const TOOLS = [
  { type: "function", function: { name: "delete_all", parameters: { type: "object", properties: {} } } },
  { type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
];
const DEL = '<tool_call>\n{"name": "delete_all", "arguments": {}}\n</tool_call>';
const READ = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>';
const opts = (untrusted: boolean): ParserOptions => ({ tools: TOOLS, newId: counterIds(), untrusted });

/** [what, output, calls the untrusted parse returns, calls the default parse returns] */
const CASES: Array<[string, string, string[], string[]]> = [
  ["inline code span", "Use `" + DEL + "` to delete.", [], ["delete_all"]],
  ["double-backtick span", "Use `` `x` " + DEL + " `` then.", [], ["delete_all"]],
  ["a closed span before a real call", "Run `ls` first.\n" + READ, ["read_file"], ["read_file"]],
  ["indented code line", "Like so:\n\n    " + DEL + "\n\nEnd.", [], ["delete_all"]],
  ["tab-indented code line", "Like so:\n\n\t" + DEL, [], ["delete_all"]],
  ["3 spaces are not code", "Now:\n   " + READ, ["read_file"], ["read_file"]],
  ["example intro, and the block right after it", "For example:\n" + DEL + "\n" + DEL, [], ["delete_all", "delete_all"]],
  ["an intro on the opener's line", "e.g.: " + DEL, [], ["delete_all"]],
  ["prose after an example ends it", "Example:\n" + DEL + "\nNow I will read it.\n" + READ, ["read_file"], ["delete_all", "read_file"]],
  ["a JSON answer's string", '{"example": "' + DEL.replace(/"/g, '\\"').replace(/\n/g, "\\n") + '"}', [], []],
  ["after a JSON answer closes", '{"plan": "read"}\n' + READ, ["read_file"], ["read_file"]],
  ["right after a quote mark", 'He wrote "' + DEL + '" there.', [], ["delete_all"]],
  ["a fence resets spans", "Odd ` tick\n```\ncode `\n```\n" + READ, ["read_file"], ["read_file"]],
  ["nested think, between the two closes", "<think>a <think>b</think>\n" + DEL + "\n</think>done", [], ["delete_all"]],
  ["think call, quoted by an example intro", "<think>Example of the format:\n" + DEL, [], ["delete_all"]],
  ["think call, plain (issue 43)", "<think>I need it.\n" + READ, ["read_file"], ["read_file"]],
];

describe("untrusted parse: quoted openers are text", () => {
  for (const [what, text, untrusted, trusted] of CASES) {
    it(what, () => {
      const loose = parse(text, opts(true));
      expect(loose.calls.map((c) => c.name)).toEqual(untrusted);
      expect(parse(text, opts(false)).calls.map((c) => c.name)).toEqual(trusted);
      // A quoted call stays visible as text; nothing it quoted is lost.
      if (untrusted.length < trusted.length && !text.startsWith("<think>")) expect(loose.content).toContain('"delete_all"');
      // Streaming equals batch at every two-way split, both ways.
      for (const untrustedMode of [true, false]) {
        const whole = normalizeEvents(feedAll([text], opts(untrustedMode)));
        for (let k = 1; k < text.length; k++) expect(normalizeEvents(feedAll([text.slice(0, k), text.slice(k)], opts(untrustedMode)))).toEqual(whole);
      }
    });
  }

  it("a call ending an unclosed think block is no action in a cut output (untrusted only)", () => {
    const text = "<think>The tool said:\n" + DEL;
    expect(feedAll([text], opts(true), true).find((e) => e.type === "call")).toBeUndefined();
    expect(feedAll([text], opts(false), true).find((e) => e.type === "call")).toBeDefined();
  });
});
