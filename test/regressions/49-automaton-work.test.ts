// Issue 49 (session 21's closing note): the pattern automata (src/grammar/regex-dfa.ts) were bounded one by one but
// not per compile. One schema holds up to 64 patterns, and a client could send 64 each near one automaton's caps:
// one compile took 7.1 s on this machine (the default `validate` policy, 64 properties with `minLength: 5` and
// `pattern: ^(a|aa){1,500}b{1,n}$`; 1.0 s now). The automata of one compile now share SCHEMA_LIMITS.maxAutomatonWork;
// past it a form that needs an automaton is refused as one past an automaton's own caps, and a compile that lowers
// the schema twice reuses what it built.
import { describe, expect, test } from "vitest";
import { compileSchema, compileToolGrammar, SCHEMA_LIMITS } from "../../src/grammar/index.js";
import { admitsExactlyValid } from "../grammar/helpers.js";

/** A string whose minLength beside its pattern needs the pattern's own automaton (about 150,000 units of work). */
const costly = (n: number) => ({ type: "string", pattern: `^(a|aa){1,${n}}$`, minLength: 5 });
const manyCostly = () => {
  const properties = Object.fromEntries(Array.from({ length: SCHEMA_LIMITS.maxPatterns }, (_, i) => [`p${i}`, costly(100 + i)]));
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
};
const relaxedProperties = (relaxed: readonly { path?: string; keyword: string }[]) => relaxed.map((r) => r.path?.split("/")[2]);

describe("issue 49: one compile's pattern automata share one work budget", () => {
  test("alone, such a string is held exactly: at least 5 characters, and only what the pattern matches", async () => {
    const c = compileSchema(costly(100), { unsupported: "strict", maxTokens: 512 });
    expect(c.ok && c.value.constraint.exact).toBe(true);
    await admitsExactlyValid(costly(100), ["aaaaa", "aaaa", "a", "aaaab", "a".repeat(100), "a".repeat(201)]);
  });

  test("64 of them in one schema: the first are held, the rest are left to the validator, each named", () => {
    const c = compileSchema(manyCostly(), { unsupported: "validate", maxTokens: 8192 });
    expect(c.ok).toBe(true);
    if (!c.ok) return;
    const relaxed = c.value.constraint.relaxed;
    // Before, every one of the 64 automata was built; now the budget stops them part of the way.
    expect(relaxed.length).toBeGreaterThan(0);
    expect(relaxed.length).toBeLessThan(SCHEMA_LIMITS.maxPatterns);
    expect(relaxed.every((r) => r.keyword === "minLength" && /^\/properties\/p\d+\/minLength$/.test(r.path ?? ""))).toBe(true);
    expect(new Set(relaxedProperties(relaxed)).size).toBe(relaxed.length);
  });

  test("under strict the schema is refused, and the error says the compile's automaton budget ran out", () => {
    const c = compileSchema(manyCostly(), { unsupported: "strict", maxTokens: 8192 });
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect(c.error.path).toMatch(/^\/properties\/p\d+\/minLength$/);
    expect(c.error.message).toContain(`${SCHEMA_LIMITS.maxAutomatonWork.toLocaleString("en-US")} units`);
  });

  test("a tool list shares it too, across its tools", () => {
    const tools = Array.from({ length: 8 }, (_, t) => ({
      name: `tool_${t}`,
      parameters: { type: "object", properties: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`p${i}`, costly(100 + t * 8 + i)])), required: ["p0"] },
    }));
    const c = compileToolGrammar(tools, { unsupported: "validate", maxTokens: 8192 });
    expect(c.ok).toBe(true);
    if (!c.ok) return;
    const relaxed = c.value.constraint.relaxed;
    expect(relaxed.length).toBeGreaterThan(0);
    expect(relaxed.length).toBeLessThan(64);
  });
});
