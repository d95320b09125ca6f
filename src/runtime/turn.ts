// Owns: one assistant turn on one sequence: the sampling loop over its phases (think, free text, grammar), the
// token budget, forced tokens (tags, jump-forward, the budget guard's closing), cancellation, and the turn's
// counts and timings. It yields raw text deltas (special tags included); the runtime feeds them to the parser.

import type { LlamaContextSequence, LlamaModel, Token, TokenBias } from "node-llama-cpp";
import type { ToolCallFormat } from "../formats/index.js";
import { fail } from "../errors.js";
import { BareOpenerTokens, bareState, type BareState } from "./bare-opener.js";
import { BudgetGuard, type Closable } from "./budget-guard.js";
import { DistinctClosing } from "./distinct-closing.js";
import { RepeatGuard, REPETITION_STOPPED } from "./repeat-guard.js";
import { KeyGuard, type KeyVocab } from "./semantic-guard.js";
import { StreamDetokenizer } from "./detokenizer.js";
import type { GrammarPhase } from "../grammar/index.js";
import type { TurnGrammar, TurnGrammarSource } from "./grammar-source.js";
import type { MatcherEnv, TurnMatcher } from "./matcher.js";
import { createMatcher } from "./engine-choice.js";
import type { ResolvedRequest } from "./request.js";
import type { TurnCounts } from "./result.js";
import type { TokenTables } from "./token-tables.js";
import type { FinishReason } from "./types.js";
import type { StepGate } from "./step-gate.js";
import { ThinkOpener } from "./think-opener.js";
import { RemovedLog, type MaskedStep, type StepMask } from "./probability-removed.js";

/** Everything a turn needs, resolved (no defaults left): the request's settings and what the runtime adds. */
export interface TurnPlan extends Omit<ResolvedRequest, "format"> {
  /** The request's format, resolved once by the runtime. */
  format: ToolCallFormat;
  promptTokens: number[];
  /** Leading prompt tokens the sequence already holds (evaluated by an earlier request). */
  reusedPromptTokens: number;
  grammar: TurnGrammarSource | undefined;
  /** The answer is JSON under the grammar (a response schema): the grammar holds the turn from its first token. */
  jsonAnswer: boolean;
  signal?: AbortSignal;
  /** When the request started (performance.now()), for time to first token. */
  startedAt: number;
  /** Told before each text delta whether the turn is under the grammar after it (the argument streamer). Default: none. */
  onDelta?: (underGrammar: boolean) => void;
  /** Record the mask of each token sampled under the grammar (for the probability the constraint removed). Default: false. */
  measureRemoved?: boolean;
}

/** Sampler biases of a turn (each with the caller's logit biases under qtc's own bans). */
export interface TurnBiases {
  /** Free text. */
  none: TokenBias;
  /** Free text with these tokens banned (think tags, the open tag under "none", tokens completing a bare call opener). */
  banningAll(tokens: readonly number[]): TokenBias;
  /** Inside calls: partial UTF-8 banned. */
  inCall: TokenBias;
  /**
   * Inside a call's free text: also the tokens that can never continue it, so a sample is rarely rejected and
   * the full-vocabulary grammar pass rarely runs. JSON strings and raw text (the format's stringText).
   */
  inJsonText: TokenBias;
  inRawText: TokenBias;
  /** Only these tokens (the grammar's exact allowed set); `never`: tokens banned outright (the key guard's). */
  narrowTo(tokens: readonly number[], never?: readonly number[]): TokenBias;
  /** inJsonText with these tokens banned (they would complete a key a second time). */
  jsonTextBanning(tokens: readonly number[]): TokenBias;
  /** The mask one of the in-call biases above applies (for the probability removed). Default: none. */
  maskOf?(bias: TokenBias): StepMask | undefined;
}

