// Owns: `serve()`: load a model into a runtime with one sequence per parallel slot, start the HTTP server on it,
// and give back one handle that stops both.

import { createServer as createNetServer } from "node:net";
import type { FastifyInstance } from "fastify";
import { fail } from "../errors.js";
import type { FormatId } from "../formats/index.js";
import type { GpuChoice } from "../model/index.js";
import { RUNTIME_DEFAULTS } from "../runtime/defaults.js";
import { createRuntime, type UpstreamLimits } from "../engines/index.js";
import { makeStandIn } from "../training/stand-ins.js";
import type { Runtime } from "../runtime/runtime.js";
import { defaultToolChoiceFor } from "../defaults.js";
import { ValidatorCache } from "../tools/index.js";
import { SERVER_DEFAULTS, type ServerOptions } from "./defaults.js";
import { createServer } from "./server.js";

export interface ServeOptions extends Omit<ServerOptions, "runtime"> {
  /** A GGUF path, an `hf:` URI, a registry name or `synthetic:<shape>`. Required. */
  model: string;
  /**
   * Bounds on each exchange with a remote engine (`model: "openai:URL"` and the other engine specs): the overall
   * deadline `timeoutMs` that no comment or ping extends, and the silence limit `idleTimeoutMs`. Default: UPSTREAM_DEFAULTS.
   */
  upstreamLimits?: Partial<UpstreamLimits>;
  /** Address to listen on. Default: "127.0.0.1" (this machine only). */
  host?: string;
  /** Port; 0 picks a free one. Default: 8080. */
  port?: number;
  /** CPU threads. Default: RUNTIME_DEFAULTS.threads. */
  threads?: number;
  /** Tokens each sequence holds (prompt + answer). Default: RUNTIME_DEFAULTS.contextSize. */
  contextSize?: number;
  /** Compute backend. Default: RUNTIME_DEFAULTS.gpu ("auto"). */
  gpu?: GpuChoice;
  /** Tool-call format. Default: from the model's chat template. */
  format?: FormatId;
}

export interface Serving {
  /** `http://HOST:PORT` */
  url: string;
  app: FastifyInstance;
  runtime: Runtime;
  /** Stop accepting requests, cancel the ones in flight, free the model. */
  close(): Promise<void>;
}

/** Load the model and listen. Throws QtcException for a model that does not load or an address in use. */
export async function serve(options: ServeOptions): Promise<Serving> {
  const parallel = options.parallel ?? SERVER_DEFAULTS.parallel;
  const host = options.host ?? SERVER_DEFAULTS.host;
  const port = options.port ?? SERVER_DEFAULTS.port;
  await checkAddress(host, port); // before the model loads, so a busy port fails in milliseconds
  // One validator cache for the server's 400 checks and the runtime's compile: each tool list compiles once.
  const validators = options.validators ?? new ValidatorCache();
  const runtime = await createRuntime({
    validators,
    model: options.model,
    gpu: options.gpu ?? RUNTIME_DEFAULTS.gpu,
    threads: options.threads ?? RUNTIME_DEFAULTS.threads,
    contextSize: options.contextSize ?? RUNTIME_DEFAULTS.contextSize,
    sequences: parallel,
    format: options.format,
    standIns: makeStandIn,
    ...(options.upstreamLimits ? { upstreamLimits: options.upstreamLimits } : {}),
  });
  const defaultToolChoice = options.defaultToolChoice ?? defaultToolChoiceFor([runtime.modelInfo]);
  const app = createServer({ ...options, parallel, runtime, validators, defaultToolChoice, modelId: options.modelId ?? runtime.modelInfo.name });
  let url: string;
  try {
    url = await app.listen({ host, port });
  } catch (e) {
    await app.close().catch(() => undefined);
    await runtime.close();
    listenFailure(e, host, port);
  }
  return {
    url,
    app,
    runtime,
    close: async () => {
      await app.close();
      await runtime.close();
    },
  };
}

/** Fail now when the address cannot be listened on (a busy port, a host that is not this machine). */
async function checkAddress(host: string, port: number): Promise<void> {
  const probe = createNetServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (e) {
    listenFailure(e, host, port);
  } finally {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

function listenFailure(e: unknown, host: string, port: number): never {
  const code = (e as { code?: string }).code;
  if (code === "EADDRINUSE") fail("invalid_option", `${host}:${port} is already in use; pick another --port`);
  if (code === "EACCES") fail("invalid_option", `no permission to listen on port ${port}; pick a port above 1023 with --port`);
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") fail("invalid_option", `cannot listen on ${host}; give an address of this machine with --host`);
  throw e;
}
