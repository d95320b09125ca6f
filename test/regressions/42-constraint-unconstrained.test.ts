// Issue 42: unconstrained, an answer that breaks the constraint is refused with its reason in the response's `qtc`
// (the same judge as constrained turns), on chat completions (whole and streamed) and text completions.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { tinyModelPath } from "../helpers/models.js";
import { parseSse, post, start, type Running } from "../server/helpers.js";

let runtime: Runtime;
let server: Running;

beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1024, sequences: 1, gpu: "cpu" });
  server = await start({ runtime, mode: "unconstrained" });
}, 60_000);
afterAll(async () => {
  await server?.app.close();
  await runtime?.close();
});

const refused = { ok: false, constraint: "choice", reason: "choice", message: 'the answer must be exactly one of "PASS", "FAIL", "SKIP"' };

describe("issue 42: unconstrained answers are judged against the constraint", () => {
  test("chat completions, whole and streamed: qtc.answer refuses a free-text answer with its reason", async () => {
    const body = { model: "m", messages: [{ role: "user", content: "verdict?" }], max_tokens: 24, seed: 3, structured_outputs: { choice: ["PASS", "FAIL", "SKIP"] } };
    const whole = await post(`${server.url}/v1/chat/completions`, body);
    expect(whole.status).toBe(200);
    expect(["PASS", "FAIL", "SKIP"]).not.toContain(whole.json.choices[0].message.content);
    expect(whole.json.qtc.answer).toEqual(whole.json.choices[0].finish_reason === "length" ? { ...refused, ended: "length", reason: "truncated", message: expect.any(String) } : { ...refused, ended: "stop" });
    const streamed = await post(`${server.url}/v1/chat/completions`, { ...body, stream: true });
    const last = parseSse(streamed.text).filter((f) => f.data !== "[DONE]").at(-1)!.data;
    expect(last.qtc.answer).toEqual(whole.json.qtc.answer);
  });

  test("text completions: the same judge on a raw prompt", async () => {
    const r = await post(`${server.url}/v1/completions`, { model: "m", prompt: "Ticket:", max_tokens: 8, seed: 1, grammar: 'root ::= "T-" [0-9]{4}' });
    expect(r.status).toBe(200);
    expect(r.json.qtc.answer).toMatchObject({ ok: false, constraint: "grammar" });
    expect(["grammar", "truncated"]).toContain(r.json.qtc.answer.reason);
  });
});
