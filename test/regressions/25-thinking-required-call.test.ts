// Issue 25: Claude Code sends a thinking budget of `max_tokens − 1`. Under a tool choice that demands a call, the
// `<think>` phase took the whole turn and the call never came (the turn ended at the limit, or was refused). The
// thinking budget now always leaves room for the cheapest call the tool choice requires.

import { describe, expect, test } from "vitest";
import { useTinyServer } from "../helpers/tiny-server.js";
import { post } from "../server/helpers.js";

const server = useTinyServer(4096);

const params = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };

describe("thinking budget max_tokens − 1 with a required call", () => {
  test.each([false, true])("Anthropic tool_choice any (stream %s): the answer holds a tool_use", async (stream) => {
    const res = await post(`${server.url}/v1/messages`, {
      model: "m",
      max_tokens: 200,
      thinking: { type: "enabled", budget_tokens: 199 },
      messages: [{ role: "user", content: "read a.txt" }],
      tools: [{ name: "Read", input_schema: params }],
      tool_choice: { type: "any" },
      stream,
    });
    expect(res.status).toBe(200);
    if (stream) {
      expect(res.text).toMatch(/"type":"tool_use"/);
      expect(res.text).toMatch(/"stop_reason":"tool_use"/);
    } else {
      expect(res.json.content.some((b: { type: string }) => b.type === "tool_use")).toBe(true);
      expect(res.json.stop_reason).toBe("tool_use");
    }
  }, 60_000);
});