/** The shared, per-runtime things a turn uses. */
export interface TurnEnv {
  model: LlamaModel;
  tables: TokenTables;
  /** What every grammar matcher of the runtime shares (the engine's vocabulary, the tokenizer). */
  matchers: MatcherEnv;
  biases: TurnBiases;
  /** The vocabulary grouped by how tokens complete a bare call opener (one per runtime). Default: none (no bare-opener watch). */
  bareTokens?: BareOpenerTokens;
  /** Keeps the context's concurrent turns in step, so one pass carries a token of each. Default: none. */
  steps?: StepGate;
  /** The vocabulary indexed for the key guard (no key completed twice in a JSON call). Default: none (no guard). */
  keyVocab?: KeyVocab;
}

/** What a turn counted (tokens: the ones it added, in order, sampled and forced), plus where its time went. */
export interface TurnOutcome extends TurnCounts {
  /** Milliseconds per phase of the turn, for profiling (see TurnPhases). */
  phases: TurnPhases;
  /** With plan.measureRemoved: each token sampled under the grammar, with the mask it was sampled under. */
  masked?: MaskedStep[];
}

/** Where a turn's time went, in milliseconds. */
export interface TurnPhases {
  /** From the request's start to the turn's (checks, grammar check, prompt rendering and tokenizing, a sequence). */
  setup: number;
  /** Evaluating the prompt but its last token. */
  prompt: number;
  /** Compiling the turn's grammars and creating their matchers. */
  grammarStart: number;
  /** From the prompt's evaluation to the first sampled token (the last prompt token and forced tokens with it). */
  firstToken: number;
  /** From the first sampled token to the end. */
  decode: number;
}

/** Tokens a step adds without sampling, and the text delta of everything it added. */
interface Step {
  forced: number[];
  text: string;
  /** What was fed in place of the sampled token (the qtc engine refused it). Default: the sampled token. */
  fed?: number[];
}

/** Run one turn; yields raw text deltas and returns the outcome. The caller owns (and clears) the sequence. */
export async function* runTurn(seq: LlamaContextSequence, env: TurnEnv, plan: TurnPlan): AsyncGenerator<string, TurnOutcome, void> {
  const turn = new Turn(env, plan);
  // The prompt but its last token is evaluated first: decode speed is measured from there. The last prompt
  // token and any tokens forced before the first sample then go in one batch.
  await seq.evaluateWithoutGeneratingNewTokens(plan.promptTokens.slice(plan.reusedPromptTokens, -1) as Token[]);
  turn.promptEvaluated();
  const first = await turn.begin();
  const told = (text: string) => (plan.onDelta?.(turn.phase === "grammar"), text);
  if (first.text) yield told(first.text);
  if (!turn.finish) {
    const gen = seq.evaluate([...plan.promptTokens.slice(-1), ...first.forced] as Token[], {
      temperature: plan.temperature,
      topP: plan.topP,
      topK: plan.topK,
      seed: plan.seed,
      yieldEogToken: true,
      tokenBias: () => turn.bias,
    });
    const inStep = env.steps?.join();
    try {
      let next = await gen.next();
      turn.firstSampled();
      while (!turn.finish) {
        if (next.done) {
          turn.finish = "stop";
          break;
        }
        const token = next.value;
        if (turn.endsBefore(token)) break;
        const step = await turn.take(token);
        if (step.text) yield told(step.text);
        if (turn.finish) break;
        await inStep?.arrive();
        inStep?.queued();
        const fed = step.fed ?? [token];
        next = await gen.next((step.forced.length > 0 || fed.length > 1 ? [...fed, ...step.forced] : fed[0]) as Token | Token[]);
        inStep?.sampled();
      }
    } finally {
      inStep?.leave();
      await gen.return();
    }
  }
  const tail = turn.flush();
  if (tail) yield told(tail);
  return turn.outcome();
}

type Phase = "think" | "free" | "grammar";

/** Forced tokens counted past the budget left, for the figure of a refusal (see refuseForcedOverBudget). */
const FORCED_FIGURE_SLACK = 4096;

