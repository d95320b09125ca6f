// A call written without its `<tool_call>` opener: `<function=` at a line start (the parser's bare block) starts
// the grammar under tool choice "auto", right after that text, and is banned under "none" as the open tag is.
// The stand-in is a scripted Qwen3.5 model (writeSyntheticModel's `script`): after any other token it writes
// "\n", then "<", "function", "=", and after "=" every token is equally likely — so it opens a bare call at
// once and then samples at random (the adversary), on Qwen3.5's vocabulary layout and template.

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { createRuntime, type GenerateRequest, type Runtime } from "../../src/index.js";
import { writeSyntheticModel } from "../../src/model/synthetic.js";
import { modelsDir } from "../../src/model/paths.js";
import { bareState } from "../../src/runtime/bare-opener.js";
import { toByteLevel } from "../../src/model/byte-level.js";
import { readQwen35Vocab } from "../../src/model/qwen35-vocab.js";

const OPENER = "<function=";
const SEEDS = 5;
/** The machine may be shared and slow: generous limits (no test asserts time). */
const LIMIT_MS = 900_000;
/** The texts the stand-in is scripted to write, one token each; their ids are looked up in its vocabulary. */
const SCRIPT_TEXTS = ["\n", "<", "function", "="];
const bareAtLineStart = /(^|\n)[ \t]*<function=/;

describe("bareState: where the parser would read a bare block", () => {
  it("the whole opener at a line start, after indentation, or at the start of the text", () => {
    expect(bareState(OPENER, "<function=")).toEqual({ kind: "opened" });
    expect(bareState(OPENER, "I will read it.\n  <function=")).toEqual({ kind: "opened" });
    expect(bareState(OPENER, "text\n\t<function=")).toEqual({ kind: "opened" });
  });

  it("a prefix of it at a line start is partial, with the text that would complete it", () => {
    expect(bareState(OPENER, "prose\n<func")).toEqual({ kind: "partial", rest: "tion=" });
    expect(bareState(OPENER, "prose\n")).toEqual({ kind: "partial", rest: OPENER });
  });

  it("not after other text on its line, past 16 spaces, or inside a code fence", () => {
    expect(bareState(OPENER, "see <function=")).toEqual({ kind: "none" });
    expect(bareState(OPENER, `\n${" ".repeat(17)}<function=`)).toEqual({ kind: "none" });
    expect(bareState(OPENER, "```xml\n<function=")).toEqual({ kind: "none" });
    expect(bareState(OPENER, "```xml\nx\n```\n<function=")).toEqual({ kind: "opened" });
  });
});

let rt: Runtime;
beforeAll(async () => {
  const out = join(modelsDir(), "synthetic-qwen3.5-tiny-bare-opener-q8_0.gguf");
  // Real Qwen3.5 ids when its merges are in the data folder ("function" is 1628), else the approximate
  // stand-in's (Qwen3's: 1688): read from the vocabulary the model is written with, never hard-coded.
  const { tokens } = await readQwen35Vocab();
  const script = SCRIPT_TEXTS.map((text) => tokens.indexOf(toByteLevel(text)));
  expect(script).not.toContain(-1);
  await writeSyntheticModel({ out, vocabulary: "qwen3.5", script });
  rt = await createRuntime({ model: out, threads: 1, contextSize: 1536 });
}, LIMIT_MS);
afterAll(async () => {
  await rt?.close();
});

const request = (seed: number, extra: Partial<GenerateRequest>): GenerateRequest => ({
  messages: [{ role: "user", content: "Read src/index.js" }],
  tools: [...HARNESS_TOOLS],
  maxTokens: 64 + 16 * seed,
  seed,
  ...extra,
});

describe(`a stand-in that writes bare openers, ${SEEDS} seeds per mode`, () => {
  it("unconstrained, it writes bare openers no parser reads as a valid call (the control)", async () => {
    for (let seed = 0; seed < SEEDS; seed++) {
      const r = await rt.generate(request(seed, { mode: "unconstrained" }));
      expect(r.format).toBe("qwen35");
      expect(r.raw).toMatch(bareAtLineStart);
      expect(r.toolCalls).toHaveLength(0);
    }
  }, LIMIT_MS);

  it("constrained under auto, each bare opener is held to a valid call, none cut off", async () => {
    let calls = 0;
    for (let seed = 0; seed < SEEDS; seed++) {
      for (const stream of [false, true]) {
        const req = request(seed, { mode: "constrained", toolChoice: "auto" });
        const r = stream ? await resultOfStream(rt, req) : await rt.generate(req);
        expect(r.raw.startsWith(`\n${OPENER}`), JSON.stringify(r.raw.slice(0, 80))).toBe(true);
        expect(r.errors, JSON.stringify(r.raw)).toEqual([]);
        expect(r.toolCalls.length).toBeGreaterThanOrEqual(1);
        expect(r.diagnostics.detected).toBe(r.toolCalls.length);
        expect(r.finishReason).toBe("tool_calls");
        expect(r.usage.completionTokens).toBeLessThanOrEqual(req.maxTokens!);
        calls += r.toolCalls.length;
      }
    }
    expect(calls).toBeGreaterThanOrEqual(2 * SEEDS);
  }, LIMIT_MS);

  it('under tool choice "none" it never completes the opener (nor writes the open tag)', async () => {
    for (let seed = 0; seed < SEEDS; seed++) {
      const r = await rt.generate(request(seed, { mode: "constrained", toolChoice: "none" }));
      expect(r.raw).not.toMatch(bareAtLineStart);
      expect(r.raw).not.toContain("<tool_call>");
      expect(r.raw).toContain("\n<function");
      expect(r.toolCalls).toHaveLength(0);
      expect(r.diagnostics.detected).toBe(0);
    }
  }, LIMIT_MS);
});

async function resultOfStream(runtime: Runtime, req: GenerateRequest) {
  for await (const e of runtime.stream(req)) if (e.type === "done") return e.result;
  throw new Error("no done event");
}
