// Owns: a small scripted runtime for testing the HTTP layer without a model: it answers `required` / a named
// tool with one call whose arguments fit the tool's schema, `auto` with text, and honours `signal` and delays.

import type { ToolCall } from "../../src/parse/types.js";
import type { GenerateEvent, GenerateRequest, GenerateResult } from "../../src/runtime/types.js";
import type { ServerRuntime } from "../../src/server/index.js";
import type { ToolInput } from "../../src/tools/types.js";

export interface FakeRuntime extends ServerRuntime {
  /** Every request received, in order. */
  requests: GenerateRequest[];
  /** Requests running right now, and the most ever running at once. */
  running: number;
  maxRunning: number;
  /** Requests that ended by abort. */
  aborted: number;
  /** With `held`, let every request (running or to come) go on. */
  open(): void;
}

export interface FakeOptions {
  /** Milliseconds between stream events (and the whole duration of generate ÷ events). Default: 0. */
  delayMs?: number;
  /** Text answered under `auto`. Default: "Hello from qtc." */
  text?: string;
  /** Reasoning emitted before the answer when `thinking` is on. Default: "Let me think." */
  reasoning?: string;
  /** Hold every request before its first event until `open()` (or its abort). Default: false. */
  held?: boolean;
}

function toolName(t: ToolInput): string {
  return "function" in t ? t.function.name : t.name;
}

function schemaOf(t: ToolInput): Record<string, unknown> {
  if ("function" in t) return t.function.parameters ?? {};
  return ("input_schema" in t ? t.input_schema : t.parameters) ?? {};
}

/** Arguments that fit a flat object schema: strings get "x", numbers 1, booleans true. */
function argsFor(t: ToolInput): Record<string, unknown> {
  const props = (schemaOf(t).properties ?? {}) as Record<string, { type?: string }>;
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(props)) {
    out[key] = prop.type === "number" || prop.type === "integer" ? 1 : prop.type === "boolean" ? true : `${key}-value`;
  }
  return out;
}

export function fakeRuntime(options: FakeOptions = {}): FakeRuntime {
  const delay = options.delayMs ?? 0;
  let callSeq = 0;
  let openGate!: () => void;
  const gate = options.held ? new Promise<void>((resolve) => (openGate = resolve)) : Promise.resolve();
  const fake: FakeRuntime = {
    requests: [],
    running: 0,
    maxRunning: 0,
    aborted: 0,
    modelInfo: { name: "fake-model" },
    open: () => openGate?.(),
    /** Every prompt is 10 tokens, as every result's usage says. */
    countTokens: () => 10,
    async generate(request) {
      let result: GenerateResult | undefined;
      for await (const event of fake.stream(request)) if (event.type === "done") result = event.result;
      if (!result) throw new Error("fake stream ended without done");
      return result;
    },
    stream(request) {
      return run(request);
    },
  };

  async function* run(request: GenerateRequest): AsyncGenerator<GenerateEvent> {
    fake.requests.push(request);
    fake.running++;
    fake.maxRunning = Math.max(fake.maxRunning, fake.running);
    try {
      await Promise.race([gate, aborted(request.signal)]);
      const events = script(request);
      for (const event of events) {
        if (delay) await sleep(delay, request.signal);
        if (request.signal?.aborted) {
          fake.aborted++;
          // As the real runtime does: an aborted turn still ends with `done`, its usage counted so far.
          yield abortedDone(events, event);
          return;
        }
        yield event;
      }
    } finally {
      fake.running--;
    }
  }

  function script(request: GenerateRequest): GenerateEvent[] {
    const events: GenerateEvent[] = [];
    const reasoning = request.thinking ? (options.reasoning ?? "Let me think.") : null;
    if (reasoning) events.push({ type: "reasoning-delta", text: reasoning.slice(0, 5) }, { type: "reasoning-delta", text: reasoning.slice(5) });
    const tools = request.tools ?? [];
    const choice = request.toolChoice ?? "auto";
    const calls: ToolCall[] = [];
    let content = "";
    if (tools.length && (choice === "required" || typeof choice === "object")) {
      const tool = typeof choice === "object" ? tools.find((t) => toolName(t) === choice.name)! : tools[0]!;
      const parsed = argsFor(tool);
      const args = JSON.stringify(parsed);
      const call: ToolCall = { id: `fake${++callSeq}`, name: toolName(tool), arguments: args, parsedArguments: parsed, format: "hermes", raw: "", start: 0, end: 0 };
      calls.push(call);
      events.push({ type: "tool-call-start", index: 0, id: call.id, name: call.name });
      for (let i = 0; i < args.length; i += 4) events.push({ type: "tool-call-delta", index: 0, id: call.id, argumentsDelta: args.slice(i, i + 4) });
      events.push({ type: "tool-call", index: 0, call });
    } else {
      content = options.text ?? "Hello from qtc.";
      for (const word of content.split(/(?<= )/)) events.push({ type: "text-delta", text: word });
    }
    const completionTokens = events.length;
    const result: GenerateResult = {
      content,
      reasoning,
      toolCalls: calls,
      errors: [],
      finishReason: calls.length ? "tool_calls" : "stop",
      usage: { promptTokens: 10, completionTokens, forcedTokens: 0 },
      timings: { timeToFirstTokenMs: 1, decodeTokensPerSecond: 100, grammarMs: 0, totalMs: 2 },
      diagnostics: { detected: calls.length, accepted: calls.length, rejected: {}, emitted: calls.length, notes: [] },
      raw: content,
      tokens: [],
      mode: request.mode ?? "constrained",
      format: "hermes",
    };
    events.push({ type: "done", result });
    return events;
  }

  return fake;
}

/** The `done` of a turn aborted before `next`: the script's result, marked aborted. */
function abortedDone(events: GenerateEvent[], next: GenerateEvent): GenerateEvent {
  const last = events[events.length - 1]!;
  if (last.type !== "done") throw new Error("a fake script ends with done");
  const completionTokens = events.indexOf(next);
  return { type: "done", result: { ...last.result, finishReason: "aborted", usage: { ...last.result.usage, completionTokens } } };
}

function aborted(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
