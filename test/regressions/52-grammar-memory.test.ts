// Issue 52, row 9: memory per compiled grammar was 140-220 MB, cached 32 per runtime whatever each weighed: 12
// distinct 14 KB grammars (390 `("k" [a-z]){0,1000}` chains) took the server's RSS from 585 to 1,975 MB, and 45
// plateaued at 3.9-4.4 GB. Now a grammar's unrolled size is bounded before it is compiled (a 400 naming the rule),
// the engine's compiled-grammar cache is bounded by the bytes its pools hold, and each turn reports its grammar's
// footprint (GrammarUse.bytes).
import { describe, expect, test } from "vitest";
import { PoolCache } from "../../src/engine/pool-cache.js";
import { useTinyServer } from "../helpers/tiny-server.js";
import { healthPoller, rssPeak } from "../helpers/health-poll.js";
import { post } from "../server/helpers.js";

const server = useTinyServer();
const GB = 1024 * 1024 * 1024;
/** The report's grammars: 390 chains, each grammar made distinct by a final literal. */
const reported = (n: number) => `root ::= ${'("k" [a-z]){0,1000} '.repeat(390)}"${n}"`;
/** Near the new bound (50,000 unrolled elements) and accepted: 16 distinct chains, each grammar distinct. */
const nearLimit = (n: number) => `root ::= ${Array.from({ length: 16 }, (_, i) => `("${String.fromCodePoint(0x100 + i)}" [a-z]){0,1000} "${n % 10}"`).join(" ")} "${n}"`;

describe("issue 52 row 9: compiled grammars are bounded by bytes", () => {
  test("the cache weighs each grammar's pool and evicts the least recently used past its byte budget", () => {
    const grammar = (n: number) => `root ::= ${Array.from({ length: 3 }, (_, i) => `("${String.fromCodePoint(0x100 + i)}" [a-z]){0,300} "${n}"`).join(" ")}`;
    const one = new PoolCache({ bytes: Infinity, entries: 64 });
    const { program } = one.poolFor(grammar(0));
    const size = one.report().bytes;
    // At least what its program's flat arrays hold (900 rules, 3,600 elements).
    expect(size).toBeGreaterThanOrEqual(program.code.byteLength + program.altStarts.byteLength + program.ruleAlts.byteLength);
    const cache = new PoolCache({ bytes: 3.5 * size, entries: 64 });
    for (let n = 0; n < 10; n++) cache.poolFor(grammar(n));
    const report = cache.report();
    expect(report.entries).toHaveLength(3);
    expect(report.bytes).toBeLessThanOrEqual(report.budget);
    // A grammar asked for again is the most recent, so it outlives the others.
    const kept = cache.poolFor(grammar(7));
    cache.poolFor(grammar(10));
    cache.poolFor(grammar(11));
    expect(cache.poolFor(grammar(7))).toBe(kept);
    // A pool weighs more as it serves (its states and steps are cached), and the cache sees it.
    const before = cache.report().bytes;
    let at = kept.root;
    for (const ch of "\u0100a\u0100b\u0101c") at = kept.step(at, ch.codePointAt(0)!);
    expect(cache.report().bytes).toBeGreaterThan(before);
  });

  test("45 distinct grammars: the report's are refused before compiling, near-limit ones are served; RSS grows under 1 GB", async () => {
    const health = healthPoller(server.url);
    const rss = rssPeak();
    const ask = (grammar: string) => post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }], guided_grammar: grammar, max_tokens: 48 });
    for (let n = 0; n < 12; n++) {
      const res = await ask(reported(n));
      expect(res.status).toBe(400);
      expect(res.json.error.param).toBe("guided_grammar");
      expect(res.json.error.message).toMatch(/rule "root"/);
    }
    for (let n = 0; n < 45; n++) {
      const res = await ask(nearLimit(n));
      expect(res.status).toBe(200);
    }
    expect(rss.stop(), "peak RSS growth (bytes)").toBeLessThan(GB);
    expect(await health.stop(), "slowest /health (ms)").toBeLessThan(1000);
  }, 600_000);

  test("a turn reports its grammar's footprint", async () => {
    const r = await server.runtime.generate({ messages: [{ role: "user", content: "hi" }], constraint: { grammar: nearLimit(99) }, maxTokens: 64, seed: 1 });
    // 16 chains of 1,000 rules, each rule two alternatives at least (`items opt | ""`): 32 bytes of code, 8 of
    // alternative starts and 4 of rule offset. (Before the rule table was flat, each rule also weighed a view.)
    expect(r.grammar?.bytes).toBeGreaterThan(16 * 1000 * 44);
  }, 120_000);
});
