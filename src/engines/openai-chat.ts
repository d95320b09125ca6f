// Owns: the plain OpenAI-compatible engine (LM Studio, Ollama, any `/v1/chat/completions`): the messages and
// tools go out as they are, no grammar holds the output, and the text that comes back is judged by qtc's strict
// parser: the XML re-parsing adapter as a service. Results say plainly that nothing guaranteed them. The text is
// untrusted (a call it only quotes is never run: ParserOptions.untrusted), and tool calls the upstream already
// returns structured are judged like text calls (upstream-tool-calls.ts).

import { resolveFormat, type FormatId, type ToolCallFormat } from "../formats/index.js";
import { streamEventsOf } from "../adapters/index.js";
import { GrammarCache } from "../grammar/compile.js";
import type { TurnCounts } from "../runtime/result.js";
import type { ModelInfo, Runtime } from "../runtime/runtime.js";
import { finishTurn, prepareTurn, turnParser, type PreparedTurn } from "../runtime/turn-request.js";
import type { FinishReason, GenerateEvent, GenerateRequest } from "../runtime/types.js";
import { ValidatorCache } from "../tools/index.js";
import type { ToolChoice } from "../tools/types.js";
import { upstreamBase } from "./llama-server.js";
import type { UpstreamRuntime } from "./replicas.js";
import { enforceToolChoice, UpstreamRuntimeBase } from "./upstream-runtime.js";
import { upstreamInteger } from "./upstream-values.js";
import { StructuredCalls, withStructuredCalls } from "./upstream-tool-calls.js";
import { postSse, probe, UPSTREAM_DEFAULTS, upstreamFailure, type UpstreamLimits } from "./upstream-http.js";

/** The note every result of this engine carries (tests and reports key on its start). */
export const NO_GRAMMAR_NOTE = "no grammar held this output (openai engine): validity is measured by qtc's parser, not guaranteed";

export interface OpenAIChatOptions {
  /** The format the model writes calls in (the parser reads it). Default: hermes. */
  format?: FormatId | ToolCallFormat;
  /** Model name sent upstream. Default: "default". */
  upstreamModel?: string;
  validators?: ValidatorCache;
  /** Default: UPSTREAM_DEFAULTS. */
  limits?: Partial<UpstreamLimits>;
  /** Requests sent at once that `load` counts as capacity. Default: 1. */
  sequences?: number;
}

/** A runtime over a chat endpoint. Nothing is fetched until the first request (health: GET /v1/models). */
export async function createOpenAIChatRuntime(url: string, options: OpenAIChatOptions = {}): Promise<UpstreamRuntime> {
  const base = upstreamBase(url).replace(/\/v1$/, "");
  return new OpenAIChatRuntime(base, options);
}

/** One streamed chat chunk, or a whole reply from an upstream that does not stream (the fields qtc reads). */
interface ChatChunk {
  choices?: { delta?: { content?: unknown; tool_calls?: unknown }; message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  error?: unknown;
}

class OpenAIChatRuntime extends UpstreamRuntimeBase implements UpstreamRuntime {
  readonly format: FormatId;
  readonly modelInfo: ModelInfo;
  readonly settings: Runtime["settings"];
  private readonly toolFormat: ToolCallFormat;
  private readonly validators: ValidatorCache;
  private readonly toolGrammars = new GrammarCache();
  private readonly limits: UpstreamLimits;

  constructor(private readonly base: string, private readonly options: OpenAIChatOptions) {
    super();
    this.toolFormat = resolveFormat(options.format, resolveFormat("hermes"));
    this.format = this.toolFormat.id;
    this.validators = options.validators ?? new ValidatorCache();
    this.limits = { ...UPSTREAM_DEFAULTS, ...options.limits };
    this.modelInfo = { name: `openai:${base}`, synthetic: false, path: "" };
    this.settings = { gpu: false, binary: "remote", threads: 0, contextSize: 0, sequences: options.sequences ?? 1 };
  }

  async healthy(timeoutMs: number): Promise<boolean> {
    return (await probe(`${this.base}/v1/models`, timeoutMs)) === 200;
  }

