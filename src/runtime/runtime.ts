// Owns: the Runtime interface every engine implements, and createLocalRuntime (the local engine): one loaded model
// with a context of N sequences, serving generate/stream requests (one sequence each; more wait), rendering the
// prompt, running the turn and judging its output with the parser.

import { TokenBias, type LlamaContextSequence, type Token } from "node-llama-cpp";
import { fail, QtcException } from "../errors.js";
import { detectFormat, resolveFormat, type FormatId, type ToolCallFormat } from "../formats/index.js";
import { openModel, readVocabulary, type GpuChoice, type OpenedModel, type StandInMaker } from "../model/index.js";
import { compileValidators, ValidatorCache } from "../tools/index.js";
import type { PromptSegment } from "../prompt/index.js";
import { resolveRequest } from "./request.js";
import { checkFormatVocabulary } from "./format-vocab.js";
import { BareOpenerTokens } from "./bare-opener.js";
import { RUNTIME_DEFAULTS } from "./defaults.js";
import { turnGrammarSource, type TurnGrammarSource } from "./grammar-source.js";
import { GrammarCache } from "../grammar/compile.js";
import { streamEventsOf } from "../adapters/index.js";
import type { ParseEvent } from "../parse/index.js";
import { turnStreaming } from "./argument-streamer.js";
import { type GenerateOutput, type ResultParts } from "./result.js";
import { finishTurn, prepareTurn, promptSegmentsOf, resultOfStream, turnParser } from "./turn-request.js";
import { SequencePool } from "./sequence-pool.js";
import { prefixAffinity, reusePrefix, type ReusePolicy } from "./prefix-reuse.js";
import { reportingStrategy, type DecodePass } from "./decode-passes.js";
import { StepGate } from "./step-gate.js";
import { tokenizePrompt, tokenizePromptSliced } from "../model/prompt-tokens.js";
import { runTurn, type TurnEnv, type TurnOutcome, type TurnPhases } from "./turn.js";
import { KeyVocab } from "../engine/semantic/index.js";
import type { GenerateEvent, GenerateRequest, PreparedRequest } from "./types.js";
import { PreparedRequests } from "./prepared-request.js";
import { answerConstraintOf } from "./answer-request.js";
import { measureRemoved, type StepMask } from "./probability-removed.js";
import { tokenLogprobs } from "./token-logprobs.js";

/**
 * Added to the logits of the tokens a narrowed sampler may pick: far above any model logit, so only they survive
 * top-k/top-p, while their differences (the model's preferences among them) stay as they are.
 */
const NARROWED_BOOST = 1e4;

