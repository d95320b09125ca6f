// Owns: the OpenAI Agents SDK (`@openai/agents`, Responses API through its OpenAIProvider) against qtc serve:
// the provider gets only the base URL and key, the agent the model name; a run sends the tools, gets a structured
// function_call, runs the tool and sends its output back in turn 2. Tracing (which exports to OpenAI) is off.

import { Agent, MaxTurnsExceededError, OpenAIProvider, Runner, setTracingDisabled, tool } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTraffic } from "./calls.js";
import { API_KEY, describeExchanges, generations, MODEL_NAME, type Qtc, startQtc, watchEgress } from "./harness.js";

let qtc: Qtc;
beforeAll(async () => {
  setTracingDisabled(true);
  qtc = await startQtc({ contextSize: 4096 });
}, 120_000);
afterAll(async () => {
  await qtc?.close();
});

describe("OpenAI Agents SDK 0.14.3 on qtc serve", () => {
  it("Runner.run, two turns: the tools sent, a structured call executed, its output sent back", { timeout: 180_000 }, async () => {
    const egress = watchEgress();
    const ran: unknown[] = [];
    const getWeather = tool({
      name: "get_weather",
      description: "Today's weather in a city.",
      parameters: z.object({ city: z.string().max(30), unit: z.enum(["celsius", "fahrenheit"]) }),
      execute: async (input) => (ran.push(input), "sunny, 21 degrees"),
    });
    const listCities = tool({ name: "list_cities", description: "Cities with a forecast.", parameters: z.object({ country: z.string().max(20) }), execute: async (input) => (ran.push(input), "Paris, Lyon") });
    // toolChoice "required" (a small model needs the call asked for); the SDK drops it after a call
    // (resetToolChoice), and turn 2 then gets qtc serve's default for a random-weight model, `required` again, so
    // the run ends at its turn limit.
    const agent = new Agent({ name: "weather", instructions: "Answer with the tools.", model: MODEL_NAME, tools: [getWeather, listCities], modelSettings: { toolChoice: "required", maxTokens: 160 } });
    const runner = new Runner({ modelProvider: new OpenAIProvider({ baseURL: `${qtc.url}/v1`, apiKey: API_KEY, useResponses: true }), tracingDisabled: true });
    const outcome = await runner.run(agent, "What is the weather in Paris?", { maxTurns: 2 }).catch((e: unknown) => e);
    expect(outcome, String(outcome)).toBeInstanceOf(MaxTurnsExceededError);
    const log = describeExchanges(qtc.exchanges);
    const t = agentTraffic(generations(qtc, "/v1/responses"), "responses");

    expect(t.requests.length, log).toBe(2);
    for (const e of t.requests) expect(e.status, log).toBe(200);
    expect(t.declared.sort(), log).toEqual(["get_weather", "list_cities"]);
    expect(t.requests[0]!.body.tool_choice, log).toBe("required");
    const first = agentTraffic(t.requests.slice(0, 1), "responses").calls;
    expect(first.length, log).toBeGreaterThanOrEqual(1);
    // Each call ran with the arguments qtc returned; each output went back under its call_id.
    expect(ran.slice(0, first.length), log).toEqual(first.map((c) => JSON.parse(c.args as string)));
    expect(t.results.map((r) => r.id).sort(), log).toEqual(first.map((c) => c.id).sort());
    expect(t.results.map((r) => r.text).join(" "), log).toMatch(/sunny, 21 degrees|Paris, Lyon/);
    expect(t.requests[1]!.body.tool_choice ?? "auto", log).toBe("auto");
    expect(egress.stop()).toEqual([]);
  });
});