/** The state of one turn between sampled tokens: its phase, output, grammar and counts. */
class Turn {
  phase: Phase;
  finish: FinishReason | undefined;
  bias: TokenBias;
  private readonly tokens: number[] = [];
  private readonly detok: StreamDetokenizer;
  private readonly grammarFromStart: boolean;
  private forcedCount = 0;
  private thinkUsed = 0;
  private callsClosed = 0;
  /** Free text so far (the bare-opener watch reads it); the watch is off when there is no opener to watch. */
  private freeText = "";
  private readonly bareOpener: string | undefined;
  private readonly freeBias: TokenBias;
  /** A call was opened by its bare opener (it ends without a close tag). */
  private bareOpened = false;
  /** The grammar has just taken over at the answer's start, and no step under it has run yet. */
  private answerUnstarted = false;
  /** Ends thinking at a call opener sampled in the think phase (issue 43); undefined when not watched. */
  private readonly thinkOpener: ThinkOpener | undefined;
  private grammar: TurnGrammar | undefined;
  private matcher: TurnMatcher | undefined;
  private guard: BudgetGuard | undefined;
  private readonly repeats: RepeatGuard | undefined;
  /** Keys seen per open object of a JSON call: a key cannot be completed twice. */
  private keys: KeyGuard | undefined;
  /** How the current call closes: the matcher's closing, or under the key guard one with distinct keys. */
  private closer: Closable | undefined;
  /** Grammar time outside the current matcher: compiles, and matchers replaced. */
  private grammarMs = 0;
  /** The masks tokens were sampled under in the grammar (plan.measureRemoved). */
  private readonly removed: RemovedLog | undefined;
  private readonly at = { created: performance.now(), promptDone: 0, grammarStart: 0, firstSample: 0, firstToken: 0 };

  constructor(
    private readonly env: TurnEnv,
    private readonly plan: TurnPlan,
  ) {
    this.detok = new StreamDetokenizer((tokens) => env.model.detokenize(tokens as Token[], true));
    const constrained = plan.mode === "constrained";
    // Constrained free text never holds a think tag (the think block is the template's, and the parser reads no
    // call inside one); under "none" not the open tag either. While thinking, only `<think>` is banned.
    const { think, open } = plan.format;
    const noCall = plan.toolChoice === "none" ? [open.token] : [];
    this.freeBias = constrained ? env.biases.banningAll([think.open.token, think.close.token, ...noCall]) : env.biases.none;
    this.bias = constrained && plan.thinking ? env.biases.banningAll([think.open.token, ...noCall]) : this.freeBias;
    const watched = constrained && (plan.toolChoice === "none" || (plan.toolChoice === "auto" && plan.grammar !== undefined));
    this.bareOpener = watched && env.bareTokens ? plan.format.bareBlock?.open : undefined;
    this.grammarFromStart =
      constrained && plan.grammar !== undefined && (plan.jsonAnswer || plan.toolChoice === "required" || typeof plan.toolChoice === "object");
    this.phase = plan.thinking ? "think" : this.grammarFromStart ? "grammar" : "free";
    this.thinkOpener = plan.thinking && plan.grammar ? new ThinkOpener(plan, (text) => env.matchers.tokenize(text)) : undefined;
    this.repeats = plan.repeatGuard === false ? undefined : new RepeatGuard(plan.repeatGuard);
    this.removed = plan.measureRemoved ? new RemovedLog() : undefined;
  }

  promptEvaluated(): void {
    this.at.promptDone = performance.now();
  }

