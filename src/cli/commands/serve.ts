// Owns: the `qtc serve` command: flags → serve(), one line saying where it listens, then run until SIGINT/SIGTERM.

import { type Command, Option } from "commander";
import { ENGINE_KINDS, UPSTREAM_DEFAULTS, type EngineKind } from "../../engines/index.js";
import { fail } from "../../errors.js";
import { FORMAT_IDS, type FormatId } from "../../formats/index.js";
import { GPU_CHOICES, MODEL_SPEC_HELP, type GpuChoice } from "../../model/index.js";
import { RUNTIME_DEFAULTS } from "../../runtime/defaults.js";
import type { GenerationMode } from "../../runtime/types.js";
import { SERVER_DEFAULTS } from "../../server/defaults.js";
import { LOG_DEFAULTS, LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel, serverLogger } from "../../server/log-format.js";
import { serve } from "../../server/serve.js";
import { parseCorsOrigins } from "../../server/cors.js";
import { CALL_POLICIES, type CallPolicy } from "../../tools/call-policy.js";
import type { UnsupportedPolicy } from "../../grammar/index.js";
import { choiceOption, intOption, MAX_CONTEXT_SIZE, repeatGuardOption, threadsHelp, threadsText } from "../options.js";

interface ServeFlags {
  model?: string;
  upstream: string[];
  upstreamKind: EngineKind;
  upstreamTimeout: number;
  upstreamIdleTimeout: number;
  host: string;
  port: number;
  parallel: number;
  apiKey?: string;
  mode: GenerationMode;
  threads?: number;
  contextSize: number;
  context?: number;
  gpu: GpuChoice;
  format?: FormatId;
  bodyLimit: number;
  maxTokens?: number;
  maxTokensCap?: number;
  callPolicy: CallPolicy;
  repeatGuard: number | false;
  unsupported: UnsupportedPolicy;
  headersTimeout: number;
  bodyTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
  maxConnections: number;
  maxRequestsPerSocket: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
  alias?: string;
  cors?: string | true;
}

const MODES = ["constrained", "unconstrained"] as const;
const UNSUPPORTED_POLICIES = ["validate", "strict"] as const;