export interface RuntimeOptions {
  /** A GGUF path, an `hf:` URI, a registry name or `synthetic:<shape>`. Default: RUNTIME_DEFAULTS.model ("qwen3-0.6b"). */
  model?: string;
  /** Default: RUNTIME_DEFAULTS.gpu ("auto"). */
  gpu?: GpuChoice;
  /** Default: RUNTIME_DEFAULTS.threads. */
  threads?: number;
  /** Tokens per sequence. Default: RUNTIME_DEFAULTS.contextSize (4096). */
  contextSize?: number;
  /** Concurrent requests served. Default: RUNTIME_DEFAULTS.sequences (1). */
  sequences?: number;
  /**
   * Tool-call format: a registered id or a format object (resolved once). Default: the model registry's, else
   * detected from the model's chat template, else hermes.
   */
  format?: FormatId | ToolCallFormat;
  /** Where models are cached. Default: `$QTC_MODELS_DIR` or `<package root>/models`. */
  modelsDir?: string;
  /** A LoRA adapter GGUF applied on top of the model (a model-level fix the bench compares). Default: none. */
  lora?: string;
  /** Makes the trained stand-ins (`synthetic:tiny-tuned`); the CLI passes training's. Default: none (see ResolveOptions.standIns). */
  standIns?: StandInMaker;
  /** Compiled tool and response-schema validators, shared with whoever passes it (a server). Default: the runtime's own. */
  validators?: ValidatorCache;
  /**
   * Reuse a cached prompt prefix only in whole batches (512 tokens), so the same seed gives the same output bit
   * for bit whether or not the sequence held a prefix; costs re-evaluating up to 511 tokens a request. The tool
   * call guarantee never depends on it. Default: false (the whole common prefix is reused).
   */
  deterministic?: boolean;
  /** Called after each finished request with where its time went (for `npm run bench:speed`). Default: none. */
  onProfile?: (profile: RequestProfile) => void;
  /**
   * Called for each model pass (one llama_decode) with the sequences and tokens it carried, to see whether
   * concurrent requests share passes (`npm run bench:e2e`, tests). Default: none (node-llama-cpp's own packing).
   */
  onDecodePass?: (pass: DecodePass) => void;
  /**
   * Measure, per token sampled under the grammar (up to 16 a turn, evenly spaced), the probability the constraint
   * removed (the mass its mask banned, under the model's own distribution at the request's temperature), into the
   * result's `probabilityRemoved`. Costs one replay of the turn's tokens after it (its timings are taken before)
   * and about 130 ms a measured token on a loaded 2-core CPU. `qtc bench` turns it on. Default: false.
   */
  measureProbabilityRemoved?: boolean;
  /**
   * Called each time a request's prompt is rendered and tokenized (`prepare`, a turn given no prepared request,
   * `countTokens`): a served request is prepared once, by the budget check or by its turn. Default: none.
   */
  onPrepare?: (prepared: PreparedRequest) => void;
}

/** Milliseconds per phase of one request: the turn's phases, then judging its output. */
export interface RequestProfile extends TurnPhases {
  /** The parser's end and the result. */
  finish: number;
  /** Grammar work inside the turn (compiles, matcher creation, probes, state updates). */
  grammar: number;
  total: number;
}

export interface ModelInfo {
  name: string;
  /** True for qtc's synthetic models (random weights). */
  synthetic: boolean;
  path: string;
}

export interface RuntimeLoad {
  /** Sequences in the context. */
  sequences: number;
  /** Sequences serving a request now. */
  busy: number;
  /** Requests waiting for a free sequence. */
  waiting: number;
}

export interface Runtime {
  /** The tool-call format requests use unless they override it. */
  readonly format: FormatId;
  readonly modelInfo: ModelInfo;
  /** Settings in effect (threads and context size as llama.cpp reports them). */
  readonly settings: OpenedModel["settings"];
  /** How busy the runtime is right now. */
  readonly load: RuntimeLoad;
  /** Generate one assistant turn. Throws QtcException only for bad input; model output problems are in `errors`. */
  generate(request: GenerateRequest): Promise<GenerateOutput>;
  /** The same turn as events; the last is `done` with the result that `generate` would return. */
  stream(request: GenerateRequest): AsyncGenerator<GenerateEvent, void, void>;
  /** The prompt tokens a request would evaluate (no generation). Optional so other engines may leave it out. */
  countTokens?(request: Pick<GenerateRequest, "messages" | "tools" | "prompt" | "thinking" | "format" | "reasoningEffort" | "preserveThinking">): number;
  /** countTokens worked out in slices, yielding the event loop between them (what a server calls). */
  countTokensSliced?(request: Pick<GenerateRequest, "messages" | "tools" | "prompt" | "thinking" | "format" | "reasoningEffort" | "preserveThinking">): Promise<number>;
  /**
   * Render and tokenize a request's prompt and read its text constraint, once: pass the result as the request's
   * `prepared` (with the same messages, tools and constraint) and the turn does none of it again. Optional so other
   * engines may leave it out.
   */
  prepare?(request: GenerateRequest): Promise<PreparedRequest>;
  /** Free the model and context. Waiting requests fail; running ones should be aborted first. */
  close(): Promise<void>;
}

