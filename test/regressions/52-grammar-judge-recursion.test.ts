// Issue 52, row 3: the grammar judge recursed once per rule reference. `guided_grammar: root ::= "a" root | "a"`,
// seed 1, max_tokens 300 gave a 500 (the stream sent the whole answer, then an error event and no [DONE]). The
// judge is now the constraint engine stepping one code point at a time: no recursion, whatever the rule nests.
import { describe, expect, test } from "vitest";
import { useTinyServer } from "../helpers/tiny-server.js";
import { healthPoller } from "../helpers/health-poll.js";
import { post } from "../server/helpers.js";

const server = useTinyServer();
const body = (stream: boolean) => ({ model: "m", messages: [{ role: "user", content: "write a" }], guided_grammar: 'root ::= "a" root | "a"', seed: 1, max_tokens: 300, stream });

describe("issue 52 row 3: a right-recursive grammar is judged without recursion", () => {
  test("not streamed: 200, an answer of a's that the judge accepts", async () => {
    const health = healthPoller(server.url);
    const res = await post(`${server.url}/v1/chat/completions`, body(false));
    expect(res.status).toBe(200);
    const content: string = res.json.choices[0].message.content;
    expect(content).toMatch(/^a+$/);
    // Every run of a's is a whole answer: the turn runs to max_tokens, and what it wrote is judged and holds.
    expect(res.json.qtc.answer).toEqual({ ok: true, constraint: "grammar", ended: "length" });
    expect(await health.stop(), "slowest /health (ms)").toBeLessThan(1000);
  }, 60_000);

  test("streamed: the stream ends with [DONE] and no error event", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, body(true));
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('"error"');
    expect(res.text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  }, 60_000);
});