export function registerServe(program: Command): Command {
  return program
    .command("serve")
    .description("Serve an OpenAI- and Anthropic-compatible API whose tool calls arrive structured")
    .option("-m, --model <model>", `model: ${MODEL_SPEC_HELP} (default: ${RUNTIME_DEFAULTS.model}; or give --upstream)`)
    .option("--upstream <url>", "an engine that generates instead of a local model (repeat it for replicas)", (url: string, all: string[]) => [...all, url], [] as string[])
    .option("--upstream-kind <kind>", `what --upstream is: ${ENGINE_KINDS.join("|")}`, choiceOption(ENGINE_KINDS), "llama-server" as EngineKind)
    .option("--upstream-timeout <ms>", "deadline for each request to the upstream, from its start; keep-alive comments and pings do not extend it", intOption(1), UPSTREAM_DEFAULTS.timeoutMs)
    .option("--upstream-idle-timeout <ms>", "longest the upstream may stream no data (comments and pings do not count)", intOption(1), UPSTREAM_DEFAULTS.idleTimeoutMs)
    .option("--host <host>", "address to listen on (0.0.0.0 exposes it to the network)", SERVER_DEFAULTS.host)
    .option("--port <n>", "port (0 picks a free one)", intOption(0, 65535), SERVER_DEFAULTS.port)
    .option("--parallel <n>", "requests generated at once (one context sequence each); more wait in a queue", intOption(1, 64), SERVER_DEFAULTS.parallel)
    .option("--api-key <key>", "require this key (Authorization: Bearer KEY or x-api-key: KEY); default: $QTC_API_KEY, else none")
    .option("--mode <mode>", MODES.join("|"), choiceOption(MODES), SERVER_DEFAULTS.mode)
    .option("--threads <n>", threadsHelp(), intOption(1, 1024))
    .option("--context-size <n>", "tokens each sequence holds (prompt + answer)", intOption(64, MAX_CONTEXT_SIZE), RUNTIME_DEFAULTS.contextSize)
    .addOption(new Option("--context <n>", "same as --context-size").argParser(intOption(64, MAX_CONTEXT_SIZE)).hideHelp())
    .option("--gpu <gpu>", GPU_CHOICES.join("|"), choiceOption(GPU_CHOICES), RUNTIME_DEFAULTS.gpu)
    .option("--format <format>", `tool-call format: ${FORMAT_IDS.join("|")} (default: from the model's chat template)`, choiceOption(FORMAT_IDS))
    .option("--max-tokens <n>", "max_tokens when a request gives none (default: what the context leaves after the prompt)", intOption(1))
    .option("--max-tokens-cap <n>", "the most output tokens one turn may take; a larger max_tokens is clamped, said in the response (default: none)", intOption(1))
    .option("--call-policy <policy>", `${CALL_POLICIES.join("|")}: how requests with tools ask for a call (small models: required-first or finish-tool); the x-qtc-call-policy header overrides it`, choiceOption(CALL_POLICIES), SERVER_DEFAULTS.callPolicy)
    .option("--unsupported <policy>", `${UNSUPPORTED_POLICIES.join("|")}: a tool schema keyword the grammar cannot hold is left to the validator, or refused naming the tool`, choiceOption(UNSUPPORTED_POLICIES), SERVER_DEFAULTS.unsupported)
    .option("--repeat-guard <n|off>", "stop a loop: a 1-3 token span repeated n times in a row (a phrase: n/3) closes the value and call, or ends the text", repeatGuardOption, SERVER_DEFAULTS.repeatGuard)
    .option("--body-limit <bytes>", "largest request body; bigger ones get 413", intOption(1024), SERVER_DEFAULTS.bodyLimit)
    .option("--headers-timeout <ms>", "time a client has to send a request's headers", intOption(1), SERVER_DEFAULTS.headersTimeout)
    .option("--body-timeout <ms>", "time a request body has to arrive after its headers; later gets 408", intOption(1), SERVER_DEFAULTS.bodyTimeout)
    .option("--keep-alive-timeout <ms>", "how long an idle keep-alive connection stays open", intOption(1), SERVER_DEFAULTS.keepAliveTimeout)
    .option("--connection-timeout <ms>", "close a socket silent this long in both directions (0: never; a queued request is silent)", intOption(0), SERVER_DEFAULTS.connectionTimeout)
    .option("--max-connections <n>", "open connections at most; more are closed as they arrive", intOption(1), SERVER_DEFAULTS.maxConnections)
    .option("--log-level <level>", `${LOG_LEVELS.join("|")}: info logs one line per request`, choiceOption(LOG_LEVELS), LOG_DEFAULTS.level)
    .option("--log-format <format>", `${LOG_FORMATS.join("|")} (logs go to stderr)`, choiceOption(LOG_FORMATS), LOG_DEFAULTS.format)
    .option("--alias <name>", "the model id in /v1/models and in responses (requests may name it; every name is served by the one model) (default: the model's name)")
    .option("--cors [origins]", `let browsers call the server: a comma-separated list of origins (https://app.example), or * for any; the flag alone means * (default: off)`)
    .option("--max-requests-per-socket <n>", "requests one keep-alive connection may carry (0: no limit)", intOption(0), SERVER_DEFAULTS.maxRequestsPerSocket)
    .action(async (flags: ServeFlags) => {
      const apiKey = flags.apiKey ?? process.env.QTC_API_KEY;
      if (!apiKey && !isLoopback(flags.host)) {
        process.stderr.write(`qtc serve: warning: --host ${flags.host} lets other machines use this server and no --api-key is set; anyone who can reach it can use it. Set --api-key (or $QTC_API_KEY).\n`);
      }
      const cors = corsOf(flags.cors);
      const server = await serve({
        // A person at a terminal hears that it listens while the model loads; logs and scripts get one line once ready.
        onListening: (url) => void (process.stderr.isTTY && process.stderr.write(`qtc serve: listening on ${url}; loading the model (GET /health answers 503 until it is ready)\n`)),
        ...(flags.alias !== undefined ? { modelId: flags.alias } : {}),
        ...(cors.length > 0 ? { cors } : {}),
        logger: serverLogger(flags.logLevel, flags.logFormat),
        model: modelOf(flags),
        upstreamLimits: { timeoutMs: flags.upstreamTimeout, idleTimeoutMs: flags.upstreamIdleTimeout },
        host: flags.host,
        port: flags.port,
        parallel: flags.parallel,
        apiKey,
        mode: flags.mode,
        ...(flags.threads !== undefined ? { threads: flags.threads } : {}),
        contextSize: flags.context ?? flags.contextSize,
        gpu: flags.gpu,
        format: flags.format,
        bodyLimit: flags.bodyLimit,
        ...(flags.maxTokens !== undefined ? { defaultMaxTokens: flags.maxTokens } : {}),
        ...(flags.maxTokensCap !== undefined ? { maxTokensCap: flags.maxTokensCap } : {}),
        callPolicy: flags.callPolicy,
        repeatGuard: flags.repeatGuard,
        unsupported: flags.unsupported,
        headersTimeout: flags.headersTimeout,
        bodyTimeout: flags.bodyTimeout,
        keepAliveTimeout: flags.keepAliveTimeout,
        connectionTimeout: flags.connectionTimeout,
        maxConnections: flags.maxConnections,
        maxRequestsPerSocket: flags.maxRequestsPerSocket,
      });
      const { synthetic } = server.runtime.modelInfo;
      const name = flags.alias !== undefined ? `${flags.alias} = ${server.runtime.modelInfo.name}` : server.runtime.modelInfo.name;
      process.stdout.write(
        `qtc serve: ${server.url}/v1 (model ${name}${synthetic ? ", synthetic: random weights" : ""}, ${flags.mode}, ` +
          `parallel ${flags.parallel}, ${threadsText(server.runtime.settings.threads)}, format ${server.runtime.format}` +
          `${flags.callPolicy !== "auto" ? `, call policy ${flags.callPolicy}` : ""}${apiKey ? ", API key required" : ""}${cors.length > 0 ? `, CORS ${cors.join(",")}` : ""})\n`,
      );
      await untilSignal();
      await server.close();
    });
}

/** `--cors` as a list of origins: none without the flag, `*` for the flag alone. */
function corsOf(flag: string | true | undefined): string[] {
  if (flag === undefined) return [];
  if (flag === true) return ["*"];
  try {
    const origins = parseCorsOrigins(flag);
    if (origins.length === 0) fail("invalid_option", "--cors needs origins (https://app.example,…) or *; give the flag alone for *");
    return origins;
  } catch (e) {
    if (e instanceof RangeError) fail("invalid_option", `--cors: ${e.message}`);
    throw e;
  }
}

/** Addresses only this machine can reach. */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The model spec: a local model, or the upstream engine(s) as `kind:URL[,URL…]` (createRuntime's engine spec). */
function modelOf(flags: ServeFlags): string {
  if (flags.upstream.length > 0 && flags.model) fail("invalid_option", "give either --model or --upstream, not both");
  if (flags.upstream.length > 0) return `${flags.upstreamKind}:${flags.upstream.join(",")}`;
  return flags.model ?? RUNTIME_DEFAULTS.model;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
