// Owns: the two engines `npm run bench:e2e` times side by side: qtc's runtime, and llama.cpp's own llama-server
// (started on 127.0.0.1 with the same GGUF, sent qtc's rendered prompt and compiled GBNF on `/completion`, its
// output judged by qtc's parser). One request in, one timed sample out.

import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { resolveFormat } from "../../dist/formats/index.js";
import { compileToolGrammar } from "../../dist/grammar/index.js";
import { HARNESS_TOOLS } from "../../dist/harness/tools.js";
import { parse } from "../../dist/parse/index.js";
import type { ToolCall } from "../../dist/parse/types.js";
import { renderPrompt, type ChatMessage } from "../../dist/prompt/index.js";
import type { DecodePassTally } from "../../dist/runtime/decode-passes.js";
import type { Runtime } from "../../dist/runtime/runtime.js";
import { normalizeTools } from "../../dist/tools/index.js";

/** One request of the bench: harness tools, tool choice required when constrained, free text otherwise. */
export interface E2eRequest {
  messages: ChatMessage[];
  constrained: boolean;
  maxTokens: number;
  seed: number;
}

/** What one request cost, as the caller sees it. */
export interface E2eSample {
  ttftMs: number;
  promptTokens: number;
  /** Prompt tokens served from the cache (not evaluated). */
  reused: number;
  /** Prompt tokens evaluated. */
  evaluated: number;
  completionTokens: number;
  /** Completion tokens over the time after the first token. */
  decodeTps: number;
  wallMs: number;
  /** Valid calls the output held (judged by qtc's parser for both engines). */
  calls: ToolCall[];
  /** Blocks the parser rejected. */
  rejected: number;
  /** The engine failed the request (llama-server's own parser refuses some random-weight output with HTTP 500). */
  error?: string;
}

export interface E2eEngine {
  readonly name: string;
  complete(request: E2eRequest): Promise<E2eSample>;
  close(): Promise<void>;
  /** The model passes the engine ran, where it can count them (qtc: its runtime's `onDecodePass`). */
  readonly passes?: DecodePassTally;
}

const TOOLS = [...HARNESS_TOOLS];
const SAMPLING = { temperature: 0.7, topP: 0.8, topK: 20 };

/** qtc's runtime: constrained = its grammar under tool choice required; free = no grammar, no tool choice. */
export function qtcEngine(name: string, runtime: Runtime, passes?: DecodePassTally): E2eEngine {
  return {
    name,
    passes,
    async complete(r) {
      const t0 = performance.now();
      let ttft = 0;
      let result;
      for await (const event of runtime.stream({
        messages: r.messages,
        tools: TOOLS,
        toolChoice: r.constrained ? "required" : "auto",
        mode: r.constrained ? "constrained" : "unconstrained",
        maxTokens: r.maxTokens,
        seed: r.seed,
        ...SAMPLING,
      })) {
        if (ttft === 0 && event.type !== "done") ttft = performance.now() - t0;
        if (event.type === "done") result = event.result;
      }
      const wallMs = performance.now() - t0;
      if (!result) throw new Error("qtc's stream ended without a result");
      const reused = result.usage.promptTokensReused ?? 0;
      return {
        // The runtime's own first-token time: a constrained call's first text can arrive with later tokens.
        ttftMs: result.timings.timeToFirstTokenMs,
        promptTokens: result.usage.promptTokens,
        reused,
        evaluated: result.usage.promptTokens - reused,
        completionTokens: result.usage.completionTokens,
        decodeTps: decodeRate(result.usage.completionTokens, wallMs - result.timings.timeToFirstTokenMs),
        wallMs,
        calls: result.toolCalls,
        rejected: result.errors.length,
      };
    },
    close: () => runtime.close(),
  };
}

export interface LlamaServerOptions {
  program: string;
  model: string;
  threads: number;
  /** Slots (`-np`); each gets `contextSize` tokens. */
  parallel: number;
  contextSize: number;
}

