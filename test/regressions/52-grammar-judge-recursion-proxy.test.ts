// Issue 52, row 3 in proxy mode: the grammar judge recursed once per rule reference, so a long answer under
// `root ::= "a" root | "a"` overflowed the call stack (a 500; a stream sent the whole answer, then an error event
// and no [DONE]). Here an upstream on 127.0.0.1 answers 60,000 a's (under the judge's 65,536-character bound):
// the engine judges it one code point at a time, with no recursion.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createOpenAIChatRuntime } from "../../src/engines/index.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";
import { healthPoller } from "../helpers/health-poll.js";
import { post, start, type Running } from "../server/helpers.js";

const ANSWER = "a".repeat(60_000);

let fake: FakeUpstream;
let server: Running;
beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.chatText = ANSWER;
  server = await start({ runtime: await createOpenAIChatRuntime(fake.url), onInternalError: () => undefined });
});
afterAll(async () => {
  await server?.app.close();
  await fake?.stop();
});

const body = (stream: boolean) => ({ model: "m", messages: [{ role: "user", content: "write a" }], guided_grammar: 'root ::= "a" root | "a"', seed: 1, max_tokens: 4096, stream });

describe("issue 52 row 3: a right-recursive grammar over a long upstream answer", () => {
  test("not streamed: 200, the answer accepted", async () => {
    const health = healthPoller(server.url);
    const res = await post(`${server.url}/v1/chat/completions`, body(false));
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.content).toBe(ANSWER);
    expect(res.json.qtc.answer).toEqual({ ok: true, constraint: "grammar", ended: "stop" });
    expect(await health.stop(), "slowest /health (ms)").toBeLessThan(1000);
  }, 30_000);

  test("streamed: no error event, and the stream ends with [DONE]", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, body(true));
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('"error"');
    expect(res.text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  }, 30_000);
});
