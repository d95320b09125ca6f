// StreamDetokenizer: a character split across tokens is emitted whole, once, however many tokens in a row end
// inside one; invalid bytes become U+FFFD and are still emitted; the concatenated output equals the batch
// decoding for every split.

import { describe, expect, test } from "vitest";
import { StreamDetokenizer } from "../../src/runtime/detokenizer.js";

/** A fake vocabulary: token i is the byte sequence BYTES[i]; decoding is UTF-8 with replacement. */
const BYTES: number[][] = [[0x61], [0x62, 0x63], [0xe4], [0xb8], [0xad], [0xf8], [0xf0, 0x9f], [0x98, 0x80], [0x20], [0xe1, 0x9e], [0x92, 0xe1, 0x9e], [0x92]];
const decode = (tokens: number[]) => Buffer.from(tokens.flatMap((t) => BYTES[t]!)).toString("utf8");

function stream(tokens: number[], chunk = 1): string[] {
  const d = new StreamDetokenizer((t) => Uint8Array.from(BYTES[t]!));
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += chunk) out.push(d.push(tokens.slice(i, i + chunk)));
  out.push(d.flush());
  return out;
}

describe("StreamDetokenizer", () => {
  test("holds back an incomplete character until it completes", () => {
    // "a" + 中 (e4 b8 ad split over three tokens) + "bc"
    expect(stream([0, 2, 3, 4, 1])).toEqual(["a", "", "", "中", "bc", ""]);
    // 😀 (f0 9f 98 80) over two tokens
    expect(stream([6, 7, 8])).toEqual(["", "😀", " ", ""]);
  });

  test("an invalid byte is emitted as U+FFFD once text follows it, or at the end", () => {
    expect(stream([0, 5, 0]).join("")).toBe("a\uFFFDa");
    expect(stream([0, 2])).toEqual(["a", "", "\uFFFD"]);
  });

  test("any chunking concatenates to the batch decoding", () => {
    const tokens = [0, 2, 3, 4, 5, 6, 7, 1, 2, 8, 3, 4, 6];
    for (const chunk of [1, 2, 3, 5, tokens.length]) expect(stream(tokens, chunk).join("")).toBe(decode(tokens));
  });

  test("a run of tokens that each end inside a character (ធ straddled 20 times) is emitted whole, no U+FFFD", () => {
    // The old detokenizer gave up after 8 tokens held back and emitted the unfinished tail as U+FFFD.
    const run = [9, ...Array.from({ length: 19 }, () => 10), 11];
    const out = stream(run);
    expect(out.join("")).toBe("ធ".repeat(20));
    expect(out.join("")).not.toContain("\uFFFD");
  });

  test("a leading U+FEFF is text, not a byte-order mark to drop", () => {
    const d = new StreamDetokenizer(() => Uint8Array.from([0xef, 0xbb, 0xbf]));
    expect(d.push([0]) + d.flush()).toBe("\uFEFF");
  });
});
