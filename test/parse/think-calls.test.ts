import { describe, expect, it } from "vitest";
import type { RawBlock } from "../../src/parse/block.js";
import { ThinkCalls, type ScannedRun } from "../../src/parse/think-calls.js";

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";

/** A stand-in scanner: blocks are OPEN…CLOSE, everything else is text. */
function scan(text: string): ScannedRun {
  const run: ScannedRun = { text: "", blocks: [], other: false };
  let k = 0;
  for (let j = text.indexOf(OPEN); j >= 0; j = text.indexOf(OPEN, k)) {
    run.text += text.slice(k, j);
    const e = text.indexOf(CLOSE, j);
    const end = e < 0 ? text.length : e + CLOSE.length;
    const block: RawBlock = { inner: text.slice(j + OPEN.length, e < 0 ? end : e), raw: text.slice(j, end), start: j, end, wrapped: true, closed: e >= 0, overflow: false };
    run.blocks.push(block);
    k = end;
  }
  run.text += text.slice(k);
  return run;
}

function held(reasoning: string, rest: string, before = 0): ThinkCalls {
  const t = new ThinkCalls({ open: OPEN, scan });
  t.reasoning(reasoning);
  t.hold(before + reasoning.length);
  t.append(rest);
  return t;
}

describe("ThinkCalls", () => {
  it("a run of whole blocks ending the section is returned, with the reasoning before it and shifted offsets", () => {
    const r = held("plan ", `${OPEN}a${CLOSE}\n${OPEN}b${CLOSE}\n`, 10).settle();
    expect(r?.reasoning).toBe("");
    expect(r?.blocks.map((b) => [b.inner, b.start])).toEqual([["a", 15], ["b", 40]]);
  });

  it("an earlier opener followed by reasoning stays reasoning; the last call is taken", () => {
    const r = held("", `${OPEN}a${CLOSE} then more ${OPEN}b${CLOSE}`).settle();
    expect(r?.reasoning).toBe(`${OPEN}a${CLOSE} then more `);
    expect(r?.blocks.map((b) => b.inner)).toEqual(["b"]);
  });

  it("text after the call, an open fence, a quote or an unclosed block: nothing", () => {
    expect(held("", `${OPEN}a${CLOSE} more`).settle()).toBeUndefined();
    expect(held("see:\n```\n", `${OPEN}a${CLOSE}`).settle()).toBeUndefined();
    expect(held("see `", `${OPEN}a${CLOSE}`).settle()).toBeUndefined();
    expect(held("", `${OPEN}a`).settle()).toBeUndefined();
  });

  it("a closed fence before the opener does not hide it; release gives back the held text", () => {
    expect(held("```\nx\n```\n", `${OPEN}a${CLOSE}`).settle()?.blocks).toHaveLength(1);
    const t = held("r", `${OPEN}a${CLOSE} x`);
    expect(t.release()).toBe(`${OPEN}a${CLOSE} x`);
    expect(t.holding).toBe(false);
  });
});
