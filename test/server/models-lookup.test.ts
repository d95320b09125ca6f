// Model names: one model answers every request whatever `model` it names, so every name chat accepts is also found
// by `GET /v1/models/{id}` (OpenAI's and Anthropic's SDKs), and the lookup says which model answers it.

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, expect, test } from "vitest";
import { fakeRuntime } from "./fake-runtime.js";
import { type Running, start } from "./helpers.js";

let server: Running | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

test("a name chat accepts is found by the lookup, which names the served model", async () => {
  server = await start({ runtime: fakeRuntime(), modelId: "qwen3-0.6b" });
  const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x" });
  for (const name of ["qwen3-0.6b", "gpt-4o-mini"]) {
    const chat = await openai.chat.completions.create({ model: name, messages: [{ role: "user", content: "hi" }] });
    expect(chat.model).toBe("qwen3-0.6b");
    const found = (await openai.models.retrieve(name)) as unknown as { id: string; object: string; qtc: { served: string } };
    expect(found).toMatchObject({ id: name, object: "model", qtc: { served: "qwen3-0.6b" } });
  }
  const anthropic = new Anthropic({ baseURL: server.url, apiKey: "x" });
  expect(await anthropic.models.retrieve("claude-x")).toMatchObject({ type: "model", id: "claude-x", qtc: { served: "qwen3-0.6b" } });
});