  async *stream(request: GenerateRequest): AsyncGenerator<GenerateEvent, void, void> {
    const startedAt = performance.now();
    this.checkOpen();
    // Checked as the other engines check it (bad tools are refused before any upstream work); no grammar is built.
    const turn = prepareTurn({ ...request, mode: "unconstrained" }, { format: this.toolFormat, validators: this.validators, toolGrammars: this.toolGrammars });
    const choice = { toolChoice: turn.tools ? turn.req.toolChoice : ("auto" as const), parallel: turn.req.parallel };
    yield* enforceToolChoice(this.run(turn, request, startedAt), choice, this.base);
  }

  private async *run(turn: PreparedTurn, request: GenerateRequest, startedAt: number): AsyncGenerator<GenerateEvent, void, void> {
    const { req } = turn;
    const where = `${this.base}/v1/chat/completions`;
    const structured = new StructuredCalls(where);
    const text = turnParser(turn, undefined, true);
    const parser = withStructuredCalls(text.parser, structured, turn.tools);
    const { callIndex } = text;
    const body = {
      model: this.options.upstreamModel ?? "default",
      messages: request.messages,
      ...(turn.tools ? { tools: turn.tools.tools.map((t) => ({ type: "function", function: t })), tool_choice: openAIToolChoice(req.toolChoice) } : {}),
      ...(req.parallel ? {} : turn.tools ? { parallel_tool_calls: false } : {}),
      max_tokens: req.maxTokens,
      temperature: req.temperature,
      top_p: req.topP,
      seed: req.seed,
      stream: true,
      stream_options: { include_usage: true },
    };
    this.busy++;
    let raw = "";
    let ended: FinishReason | undefined;
    let usage: ChatChunk["usage"];
    let firstAt: number | undefined;
    let aborted = false;
    try {
      for await (const data of postSse(`${this.base}/v1/chat/completions`, body, this.limits, request.signal)) {
        const chunk = (data ?? {}) as ChatChunk;
        if (chunk.error !== undefined) throw upstreamFailure("upstream_error", `${this.base} streamed an error: ${JSON.stringify(chunk.error).slice(0, 300)}`);
        if (typeof chunk.usage === "object" && chunk.usage !== null) usage = chunk.usage;
        const choice = chunk.choices?.[0];
        const part = choice?.delta ?? choice?.message;
        const text = part?.content;
        if (Array.isArray(part?.tool_calls)) structured.push(part.tool_calls);
        if (typeof text === "string" && text !== "") {
          firstAt ??= performance.now();
          raw += text;
          for (const event of parser.feed(text)) yield* streamEventsOf(event, callIndex);
        }
        if (typeof choice?.finish_reason === "string") ended = choice.finish_reason === "length" ? "length" : "stop";
      }
    } catch (e) {
      if (!request.signal?.aborted) throw e;
      aborted = true;
    } finally {
      this.busy--;
    }
    if (!aborted && ended === undefined) throw upstreamFailure("upstream_error", `${this.base}/v1/chat/completions: the stream ended without a finish_reason`);
    const outcome = counts(aborted ? "aborted" : ended!, usage, startedAt, firstAt, `${this.base}/v1/chat/completions usage`);
    const events = [...finishTurn(parser, { outcome, raw, mode: "unconstrained", format: req.format.id, judgeAnswer: turn.judgeAnswer, qtcGrammar: false }, callIndex)];
    const done = events[events.length - 1];
    if (done?.type === "done") {
      done.result.diagnostics.notes.push(NO_GRAMMAR_NOTE);
    }
    yield* events;
  }
}

function openAIToolChoice(choice: ToolChoice): unknown {
  return typeof choice === "object" ? { type: "function", function: { name: choice.name } } : choice;
}

/** The turn's counts; the upstream's usage numbers are checked (whole numbers in bounds) before they are used. */
function counts(finishReason: FinishReason, usage: ChatChunk["usage"], startedAt: number, firstAt: number | undefined, where: string): TurnCounts {
  const now = performance.now();
  const completion = upstreamInteger(usage?.completion_tokens, where, "completion_tokens") ?? 0;
  const decodeMs = now - (firstAt ?? now);
  return {
    finishReason,
    promptTokens: upstreamInteger(usage?.prompt_tokens, where, "prompt_tokens") ?? 0,
    completionTokens: completion,
    forcedTokens: 0,
    tokens: [],
    timeToFirstTokenMs: (firstAt ?? now) - startedAt,
    decodeTokensPerSecond: decodeMs > 0 ? (completion * 1000) / decodeMs : 0,
    grammarMs: 0,
    totalMs: now - startedAt,
  };
}