  /** Tokens forced before the first sample: the think tag, or the grammar's forced start. */
  async begin(): Promise<Step> {
    const step: Step = { forced: [], text: "" };
    if (this.phase === "think") {
      // The format's template may have opened the think block in the prompt already (Qwen3.5).
      const think = this.plan.format.think;
      if (!think.openedByPrompt) {
        this.force(step, [think.open.token]);
        this.thinkUsed = 1;
      }
    } else if (this.phase === "grammar") {
      if (!(await this.startGrammar("start"))) this.finish = "length";
      else this.afterGrammarStep(step);
    }
    if (step.forced.length > 0) this.at.firstToken = performance.now();
    if (this.plan.signal?.aborted) this.finish = "aborted";
    return step;
  }

  firstSampled(): void {
    this.at.firstSample = performance.now();
    if (this.at.firstToken === 0) this.at.firstToken = this.at.firstSample;
  }

  /** Whether the turn ends before taking `token`: cancelled, end of generation, or no budget left. */
  endsBefore(token: number): boolean {
    if (this.plan.signal?.aborted) this.finish = "aborted";
    // No sampler checked the end against the grammar: one the grammar refuses is replaced in `take`.
    else if (this.env.model.isEogToken(token as Token) && (this.phase !== "grammar" || this.matcher!.canBeNext(token))) this.finish = this.callsClosed > 0 || this.bareOpened ? "tool_calls" : "stop";
    else if (this.remaining() <= 0) this.finish = "length";
    // Where the grammar can only end (no bias can force an end-of-generation token): a sample it refuses ends
    // the turn there.
    else if (this.phase === "grammar" && !this.matcher!.canBeNext(token) && this.matcher!.forcedContinuation(1).ends) {
      this.finish = this.callsClosed > 0 || this.bareOpened ? "tool_calls" : "stop";
    }
    return this.finish !== undefined;
  }

  /** Take a sampled token: phase changes, forced tokens, end of turn. */
  async take(token: number): Promise<Step> {
    const step: Step = { forced: [], text: "" };
    if (this.phase === "free") await this.takeFree(step, token);
    else if (this.phase === "think") await this.takeThink(step, token);
    else this.takeInGrammar(step, token);
    if (!this.finish && this.phase !== "think" && this.repeats?.tripped()) this.stopLoop(step);
    // Text the grammar forces ran past the budget: the budget cannot hold it (the caller's to raise), never a 500.
    if (this.remaining() < 0) fail("budget_too_small", `maxTokens ${this.plan.maxTokens} is too small: the text the constraint forces ran past it; raise maxTokens`);
    return step;
  }

  private async takeFree(step: Step, token: number): Promise<void> {
    const trigger = this.plan.mode === "constrained" && this.plan.toolChoice === "auto" && token === this.plan.format.open.token;
    // No room for one whole call: the open tag is refused and the turn ends at the limit.
    if (trigger && !(await this.startGrammar("after-open"))) {
      this.finish = "length";
      return;
    }
    this.add(step, [token], false);
    if (trigger) return this.afterGrammarStep(step);
    if (this.bareOpener === undefined) return;
    this.freeText += step.text;
    const state = bareState(this.bareOpener, this.freeText);
    if (state.kind === "opened" && this.plan.toolChoice === "auto") {
      // The call's opener was written as text: the grammar takes over right after it.
      if (!(await this.startGrammar("after-bare-open"))) {
        this.finish = "length";
        return;
      }
      this.bareOpened = true;
      return this.afterGrammarStep(step);
    }
    this.bias = this.biasAfterFreeText(state);
  }

  /**
   * The free-text bias after a line that may be starting a bare opener: under "none" the tokens that would
   * complete it are banned; under "auto" the ones that would run past it, so the grammar starts right after it.
   */
  private biasAfterFreeText(state: BareState): TokenBias {
    const tokens = this.env.bareTokens!;
    const opener = this.bareOpener!;
    const none = this.plan.toolChoice === "none";
    if (state.kind !== "partial") return this.freeBias;
    const { exact, longer } = tokens.completing(state.rest);
    const banned = [...longer, ...tokens.spelling(opener), ...(none ? [...exact, this.plan.format.open.token] : [])];
    return banned.length === 0 ? this.freeBias : this.env.biases.banningAll(banned);
  }

