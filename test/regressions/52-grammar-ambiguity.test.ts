// Issue 52, row 4: an ambiguous user grammar was accepted, then failed mid-generation with a 500 ("over 20000
// parses"): `root ::= ([a-z]|[a-z][a-z]){0,1000}` ten times over, max_tokens 600. Grammars are now vetted up front
// as regexes are: an ambiguous repetition is a 400 naming the rule, before any generation.
import { describe, expect, test } from "vitest";
import { useTinyServer } from "../helpers/tiny-server.js";
import { healthPoller } from "../helpers/health-poll.js";
import { post } from "../server/helpers.js";

const server = useTinyServer();
const ask = (grammar: string, stream = false) => post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "letters" }], guided_grammar: grammar, max_tokens: 600, stream });

describe("issue 52 row 4: ambiguous grammars are refused before generation", () => {
  test("the report's grammar: 400 invalid_option naming rule root, streamed or not", async () => {
    const health = healthPoller(server.url);
    const grammar = `root ::= ${"([a-z]|[a-z][a-z]){0,1000} ".repeat(10)}`;
    for (const stream of [false, true]) {
      const res = await ask(grammar, stream);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("invalid_option");
      expect(res.json.error.message).toMatch(/rule "root" is ambiguous/);
    }
    expect(await health.stop(), "slowest /health (ms)").toBeLessThan(1000);
  }, 60_000);

  test("other ambiguities name their rule; a repetition followed by what it could continue with is one", async () => {
    for (const [grammar, rule] of [
      ['root ::= word "."\nword ::= ([a-z]+)*', "word"],
      ['root ::= pair\npair ::= ("k" [a-z]){0,1000} ("k" [a-z]){0,1000}', "pair"],
      ['root ::= x{2,}\nx ::= "a" | ""', "root"],
    ]) {
      const res = await ask(grammar!);
      expect(res.status, grammar).toBe(400);
      expect(res.json.error.message).toContain(`rule "${rule}" is ambiguous`);
    }
  }, 60_000);

  test("an unambiguous repetition is served: 200 and the answer holds", async () => {
    const res = await ask('root ::= ([a-z] ","){0,20} "."');
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.content).toMatch(/^([a-z],){0,20}\.$/);
    expect(res.json.qtc.answer).toEqual({ ok: true, constraint: "grammar", ended: "stop" });
  }, 60_000);
});
