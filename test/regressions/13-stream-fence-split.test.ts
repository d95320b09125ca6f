// Issue 13, item 3: a fence of 4+ backticks or tildes cut by a chunk after its third character was recorded as
// a 3-character fence, so an inner ``` line closed it and the call inside was emitted. The runtime feeds the
// parser token by token, so generation takes this path. Every split of these outputs must equal batch, and no
// call may come out of the fence.
import { describe, expect, it } from "vitest";
import { counterIds, feedAll, jsonCall, normalizeEvents, resultOf, TOOLS } from "../parse/helpers.js";

const CALL = jsonCall("read_file", { path: "fenced" });
const OUTSIDE = jsonCall("run_tests", {});

function fixtures(): string[] {
  const out: string[] = [];
  for (const ch of ["`", "~"]) {
    for (let n = 4; n <= 8; n++) {
      const run = ch.repeat(n);
      const inner = ch.repeat(3);
      out.push(`Here:\n${run}\n${inner}\n${CALL}\n${inner}\n${run}\n${OUTSIDE}`);
      out.push(`${run}python\n${inner}\n${CALL}\n${run}\ndone`);
      out.push(`x\n  ${run} info\n${ch.repeat(n - 1)}\n${CALL}\n${run}`);
    }
  }
  return out;
}

function* splits(text: string): Generator<string[]> {
  for (let i = 1; i < text.length; i++) yield [text.slice(0, i), text.slice(i)];
}

describe("a long fence split after its third character stays one fence", () => {
  for (const thinking of ["closed", "auto", "open"] as const) {
    it(`thinking ${thinking}`, () => {
      for (const body of fixtures()) {
        // "open" starts inside reasoning: close it first so the fence is answer text.
        const text = thinking === "open" ? `plan</think>\n${body}` : body;
        const opts = { tools: TOOLS, thinking };
        const batch = normalizeEvents(feedAll([text], { ...opts, newId: counterIds() }));
        expect(resultOf(batch).calls.map((c) => c.parsedArguments)).not.toContainEqual({ path: "fenced" });
        for (const chunks of splits(text)) {
          const stream = normalizeEvents(feedAll(chunks, { ...opts, newId: counterIds() }));
          expect(resultOf(stream).calls.map((c) => c.parsedArguments)).not.toContainEqual({ path: "fenced" });
          expect(stream).toEqual(batch);
        }
      }
    });
  }

  it("token by token (one character per feed), every fence length 3-8 of both kinds", () => {
    for (const ch of ["`", "~"]) {
      for (let n = 3; n <= 8; n++) {
        // An inner line of 3 (or, for n = 3, of the other kind) must not close the fence.
        const decoy = n > 3 ? ch.repeat(3) : (ch === "`" ? "~~~" : "```");
        const text = `a\n${ch.repeat(n)}\n${decoy}\n${CALL}\n${ch.repeat(n)}\n${OUTSIDE}`;
        const r = resultOf(feedAll([...text], { tools: TOOLS, thinking: "closed", newId: counterIds() }));
        expect(r.calls.map((c) => c.name)).toEqual(["run_tests"]);
      }
    }
  });
});
