// The compiled grammars end to end, judged by qtc's constraint engine: the envelope of each format, every
// tool choice, parallel calls, the thinking phase, the after-open phase, and the budget rule.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { type CompiledGrammar, compileToolGrammar, GrammarCache, type ToolGrammarOptions, worstCaseCallTokens } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { normalizeTools } from "../../src/tools/index.js";
import { renderCall, tinyModel } from "./helpers.js";

const harness = normalizeTools(JSON.parse(readFileSync(new URL("../../grammars/harness-tools.json", import.meta.url), "utf8")));
let model: LlamaModel;

beforeAll(async () => {
  ({ model } = await tinyModel());
});

/**
 * These tests pin what the grammar alone guarantees, the worst-case split's promise (every call inside maxTokens);
 * the shared split, the default since issue 38, is pinned in test/regressions/38-default-split.test.ts.
 */
function compiled(options: ToolGrammarOptions, tools = harness): CompiledGrammar {
  const r = compileToolGrammar(tools, { budgetSplit: "worst-case", ...options });
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

async function accepts(grammar: CompiledGrammar, text: string): Promise<boolean> {
  return (await GrammarChecker.create(model, grammar)).checkText(text).accepted;
}

const read = (format: "hermes" | "qwen3coder", path = "src/a.js") => renderCall(format, "read_file", { path });
const tests = (format: "hermes" | "qwen3coder") => renderCall(format, "run_tests", {});

describe("envelope and tool choice", () => {
  for (const format of ["hermes", "qwen3coder"] as const) {
    it(`${format}: auto accepts text, calls, and text then calls; never a spelled tag`, async () => {
      const g = compiled({ format, toolChoice: "auto" });
      const c = await GrammarChecker.create(model, g);
      expect(c.checkText("All tests pass now.").accepted).toBe(true);
      expect(c.checkText("").accepted).toBe(true);
      expect(c.checkText(read(format)).accepted).toBe(true);
      expect(c.checkText(`Let me look.\n${read(format)}\n${tests(format)}`).accepted).toBe(true);
      expect(c.checkText("a <b> c</b> x<y").accepted).toBe(true);
      for (const spelled of ["see <tool_call>", "x </tool_call>", "<think>", "a</think>"]) {
        const r = c.checkText(spelled);
        expect(r.accepted, spelled).toBe(false);
      }
    });

    it(`${format}: required starts with a call at once and takes at least one`, async () => {
      const c = await GrammarChecker.create(model, compiled({ format, toolChoice: "required" }));
      expect(c.checkText(read(format)).accepted).toBe(true);
      expect(c.checkText(`${read(format)}\n${tests(format)}`).accepted).toBe(true);
      expect(c.checkText("Sure.").accepted).toBe(false);
      expect(c.checkText(`Sure.\n${read(format)}`).accepted).toBe(false);
      expect(c.checkText("").complete).toBe(false);
    });

    it(`${format}: a named tool choice admits only that tool; none admits no call`, async () => {
      const named = await GrammarChecker.create(model, compiled({ format, toolChoice: { name: "run_tests" } }));
      expect(named.checkText(tests(format)).accepted).toBe(true);
      expect(named.checkText(read(format)).accepted).toBe(false);
      const none = await GrammarChecker.create(model, compiled({ format, toolChoice: "none" }));
      expect(none.checkText("No tools needed.").accepted).toBe(true);
      expect(none.checkText(read(format)).accepted).toBe(false);
    });

    it(`${format}: parallel off admits one call; maxCalls bounds the count`, async () => {
      const single = await GrammarChecker.create(model, compiled({ format, toolChoice: "required", parallel: false }));
      expect(single.checkText(read(format)).accepted).toBe(true);
      expect(single.checkText(`${read(format)}\n${tests(format)}`).accepted).toBe(false);
      const two = await GrammarChecker.create(model, compiled({ format, toolChoice: "required", maxCalls: 2 }));
      expect(two.checkText(`${read(format)}\n${tests(format)}`).accepted).toBe(true);
      expect(two.checkText(`${read(format)}\n${tests(format)}\n${tests(format)}`).accepted).toBe(false);
    });

    it(`${format}: a thinking phase comes first when asked for`, async () => {
      const c = await GrammarChecker.create(model, compiled({ format, toolChoice: "required", thinking: true }));
      expect(c.checkText(`<think>\nThe test reads a.js.\n</think>\n\n${read(format)}`).accepted).toBe(true);
      expect(c.checkText(read(format)).accepted).toBe(false);
      expect(c.checkText(`<think>\nI will write <think> here.\n</think>\n\n${read(format)}`).accepted).toBe(false);
    });

    it(`${format}: the after-open phase continues a call whose open tag was already sampled`, async () => {
      const g = compiled({ format, toolChoice: "auto", phase: "after-open", maxCalls: 2 });
      const open = read(format).indexOf("\n");
      expect(await accepts(g, read(format).slice(open))).toBe(true);
      expect(await accepts(g, `${read(format).slice(open)}\n${tests(format)}`)).toBe(true);
      expect(await accepts(g, read(format))).toBe(false);
    });
  }

  it("qwen3coder: a raw string value cannot close its parameter, function or call early", async () => {
    const c = await GrammarChecker.create(model, compiled({ format: "qwen3coder", toolChoice: "required" }));
    const write = (content: string) => renderCall("qwen3coder", "write_file", { path: "a.html", content });
    expect(c.checkText(write("<p>ok</p>\n<div class=x>\n</div>")).accepted).toBe(true);
    for (const bad of ["a\n</parameter>\nb", "</function>", "x</tool_call>", "<parameter=path>", "<function=grep>"]) {
      expect(c.checkText(write(bad)).accepted, bad).toBe(false);
    }
  });

  it("qwen3coder writes a parameter whose schema allows strings only as a string (the parser reads it as text)", async () => {
    const tool = { name: "set", parameters: { type: "object", properties: { v: { anyOf: [{ type: "string", maxLength: 3 }, { type: "integer" }] } }, required: ["v"] } };
    const c = await GrammarChecker.create(model, compiled({ format: "qwen3coder", toolChoice: "required" }, [tool]));
    expect(c.checkText(renderCall("qwen3coder", "set", { v: "abc" })).accepted).toBe(true);
    expect(c.checkText(renderCall("qwen3coder", "set", { v: 12345 })).accepted).toBe(false);
    const h = await GrammarChecker.create(model, compiled({ format: "hermes", toolChoice: "required" }, [tool]));
    expect(h.checkText(renderCall("hermes", "set", { v: 12345 })).accepted).toBe(true);
  });

  it("refuses a named tool choice that names no declared tool, and required when nothing fits", () => {
    const named = compileToolGrammar(harness, { toolChoice: { name: "nope" } });
    expect(named.ok ? undefined : named.error.code).toBe("invalid_tool_choice");
    const tiny = compileToolGrammar(harness, { toolChoice: "required", maxTokens: 20 });
    expect(tiny.ok ? undefined : tiny.error.code).toBe("budget_too_small");
    const none = compileToolGrammar([], { toolChoice: "required" });
    expect(none.ok ? undefined : none.error.code).toBe("invalid_tool_choice");
  });
});

describe("answer schema (a JSON answer instead of free text)", () => {
  const answerSchema = { type: "object", properties: { ok: { type: "boolean" }, note: { type: "string", maxLength: 12 } }, required: ["ok"], additionalProperties: false };
  const canonical = (v: unknown) => JSON.stringify(v, null, 0).replace(/":/g, '": ').replace(/,"/g, ', "');

  for (const format of ["hermes", "qwen3coder"] as const) {
    it(`${format}: tool choice none admits the JSON answer only; auto admits it or calls, never text before calls`, async () => {
      const none = await GrammarChecker.create(model, compiled({ format, toolChoice: "none", answerSchema }));
      expect(none.checkText(canonical({ ok: true, note: "fine" })).accepted).toBe(true);
      expect(none.checkText(canonical({ ok: "yes" })).accepted).toBe(false);
      expect(none.checkText(canonical({ note: "no ok" })).accepted).toBe(false);
      expect(none.checkText("All good.").accepted).toBe(false);
      expect(none.checkText(read(format)).accepted).toBe(false);
      const auto = await GrammarChecker.create(model, compiled({ format, toolChoice: "auto", answerSchema }));
      expect(auto.checkText(canonical({ ok: false })).accepted).toBe(true);
      expect(auto.checkText(read(format)).accepted).toBe(true);
      expect(auto.checkText(`Let me look.\n${read(format)}`).accepted).toBe(false);
      expect(auto.checkText("All good.").accepted).toBe(false);
      const required = await GrammarChecker.create(model, compiled({ format, toolChoice: "required", answerSchema }));
      expect(required.checkText(read(format)).accepted).toBe(true);
      expect(required.checkText(canonical({ ok: true })).accepted).toBe(false);
    });
  }

  it("an answer schema it cannot honour, or cannot fit, is an error naming the response schema", () => {
    const bad = compileToolGrammar([], { toolChoice: "none", unsupported: "strict", answerSchema: { type: "object", propertyNames: { maxLength: 3 } } });
    expect(bad.ok ? undefined : [bad.error.code, bad.error.message.startsWith("response schema:")]).toEqual(["unsupported_keyword", true]);
    const big = { type: "object", properties: { a: { type: "string", minLength: 400 } }, required: ["a"] };
    const small = compileToolGrammar([], { toolChoice: "none", answerSchema: big, maxTokens: 64 });
    expect(small.ok ? undefined : small.error.code).toBe("budget_too_small");
  });
});

describe("budget", () => {
  for (const format of ["hermes", "qwen3coder"] as const) {
    it(`${format}: the longest admitted path makes a call of exactly worstCaseTokens, one byte more is refused`, async () => {
      for (const maxTokens of [80, 200, 512]) {
        const g = compiled({ format, toolChoice: "required", parallel: false, maxTokens }, [harness[0]!]);
        const worst = g.tools[0]!.worstCaseTokens!;
        expect(worst).toBeLessThanOrEqual(maxTokens);
        expect(g.worstCaseCallTokens).toBe(worst + 1);
        // Tokens of the call with an empty path: its text, with the two tags counted as one token each.
        const empty = read(format, "");
        const fixed = Buffer.byteLength(empty) - "<tool_call>".length - "</tool_call>".length + 2;
        const room = worst - fixed;
        const c = await GrammarChecker.create(model, g);
        expect(c.checkText(read(format, "a".repeat(room))).accepted).toBe(true);
        expect(c.checkText(read(format, "a".repeat(room + 1))).accepted).toBe(false);
        // 4-byte characters count 4 bytes each.
        expect(c.checkText(read(format, "😀".repeat(Math.floor(room / 4)))).accepted).toBe(true);
        expect(c.checkText(read(format, "😀".repeat(Math.floor(room / 4) + 1))).accepted).toBe(false);
        // After a `<`, the character that leaves the tag prefixes (`</to`, `<th`: 3 characters at most) is charged by
        // its width, and the prefix at its worst: `<` then a character of w bytes costs 1 + 3 + w.
        for (const ch of ["x", "é", "漢", "😀"]) {
          const w = Buffer.byteLength(ch);
          expect(c.checkText(read(format, `${"a".repeat(room - 4 - w)}<${ch}`)).accepted, `<${ch}`).toBe(true);
          expect(c.checkText(read(format, `${"a".repeat(room - 3 - w)}<${ch}`)).accepted, `<${ch} one byte over`).toBe(false);
        }
      }
    });
  }

  it("keeps every tool's worst case within maxTokens, and leaves out tools that do not fit", () => {
    for (const format of ["hermes", "qwen3coder"] as const) {
      for (const maxTokens of [48, 64, 100, 512, 4096]) {
        const r = compileToolGrammar(harness, { format, toolChoice: "auto", maxTokens, budgetSplit: "worst-case" });
        if (!r.ok) continue;
        for (const t of r.value.tools) if (t.worstCaseTokens !== undefined) expect(t.worstCaseTokens).toBeLessThanOrEqual(maxTokens);
        expect(r.value.omittedTools).toEqual(r.value.tools.filter((t) => t.worstCaseTokens === undefined).map((t) => t.name));
      }
    }
    const small = compiled({ format: "hermes", toolChoice: "required", maxTokens: 60 });
    expect(small.omittedTools).toContain("write_file");
    expect(small.omittedTools).not.toContain("run_tests");
  });

  it("reports the worst case of one more call", () => {
    const r = worstCaseCallTokens(harness, { format: "hermes", toolChoice: "required", maxTokens: 300, budgetSplit: "worst-case" });
    expect(r).toEqual({ ok: true, value: compiled({ format: "hermes", toolChoice: "required", maxTokens: 300 }).worstCaseCallTokens });
  });
});

describe("compile once", () => {
  it("is deterministic, frozen, and cached per tools array and options", () => {
    const a = compiled({ format: "qwen3coder", toolChoice: "auto" });
    const b = compiled({ format: "qwen3coder", toolChoice: "auto" });
    expect(a.gbnf).toBe(b.gbnf);
    expect(Object.isFrozen(a)).toBe(true);
    const cache = new GrammarCache();
    const first = cache.compile(harness, { maxTokens: 300 });
    expect(cache.compile(harness, { maxTokens: 300 })).toBe(first);
    expect(cache.compile(harness, { maxTokens: 301 })).not.toBe(first);
  });

  it("never spells a tool-call tag in src/grammar (the format definitions do)", () => {
    const root = new URL("../../src/grammar/", import.meta.url).pathname;
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (!p.includes("/src/formats/") && readFileSync(p, "utf8").includes("<tool_call>")) offenders.push(p);
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
