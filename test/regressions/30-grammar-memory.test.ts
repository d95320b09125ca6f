// Issue 30, item 2: one request could take gigabytes. A tool whose string has a `minLength` just under the 1,000
// limit, with tool choice `required` and max_tokens 256, grew the server's RSS by 1-2.5 GB (the matcher cloned a
// grammar state per forced unit while walking the call's shortest closing, each clone a copy of a 123 KB
// grammar) and answered 200 with no call. The compiled grammar's cost is bounded before it is loaded:
// `schema_too_large` naming the tool's JSON pointer, and the RSS stays within a stated bound.

import { describe, expect, test } from "vitest";
import { checkGrammarCost, GRAMMAR_COST_LIMITS, grammarCost } from "../../src/engine/grammar-cost.js";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { useTinyServer } from "../helpers/tiny-server.js";
import { healthPoller, rssPeak } from "../helpers/health-poll.js";
import { post } from "../server/helpers.js";

/** Peak RSS growth allowed over these requests: the unbounded ones took 1-2.5 GB; bounded ones take < 0.3 GB. */
const RSS_BOUND = 768 * 1024 * 1024;

const server = useTinyServer();

const toolWith = (minLength: number) => ({ type: "function", function: { name: "f", parameters: { type: "object", properties: { a: { type: "string", minLength } }, required: ["a"] } } });

describe("a grammar's evaluation cost is bounded before it is loaded", () => {
  test("minLength 995-998 under required with max_tokens 256: 400 schema_too_large at the tool, RSS bounded", async () => {
    const health = healthPoller(server.url);
    const rss = rssPeak();
    for (const minLength of [995, 996, 997, 998]) {
      const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }], tools: [toolWith(minLength)], tool_choice: "required", max_tokens: 256 });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("schema_too_large");
      expect(res.json.error.param).toBe("tools");
      expect(res.json.error.message).toContain("/tools/0");
    }
    expect(rss.stop(), "peak RSS growth (bytes)").toBeLessThan(RSS_BOUND);
    expect(await health.stop(), "slowest /health (ms)").toBeLessThan(1000);
  }, 60_000);

  test("a tool with a modest minLength is still served", async () => {
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }], tools: [toolWith(20)], tool_choice: "required", max_tokens: 256 });
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.tool_calls).toHaveLength(1);
  }, 60_000);

  test("the check reads only the compiled grammar: bytes, rules, forced units", () => {
    const compiled = compileToolGrammar([{ name: "f", parameters: { type: "object", properties: { a: { type: "string", minLength: 995 } }, required: ["a"] } }], { toolChoice: "required", maxTokens: 2048 });
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    const cost = grammarCost(compiled.value.gbnf);
    expect(cost.forcedUnits).toBeGreaterThanOrEqual(995);
    expect(cost.forcedUnits * cost.bytes).toBeGreaterThan(GRAMMAR_COST_LIMITS.maxForcedBytes);
    expect(() => checkGrammarCost(compiled.value)).toThrow(expect.objectContaining({ code: "schema_too_large", path: "/tools/0" }));
    expect(() => checkGrammarCost({ gbnf: 'root ::= "a"' })).not.toThrow();
    expect(() => checkGrammarCost({ gbnf: "x".repeat(GRAMMAR_COST_LIMITS.maxBytes + 1) })).toThrow(expect.objectContaining({ code: "schema_too_large" }));
  });
});
