// Owns: a live server on 127.0.0.1 over the real runtime with the synthetic tiny Qwen3 (one sequence, CPU),
// for tests that need real grammars and tokenization behind the HTTP routes.

import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import { start, type Running } from "../server/helpers.js";
import { tinyModelPath } from "./models.js";

export interface TinyServer extends Running {
  runtime: Runtime;
  close(): Promise<void>;
}

/** Start it (about 2 s); `close()` stops the server, then the runtime. */
export async function startTinyServer(contextSize = 2048): Promise<TinyServer> {
  const runtime = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize, sequences: 1, gpu: "cpu" });
  const server = await start({ runtime });
  return {
    ...server,
    runtime,
    close: async () => {
      await server.app.close();
      await runtime.close();
    },
  };
}
