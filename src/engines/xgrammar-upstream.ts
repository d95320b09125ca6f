// Owns: the engines whose servers constrain with xgrammar (vLLM, SGLang): a Runtime that renders qtc's prompt,
// sends qtc's grammar in xgrammar's dialect in the server's own request field (the protocol, ./vllm.ts and
// ./sglang.ts, says how), judges the output with qtc's parser, and checks the output is one the grammar admits:
// neither server echoes its settings, so a result the grammar could not have produced is refused.

import { fail } from "../errors.js";
import { resolveFormat, type FormatId, type ToolCallFormat } from "../formats/index.js";
import { GrammarCache } from "../grammar/compile.js";
import { compileXgrammar, type XgrammarGrammar } from "../grammar/xgrammar.js";
import type { TurnCounts } from "../runtime/result.js";
import type { ModelInfo, Runtime } from "../runtime/runtime.js";
import { finishTurn, prepareTurn, turnParser, type PreparedTurn } from "../runtime/turn-request.js";
import type { FinishReason, GenerateEvent, GenerateRequest } from "../runtime/types.js";
import { ValidatorCache } from "../tools/index.js";
import type { ToolDefinition } from "../tools/types.js";
import type { ToolGrammarOptions } from "../grammar/types.js";
import type { Result } from "../errors.js";
import { streamEventsOf } from "../adapters/index.js";
import { upstreamBase } from "./llama-server.js";
import { remoteGrammar, WORST_CASE_SPLIT_NOTE } from "./remote-grammar.js";
import type { UpstreamRuntime } from "./replicas.js";
import { enforceToolChoice, UpstreamRuntimeBase } from "./upstream-runtime.js";
import { postJson, probe, UPSTREAM_DEFAULTS, upstreamFailure, type UpstreamLimits } from "./upstream-http.js";

/** What one generation needs from a server: qtc's prompt text, sampling, and the grammar in xgrammar's dialect. */
export interface XgrammarTurn {
  prompt: string;
  maxTokens: number;
  seed: number;
  temperature: number;
  topP: number;
  topK: number;
  /** EBNF for xgrammar; undefined for an unconstrained turn. */
  ebnf: string | undefined;
  /** Tokens banned by a logit bias: the open tag under tool choice none in constrained mode (the local rule). */
  banned: readonly number[];
}

/** What a server answered (the fields qtc reads, checked). */
export interface XgrammarReply {
  text: string;
  finishReason: "stop" | "length";
  promptTokens: number;
  completionTokens: number;
}

/** How one server speaks: its generate path and body, its reply, its health path. */
export interface XgrammarProtocol {
  kind: "vllm" | "sglang";
  path: string;
  health: string;
  body(turn: XgrammarTurn, model: string): Record<string, unknown>;
  reply(data: unknown, where: string): XgrammarReply;
}

export interface XgrammarEngineOptions {
  /** Tool-call format. Default: hermes. */
  format?: FormatId | ToolCallFormat;
  validators?: ValidatorCache;
  /** Default: UPSTREAM_DEFAULTS. */
  limits?: Partial<UpstreamLimits>;
  /** Model name sent upstream (vLLM wants the served name). Default: "default". */
  upstreamModel?: string;
  /** Requests sent at once that `load` counts as capacity. Default: 1. */
  sequences?: number;
}

/** The note every constrained result of these engines carries: what was and was not confirmed. */
export const UNCONFIRMED_NOTE =
  "the server does not echo its settings, so qtc cannot confirm it ran the grammar; qtc checked that the output is one the grammar admits and validated every call";

/** Text that spells a special token of the Qwen3 vocabulary: the server tokenizes the prompt itself and would read it as one. */
const SPECIAL_SPELLING = /<\|[a-z_]+\|>|<\/?(?:tool_call|tool_response|think)>/;

/** Rejection reasons the xgrammar grammar still allows: a cut-off call, and the bounds it leaves to the validator. */
const VALIDATOR_REASONS = new Set(["truncated", "schema", "too_large"]);

