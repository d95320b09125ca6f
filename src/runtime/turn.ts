// Owns: one assistant turn on one sequence: the token loop with its phases (think, free text, grammar), the
// token budget, forced tokens (tags, jump-forward), cancellation, and the turn's counts and timings. It yields
// raw text deltas (special tags included); the runtime feeds them to the parser.

import type { LlamaContextSequence, LlamaGrammarEvaluationState, LlamaModel, Token, TokenBias } from "node-llama-cpp";
import { getFormat, QWEN3_TOKENS, type ToolCallFormat } from "../formats/index.js";
import { StreamDetokenizer } from "./detokenizer.js";
import { acceptForced, canBeNext, type GrammarCache } from "./grammar-state.js";
import type { AllowedNext } from "./allowed-next.js";
import { ContinuationProber, grammarSpecialTokens, planTokens } from "./jump-forward.js";
import { tokenizeAsText } from "./prompt-tokens.js";
import type { ResolvedRequest } from "./request.js";
import type { TokenTables } from "./token-tables.js";
import type { FinishReason } from "./types.js";

/** A grammar for the rest of the turn, compiled for the budget left when it takes over. */
export interface TurnGrammarSpec {
  gbnf: string;
  /** Most tokens one more call can take (tags and separator included). */
  worstCaseTokensPerCall: number;
  /**
   * The grammar bounds calls to more bytes than the token budget left: the runtime must close the call itself
   * (forcing a completion) before the budget runs out.
   */
  guarded: boolean;
}

/** Compiles the turn's grammar on demand. Returns undefined when not even one call fits `maxTokens`. */
export type TurnGrammarSource = (phase: "full" | "after-open", maxTokens: number) => TurnGrammarSpec | undefined;

/** Everything a turn needs, resolved (no defaults left): the request's settings and what the runtime adds. */
export interface TurnPlan extends ResolvedRequest {
  promptTokens: number[];
  /** Leading prompt tokens the sequence already holds (evaluated by an earlier request). */
  reusedPromptTokens: number;
  grammar: TurnGrammarSource | undefined;
  /** The answer is JSON under the grammar (a response schema): the grammar holds the turn from its first token. */
  jsonAnswer: boolean;
  signal?: AbortSignal;
  /** When the request started (performance.now()), for time to first token. */
  startedAt: number;
}

/** The shared, per-runtime things a turn uses. */
export interface TurnEnv {
  model: LlamaModel;
  tables: TokenTables;
  grammars: GrammarCache;
  /**
   * Sampler biases: `none` (free text), `noCalls` (the open tag banned: tool choice none), `inCall` (partial
   * UTF-8 banned: inside calls), and `inJsonText` / `inRawText` (inside a call's free text: also the tokens that
   * can never continue it, so a sample is rarely rejected and the full-vocabulary grammar pass rarely runs).
   */
  biases: { none: TokenBias; noCalls: TokenBias; inCall: TokenBias; inJsonText: TokenBias; inRawText: TokenBias; narrowTo(tokens: readonly number[]): TokenBias };
  /** Finds the tokens a grammar state allows next where they are few; undefined when the vocabulary is not byte-level. */
  allowedNext: AllowedNext | undefined;
}

export interface TurnOutcome {
  finishReason: FinishReason;
  promptTokens: number;
  completionTokens: number;
  forcedTokens: number;
  /** Tokens the turn added, in order (sampled and forced). */
  tokens: number[];
  timeToFirstTokenMs: number;
  decodeTokensPerSecond: number;
  grammarMs: number;
  totalMs: number;
}

const T = QWEN3_TOKENS;
/** Most steps a closing walk takes (characters and tags). */
const CLOSURE_MAX_STEPS = 4096;
/** One sampled token lengthens the closing of a call by less than this (an escape, a `<` in raw text). */
const GUARD_MARGIN = 4;
/** How far from the budget's end the closing is recomputed each step. */
const GUARD_SLACK = 8;

