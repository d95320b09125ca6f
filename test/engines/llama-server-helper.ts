// Owns: a real llama-server for tests: started on 127.0.0.1 (a free port) with the synthetic tiny model, waited
// for until `/health` answers 200, and stopped (its process killed) when the test is done.

import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { dirname } from "node:path";
import { requireLlamaProgram } from "../../src/engines/llama-build.js";
import { tinyModelPath } from "../helpers/models.js";

export interface LlamaServerProcess {
  url: string;
  process: ChildProcess;
  /** Kill it (SIGKILL) and wait for it to exit. */
  stop(): Promise<void>;
  /** The end of its log, for a failure message. */
  log(): string;
}

export interface StartOptions {
  /** Parallel slots. Default: 2. */
  slots?: number;
  /** Total context (shared by the slots). Default: 2048 per slot. */
  contextSize?: number;
  /** Default: 1. */
  threads?: number;
  /** Milliseconds to wait for /health. Default: 60 s. */
  readyTimeoutMs?: number;
  /** The GGUF to serve. Default: the synthetic tiny model (Q8_0). */
  model?: string;
  /** More llama-server arguments (e.g. `--lora FILE`). Default: none. */
  extraArgs?: string[];
}

/** A port nothing listens on now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Start llama-server with the tiny model and wait until it is healthy. */
export async function startLlamaServer(options: StartOptions = {}): Promise<LlamaServerProcess> {
  const program = requireLlamaProgram("llama-server");
  const model = options.model ?? (await tinyModelPath());
  const slots = options.slots ?? 2;
  const port = await freePort();
  const args = ["-m", model, "--host", "127.0.0.1", "--port", String(port), "-np", String(slots), "-c", String(options.contextSize ?? 2048 * slots), "-t", String(options.threads ?? 1), "--no-webui", "-ngl", "0", ...(options.extraArgs ?? [])];
  const child = spawn(program, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LD_LIBRARY_PATH: dirname(program) } });
  let log = "";
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString("utf8")).slice(-8000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const handle: LlamaServerProcess = {
    url,
    process: child,
    log: () => log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`llama-server exited (${child.exitCode}) before it was ready:\n${log}`);
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return handle;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await handle.stop();
  throw new Error(`llama-server was not healthy within the time limit:\n${log}`);
}