/**
 * The local engine's runtime: load a model in this process and create its context (see RuntimeOptions for the
 * defaults). Which engine serves a model spec is chosen above, by `createRuntime` in src/engines/.
 */
export async function createLocalRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const sequences = options.sequences ?? RUNTIME_DEFAULTS.sequences;
  if (!Number.isInteger(sequences) || sequences < 1) fail("invalid_option", `sequences must be a whole number ≥ 1, got ${sequences}`);
  const opened = await openModel(options.model ?? RUNTIME_DEFAULTS.model, {
    gpu: options.gpu ?? RUNTIME_DEFAULTS.gpu,
    threads: options.threads ?? RUNTIME_DEFAULTS.threads,
    contextSize: options.contextSize ?? RUNTIME_DEFAULTS.contextSize,
    sequences,
    modelsDir: options.modelsDir,
    lora: options.lora,
    standIns: options.standIns,
    ...(options.onDecodePass ? { batching: { itemPrioritizationStrategy: reportingStrategy(options.onDecodePass) } } : {}),
  });
  try {
    return new ModelRuntime(opened, options);
  } catch (e) {
    await opened.dispose();
    throw e;
  }
}

class ModelRuntime implements Runtime {
  readonly format: FormatId;
  readonly modelInfo: ModelInfo;
  readonly settings: OpenedModel["settings"];
  /** The format requests use unless they name another, resolved once. */
  private readonly toolFormat: ToolCallFormat;
  private readonly pool: SequencePool<LlamaContextSequence>;
  private readonly env: TurnEnv;
  /** Compiled tool grammars, per tools list and options (budgets included). */
  private readonly toolGrammars = new GrammarCache();
  private readonly onProfile: RuntimeOptions["onProfile"];
  private readonly validators: ValidatorCache;
  private readonly reuse: ReusePolicy;
  private readonly measureRemoved: boolean;
  private closed = false;
  /** Formats whose forced tags were checked against this model's vocabulary. */
  private readonly checkedFormats = new WeakSet<ToolCallFormat>();
  private readonly prepared = new PreparedRequests();
  private readonly onPrepare: RuntimeOptions["onPrepare"];

  constructor(private readonly opened: OpenedModel, options: RuntimeOptions) {
    const { model, context, llama, resolved } = opened;
    const template = (model.fileInfo.metadata as { tokenizer?: { chat_template?: unknown } }).tokenizer?.chat_template;
    const detected = detectFormat(typeof template === "string" ? template : undefined);
    this.toolFormat = resolveFormat(options.format ?? resolved.format, detected);
    this.format = this.toolFormat.id;
    this.onProfile = options.onProfile;
    this.onPrepare = options.onPrepare;
    this.measureRemoved = options.measureProbabilityRemoved ?? false;
    this.validators = options.validators ?? new ValidatorCache();
    this.modelInfo = { name: resolved.name, synthetic: resolved.synthetic, path: resolved.path };
    this.settings = opened.settings;
    const sequences = Array.from({ length: context.totalSequences }, () => context.getSequence());
    this.pool = new SequencePool(sequences);
    this.reuse = { deterministic: options.deterministic ?? false, batchSize: context.batchSize };
    const { tables, engine, tokenizeText } = readVocabulary(model);
    checkFormatVocabulary(model, this.toolFormat, tables.vocabSize);
    this.checkedFormats.add(this.toolFormat);
    // qtc's engine walks the vocabulary byte by byte: a vocabulary that is not byte-level BPE cannot be constrained.
    if (!engine) fail("unsupported_model", `${resolved.name}: its vocabulary is not byte-level BPE (Qwen3's), which qtc's constraint engine needs; use a Qwen3 GGUF`);
    const matchers = { tokenize: tokenizeText, engine };
    // One sequence has nobody to keep in step with.
    const steps = sequences.length > 1 ? new StepGate() : undefined;
    this.env = { model, tables, matchers, biases: this.biasesFor(undefined, tables), bareTokens: new BareOpenerTokens(tables.texts), steps, keyVocab: new KeyVocab(tables.texts) };
  }

