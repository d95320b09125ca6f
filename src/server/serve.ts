// Owns: `serve()`: start the HTTP server, load a model into a runtime with one sequence per parallel slot behind it
// (the server says it is loading meanwhile), and give back one handle that stops both.

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
import { SERVER_DEFAULTS, type ServerOptions, type ServerRuntime } from "./defaults.js";
import { createServer } from "./server.js";

export interface ServeOptions extends Omit<ServerOptions, "runtime" | "ready"> {
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
  /** Called with `http://HOST:PORT` once the server listens, before the model loads. Default: none. */
  onListening?: (url: string) => void | Promise<void>;
}

export interface Serving {
  /** `http://HOST:PORT` */
  url: string;
  app: FastifyInstance;
  runtime: Runtime;
  /** Stop accepting requests, cancel the ones in flight, free the model. */
  close(): Promise<void>;
}

/**
 * Listen, then load the model: while it loads, `/health` answers 503 `{"status": "loading"}` and every other route
 * a 503 `loading` (`onListening` hears the address first). Resolves once the model is loaded and served. Throws
 * QtcException for a model that does not load (the server is closed first) or an address in use.
 */
export async function serve(options: ServeOptions): Promise<Serving> {
  const parallel = options.parallel ?? SERVER_DEFAULTS.parallel;
  const host = options.host ?? SERVER_DEFAULTS.host;
  const port = options.port ?? SERVER_DEFAULTS.port;
  await checkAddress(host, port); // before the model loads, so a busy port fails in milliseconds
  // One validator cache for the server's 400 checks and the runtime's compile: each tool list compiles once.
  const validators = options.validators ?? new ValidatorCache();
  let loaded!: (value: { runtime: Runtime; modelId: string; defaultToolChoice: "auto" | "required" }) => void;
  let failed!: (reason: unknown) => void;
  const ready = new Promise<{ runtime: Runtime; modelId: string; defaultToolChoice: "auto" | "required" }>((resolve, reject) => ((loaded = resolve), (failed = reject)));
  ready.catch(() => undefined);
  const { onListening, ...serverOptions } = options;
  const app = createServer({ ...serverOptions, parallel, runtime: LOADING_RUNTIME, validators, ready });
  // The log stays quiet until the model has loaded: a model that fails to load is one error line, as before the
  // server listened first; fastify's "listening" line is written once it is ready.
  const level = app.log.level;
  app.log.level = "silent";
  let url: string;
  try {
    url = await app.listen({ host, port });
  } catch (e) {
    await app.close().catch(() => undefined);
    listenFailure(e, host, port);
  }
  let runtime: Runtime;
  try {
    await onListening?.(url);
    runtime = await createRuntime({
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
  } catch (e) {
    failed(e);
    await app.close().catch(() => undefined);
    throw e;
  }
  const defaultToolChoice = options.defaultToolChoice ?? defaultToolChoiceFor([runtime.modelInfo]);
  loaded({ runtime, modelId: options.modelId ?? runtime.modelInfo.name, defaultToolChoice });
  await ready;
  app.log.level = level;
  app.log.info(`Server listening at ${url}`);
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

/** The runtime the server holds while the model loads: never reached (every route but /health answers 503 then). */
const LOADING_RUNTIME: ServerRuntime = {
  generate: () => Promise.reject(new Error("the model is still loading")),
  stream: () => {
    throw new Error("the model is still loading");
  },
};

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