export class XgrammarUpstreamRuntime extends UpstreamRuntimeBase implements UpstreamRuntime {
  readonly format: FormatId;
  readonly modelInfo: ModelInfo;
  readonly settings: Runtime["settings"];
  private readonly toolFormat: ToolCallFormat;
  private readonly validators: ValidatorCache;
  private readonly toolGrammars = new GrammarCache();
  private readonly xgrammars = new XgrammarCache();
  private readonly limits: UpstreamLimits;

  constructor(
    private readonly base: string,
    private readonly protocol: XgrammarProtocol,
    private readonly options: XgrammarEngineOptions,
  ) {
    super();
    this.toolFormat = resolveFormat(options.format, resolveFormat("hermes"));
    this.format = this.toolFormat.id;
    this.validators = options.validators ?? new ValidatorCache();
    this.limits = { ...UPSTREAM_DEFAULTS, ...options.limits };
    this.modelInfo = { name: `${protocol.kind}:${base}`, synthetic: false, path: "" };
    this.settings = { gpu: false, binary: "remote", threads: 0, contextSize: 0, sequences: options.sequences ?? 1 };
  }

  async healthy(timeoutMs: number): Promise<boolean> {
    return (await probe(`${this.base}${this.protocol.health}`, timeoutMs)) === 200;
  }

  async *stream(request: GenerateRequest): AsyncGenerator<GenerateEvent, void, void> {
    const startedAt = performance.now();
    this.checkOpen();
    const turn = prepareTurn(request, { format: this.toolFormat, validators: this.validators, toolGrammars: this.toolGrammars });
    const grammar = this.grammarOf(turn);
    const choice = { toolChoice: turn.tools ? turn.req.toolChoice : ("auto" as const), parallel: turn.req.parallel };
    const events = this.run(turn, grammar, request, startedAt);
    yield* grammar ? enforceToolChoice(events, choice, this.base) : events;
  }

  /** The turn's grammar in xgrammar's dialect, the calls it admits shared out of the budget as llama-server's are. */
  private grammarOf(turn: PreparedTurn): XgrammarGrammar | undefined {
    if (!turn.grammar) return undefined;
    const { req } = turn;
    if (turn.answerConstraint !== undefined) fail("invalid_option", `the ${this.protocol.kind} engine does not constrain a ${turn.answerConstraint.kind} answer beside qtc's tool grammar yet; use mode unconstrained (the answer is still judged) or the local or llama-server engine`);
    if (turn.answerSchema !== undefined) fail("invalid_option", `the ${this.protocol.kind} engine does not constrain a response schema yet; use mode unconstrained`);
    if (req.thinking && req.toolChoice !== "auto") fail("invalid_option", `thinking under a grammar that starts at the first answer token is not supported by the ${this.protocol.kind} engine; use tool choice auto`);
    // The GBNF budget rule decides how many calls fit (and refuses, budget_too_small, when none does).
    const fit = remoteGrammar(turn.grammar.declared, turn.grammar.options, req.maxTokens, this.toolGrammars);
    const options = { format: req.format, toolChoice: req.toolChoice, parallel: fit.maxCalls > 1, maxCalls: fit.maxCalls, maxTokens: req.maxTokens, budgetSplit: "worst-case" as const };
    const compiled = this.xgrammars.compile(turn.grammar.declared, options);
    if (!compiled.ok) fail(compiled.error.code, compiled.error.message, { path: compiled.error.path });
    return compiled.value;
  }

