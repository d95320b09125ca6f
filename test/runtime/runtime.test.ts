// Runtime behaviour through the public API with the synthetic tiny model (random weights): modes, tool
// choices, seeds, the <tool_call> trigger, thinking, streaming, cancellation, concurrency, bad input.

import type { Llama, LlamaModel, Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QWEN3_TOKENS } from "../../src/formats/index.js";
import { createRuntime, type GenerateEvent, type GenerateOutput, type GenerateRequest, type Runtime } from "../../src/index.js";
import { QtcException } from "../../src/errors.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { createLlama } from "../../src/model/index.js";
import { tinyModelPath } from "../helpers/models.js";

let rt: Runtime;
let llama: Llama;
/** The same model, vocabulary only: detokenizes results in checks. */
let vocab: LlamaModel;
const messages = [{ role: "user" as const, content: "Show me the files under src, then read the main one." }];
const base: GenerateRequest = { messages, tools: [...HARNESS_TOOLS], maxTokens: 96, seed: 11 };

beforeAll(async () => {
  const path = await tinyModelPath();
  rt = await createRuntime({ model: path, threads: 1, contextSize: 1024, sequences: 4 });
  llama = await createLlama({ gpu: "cpu" });
  vocab = await llama.loadModel({ modelPath: path, vocabOnly: true });
});
afterAll(async () => {
  await rt?.close();
  await vocab?.dispose();
  await llama?.dispose();
});

/** Every call valid and the parser found nothing wrong. */
function expectValidCalls(r: GenerateOutput, atLeast = 1): void {
  expect(r.errors).toEqual([]);
  expect(r.toolCalls.length).toBeGreaterThanOrEqual(atLeast);
  expect(r.diagnostics.accepted).toBe(r.toolCalls.length);
  expect(r.diagnostics.detected).toBe(r.toolCalls.length);
}

async function collect(req: GenerateRequest): Promise<GenerateEvent[]> {
  const events: GenerateEvent[] = [];
  for await (const event of rt.stream(req)) events.push(event);
  return events;
}