  /** The three sampler biases of a turn, with the caller's logit biases under qtc's own bans. */
  private biasesFor(logitBias: Record<number, number> | undefined, tables = this.env.tables): TurnEnv["biases"] {
    const { tokenizer } = this.opened.model;
    const base = () => {
      const bias = new TokenBias(tokenizer);
      for (const [token, value] of Object.entries(logitBias ?? {})) bias.set(Number(token) as Token, { logit: value });
      return bias;
    };
    // What each in-call bias allows or bans, for the probability the constraint removed.
    const masks = new WeakMap<TokenBias, StepMask>();
    const masked = (bias: TokenBias, mask: StepMask) => (masks.set(bias, mask), bias);
    // The engine's masks are cached per grammar state, so a bias made from one is cached by the list's identity.
    const made = new WeakMap<readonly number[], TokenBias>();
    const cached = (list: readonly number[], make: () => TokenBias) => {
      let bias = made.get(list);
      if (!bias) made.set(list, (bias = make()));
      return bias;
    };
    // A mask with a fixed list beside it (the tokens that cut a character, inside a compared string): by both identities.
    const pairs = new WeakMap<readonly number[], WeakMap<readonly number[], TokenBias>>();
    const cachedPair = (list: readonly number[], also: readonly number[], make: () => TokenBias) => {
      let byAlso = pairs.get(list);
      if (!byAlso) pairs.set(list, (byAlso = new WeakMap()));
      let bias = byAlso.get(also);
      if (!bias) byAlso.set(also, (bias = make()));
      return bias;
    };
    const narrowing = (tokens: readonly number[], never: readonly number[]) => {
      const bias = base();
      for (const token of tokens) bias.set(token as Token, { logit: (logitBias?.[token] ?? 0) + NARROWED_BOOST });
      for (const token of never) bias.set(token as Token, "never");
      return masked(bias, { kind: "allowed", tokens });
    };
    // Where almost every token is allowed, the mask is the few it bans: those never come.
    const banning = (lists: (readonly number[])[]) => {
      const bias = base();
      for (const list of lists) for (const token of list) bias.set(token as Token, "never");
      return masked(bias, { kind: "banned", lists });
    };
    return {
      none: base(),
      banningAll: (tokens) => {
        const bias = base();
        for (const token of tokens) bias.set(token as Token, "never");
        return bias;
      },
      narrowTo: (tokens, never = []) => (never.length > 0 ? narrowing(tokens, never) : cached(tokens, () => narrowing(tokens, never))),
      allBut: (banned, also = []) => (also.length > 0 ? cachedPair(banned, also, () => banning([banned, also])) : cached(banned, () => banning([banned]))),
      inCall: banning([tables.partialUtf8Tokens]),
      maskOf: (bias) => masks.get(bias),
    };
  }

  /** Sequences in use and requests waiting for one. */
  get load(): RuntimeLoad {
    return { sequences: this.settings.sequences, busy: this.settings.sequences - this.pool.available, waiting: this.pool.waiting };
  }

  generate(request: GenerateRequest): Promise<GenerateOutput> {
    return resultOfStream(this.stream(request));
  }

