// Issue 52, row 1: a stream carried a call that the final body rejected. A keyword left to the validator under the
// default `--unsupported validate` (here `allOf` of two patterns) let the grammar write a call that failed the check,
// and the argument streamer sent its id, name and whole arguments anyway, on chat, Anthropic and Responses streams, in
// all three formats; the stream then ended `stop` with the call in `qtc.rejected_calls`. Now a call whose validity
// depends on the validator is held whole (id and name too) until the parser has judged it: a stream only carries
// calls the body has, and under `required` a turn whose every call was rejected is 400 `no_valid_call` (row 14).

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { tinyModelPath, tinyQwen35ModelPath } from "../helpers/models.js";
import { parseSse, post, type Running, start } from "../server/helpers.js";

// "…|a.{11}$" (an `a` twelve characters from the end: 2^12 DFA states) keeps the two patterns past what the grammar's
// automata hold (regex-dfa.ts), so the validator still judges them.
const SCHEMA = { type: "object", properties: { v: { type: "string", allOf: [{ pattern: "^a" }, { pattern: "b$|a.{11}$" }] } }, required: ["v"] };
/** What the validator (and so the body) accepts: the check the grammar leaves to it. */
const valid = (args: string) => {
  const v = (JSON.parse(args) as { v?: unknown }).v;
  return typeof v === "string" && v.startsWith("a") && v.endsWith("b");
};
const SEEDS = [1, 2, 3];
const LIMIT_MS = 300_000;

interface Served {
  runtime: Runtime;
  server: Running;
}
const served: Record<string, Served> = {};

beforeAll(async () => {
  const tiny = await tinyModelPath();
  const qwen35 = await tinyQwen35ModelPath();
  for (const [name, options] of [
    ["hermes", { model: tiny }],
    ["qwen3coder", { model: tiny, format: "qwen3coder" as const }],
    ["qwen35", { model: qwen35 }],
  ] as const) {
    const runtime = await createRuntime({ ...options, threads: 1, contextSize: 2048, sequences: 1, gpu: "cpu" });
    served[name] = { runtime, server: await start({ runtime }) };
  }
}, LIMIT_MS);
afterAll(async () => {
  for (const s of Object.values(served)) {
    await s.server.app.close();
    await s.runtime.close();
  }
});

/** What one stream carried: each call's name and the arguments its deltas add up to, and what the end says. */
interface Streamed {
  calls: { name: string; args: string }[];
  /** Calls the stream's end (finish reason, stop reason, response.completed) says the turn made. */
  finalCalls: number;
}

type Route = (url: string, choice: "auto" | "required", seed: number) => Promise<{ status: number; streamed?: Streamed; code?: string }>;

const chat: Route = async (url, choice, seed) => {
  const tools = [{ type: "function", function: { name: "f", parameters: SCHEMA } }];
  const res = await post(`${url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }], tools, tool_choice: choice, seed, max_tokens: 64, stream: true });
  if (res.status !== 200) return { status: res.status, code: res.json?.error?.code };
  const calls: { name: string; args: string }[] = [];
  let finish = "";
  for (const frame of parseSse(res.text)) {
    if (frame.data === "[DONE]") continue;
    const choice0 = frame.data.choices?.[0];
    for (const d of choice0?.delta?.tool_calls ?? []) {
      if (d.id) calls[d.index] = { name: d.function.name, args: "" };
      calls[d.index]!.args += d.function.arguments ?? "";
    }
    if (choice0?.finish_reason) finish = choice0.finish_reason;
  }
  return { status: 200, streamed: { calls, finalCalls: finish === "tool_calls" ? Math.max(1, calls.length) : 0 } };
};

// Anthropic's and the Responses API's bodies carry no seed: their turns are sampled with the runtime's own.
const messages: Route = async (url, choice) => {
  const tools = [{ name: "f", input_schema: SCHEMA }];
  const body = { model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }], tools, tool_choice: { type: choice === "required" ? "any" : "auto" }, stream: true };
  const res = await post(`${url}/v1/messages`, body);
  if (res.status !== 200) return { status: res.status, code: res.json?.error?.type };
  const calls: { name: string; args: string }[] = [];
  const byBlock = new Map<number, { name: string; args: string }>();
  let stop = "";
  for (const frame of parseSse(res.text)) {
    const d = frame.data;
    if (d.type === "content_block_start" && d.content_block.type === "tool_use") {
      const call = { name: d.content_block.name, args: "" };
      byBlock.set(d.index, call);
      calls.push(call);
    }
    if (d.type === "content_block_delta" && d.delta.type === "input_json_delta") byBlock.get(d.index)!.args += d.delta.partial_json;
    if (d.type === "message_delta") stop = d.delta.stop_reason;
  }
  return { status: 200, streamed: { calls, finalCalls: stop === "tool_use" ? Math.max(1, calls.length) : 0 } };
};

const responses: Route = async (url, choice) => {
  const tools = [{ type: "function", name: "f", parameters: SCHEMA }];
  const res = await post(`${url}/v1/responses`, { model: "m", input: "hi", tools, tool_choice: choice, max_output_tokens: 64, stream: true });
  if (res.status !== 200) return { status: res.status, code: res.json?.error?.code };
  const calls: { name: string; args: string }[] = [];
  const byItem = new Map<string, { name: string; args: string }>();
  let finalCalls = 0;
  for (const frame of parseSse(res.text)) {
    const d = frame.data;
    if (d.type === "response.output_item.added" && d.item.type === "function_call") {
      const call = { name: d.item.name, args: "" };
      byItem.set(d.item.id, call);
      calls.push(call);
    }
    if (d.type === "response.function_call_arguments.delta") byItem.get(d.item_id)!.args += d.delta;
    if (d.type === "response.completed" || d.type === "response.incomplete") finalCalls = d.response.output.filter((i: { type: string }) => i.type === "function_call").length;
  }
  return { status: 200, streamed: { calls, finalCalls } };
};

const ROUTES: Record<string, Route> = { chat, messages, responses };

describe("a stream carries only calls the body has (allOf of two patterns, left to the validator)", () => {
  for (const format of ["hermes", "qwen3coder", "qwen35"]) {
    for (const [route, send] of Object.entries(ROUTES)) {
      test(`${format}, ${route}: every streamed call passes the check, and the stream's end counts exactly them`, async () => {
        const url = served[format]!.server.url;
        let refused = 0;
        for (const choice of ["required", "auto"] as const) {
          for (const seed of SEEDS) {
            const r = await send(url, choice, seed);
            if (r.status !== 200) {
              // Only `required` may be refused, and only as the one answer every engine gives.
              expect([choice, r.status, r.code]).toEqual(["required", 400, route === "messages" ? "invalid_request_error" : "no_valid_call"]);
              refused++;
              continue;
            }
            const { calls, finalCalls } = r.streamed!;
            for (const call of calls) {
              expect(call.name).toBe("f");
              expect(valid(call.args), `streamed arguments ${call.args} (seed ${seed}, ${choice})`).toBe(true);
            }
            expect(calls.length).toBe(finalCalls);
          }
        }
        // The tiny model fails these patterns on these seeds: the refusals show the held calls were rejected ones.
        expect(refused).toBeGreaterThan(0);
      }, LIMIT_MS);
    }
  }
});
