// Issue 25: the full tool lists real clients send compile on the server, on the route each client uses, with every
// tool in the grammar: Claude Code's (Anthropic), Codex's (Responses, also as Codex ≥ 0.147 sends them: in an
// `additional_tools` input item, grouped in a namespace, beside `web_search`), qwen-code's, opencode's and the MCP
// filesystem server's (chat completions). Fixtures: test/fixtures/clients/ (each one's `how` says how it was captured).

import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { useTinyServer } from "../helpers/tiny-server.js";
import { post } from "../server/helpers.js";

const DIR = new URL("../fixtures/clients/", import.meta.url).pathname;
const server = useTinyServer(16_384);

interface Fixture {
  dialect: "anthropic" | "openai" | "openai-responses" | "mcp";
  toolCount: number;
  tools: Record<string, unknown>[];
}
const fixture = (file: string) => JSON.parse(readFileSync(DIR + file, "utf8")) as Fixture;
const user = [{ role: "user", content: "hi" }];

/** The tool list as the client's route takes it, under a required call so that every tool is in the grammar. */
function requestOf(f: Fixture): { route: string; body: Record<string, unknown> } {
  if (f.dialect === "anthropic") return { route: "/v1/messages", body: { model: "claude-sonnet-4-5", max_tokens: 512, messages: user, tools: f.tools, tool_choice: { type: "any" } } };
  if (f.dialect === "openai-responses") return { route: "/v1/responses", body: { model: "gpt-5-codex", input: "hi", tools: f.tools, tool_choice: "required", max_output_tokens: 512 } };
  const tools = f.dialect === "mcp" ? f.tools.map((t) => ({ type: "function", function: { name: t.name, parameters: t.inputSchema ?? t.parameters } })) : f.tools;
  return { route: "/v1/chat/completions", body: { model: "m", messages: user, tools, tool_choice: "required", max_tokens: 512 } };
}

/** What constrained the turn names every tool the grammar left to the validator; a call came back. */
function called(f: Fixture, json: any): boolean {
  if (f.dialect === "anthropic") return json.content.some((b: { type: string }) => b.type === "tool_use");
  if (f.dialect === "openai-responses") return json.output.some((i: { type: string }) => i.type === "function_call");
  return json.choices[0].finish_reason === "tool_calls";
}

describe("real clients' tool lists on the server", () => {
  test.each(["claude-code.json", "codex.json", "qwen-code.json", "opencode.json", "mcp-filesystem.json"])("%s: served with a call under a required tool choice", async (file) => {
    const f = fixture(file);
    const { route, body } = requestOf(f);
    const res = await post(`${server.url}${route}`, body);
    if (res.status !== 200) throw new Error(`${res.status} ${res.text.slice(0, 400)}`);
    expect(called(f, res.json)).toBe(true);
  }, 120_000);

  test("Codex's shape: the tools in an additional_tools item inside a namespace, beside web_search, with no top-level tools", async () => {
    const f = fixture("codex.json");
    const input = [{ type: "additional_tools", tools: [{ type: "namespace", name: "codex", description: "Codex tools", tools: f.tools }, { type: "web_search" }] }, { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }];
    const res = await post(`${server.url}/v1/responses`, { model: "gpt-5-codex", input, tools: [], tool_choice: "required", max_output_tokens: 512 });
    if (res.status !== 200) throw new Error(`${res.status} ${res.text.slice(0, 400)}`);
    const call = res.json.output.find((i: { type: string }) => i.type === "function_call");
    expect(call.namespace).toBe("codex");
    expect(f.tools.map((t) => t.name)).toContain(call.name);
    expect(res.json.qtc.notices.join(" ")).toMatch(/web_search/);
  }, 120_000);
});

describe("the grammar cost bound counts one call's shortest form", () => {
  test("Claude Code's list is cheap to close (its sum over every branch of every tool was 467 units and refused it)", async () => {
    const { compileToolGrammar } = await import("../../src/grammar/index.js");
    const { normalizeTools } = await import("../../src/tools/normalize.js");
    const { callForcedUnits, grammarCost } = await import("../../src/engine/grammar-cost.js");
    const cc = compileToolGrammar(normalizeTools(fixture("claude-code.json").tools), { toolChoice: "required", maxTokens: 512 });
    if (!cc.ok) throw new Error(cc.error.message);
    expect(grammarCost(cc.value.gbnf).forcedUnits).toBeGreaterThan(400);
    expect(callForcedUnits(cc.value)).toBeLessThan(64);
    const long = compileToolGrammar([{ name: "f", parameters: { type: "object", properties: { a: { type: "string", minLength: 995 } }, required: ["a"] } }], { toolChoice: "required", maxTokens: 2048 });
    if (!long.ok) throw new Error(long.error.message);
    expect(callForcedUnits(long.value)).toBeGreaterThanOrEqual(995);
  });
});