  private async *run(turn: PreparedTurn, grammar: XgrammarGrammar | undefined, request: GenerateRequest, startedAt: number): AsyncGenerator<GenerateEvent, void, void> {
    const { req } = turn;
    // Content goes out as text the server tokenizes: a special-token spelling in it would become that token.
    if (turn.segments.some((s) => s.kind === "content" && SPECIAL_SPELLING.test(s.text))) {
      fail("invalid_option", `the ${this.protocol.kind} engine sends the prompt as text, and a message spells a special token (<|…|>, <tool_call>, <think>, …); it is refused rather than tokenized as that token`);
    }
    const prompt = turn.segments.map((s) => s.text).join("");
    const banned = req.mode === "constrained" && req.toolChoice === "none" ? [req.format.open.token] : [];
    const sampling = { maxTokens: req.maxTokens, seed: req.seed, temperature: req.temperature, topP: req.topP, topK: req.topK };
    const body = this.protocol.body({ prompt, ...sampling, ebnf: grammar?.ebnf, banned }, this.options.upstreamModel ?? "default");
    this.busy++;
    let reply: XgrammarReply;
    try {
      const where = `${this.base}${this.protocol.path}`;
      reply = this.protocol.reply(await postJson(where, body, this.limits, request.signal), where);
    } finally {
      this.busy--;
    }
    const { parser, callIndex } = turnParser(turn);
    for (const event of parser.feed(reply.text)) yield* streamEventsOf(event, callIndex);
    const outcome = countsOf(reply, startedAt);
    const events = [...finishTurn(parser, { outcome, raw: reply.text, mode: req.mode, format: req.format.id, judgeAnswer: turn.judgeAnswer, qtcGrammar: false }, callIndex)];
    const done = events[events.length - 1];
    if (grammar && done?.type === "done") {
      checkAdmitted(this.base, grammar, reply.text, done.result.errors.map((e) => e.reason), req.format);
      done.result.diagnostics.notes.push(UNCONFIRMED_NOTE, WORST_CASE_SPLIT_NOTE);
    }
    yield* events;
  }
}

/**
 * Compile once, run many: xgrammar-dialect grammars keyed by the tools array (held weakly) and the options, the
 * last `perTools` option sets per tools list (the budget left varies per turn).
 */
class XgrammarCache {
  private readonly byTools = new WeakMap<readonly ToolDefinition[], Map<string, Result<XgrammarGrammar>>>();

  constructor(private readonly perTools = 16) {}

  compile(tools: readonly ToolDefinition[], options: ToolGrammarOptions & { format: ToolCallFormat }): Result<XgrammarGrammar> {
    let entries = this.byTools.get(tools);
    if (!entries) this.byTools.set(tools, (entries = new Map()));
    const key = JSON.stringify([options.format.id, options.toolChoice, options.parallel, options.maxCalls, options.maxTokens]);
    const known = entries.get(key);
    if (known) return known;
    const result = compileXgrammar(tools, options);
    if (entries.size >= this.perTools) entries.delete(entries.keys().next().value as string);
    entries.set(key, result);
    return result;
  }
}

/**
 * Refuse output the grammar could not have produced (the server dropped or ignored it, as vLLM does for Qwen3
 * under some parsers): calls required but the output does not open one, or a block rejected for a reason the
 * grammar excludes (bad JSON, an unknown tool, …). A cut-off call and bounds left to the validator are allowed.
 */
function checkAdmitted(base: string, grammar: XgrammarGrammar, text: string, reasons: readonly string[], format: ToolCallFormat): void {
  const forced = grammar.toolChoice === "required" || typeof grammar.toolChoice === "object";
  const notOpened = forced && !text.startsWith(format.open.text);
  const excluded = reasons.filter((r) => !VALIDATOR_REASONS.has(r));
  if (notOpened || excluded.length > 0) {
    throw upstreamFailure(
      "upstream_grammar_dropped",
      `${base} returned output qtc's grammar does not admit (${notOpened ? "no call under a forced tool choice" : `blocks rejected as ${excluded.join(", ")}`}); the grammar was not applied and the output is refused`,
    );
  }
}

function countsOf(reply: XgrammarReply, startedAt: number): TurnCounts {
  const now = performance.now();
  const finishReason: FinishReason = reply.finishReason === "length" ? "length" : "stop";
  return {
    finishReason,
    promptTokens: reply.promptTokens,
    completionTokens: reply.completionTokens,
    forcedTokens: 0,
    tokens: [],
    timeToFirstTokenMs: now - startedAt,
    decodeTokensPerSecond: now > startedAt ? (reply.completionTokens * 1000) / (now - startedAt) : 0,
    grammarMs: 0,
    totalMs: now - startedAt,
  };
}

/** A Runtime over one server of this protocol (nothing is fetched until the first request). */
export async function connectXgrammarUpstream(url: string, protocol: XgrammarProtocol, options: XgrammarEngineOptions = {}): Promise<UpstreamRuntime> {
  return new XgrammarUpstreamRuntime(upstreamBase(url).replace(/\/v1$/, ""), protocol, options);
}