/** What may close a value at a free position (the format's closers), as byte-token sequences, then the close tag. */
function closersFor(format: ToolCallFormat, tables: TokenTables): number[][] {
  const bytes = tables.byteTokens;
  if (!bytes) return [];
  const asTokens = format.valueClosers.map((text) => [...Buffer.from(text, "utf8")].map((b) => bytes[b]!));
  return [...asTokens, [format.close.token]];
}
type Phase = "think" | "free" | "grammar";

/** Run one turn; yields raw text deltas and returns the outcome. The caller owns (and clears) the sequence. */
export async function* runTurn(seq: LlamaContextSequence, env: TurnEnv, plan: TurnPlan): AsyncGenerator<string, TurnOutcome, void> {
  const { model, tables } = env;
  const detok = new StreamDetokenizer((tokens) => model.detokenize(tokens as Token[], true));
  const tokens: number[] = [];
  let forcedCount = 0;
  let grammarMs = 0;
  let grammarState: LlamaGrammarEvaluationState | undefined;
  let grammarSpec: TurnGrammarSpec | undefined;
  let prober: ContinuationProber | undefined;
  /** Special tokens the current grammar names, and the end-of-generation tokens. */
  let grammarSpecials: number[] = [];
  let bias = plan.mode === "constrained" && plan.toolChoice === "none" ? env.biases.noCalls : env.biases.none;
  let callsClosed = 0;
  let finish: FinishReason | undefined;
  const grammarFromStart =
    plan.mode === "constrained" && plan.grammar !== undefined && (plan.jsonAnswer || plan.toolChoice === "required" || typeof plan.toolChoice === "object");
  let phase: Phase = plan.thinking ? "think" : grammarFromStart ? "grammar" : "free";
  let thinkUsed = 0;
  /** Tokens the last computed closing of the current call took (guarded turns). */
  let closureCost: number | undefined;
  const closers = closersFor(getFormat(plan.format), tables);

  const remaining = () => plan.maxTokens - tokens.length;
  const textBias = getFormat(plan.format).stringText === "json" ? env.biases.inJsonText : env.biases.inRawText;
  const textProbes = ["a", "e"].map((c) => tables.byteTokens?.[c.charCodeAt(0)]).filter((t): t is number => t !== undefined);

  /**
   * Inside a call: the free-text bias where the grammar allows ordinary letters next; elsewhere the sampler is
   * narrowed to exactly the tokens the grammar allows (so no sample is rejected), or the call bias when finding
   * them would cost more than a rejection.
   */
  const chooseGrammarBias = () => {
    if (!grammarState) return;
    const t0 = performance.now();
    const inText = textProbes.length > 0 && textProbes.every((t) => canBeNext(grammarState!, t));
    const allowed = inText ? undefined : env.allowedNext?.find(grammarState, grammarSpecials);
    bias = inText ? textBias : allowed && allowed.length > 0 ? env.biases.narrowTo(allowed) : env.biases.inCall;
    grammarMs += performance.now() - t0;
  };
  // Forced text is plain text (property names come from the client's schema): never an added token.
  const vocab = { tokenize: (text: string, special: boolean) => model.tokenize(text, special), added: env.tables.addedTokens };
  const tokenize = (text: string) => tokenizeAsText(text, vocab);

  /** Switch the grammar on for the rest of the turn; false when not even one call fits. */
  const startGrammar = async (grammarPhase: "full" | "after-open"): Promise<boolean> => {
    const t0 = performance.now();
    grammarSpec = plan.grammar?.(grammarPhase, remaining());
    if (!grammarSpec) return false;
    grammarState = await env.grammars.stateFor(grammarSpec.gbnf);
    const named = grammarSpecialTokens(grammarSpec.gbnf);
    // The prober asks "may it end here?" with one end-of-generation token (several would never be "the only
    // continuation"); the narrowed sampler must offer every one the grammar allows.
    prober = new ContinuationProber(tables, named);
    grammarSpecials = [...new Set([...named, ...tables.eogTokens])];
    bias = env.biases.inCall;
    phase = "grammar";
    closureCost = undefined;
    grammarMs += performance.now() - t0;
    // A guarded grammar admits calls longer than the budget: refuse to open one that cannot close in time.
    if (grammarSpec.guarded && (closingTokens()?.length ?? Infinity) > remaining()) {
      phase = "free";
      grammarState = undefined;
      return false;
    }
    return true;
  };

  /** Tokens that complete the current call from the grammar state (guarded turns), or undefined. */
  const closingTokens = (): number[] | undefined => {
    if (!prober || !grammarState) return undefined;
    const t0 = performance.now();
    const run = prober.closure(grammarState, closers, T.toolCallClose.token, CLOSURE_MAX_STEPS);
    const list = run && planTokens(run, tokenize).tokens;
    grammarMs += performance.now() - t0;
    closureCost = list?.length;
    return list;
  };

  /**
   * Guarded turns: once the budget left is within reach of what closing the call takes, close it now (forced)
   * and end the turn. One more sampled token could lengthen the closing by at most GUARD_MARGIN - 1 tokens.
   */
  const guard = (force: (list: readonly number[]) => void): void => {
    if (!grammarSpec?.guarded || !grammarState || finish) return;
    if (closureCost !== undefined && remaining() > closureCost + GUARD_MARGIN + GUARD_SLACK) return;
    const closing = closingTokens();
    if (!closing || remaining() > closing.length + GUARD_MARGIN) return;
    const t0 = performance.now();
    const accepted: number[] = [];
    for (const token of closing) {
      if (!acceptForced(grammarState, token)) break;
      accepted.push(token);
    }
    grammarMs += performance.now() - t0;
    const fits = accepted.length === closing.length && closing.length <= remaining();
    force(fits ? accepted : accepted.slice(0, Math.max(0, remaining())));
    finish = fits ? "tool_calls" : "length";
  };

  /** Forced continuation under the grammar (jump-forward), already accepted into the grammar state. */
  const jump = (): { forced: number[]; ends: boolean } => {
    if (!plan.jumpForward || !prober?.usable || !grammarState) return { forced: [], ends: false };
    const t0 = performance.now();
    const run = prober.forcedRun(grammarState, remaining());
    const plan2 = planTokens(run, tokenize);
    const forced: number[] = [];
    for (const token of plan2.tokens) {
      if (!acceptForced(grammarState, token)) break;
      forced.push(token);
    }
    grammarMs += performance.now() - t0;
    return { forced, ends: plan2.ends && forced.length === plan2.tokens.length };
  };

  /** Add tokens to the turn's output; returns the text delta. */
  const add = (added: readonly number[], forced: boolean): string => {
    tokens.push(...added);
    if (forced) forcedCount += added.length;
    return detok.push(added);
  };

  // The prompt but its last token is evaluated first: decode speed is measured from there. The last prompt
  // token and any tokens forced before the first sample then go in one batch.
  const promptHead = plan.promptTokens.slice(plan.reusedPromptTokens, -1);
  const promptLast = plan.promptTokens.slice(-1);
  await seq.evaluateWithoutGeneratingNewTokens(promptHead as Token[]);
  const promptDoneAt = performance.now();
  let firstTokenAt = 0;

  const initial: number[] = [];
  let initialText = "";
  const forceInitial = (list: readonly number[]) => {
    initial.push(...list);
    initialText += add(list, true);
  };
  if (phase === "think") {
    forceInitial([T.thinkOpen.token]);
    thinkUsed = 1;
  } else if (phase === "grammar") {
    if (!(await startGrammar("full"))) finish = "length";
    else grammarJump(forceInitial);
  }
  if (initial.length > 0) firstTokenAt = performance.now();
  if (initialText) yield initialText;
  if (plan.signal?.aborted) finish = "aborted";

  if (!finish) {
    const gen = seq.evaluate([...promptLast, ...initial] as Token[], {
      temperature: plan.temperature,
      topP: plan.topP,
      topK: plan.topK,
      seed: plan.seed,
      yieldEogToken: true,
      grammarEvaluationState: () => (phase === "grammar" ? grammarState : undefined),
      tokenBias: () => bias,
    });
    try {
      let next = await gen.next();
      if (firstTokenAt === 0) firstTokenAt = performance.now();
      while (!finish) {
        if (next.done) {
          finish = "stop";
          break;
        }
        const token = next.value;
        if (plan.signal?.aborted) finish = "aborted";
        else if (model.isEogToken(token)) finish = callsClosed > 0 ? "tool_calls" : "stop";
        else if (remaining() <= 0) finish = "length";
        if (finish) break;
        const step = await stepAfter(token);
        if (step.text) yield step.text;
        if (remaining() < 0) throw new Error("internal: forced tokens overran the token budget");
        if (finish) break;
        next = await gen.next((step.forced.length > 0 ? [token, ...step.forced] : token) as Token | Token[]);
      }
    } finally {
      await gen.return();
    }
  }
  const tail = detok.flush();
  if (tail) yield tail;
  return outcome();

  /** Take a sampled token: phase changes, forced tokens, end of turn. */
  async function stepAfter(token: number): Promise<{ text: string; forced: number[] }> {
    const forced: number[] = [];
    let text = "";
    const force = (list: readonly number[]) => {
      forced.push(...list);
      text += add(list, true);
    };
    if (phase === "free") {
      const trigger = plan.mode === "constrained" && plan.toolChoice === "auto" && token === T.toolCallOpen.token;
      // No room for one whole call: the open tag is refused and the turn ends at the limit.
      if (trigger && !(await startGrammar("after-open"))) {
        finish = "length";
        return { text, forced };
      }
      text += add([token], false);
      if (trigger) grammarJump(force);
    } else if (phase === "think") {
      text += add([token], false);
      thinkUsed++;
      const closedByModel = token === T.thinkClose.token;
      if (closedByModel || thinkUsed >= plan.thinkingBudget || remaining() <= 3) {
        if (!closedByModel) force([T.thinkClose.token, ...tokenize("\n\n")]);
        else if (grammarFromStart) force(tokenize("\n\n"));
        if (!grammarFromStart) phase = "free";
        else if (!(await startGrammar("full"))) finish = "length";
        else grammarJump(force);
      }
    } else {
      // Sampled under the grammar: the native sampler already advanced the grammar state.
      text += add([token], false);
      if (token === T.toolCallClose.token) {
        callsClosed++;
        if (turnIsOver()) finish = "tool_calls";
      }
      if (!finish) grammarJump(force);
    }
    return { text, forced };
  }

  /**
   * Jump forward under the grammar, stopping right after a closing tag when no further call fits; then the
   * budget guard and the sampler bias for the next token. `force` adds the tokens to the turn and feeds them.
   */
  function grammarJump(force: (list: readonly number[]) => void): void {
    const j = jump();
    let take = j.forced.length;
    for (let i = 0; i < j.forced.length; i++) {
      if (j.forced[i] !== T.toolCallClose.token) continue;
      callsClosed++;
      if (turnIsOver(tokens.length + i + 1)) {
        take = i + 1;
        finish = "tool_calls";
        break;
      }
    }
    force(j.forced.slice(0, take));
    if (j.ends) finish = callsClosed > 0 ? "tool_calls" : "stop";
    guard(force);
    if (!finish) chooseGrammarBias();
  }

  /** After a closed call: whether the turn must end (no parallel calls, call limit, or no room for another). */
  function turnIsOver(used = tokens.length): boolean {
    if (!plan.parallel || callsClosed >= plan.maxCalls) return true;
    const worst = grammarSpec?.worstCaseTokensPerCall ?? 0;
    return plan.maxTokens - used < worst;
  }

  function outcome(): TurnOutcome {
    const end = performance.now();
    const decodeMs = end - promptDoneAt;
    return {
      finishReason: finish ?? "stop",
      promptTokens: plan.promptTokens.length,
      completionTokens: tokens.length,
      forcedTokens: forcedCount,
      tokens,
      timeToFirstTokenMs: (firstTokenAt > 0 ? firstTokenAt : end) - plan.startedAt,
      decodeTokensPerSecond: decodeMs > 0 ? (tokens.length * 1000) / decodeMs : 0,
      grammarMs,
      totalMs: end - plan.startedAt,
    };
  }
}