  async *stream(request: GenerateRequest): AsyncGenerator<GenerateEvent, void, void> {
    const startedAt = performance.now();
    if (this.closed) fail("invalid_option", "the runtime is closed");
    const given = this.prepared.of(request);
    const turnRequest = prepareTurn(request, { format: this.toolFormat, validators: this.validators, toolGrammars: this.toolGrammars, vocabSize: this.env.tables.vocabSize }, given);
    const { req, judgeAnswer, answerSchema, segments } = turnRequest;
    if (!this.checkedFormats.has(req.format)) {
      checkFormatVocabulary(this.opened.model, req.format, this.env.tables.vocabSize);
      this.checkedFormats.add(req.format);
    }
    const source = turnRequest.grammar && turnGrammarSource(turnRequest.grammar.declared, turnRequest.grammar.options, this.toolGrammars, this.env.tables.byteTokens !== undefined);
    // The tools whose calls the grammars compiled so far do not make valid alone (the streamer holds those calls).
    const relaxedTools = new Set<string>();
    const grammar: TurnGrammarSource | undefined =
      source &&
      ((phase, maxTokens) => {
        const compiled = source(phase, maxTokens);
        for (const site of compiled?.compiled.constraint.relaxed ?? []) if (site.tool !== undefined) relaxedTools.add(site.tool);
        return compiled;
      });
    // In slices with the event loop let go between them: a prompt of megabytes never blocks a server for seconds.
    const promptTokens = (given ?? (await this.preparedOf(segments, turnRequest.answerConstraint))).promptTokens as Token[];
    const contextSize = this.settings.contextSize;
    if (promptTokens.length + req.maxTokens > contextSize) {
      fail("invalid_option", `the prompt (${promptTokens.length} tokens) plus maxTokens (${req.maxTokens}) exceeds the context size (${contextSize})`);
    }
    const streaming = turnStreaming(req.mode, req.format, turnRequest.tools, () => relaxedTools);
    const { parser, callIndex } = turnParser(turnRequest, streaming.newId);
    const streamer = streaming.create(callIndex);
    const settle = (event: ParseEvent) => (streamer ? streamer.settle(event) : streamEventsOf(event, callIndex));
    let underGrammar = false;

    let sequence: LlamaContextSequence;
    try {
      // The sequence holding the most of this prompt (an agent's last turn, a client's history).
      sequence = await this.pool.acquire(request.signal, (s) => prefixAffinity(s, promptTokens));
    } catch (e) {
      if (!request.signal?.aborted) throw e;
      yield* this.finish(parser, { outcome: emptyOutcome(startedAt, promptTokens.length), raw: "", mode: req.mode, format: req.format.id, judgeAnswer }, callIndex);
      return;
    }
    let raw = "";
    let outcome: TurnOutcome | undefined;
    let turn: ReturnType<typeof runTurn> | undefined;
    try {
      const reused = await reusePrefix(sequence, promptTokens, this.reuse);
      const env = request.logitBias && Object.keys(request.logitBias).length > 0 ? { ...this.env, biases: this.biasesFor(request.logitBias) } : this.env;
      turn = runTurn(sequence, env, {
        ...req,
        promptTokens: [...promptTokens],
        reusedPromptTokens: reused,
        grammar,
        jsonAnswer: answerSchema !== undefined || turnRequest.answerConstraint !== undefined,
        signal: request.signal,
        startedAt,
        onDelta: (grammar) => (underGrammar = grammar),
        measureRemoved: this.measureRemoved,
      });
      for (;;) {
        const step = await turn.next();
        if (step.done) {
          outcome = step.value;
          break;
        }
        raw += step.value;
        streamer?.push(step.value, underGrammar);
        for (const event of parser.feed(step.value)) yield* settle(event);
        if (streamer) yield* streamer.pull();
      }
      if (outcome.masked && outcome.masked.length > 0) {
        outcome.probabilityRemoved = await measureRemoved(sequence, promptTokens, outcome.tokens, outcome.masked, req.temperature);
      }
      if (request.logprobs !== undefined && !request.signal?.aborted) {
        outcome.logprobs = await tokenLogprobs(sequence, promptTokens, outcome.tokens, request.logprobs, this.env.tables.texts);
      }
    } finally {
      // A consumer that stops iterating early leaves the turn suspended: end it before the sequence is reused.
      if (!outcome) await turn?.return(undefined as never).catch(() => undefined);
      this.pool.release(sequence);
    }
    if (!outcome) throw new QtcException({ code: "internal", message: "the turn ended without an outcome" }, 1);
    const finishing = performance.now();
    yield* finishTurn(parser, { outcome, raw, mode: req.mode, format: req.format.id, judgeAnswer }, callIndex, settle);
    this.onProfile?.({ ...outcome.phases, finish: performance.now() - finishing, grammar: outcome.grammarMs, total: performance.now() - startedAt });
  }