  private async takeThink(step: Step, token: number): Promise<void> {
    if (this.thinkOpener?.endsThinking(token)) return this.openFromThink(step, token, this.thinkOpener);
    this.add(step, [token], false);
    this.thinkUsed++;
    const close = this.plan.format.think.close.token;
    const closedByModel = token === close;
    if (!closedByModel && this.thinkUsed < this.plan.thinkingBudget && this.remaining() > 3 && !this.repeats?.tripped()) return;
    if (!closedByModel) this.force(step, [close, ...this.env.matchers.tokenize("\n\n")]);
    else if (this.grammarFromStart) this.force(step, this.env.matchers.tokenize("\n\n"));
    if (!this.grammarFromStart) {
      this.phase = "free";
      this.bias = this.freeBias;
    }
    else if (!(await this.startGrammar("start"))) this.finish = "length";
    else this.afterGrammarStep(step);
  }

  /**
   * The call opener was sampled while thinking: `</think>` and the blank line go in its place, then the opener,
   * taken as in the answer (the grammar starts as it would there); the step's tokens replace the sampled one.
   */
  private async openFromThink(step: Step, token: number, opener: ThinkOpener): Promise<void> {
    const from = this.tokens.length;
    if (this.remaining() < opener.cost) {
      this.finish = "length";
      return;
    }
    this.force(step, opener.before);
    if (!this.grammarFromStart) {
      this.phase = "free";
      this.bias = this.freeBias;
      await this.takeFree(step, token);
    } else if (!(await this.startGrammar("start"))) this.finish = "length";
    else {
      if (this.matcher!.acceptAll([token]).length === 1) this.add(step, [token], false);
      this.afterGrammarStep(step);
    }
    // Everything the step added goes in place of the sampled token, in order.
    step.fed = this.tokens.slice(from);
    step.forced = [];
  }

  /** Sampled under the grammar: the matcher takes it (or what it feeds instead). */
  private takeInGrammar(step: Step, token: number): void {
    this.removed?.record(this.tokens.length, this.env.biases.maskOf?.(this.bias));
    const taken = this.matcher!.takeSampled(token);
    if (taken.length !== 1 || taken[0] !== token) step.fed = taken;
    this.add(step, taken, false);
    if (taken.includes(this.matcher!.grammar.closeToken)) {
      this.callsClosed++;
      if (this.turnIsOver()) this.finish = "tool_calls";
    }
    if (!this.finish) this.afterGrammarStep(step);
  }

  /** The repetition guard tripped: under the grammar the value and the call close validly; free text ends. */
  private stopLoop(step: Step): void {
    const stop = this.repeats!.stop(this.phase === "grammar" ? this.closer : undefined);
    this.force(step, stop.tokens);
    this.finish = stop.finish;
  }

  /** Switch the grammar on for the rest of the turn; false when not even one call fits. */
  private async startGrammar(phase: GrammarPhase): Promise<boolean> {
    this.answerUnstarted = phase === "start";
    const t0 = performance.now();
    if (this.matcher) this.grammarMs += this.matcher.ms;
    const grammar = this.plan.grammar?.(phase, this.remaining());
    if (!grammar) return false;
    this.grammarMs += performance.now() - t0;
    this.grammar = grammar;
    this.matcher = await createMatcher(grammar.compiled, this.env.matchers);
    this.keys = this.plan.format.stringText === "json" && this.env.keyVocab ? new KeyGuard(this.env.keyVocab) : undefined;
    // Under the key guard the closing writes distinct keys (a minimum member count is part of the closing).
    this.closer = this.keys && this.env.keyVocab ? new DistinctClosing(this.matcher, this.keys, this.env.keyVocab) : this.matcher;
    this.guard = grammar.guarded ? new BudgetGuard(this.closer) : undefined;
    this.bias = this.env.biases.inCall;
    this.phase = "grammar";
    this.at.grammarStart += performance.now() - t0;
    // A guarded grammar admits calls longer than the budget: refuse to open one that cannot close in time.
    if (this.guard && !this.guard.fits(this.remaining())) {
      this.phase = "free";
      return false;
    }
    return true;
  }

