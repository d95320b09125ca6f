// Issue 40 (a CI run went red on it, test/regressions/25-client-tool-lists: codex.json, no call): under a required
// tool choice the budget guard let a call start that could not close inside the budget. It trusted its last measure
// of the closing until 8 tokens from it, and it closed once the budget left was the closing plus 4, assuming no
// sampled token lengthens the closing by more. The first token of a tool name forces the rest of the name, and the
// tool's required arguments then join the closing: Codex's spawn_agent at budgets of 27–29 tokens was cut off
// (6 of 300 seeds). Now the closing is measured every step and, near the end, each candidate of a small allowed set
// is checked by what it costs with the text it forces and the closing after it.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { useTinyRuntime } from "../helpers/seeded-calls.js";

const rt = useTinyRuntime(4096); // Codex's tool list is a 1,578-token prompt
const codex = JSON.parse(readFileSync(new URL("../fixtures/clients/codex.json", import.meta.url), "utf8")) as { tools: { type: string; name: string; description?: string; parameters: object }[] };
const tools = codex.tools.filter((t) => t.type === "function").map((t) => ({ type: "function" as const, function: { name: t.name, description: t.description, parameters: t.parameters } }));

describe("the budget guard near the end of a small budget", () => {
  test("Codex's 11 tools, required, budgets of 24-120 tokens: every turn gives a whole call (6 of these 300 seeds were cut off)", async () => {
    const cut: string[] = [];
    for (let seed = 0; seed < 300; seed++) {
      const maxTokens = 24 + (seed % 97);
      const r = await rt().generate({ messages: [{ role: "user", content: "hi" }], tools, toolChoice: "required", seed, maxTokens });
      if (r.toolCalls.length === 0 || r.errors.length > 0) cut.push(`seed ${seed}, budget ${maxTokens}: ${r.errors.map((e) => e.reason).join(",")} ${r.raw.slice(-120)}`);
    }
    expect(cut).toEqual([]);
  }, 600_000);
});