  /** The prompt's token count, as `stream` would evaluate it (for token-counting endpoints and usage up front). */
  countTokens(request: Pick<GenerateRequest, "messages" | "tools" | "prompt" | "thinking" | "format" | "reasoningEffort" | "preserveThinking">): number {
    const segments = this.segmentsOf(request);
    const promptTokens = this.tokensOf(segments);
    this.onPrepare?.({ segments, promptTokens, answerConstraint: undefined });
    return promptTokens.length;
  }

  /** countTokens in slices (the event loop runs between them). */
  async countTokensSliced(request: Pick<GenerateRequest, "messages" | "tools" | "prompt" | "thinking" | "format" | "reasoningEffort" | "preserveThinking">): Promise<number> {
    return (await this.preparedOf(this.segmentsOf(request), undefined)).promptTokens.length;
  }

  async prepare(request: GenerateRequest): Promise<PreparedRequest> {
    const { answerConstraint } = answerConstraintOf(request);
    return this.prepared.remember(await this.preparedOf(this.segmentsOf(request), answerConstraint), request);
  }

  private segmentsOf(request: Pick<GenerateRequest, "messages" | "tools" | "prompt" | "thinking" | "format" | "reasoningEffort" | "preserveThinking">): readonly PromptSegment[] {
    const tools = request.tools && request.tools.length > 0 ? compileValidators(request.tools, this.validators) : undefined;
    return promptSegmentsOf(request, tools, resolveRequest(request, tools, this.toolFormat));
  }

  /** The prepared request of rendered `segments`, tokenized in slices (the one place a turn's prompt is tokenized). */
  private async preparedOf(segments: readonly PromptSegment[], answerConstraint: PreparedRequest["answerConstraint"]): Promise<PreparedRequest> {
    const prepared: PreparedRequest = { segments, promptTokens: await this.tokensOfSliced(segments), answerConstraint };
    this.onPrepare?.(prepared);
    return prepared;
  }

  private tokensOfSliced(segments: readonly PromptSegment[]): Promise<Token[]> {
    const vocab = { tokenize: (text: string, special: boolean) => this.env.model.tokenize(text, special), added: this.env.tables.addedTokens };
    return tokenizePromptSliced(segments, vocab, yieldToLoop) as Promise<Token[]>;
  }

  private tokensOf(segments: readonly PromptSegment[]): Token[] {
    return tokenizePrompt(segments, { tokenize: (text, special) => this.env.model.tokenize(text, special), added: this.env.tables.addedTokens }) as Token[];
  }

  private finish(parser: ReturnType<typeof turnParser>["parser"], parts: Omit<ResultParts, "parsed">, callIndex: () => number): Generator<GenerateEvent, void, void> {
    return finishTurn(parser, parts, callIndex);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pool.close();
    await this.opened.dispose();
  }
}

/** One turn of the event loop (timers and I/O run before this resolves). */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function emptyOutcome(startedAt: number, promptTokens: number): TurnOutcome {
  const totalMs = performance.now() - startedAt;
  return {
    finishReason: "aborted",
    promptTokens,
    completionTokens: 0,
    forcedTokens: 0,
    tokens: [],
    timeToFirstTokenMs: totalMs,
    decodeTokensPerSecond: 0,
    grammarMs: 0,
    totalMs,
    phases: { setup: totalMs, prompt: 0, grammarStart: 0, firstToken: 0, decode: 0 },
  };
}
