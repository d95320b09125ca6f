// Tool lists that real agent clients send (captured from their packages, see each fixture's `how`): every one
// compiles in both formats under the default policy, every tool stays in the grammar, and what the grammar leaves
// to the validator is reported by tool and pointer. Compile times are measured by `npm run bench:grammar`.

import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { normalizeTools } from "../../src/tools/normalize.js";

const DIR = new URL("../fixtures/clients/", import.meta.url).pathname;

/** A fixture's tools in a shape normalizeTools reads (the Responses API's flat function tools become bare ones). */
function clientTools(file: string) {
  const fixture = JSON.parse(readFileSync(DIR + file, "utf8")) as { tools: Record<string, unknown>[]; toolCount: number };
  const tools = fixture.tools.map((t) => (t.type === "function" && !t.function ? { name: t.name, parameters: t.parameters } : t));
  return { fixture, tools: normalizeTools(tools) };
}

const FILES = readdirSync(DIR).filter((f) => f.endsWith(".json")).sort();

describe("real client tool lists", () => {
  it("has the five clients the issue names", () => {
    expect(FILES).toEqual(["claude-code.json", "codex.json", "mcp-filesystem.json", "opencode.json", "qwen-code.json"]);
  });

  for (const file of FILES) {
    for (const format of ["hermes", "qwen3coder"] as const) {
      it(`${file} compiles in ${format} with every tool in the grammar`, () => {
        const { fixture, tools } = clientTools(file);
        expect(tools.length).toBe(fixture.toolCount);
        const r = compileToolGrammar(tools, { format, toolChoice: "auto", maxTokens: 512 });
        if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
        expect(r.value.omittedTools).toEqual([]);
        for (const site of r.value.constraint.relaxed) expect(tools.map((t) => t.name)).toContain(site.tool);
      });
    }
  }

  it("Claude Code's propertyNames ({type: string}: every key is one) is held exactly, under validate and strict alike", () => {
    const { tools } = clientTools("claude-code.json");
    const v = compileToolGrammar(tools, { maxTokens: 512 });
    expect(v.ok && v.value.constraint.relaxed).toEqual([]);
    expect(v.ok && v.value.constraint.exact).toBe(true);
    const s = compileToolGrammar(tools, { maxTokens: 512, unsupported: "strict" });
    expect(s.ok).toBe(true);
  });
});