/** Start llama-server on a free 127.0.0.1 port and wait until it answers /health. */
export async function llamaServerEngine(name: string, o: LlamaServerOptions): Promise<E2eEngine> {
  const port = await freePort();
  const args = ["-m", o.model, "--host", "127.0.0.1", "--port", String(port), "-t", String(o.threads), "-tb", String(o.threads)];
  args.push("-np", String(o.parallel), "-c", String(o.contextSize * o.parallel), "-ngl", "0", "--no-webui");
  const child = spawn(o.program, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, LD_LIBRARY_PATH: dirOf(o.program) } });
  let log = "";
  child.stderr!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(base, child, () => log);
  const format = resolveFormat("hermes", undefined);
  const tools = normalizeTools(TOOLS);
  return {
    name,
    async complete(r) {
      const prompt = renderPrompt({ messages: r.messages, tools: TOOLS, format, thinking: false });
      const grammar = r.constrained ? grammarFor(tools, r.maxTokens) : undefined;
      const body = {
        prompt,
        n_predict: r.maxTokens,
        seed: r.seed,
        temperature: SAMPLING.temperature,
        top_p: SAMPLING.topP,
        top_k: SAMPLING.topK,
        min_p: 0,
        cache_prompt: true,
        stream: true,
        preserved_tokens: ["<tool_call>", "</tool_call>"],
        ...(grammar ? { grammar } : {}),
      };
      const t0 = performance.now();
      const res = await fetch(`${base}/completion`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      if (!res.ok || !res.body) throw new Error(`llama-server answered HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      const { text, ttftMs, final, events, error } = await readStream(res.body, t0);
      const wallMs = performance.now() - t0;
      const timings = (final?.timings ?? {}) as { cache_n?: number; prompt_n?: number; predicted_n?: number };
      const completionTokens = timings.predicted_n ?? events;
      const parsed = parse(text, { tools: TOOLS, format, thinking: "closed", truncated: final?.stop_type === "limit" });
      return {
        ttftMs,
        promptTokens: (timings.cache_n ?? 0) + (timings.prompt_n ?? 0),
        reused: timings.cache_n ?? 0,
        evaluated: timings.prompt_n ?? 0,
        completionTokens,
        decodeTps: decodeRate(completionTokens, wallMs - ttftMs),
        wallMs,
        calls: parsed.calls,
        rejected: parsed.errors.length,
        ...(error ? { error } : {}),
      };
    },
    async close() {
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once("exit", resolve)));
    },
  };
}

/** qtc's grammar for the request, as llama-server gets it: tool choice required, from the first token. */
function grammarFor(tools: Parameters<typeof compileToolGrammar>[0], maxTokens: number): string {
  const compiled = compileToolGrammar(tools, { format: "hermes", toolChoice: "required", parallel: true, maxCalls: 8, maxTokens, thinking: false, phase: "start" });
  if (!compiled.ok) throw new Error(`qtc could not compile the harness grammar: ${compiled.error.message}`);
  return compiled.value.gbnf;
}

interface StreamEnd {
  text: string;
  ttftMs: number;
  final: { timings?: unknown; stop_type?: string } | undefined;
  /** Token events streamed (one token each). */
  events: number;
  error?: string;
}

/** Read llama-server's server-sent events: the text, when the first token arrived, and the last event. */
async function readStream(body: ReadableStream<Uint8Array>, t0: number): Promise<StreamEnd> {
  const decoder = new TextDecoder();
  let buffered = "";
  let text = "";
  let ttftMs = 0;
  let final: StreamEnd["final"];
  let events = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (!line.startsWith("data: ")) continue;
      const event = JSON.parse(line.slice(6)) as { content?: string; stop?: boolean; timings?: unknown; stop_type?: string; error?: unknown };
      if (event.error !== undefined) return { text, ttftMs, final, events, error: JSON.stringify(event.error).slice(0, 300) };
      if (ttftMs === 0 && !event.stop) ttftMs = performance.now() - t0;
      if (!event.stop) events++;
      text += event.content ?? "";
      if (event.stop) final = event;
    }
  }
  return { text, ttftMs, final, events, ...(final ? {} : { error: `the stream ended without its final event: ${buffered.slice(0, 200)}` }) };
}

function decodeRate(tokens: number, ms: number): number {
  return ms > 0 ? (Math.max(0, tokens - 1) * 1000) / ms : 0;
}

function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/"));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Poll /health until the model is loaded (llama-server answers 503 while loading). */
async function waitHealthy(base: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`llama-server exited (${child.exitCode}): ${log().slice(-500)}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGTERM");
  throw new Error(`llama-server did not become healthy in 120 s: ${log().slice(-500)}`);
}
