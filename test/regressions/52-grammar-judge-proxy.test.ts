// Issue 52, row 2: the answer judge for `grammar` constraints blocked the event loop, its cost bounded repeats ×
// answer length. In proxy mode (an OpenAI-style upstream on 127.0.0.1), `root ::= ([a-z]|[a-z][a-z]){0,1000}` eight
// times over, judged on a 6,000-letter upstream answer, froze the whole server for 75 s. Now the grammar is vetted
// up front (a 400 naming the rule, before the upstream is asked), and a grammar that is accepted is judged by the
// constraint engine under a work bound, with /health answering throughout.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createOpenAIChatRuntime } from "../../src/engines/index.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";
import { healthPoller } from "../helpers/health-poll.js";
import { post, start, type Running } from "../server/helpers.js";

const LETTERS = "abcdefghijklmnopqrstuvwxyz".repeat(231).slice(0, 6000);

let fake: FakeUpstream;
let server: Running;
beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.chatText = LETTERS;
  server = await start({ runtime: await createOpenAIChatRuntime(fake.url), onInternalError: () => undefined });
});
afterAll(async () => {
  await server?.app.close();
  await fake?.stop();
});

const ask = (grammar: string, stream = false) =>
  post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "letters" }], guided_grammar: grammar, max_tokens: 4096, stream });

describe("issue 52 row 2: the grammar judge cannot stall the server (proxy mode)", () => {
  test("the ambiguous grammar of the report is a 400 naming the rule, and /health answers within 1 s", async () => {
    const health = healthPoller(server.url);
    const res = await ask(`root ::= ${"([a-z]|[a-z][a-z]){0,1000} ".repeat(8)}`);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_option");
    expect(res.json.error.message).toMatch(/rule "root" is ambiguous/);
    expect(await health.stop(), "slowest /health (ms)").toBeLessThan(1000);
  }, 30_000);

  test("an unambiguous grammar over the same 6,000 letters is judged by the engine: 200, the answer holds", async () => {
    const health = healthPoller(server.url);
    const res = await ask("root ::= [a-z]+");
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.content).toBe(LETTERS);
    expect(res.json.qtc.answer).toEqual({ ok: true, constraint: "grammar", ended: "stop" });
    const refused = await ask('root ::= [a-z]+ "!"');
    expect(refused.status).toBe(200);
    expect(refused.json.qtc.answer).toMatchObject({ ok: false, constraint: "grammar" });
    expect(await health.stop(), "slowest /health (ms)").toBeLessThan(1000);
  }, 30_000);
});