  /**
   * After a step under the grammar: jump forward, stopping right after a closing tag when no further call fits;
   * then the budget guard, and the sampler bias for the next token.
   */
  private afterGrammarStep(step: Step): void {
    const matcher = this.matcher!;
    if (this.answerUnstarted) this.refuseForcedOverBudget(matcher);
    const { forced, ends } = this.jumpForward(matcher);
    let take = forced.length;
    for (let i = 0; i < forced.length; i++) {
      if (forced[i] !== matcher.grammar.closeToken) continue;
      this.callsClosed++;
      if (this.turnIsOver(this.tokens.length + i + 1)) {
        take = i + 1;
        this.finish = "tool_calls";
        break;
      }
    }
    this.force(step, forced.slice(0, take));
    if (ends) this.finish = this.callsClosed > 0 || this.bareOpened ? "tool_calls" : "stop";
    const close = this.finish ? undefined : this.guard?.check(this.remaining());
    if (close) {
      this.force(step, close.tokens);
      this.finish = close.finish;
    }
    if (!this.finish) this.bias = this.biasFor(matcher);
  }

  /**
   * A turn that can only answer, before its answer's first token: when the text the constraint forces from here
   * (the choices' shared prefix, a schema's fixed start) takes more tokens than the budget left, no answer can
   * fit; refused as `budget_too_small` with both figures rather than cut at the limit (a bound up front cannot
   * count the tokens of a long run of letters; the forced tokens are counted here exactly).
   */
  private refuseForcedOverBudget(matcher: TurnMatcher): void {
    this.answerUnstarted = false;
    const callable = this.plan.toolChoice !== "none" && (this.grammar?.compiled.tools.length ?? 0) > 0;
    if (!this.plan.jsonAnswer || callable || !this.plan.jumpForward) return;
    const remaining = this.remaining();
    const forced = matcher.forcedContinuation(remaining + FORCED_FIGURE_SLACK).tokens.length;
    if (forced <= remaining) return;
    const figure = forced > remaining + FORCED_FIGURE_SLACK - 1 ? `over ${remaining + FORCED_FIGURE_SLACK - 1}` : `${forced}`;
    fail("budget_too_small", `maxTokens ${this.plan.maxTokens} is too small for the answer: the text the constraint forces at its start takes ${figure} tokens and ${remaining} are left; raise maxTokens to ${this.plan.maxTokens - remaining + forced} or more`);
  }

  /** The forced continuation, accepted into the matcher (none when jump-forward is off). */
  private jumpForward(matcher: TurnMatcher): { forced: number[]; ends: boolean } {
    if (!this.plan.jumpForward) return { forced: [], ends: false };
    const next = matcher.forcedContinuation(this.remaining());
    const forced = matcher.acceptAll(next.tokens);
    return { forced, ends: next.ends && forced.length === next.tokens.length };
  }

  /**
   * Inside a call: the free-text bias where the grammar allows ordinary letters next; elsewhere the sampler is
   * narrowed to exactly the tokens the grammar allows (so no sample is rejected), or the call bias when finding
   * them would cost more than a rejection.
   */
  private biasFor(matcher: TurnMatcher): TokenBias {
    const next = matcher.nextTokens();
    const { biases } = this.env;
    // The guards' look-aheads work on forks of the matcher, whose time the matcher does not count: counted here.
    const t0 = performance.now();
    const ms0 = matcher.ms;
    const keyBanned = this.keys?.banned(matcher, next.kind === "set" ? next.tokens : undefined) ?? [];
    const banned = next.kind === "set" ? [...keyBanned, ...this.unaffordable(matcher, next.tokens.filter((t) => !keyBanned.includes(t)))] : keyBanned;
    this.grammarMs += performance.now() - t0 - (matcher.ms - ms0);
    if (banned.length > 0) {
      const kept = next.kind === "set" ? next.tokens.filter((t) => !banned.includes(t)) : [];
      // Nothing left (a key space the look-ahead could not see through): the parser still refuses a repeat.
      if (kept.length > 0) return biases.narrowTo(kept, banned);
      if (next.kind !== "set") return biases.jsonTextBanning(banned);
    }
    if (next.kind === "text") return this.plan.format.stringText === "json" ? biases.inJsonText : biases.inRawText;
    return next.kind === "set" ? biases.narrowTo(next.tokens) : biases.inCall;
  }

