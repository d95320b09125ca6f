// JsonRespeller: any value in the call's spelling (json.dumps separators, any escapes), cut anywhere, re-spells to
// exactly JSON.stringify of its parsed value, and stops at the value's end.

import { describe, expect, test } from "vitest";
import { canonicalJson } from "../../src/grammar/canonical-json.js";
import { JsonRespeller } from "../../src/runtime/json-respeller.js";

function respell(chunks: readonly string[]): { out: string; rest: string; unsafe: boolean } {
  const r = new JsonRespeller();
  let out = "";
  let rest = "";
  for (const chunk of chunks) {
    if (r.done) {
      rest += chunk;
      continue;
    }
    const { out: o, used } = r.push(chunk);
    out += o;
    rest += chunk.slice(used);
  }
  return { out, rest, unsafe: r.unsafe };
}

/** Every split of `text` into 1, 2 and 3 pieces, and one character at a time. */
function* splitsOf(text: string): Generator<string[]> {
  yield [text];
  yield [...text];
  for (let i = 1; i < text.length; i++) {
    yield [text.slice(0, i), text.slice(i)];
    for (let j = i + 1; j < text.length; j += 3) yield [text.slice(0, i), text.slice(i, j), text.slice(j)];
  }
}

const VALUES: unknown[] = [
  { path: "a.ts", content: "line 1\nline 2\t\"quoted\" \\ back" },
  { n: 1.5, big: 1e21, neg: -0, small: 1e-7, t: true, f: false, z: null, list: [1, [2, {}], [], "x"] },
  { emoji: "😀 é ü \u2028", ctrl: "\u0001\u001f", nested: { deep: { deeper: ["a", { b: "c" }] } } },
];

describe("JsonRespeller", () => {
  test("json.dumps spelling, split anywhere, re-spells to JSON.stringify; text after the value is left", () => {
    for (const value of VALUES) {
      const text = canonicalJson(value) + "}\n</tool_call>";
      for (const chunks of splitsOf(text)) {
        const got = respell(chunks);
        expect(got.out).toBe(JSON.stringify(value));
        expect(got.rest).toBe("}\n</tool_call>");
        expect(got.unsafe).toBe(false);
      }
    }
  });

  test("escapes are normalized as JSON.stringify writes them (\\/, \\u00e9, a surrogate pair, a lone surrogate)", () => {
    const text = '{"a": "\\/\\u00e9\\ud83d\\ude00\\u0041\\u001F\\ud800x", "b": 1.0, "c": 2E2}';
    for (const chunks of splitsOf(text)) expect(respell(chunks).out).toBe(JSON.stringify(JSON.parse(text)));
  });

  test("a member name JSON.stringify would move (an array index) marks the text unsafe", () => {
    expect(respell(['{"a": 1, "5": 2}']).unsafe).toBe(true);
    expect(respell(['{"a": 1, "05": 2}']).unsafe).toBe(false);
  });
});
