// Owns: what a turn is given and what it gives back: its plan (the resolved request and what the runtime adds),
// the per-runtime things it uses (model, token tables, matchers' vocabulary, sampler biases), how it starts (read
// from the plan once), one step's tokens, and the outcome with its counts and timings.

import type { LlamaModel, TokenBias } from "node-llama-cpp";
import type { ToolCallFormat } from "../formats/index.js";
import { BareOpenerWatch, type BareOpenerTokens } from "./bare-opener.js";
import type { TurnGrammarSource } from "./grammar-source.js";
import type { MatcherEnv } from "./matcher.js";
import type { MaskedStep, StepMask } from "./probability-removed.js";
import type { ResolvedRequest } from "./request.js";
import type { TurnCounts } from "./result.js";
import type { KeyVocab } from "../engine/semantic/index.js";
import type { StepGate } from "./step-gate.js";
import type { TokenTables } from "../engine/token-tables.js";

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
  /** Inside calls, before the first mask: partial UTF-8 banned. */
  inCall: TokenBias;
  /** Only these tokens (the grammar's exact allowed set); `never`: tokens banned outright (the key guard's). */
  narrowTo(tokens: readonly number[], never?: readonly number[]): TokenBias;
  /** Every token but these (the grammar's exact mask where free text may come), and but `also` (the key guard's). */
  allBut(banned: readonly number[], also?: readonly number[]): TokenBias;
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
export interface Step {
  forced: number[];
  text: string;
  /** What was fed in place of the sampled token (the qtc engine refused it). Default: the sampled token. */
  fed?: number[];
}

/** A turn's phase: thinking, free text, or under the grammar. */
export type TurnPhase = "think" | "free" | "grammar";

/** How a turn starts, read from its plan once. */
export interface TurnStart {
  phase: TurnPhase;
  /** The grammar holds the turn from its first answer token (a JSON answer, or tool choice required or named). */
  grammarFromStart: boolean;
  /** The bias of free text, and the one of the first sample. */
  freeBias: TokenBias;
  bias: TokenBias;
  /** Watches free text for the format's bare call opener; undefined when there is none to watch. */
  bare: BareOpenerWatch | undefined;
}

export function turnStart(plan: TurnPlan, env: TurnEnv): TurnStart {
  const constrained = plan.mode === "constrained";
  // Constrained free text never holds a think tag (the think block is the template's, and the parser reads no
  // call inside one); under "none" not the open tag either. While thinking, only `<think>` is banned.
  const { think, open } = plan.format;
  const noCall = plan.toolChoice === "none" ? [open.token] : [];
  const freeBias = constrained ? env.biases.banningAll([think.open.token, think.close.token, ...noCall]) : env.biases.none;
  const watched = constrained && (plan.toolChoice === "none" || (plan.toolChoice === "auto" && plan.grammar !== undefined));
  const opener = plan.format.bareBlock?.open;
  const grammarFromStart =
    constrained && plan.grammar !== undefined && (plan.jsonAnswer || plan.toolChoice === "required" || typeof plan.toolChoice === "object");
  return {
    phase: plan.thinking ? "think" : grammarFromStart ? "grammar" : "free",
    grammarFromStart,
    freeBias,
    bias: constrained && plan.thinking ? env.biases.banningAll([think.open.token, ...noCall]) : freeBias,
    bare: watched && env.bareTokens && opener !== undefined ? new BareOpenerWatch(opener, env.bareTokens, plan.toolChoice === "none", open.token) : undefined,
  };
}