  /**
   * Near the budget's end, the candidates after which the call could not close inside the budget any more: a
   * sampled token and the text the grammar then forces can lengthen the closing by more than GUARD_MARGIN (the
   * first token of a tool's name forces the rest of it, and its required arguments join the closing).
   */
  private unaffordable(matcher: TurnMatcher, candidates: readonly number[]): number[] {
    const remaining = this.remaining();
    if (!this.guard?.near(remaining)) return [];
    return this.guard.unaffordable(candidates, remaining, (token) => {
      const fork = matcher.fork();
      if (!fork.accept(token)) return undefined;
      const forced = this.jumpForward(fork).forced.length;
      const closing = fork.closing();
      return closing && 1 + forced + closing.length;
    });
  }

  /** After a closed call: whether the turn must end (no parallel calls, call limit, or no room for another). */
  private turnIsOver(used = this.tokens.length): boolean {
    if (!this.plan.parallel || this.callsClosed >= this.plan.maxCalls) return true;
    return this.plan.maxTokens - used < (this.grammar?.compiled.worstCaseCallTokens ?? 0);
  }

  private remaining(): number {
    return this.plan.maxTokens - this.tokens.length;
  }

  private force(step: Step, list: readonly number[]): void {
    step.forced.push(...list);
    this.add(step, list, true);
  }

  /** Add tokens to the turn's output and their text to the step's delta. */
  private add(step: Step, added: readonly number[], forced: boolean): void {
    this.tokens.push(...added);
    if (forced) this.forcedCount += added.length;
    const text = this.detok.push(added);
    step.text += text;
    this.repeats?.push(added);
    if (this.phase === "grammar") this.keys?.feed(text);
  }

  flush(): string {
    return this.detok.flush();
  }

  outcome(): TurnOutcome {
    const end = performance.now();
    const { plan, at } = this;
    const decodeMs = end - at.promptDone;
    const firstSample = at.firstSample || end;
    return {
      finishReason: this.finish ?? "stop",
      promptTokens: plan.promptTokens.length,
      promptTokensReused: plan.reusedPromptTokens,
      completionTokens: this.tokens.length,
      forcedTokens: this.forcedCount,
      tokens: this.tokens,
      timeToFirstTokenMs: (at.firstToken > 0 ? at.firstToken : end) - plan.startedAt,
      decodeTokensPerSecond: decodeMs > 0 ? (this.tokens.length * 1000) / decodeMs : 0,
      grammarMs: this.grammarMs + (this.matcher?.ms ?? 0),
      totalMs: end - plan.startedAt,
      ...(this.grammar ? { grammar: this.grammar.compiled.constraint } : {}),
      ...(this.matcher?.footprintBytes !== undefined ? { grammarBytes: this.matcher.footprintBytes } : {}),
      ...(this.repeats?.stopped ? { notices: [REPETITION_STOPPED] } : {}),
      ...(this.removed ? { masked: this.removed.steps } : {}),
      phases: {
        setup: at.created - plan.startedAt,
        prompt: at.promptDone - at.created,
        grammarStart: at.grammarStart,
        firstToken: firstSample - at.promptDone,
        decode: end - firstSample,
      },
    };
  }
}