describe("runtime", () => {
  test("loads the synthetic model and reports it as synthetic, hermes from its chat template", () => {
    expect(rt.modelInfo).toMatchObject({ name: "qtc-synthetic-tiny", synthetic: true });
    expect(rt.format).toBe("hermes");
    expect(rt.load).toEqual({ sequences: 4, busy: 0, waiting: 0 });
  });

  test("unconstrained: free text judged by the parser; the same seed gives the same output", async () => {
    const req: GenerateRequest = { ...base, mode: "unconstrained", maxTokens: 40 };
    const a = await rt.generate(req);
    const b = await rt.generate(req);
    const c = await rt.generate({ ...req, seed: 12 });
    expect(a.raw).toBe(b.raw);
    expect(a.tokens).toEqual(b.tokens);
    expect(c.raw).not.toBe(a.raw);
    expect(a.mode).toBe("unconstrained");
    expect(a.usage.completionTokens).toBe(a.tokens.length);
    expect(a.usage.forcedTokens).toBe(0);
    if (a.finishReason === "length") expect(a.usage.completionTokens).toBe(40);
    expect(a.usage.promptTokens).toBeGreaterThan(100);
    expect(a.timings.decodeTokensPerSecond).toBeGreaterThan(0);
  });

  test("constrained, tool choice required: the call opens at once and is valid", async () => {
    const r = await rt.generate({ ...base, toolChoice: "required" });
    expectValidCalls(r);
    expect(r.raw.startsWith(QWEN3_TOKENS.toolCallOpen.text + "\n")).toBe(true);
    expect(r.finishReason).toBe("tool_calls");
    expect(r.usage.completionTokens).toBe(r.tokens.length);
    expect(r.usage.completionTokens).toBeLessThanOrEqual(96);
  });

  test("constrained, a named tool: exactly that function", async () => {
    for (const name of ["grep", "run_tests"]) {
      const r = await rt.generate({ ...base, toolChoice: { name } });
      expectValidCalls(r);
      expect(r.toolCalls.map((c) => c.name)).toEqual(r.toolCalls.map(() => name));
    }
  });

  test("auto: sampling is free until the model emits <tool_call>, then the grammar takes over", async () => {
    // logitBias all but forces the open tag as the first answer token; everything after it is the grammar's.
    const r = await rt.generate({ ...base, toolChoice: "auto", logitBias: { [QWEN3_TOKENS.toolCallOpen.token]: 100 } });
    expect(r.tokens[0]).toBe(QWEN3_TOKENS.toolCallOpen.token);
    expectValidCalls(r);
    // Unconstrained, the same trigger is followed by whatever the random weights write.
    const free = await rt.generate({ ...base, mode: "unconstrained", logitBias: { [QWEN3_TOKENS.toolCallOpen.token]: 100 } });
    expect(free.tokens[0]).toBe(QWEN3_TOKENS.toolCallOpen.token);
    expect(free.toolCalls).toEqual([]);
  });

  test("tool choice none bans the <tool_call> token, even against a logit bias", async () => {
    const r = await rt.generate({ ...base, toolChoice: "none", maxTokens: 24, logitBias: { [QWEN3_TOKENS.toolCallOpen.token]: 100 } });
    expect(r.tokens).not.toContain(QWEN3_TOKENS.toolCallOpen.token);
    expect(r.toolCalls).toEqual([]);
    expect(r.diagnostics.detected).toBe(0);
  });

  test("thinking: <think> is free up to its budget, then </think> is forced and the call follows", async () => {
    const r = await rt.generate({ ...base, toolChoice: "required", thinking: true, thinkingBudget: 8, maxTokens: 128 });
    expect(r.tokens[0]).toBe(QWEN3_TOKENS.thinkOpen.token);
    const close = r.tokens.indexOf(QWEN3_TOKENS.thinkClose.token);
    expect(close).toBeGreaterThan(0);
    expect(close).toBeLessThanOrEqual(8);
    expect(r.reasoning).not.toBeNull();
    expect(r.raw).toContain(`${QWEN3_TOKENS.thinkClose.text}\n\n${QWEN3_TOKENS.toolCallOpen.text}`);
    expectValidCalls(r);
  });

  test("streaming: text deltas concatenate to content; each call arrives once, complete; done carries the result", async () => {
    for (const req of [{ ...base, toolChoice: "required" as const }, { ...base, mode: "unconstrained" as const, maxTokens: 30 }]) {
      const events = await collect(req);
      const done = events[events.length - 1];
      expect(done?.type).toBe("done");
      if (done?.type !== "done") return;
      const text = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
      expect(text).toBe(done.result.content);
      const completes = events.flatMap((e) => (e.type === "tool-call" ? [e.call] : []));
      expect(completes).toEqual(done.result.toolCalls);
      expect(new Set(completes.map((c) => c.id)).size).toBe(completes.length);
      for (const [index, call] of completes.entries()) {
        const deltas = events.flatMap((e) => (e.type === "tool-call-delta" && e.index === index ? [e.argumentsDelta] : []));
        expect(deltas.join("")).toBe(call.arguments);
        expect(events.filter((e) => e.type === "tool-call-start" && e.index === index)).toHaveLength(1);
      }
      expect(events.filter((e) => e.type === "error").length).toBe(done.result.errors.length);
    }
  });

  test("cancel: an aborted stream stops within one token and frees its sequence", async () => {
    const ac = new AbortController();
    let deliveredText = "";
    let result: GenerateOutput | undefined;
    for await (const event of rt.stream({ ...base, mode: "unconstrained", maxTokens: 200, signal: ac.signal })) {
      if (event.type === "text-delta" && !ac.signal.aborted) {
        deliveredText += event.text;
        ac.abort();
      }
      if (event.type === "done") result = event.result as GenerateOutput;
    }
    expect(result?.finishReason).toBe("aborted");
    // The fewest tokens that produce the text delivered before the abort; the turn added at most one more.
    const tokens = result!.tokens;
    let needed = 1;
    while (needed < tokens.length && !vocab.detokenize(tokens.slice(0, needed) as Token[], true).includes(deliveredText)) needed++;
    expect(deliveredText.length).toBeGreaterThan(0);
    expect(tokens.length).toBeLessThanOrEqual(needed + 1);
    expect(rt.load.busy).toBe(0);
    // An abort while waiting for a sequence returns at once, with nothing generated.
    const pre = new AbortController();
    pre.abort();
    const r = await rt.generate({ ...base, signal: pre.signal });
    expect(r.finishReason).toBe("aborted");
    expect(r.usage.completionTokens).toBe(0);
  });

  test("a consumer that stops reading a stream frees its sequence; the next request runs normally", async () => {
    for await (const event of rt.stream({ ...base, mode: "unconstrained", maxTokens: 200 })) {
      if (event.type === "text-delta") break;
    }
    expect(rt.load.busy).toBe(0);
    const r = await rt.generate({ ...base, toolChoice: "required" });
    expectValidCalls(r);
  });

  test("4 concurrent generates on one runtime all complete with valid calls, and a 5th waits for a sequence", async () => {
    const reqs = [0, 1, 2, 3, 4].map((i) => ({ ...base, toolChoice: "required" as const, seed: 100 + i }));
    const pending = reqs.map((req) => rt.generate(req));
    await new Promise((resolve) => setImmediate(resolve));
    expect(rt.load).toEqual({ sequences: 4, busy: 4, waiting: 1 });
    const together = await Promise.all(pending);
    for (const r of together) expectValidCalls(r);
    expect(new Set(together.flatMap((r) => r.toolCalls.map((c) => c.id))).size).toBe(together.reduce((n, r) => n + r.toolCalls.length, 0));
    expect(rt.load).toEqual({ sequences: 4, busy: 0, waiting: 0 });
  });

  test("bad input throws a QtcException with a stable code before anything runs", async () => {
    const code = async (req: GenerateRequest) => {
      try {
        await rt.generate(req);
        return "no error";
      } catch (e) {
        return e instanceof QtcException ? e.code : String(e);
      }
    };
    expect(await code({ ...base, maxTokens: 0 })).toBe("invalid_option");
    expect(await code({ ...base, toolChoice: { name: "rm_rf" } })).toBe("invalid_tool_choice");
    expect(await code({ ...base, tools: [], toolChoice: "required" })).toBe("invalid_tool_choice");
    expect(await code({ ...base, maxTokens: 5000 })).toBe("invalid_option");
    expect(await code({ ...base, messages: [] })).toBe("invalid_messages");
    expect(await code({ ...base, logitBias: { 999999: 1 } })).toBe("invalid_option");
    expect(rt.load.busy).toBe(0);
  });
});
