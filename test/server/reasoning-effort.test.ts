// Reasoning effort and template variables through the three routes (issue 51): each level returns 200, and the
// request the server hands the runtime renders the bytes Qwen3.8's own template gives for that level (rendered by
// @huggingface/jinja); `chat_template_kwargs` passes enable_thinking / preserve_thinking and refuses any other key
// with a 400 that names it.

import { readFileSync } from "node:fs";
import { Template } from "@huggingface/jinja";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { qwen38 } from "../../src/formats/index.js";
import { renderPrompt } from "../../src/prompt/index.js";
import type { GenerateRequest } from "../../src/runtime/types.js";
import { type FakeRuntime, fakeRuntime } from "./fake-runtime.js";
import { expectOpenAIError, post, type Running, start } from "./helpers.js";

const TEMPLATE = readFileSync(new URL("../../templates/qwen3.8-27b.jinja", import.meta.url), "utf8");
const history = [
  { role: "user", content: "First" },
  { role: "assistant", content: "Old answer", reasoning_content: "old trace" },
  { role: "user", content: "Second" },
];

let fake: FakeRuntime;
let server: Running;
beforeAll(async () => {
  fake = fakeRuntime();
  server = await start({ runtime: fake });
});
afterAll(async () => {
  await server?.app.close();
});

/** The prompt the runtime renders for the request the server handed it, on Qwen3.8's template. */
function promptOf(r: GenerateRequest): string {
  return renderPrompt({
    messages: r.messages!,
    format: qwen38,
    thinking: r.thinking ?? false,
    ...(r.reasoningEffort ? { reasoningEffort: r.reasoningEffort } : {}),
    ...(r.preserveThinking !== undefined ? { preserveThinking: r.preserveThinking } : {}),
  });
}

function template(vars: Record<string, unknown>): string {
  return new Template(TEMPLATE).render({ messages: history, add_generation_prompt: true, ...vars });
}

async function lastRequest(send: () => Promise<{ status: number }>): Promise<GenerateRequest> {
  const before = fake.requests.length;
  const res = await send();
  expect(res.status).toBe(200);
  expect(fake.requests.length).toBe(before + 1);
  return fake.requests[before]!;
}

const chat = (extra: Record<string, unknown>) => post(`${server.url}/v1/chat/completions`, { model: "m", messages: history, max_tokens: 16, ...extra });
const responses = (effort: string) => post(`${server.url}/v1/responses`, { model: "m", input: history.map(({ role, content }) => ({ role, content })), reasoning: { effort }, max_output_tokens: 16 });
const anthropic = (budget: number) =>
  post(`${server.url}/v1/messages`, {
    model: "m",
    max_tokens: 20_000,
    thinking: { type: "enabled", budget_tokens: budget },
    messages: [
      { role: "user", content: "First" },
      { role: "assistant", content: [{ type: "thinking", thinking: "old trace", signature: "" }, { type: "text", text: "Old answer" }] },
      { role: "user", content: "Second" },
    ],
  });

describe("reasoning_effort levels on all three routes", () => {
  test.each([
    ["low", "low"],
    ["medium", "medium"],
    ["high", "xhigh"],
    ["xhigh", "xhigh"],
  ])("OpenAI chat reasoning_effort %s → 200 and the template's %s bytes", async (effort, level) => {
    const r = await lastRequest(() => chat({ reasoning_effort: effort }));
    expect(r).toMatchObject({ thinking: true, reasoningEffort: level });
    expect(promptOf(r)).toBe(template({ reasoning_effort: level }));
  });

  test.each([["none"], ["minimal"]])("OpenAI chat reasoning_effort %s turns thinking off: the template's enable_thinking=false bytes", async (effort) => {
    const r = await lastRequest(() => chat({ reasoning_effort: effort }));
    expect(r.thinking).toBe(false);
    expect(promptOf(r)).toBe(template({ enable_thinking: false }));
  });

  test.each([
    ["low", "low"],
    ["medium", "medium"],
    ["xhigh", "xhigh"],
  ])("Responses reasoning.effort %s → 200 and the template's %s bytes", async (effort, level) => {
    const r = await lastRequest(() => responses(effort));
    expect(r.reasoningEffort).toBe(level);
    // The Responses input carries no reasoning of earlier turns, so compare with the same messages.
    const vars = { reasoning_effort: level, messages: history.map(({ role, content }) => ({ role, content })) };
    expect(promptOf(r)).toBe(template(vars));
  });

  test.each([
    [1024, "low"],
    [2048, "low"],
    [4096, "medium"],
    [8192, "medium"],
    [16_000, "xhigh"],
  ])("Anthropic thinking.budget_tokens %i → 200 and the template's %s bytes", async (budget, level) => {
    const r = await lastRequest(() => anthropic(budget));
    expect(r).toMatchObject({ thinking: true, reasoningEffort: level, thinkingBudget: budget });
    expect(promptOf(r)).toBe(template({ reasoning_effort: level }));
  });

  test("an effort no route knows is a 400 that lists the ones it does", async () => {
    const res = await chat({ reasoning_effort: "max" });
    expectOpenAIError(res, 400, "invalid_request", "reasoning_effort");
    expect(res.json.error.message).toMatch(/"none", "minimal", "low", "medium", "high", "xhigh"/);
  });
});

describe("chat_template_kwargs", () => {
  test("preserve_thinking false removes the earlier reasoning from the prompt; true keeps it", async () => {
    const off = await lastRequest(() => chat({ reasoning_effort: "low", chat_template_kwargs: { preserve_thinking: false } }));
    const on = await lastRequest(() => chat({ reasoning_effort: "low", chat_template_kwargs: { preserve_thinking: true } }));
    expect(promptOf(off)).toBe(template({ reasoning_effort: "low", preserve_thinking: false }));
    expect(promptOf(off)).not.toContain("old trace");
    expect(promptOf(on)).toBe(template({ reasoning_effort: "low", preserve_thinking: true }));
    expect(promptOf(on)).toContain("<think>\nold trace\n</think>");
  });

  test("enable_thinking and reasoning_effort as template variables", async () => {
    const off = await lastRequest(() => chat({ chat_template_kwargs: { enable_thinking: false } }));
    expect(promptOf(off)).toBe(template({ enable_thinking: false }));
    const low = await lastRequest(() => chat({ chat_template_kwargs: { enable_thinking: true, reasoning_effort: "low" } }));
    expect(promptOf(low)).toBe(template({ reasoning_effort: "low" }));
  });

  test.each([
    [{ preserve_reasoning: true }, "chat_template_kwargs.preserve_reasoning"],
    [{ enable_thinking: true, thinking_budget: 100 }, "chat_template_kwargs.thinking_budget"],
    [{ preserve_thinking: "yes" }, "chat_template_kwargs.preserve_thinking"],
    [{ reasoning_effort: "high" }, "chat_template_kwargs.reasoning_effort"],
  ])("%j → 400 naming %s", async (kwargs, param) => {
    const res = await chat({ chat_template_kwargs: kwargs });
    expectOpenAIError(res, 400, "invalid_request", param);
    expect(res.json.error.message).toContain(param.split(".")[1]);
  });
});
