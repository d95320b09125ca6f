// Owns: the MCP filesystem server (`@modelcontextprotocol/server-filesystem` over stdio, driven by the MCP SDK's
// Client) with qtc serve as the model (the `openai` SDK, only base URL, key and model name): the server's real
// tool list goes to qtc, each structured call qtc returns is run by the MCP server, and the results go back.

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentTraffic } from "./calls.js";
import { API_KEY, describeExchanges, generations, MODEL_NAME, type Qtc, CLIENTS, scratch, startQtc, watchEgress } from "./harness.js";

// Tools the filesystem server has offered since 2025.
const CORE_TOOLS = ["read_text_file", "write_file", "list_directory", "list_allowed_directories", "search_files", "get_file_info"];

let qtc: Qtc;
beforeAll(async () => {
  qtc = await startQtc({ contextSize: 8192 });
}, 120_000);
afterAll(async () => {
  await qtc?.close();
});

describe("MCP filesystem server 2026.8.31 (MCP SDK 1.32.2) with qtc serve as the model", () => {
  it("its real tool list compiles, qtc's calls run on the MCP server, results go back in turn 2", { timeout: 180_000 }, async () => {
    const egress = watchEgress();
    const s = scratch("mcp");
    const server = join(CLIENTS, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
    const mcp = new Client({ name: "qtc-acceptance", version: "1.0.0" });
    await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [server, s.work], env: { PATH: process.env.PATH ?? "" }, stderr: "ignore" }));
    try {
      const { tools } = await mcp.listTools();
      const openaiTools: ChatCompletionTool[] = tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description ?? "", parameters: t.inputSchema as Record<string, unknown> } }));
      const openai = new OpenAI({ baseURL: `${qtc.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
      const messages: ChatCompletionMessageParam[] = [{ role: "user", content: `List the files in ${s.work}.` }];
      // tool_choice "required": a small model needs the call asked for.
      const first = await openai.chat.completions.create({ model: MODEL_NAME, messages, tools: openaiTools, tool_choice: "required", max_tokens: 200 });
      const calls = first.choices[0]!.message.tool_calls ?? [];
      messages.push(first.choices[0]!.message);
      const outputs: string[] = [];
      for (const call of calls) {
        if (call.type !== "function") continue;
        const result = await mcp.callTool({ name: call.function.name, arguments: JSON.parse(call.function.arguments) as Record<string, unknown> });
        const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");
        outputs.push(text);
        messages.push({ role: "tool", tool_call_id: call.id, content: text });
      }
      await openai.chat.completions.create({ model: MODEL_NAME, messages, tools: openaiTools, tool_choice: "required", max_tokens: 200 });
      const log = describeExchanges(qtc.exchanges);
      const t = agentTraffic(generations(qtc, "/v1/chat/completions"), "chat");

      expect(t.requests.length, log).toBe(2);
      for (const e of t.requests) expect(e.status, log).toBe(200);
      expect(t.declared, log).toEqual(tools.map((x) => x.name));
      expect(t.declared, log).toEqual(expect.arrayContaining(CORE_TOOLS));
      expect(calls.length, log).toBeGreaterThanOrEqual(1);
      // The MCP server ran every call (its answer, success or its own refusal of a path, came back as content).
      expect(outputs.length, log).toBe(calls.length);
      for (const o of outputs) expect(o.length, log).toBeGreaterThan(0);
      expect(t.results.map((r) => r.id).sort(), log).toEqual(calls.map((c) => c.id).sort());
    } finally {
      await mcp.close();
    }
    expect(egress.stop()).toEqual([]);
  });
});
