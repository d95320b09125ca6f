// Owns: a live server on 127.0.0.1 over the real runtime with the synthetic tiny Qwen3 (one sequence, CPU),
// for tests that need real grammars and tokenization behind the HTTP routes.

import { afterAll, beforeAll } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { post, start, type Running } from "../server/helpers.js";
import { tinyModelPath } from "./models.js";

export interface TinyServer extends Running {
  runtime: Runtime;
  close(): Promise<void>;
}

/**
 * Start it (a few seconds) and serve one small constrained request, so one-time setup (token tables, the first
 * grammar) is not counted by a test that measures `/health` or RSS; `close()` stops the server, then the runtime.
 */
export async function startTinyServer(contextSize = 2048): Promise<TinyServer> {
  const runtime = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize, sequences: 1, gpu: "cpu" });
  const server = await start({ runtime });
  const tool = { type: "function", function: { name: "f", parameters: { type: "object", properties: { a: { type: "string" } }, required: ["a"] } } };
  await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }], tools: [tool], tool_choice: "required", max_tokens: 64 });
  return {
    ...server,
    runtime,
    close: async () => {
      await server.app.close();
      await runtime.close();
    },
  };
}

/** startTinyServer for a whole test file: started before its tests, closed after them; read `url` and `runtime`. */
export function useTinyServer(contextSize = 2048): { readonly url: string; readonly runtime: Runtime } {
  let server: TinyServer | undefined;
  beforeAll(async () => {
    server = await startTinyServer(contextSize);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });
  const started = () => {
    if (!server) throw new Error("the tiny server is not started yet (use it inside a test)");
    return server;
  };
  return {
    get url() {
      return started().url;
    },
    get runtime() {
      return started().runtime;
    },
  };
}
