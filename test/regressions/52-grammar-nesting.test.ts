// Issue 52, row 5: 8,000 nested parentheses (16 KB, under the 32 KiB bound) as `guided_grammar` gave a 500 on
// chat and on /v1/messages/count_tokens (the GBNF reader overflowed the call stack). The reader and every check
// now walk with explicit stacks; groups that change nothing unwrap, and deeper real nesting is a 400 naming the rule.
import { describe, expect, test } from "vitest";
import { useTinyServer } from "../helpers/tiny-server.js";
import { healthPoller } from "../helpers/health-poll.js";
import { post } from "../server/helpers.js";

const server = useTinyServer();
const WRAPPED = `root ::= ${"(".repeat(8000)}"a"${")".repeat(8000)}`;
const DEEP = `root ::= ${"(".repeat(8000)}"a" | "b"${")".repeat(8000)} ${'("c" | ("d" '.repeat(150)}${"))".repeat(150)}`;
const HEADERS = { "anthropic-version": "2023-06-01" };

describe("issue 52 row 5: deeply nested groups never overflow the stack", () => {
  test("chat: 8,000 parentheses around one literal are that literal (200), deeper real nesting is a 400", async () => {
    const health = healthPoller(server.url);
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "a" }], guided_grammar: WRAPPED, max_tokens: 16 });
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.content).toBe("a");
    expect(res.json.qtc.answer).toEqual({ ok: true, constraint: "grammar", ended: "stop" });
    const deep = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "a" }], guided_grammar: DEEP, max_tokens: 16 });
    expect(deep.status).toBe(400);
    expect(deep.json.error.code).toBe("too_large");
    expect(deep.json.error.message).toMatch(/rule "root" nests groups over 100 deep/);
    expect(await health.stop(), "slowest /health (ms)").toBeLessThan(1000);
  }, 60_000);

  test("count_tokens: the same grammars are a 200 and a 400, never a 500", async () => {
    const count = (grammar: string) => post(`${server.url}/v1/messages/count_tokens`, { model: "m", messages: [{ role: "user", content: "a" }], guided_grammar: grammar }, HEADERS);
    const ok = await count(WRAPPED);
    expect(ok.status).toBe(200);
    expect(ok.json.input_tokens).toBeGreaterThan(0);
    const deep = await count(DEEP);
    expect(deep.status).toBe(400);
  }, 60_000);
});
