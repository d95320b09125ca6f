// Owns: the grammar compiler's options, their defaults (one object), and the frozen CompiledGrammar it returns.

import type { FormatId, ToolCallFormat } from "../formats/types.js";
import type { JsonSchema, ToolChoice } from "../tools/types.js";
import { SHARED_DEFAULTS } from "../defaults.js";
import type { ConstraintReport, ExtraMembersPolicy, UnsupportedPolicy } from "./constraint-report.js";
import type { BudgetSplit } from "./budget-share.js";
import type { TextConstraint } from "./answer-constraint.js";
import type { UniquePlan } from "./unique-plan.js";

/** Where the grammar starts. */
/** Where a grammar starts; see ToolGrammarOptions.phase. */
export const GRAMMAR_PHASES = ["start", "after-open", "after-bare-open"] as const;
export type GrammarPhase = (typeof GRAMMAR_PHASES)[number];

export interface ToolGrammarOptions {
  /** Tool-call format (id or definition). Default: "hermes". */
  format?: FormatId | ToolCallFormat;
  /** Which calls the turn may make: "auto", "required", "none" or `{name}`. Default: "auto". */
  toolChoice?: ToolChoice;
  /** Allow more than one call in the turn. Default: true. */
  parallel?: boolean;
  /** Most calls in one turn when `parallel` (1 when not). Default: 8. */
  maxCalls?: number;
  /**
   * Token budget. Every call the grammar admits fits in it: the worst-case bytes of one call (a token is at
   * least one byte) are at most `maxTokens`. Default: 512.
   */
  maxTokens?: number;
  /** Start with a bounded `<think>` … `</think>` phase (phase "start" only). Default: false. */
  thinking?: boolean;
  /** Bytes of thinking text when `thinking`. Default: `thinkingShare` × maxTokens. */
  thinkingBudget?: number;
  /** Share of maxTokens the thinking text gets when thinkingBudget is not given. Default: 0.5. */
  thinkingShare?: number;
  /**
   * Under `auto` (phase "start"): share of maxTokens kept for text before the first call, so calls are
   * compiled with the rest. Default: 0.25.
   */
  prefaceShare?: number;
  /**
   * "start": the whole answer. "after-open": everything after the first call's open tag token was already
   * sampled (the rest of that call, then optionally more calls) — for lazy grammars under `auto`, compiled
   * with the budget left at that point. "after-bare-open": the format's bare call opener (`<function=` of the
   * XML formats) was written as text without the open tag: the rest of that call's body, then optionally more
   * (wrapped) calls. Default: "start".
   */
  phase?: GrammarPhase;
  /**
   * The answer, when it is not calls, is JSON that fits this schema (OpenAI `response_format`): with tool choice
   * "none" (or no tools) the answer is that JSON alone; under "auto" it is that JSON or calls; with calls
   * required it plays no part. Phase "start" only. Default: none (free text).
   */
  answerSchema?: JsonSchema | boolean;
  /**
   * The answer, when it is not calls, matches this checked regex, choice or grammar (checkTextConstraint), in place
   * of free text, as `answerSchema` does. Phase "start" only. Default: none (free text).
   */
  answerConstraint?: TextConstraint;
  /**
   * A keyword that constrains values but that the grammar cannot hold exactly: "strict" refuses the tools
   * (`unsupported_keyword` with its pointer); "validate" compiles a superset without it and leaves it to the
   * post-parser's validator, which rejects a call that breaks it (reported in `constraint.relaxed`). Default:
   * "validate" (a server answering a coding agent must not refuse its whole tool list for one keyword).
   */
  unsupported?: UnsupportedPolicy;
  /**
   * Tool arguments whose object schema gives no `additionalProperties`: "closed" admits only the listed members
   * (counted in `constraint.closedObjects`), "schema" follows JSON Schema (any extra member). The answer schema
   * always follows JSON Schema. Default: "closed".
   */
  extraMembers?: ExtraMembersPolicy;
  /**
   * How the budget is split among the parts of a call. "worst-case": every part gets a static share and the
   * shares' sum fits `maxTokens`, so the grammar alone keeps every call inside the budget (what an engine that
   * does not watch the tokens needs: the unguarded local turn, llama-server). "shared": each part may use what
   * the others leave at their least; one part never spells more than the budget but a whole call may
   * (`worstCaseCallTokens` says how much), so the caller must close the call in time (the runtime's budget
   * guard). The default is the path the runtime and `qtc serve` run and MaskBench measures; engines that cannot
   * run the guard (llama-server, xgrammar upstreams) compile with "worst-case" and say so. Default: "shared".
   */
  budgetSplit?: BudgetSplit;
}

/** Defaults of compileToolGrammar (docs and the CLI read them here). */
export const GRAMMAR_DEFAULTS = Object.freeze({
  /** Default: "hermes". */
  format: "hermes" as FormatId,
  /** Default: "auto". */
  toolChoice: "auto" as ToolChoice,
  /** Default: true. */
  parallel: true,
  /** Default: 8. */
  maxCalls: SHARED_DEFAULTS.maxCalls,
  /** Default: 512. */
  maxTokens: SHARED_DEFAULTS.maxTokens,
  /** Default: false. */
  thinking: false,
  /** Default: 0.5. */
  thinkingShare: 0.5,
  /** Default: 0.25. */
  prefaceShare: 0.25,
  /** Default: "start". */
  phase: "start" as GrammarPhase,
  /** Default: "validate". */
  unsupported: "validate" as UnsupportedPolicy,
  /** Default: "closed". */
  extraMembers: "closed" as ExtraMembersPolicy,
  /** Default: "shared". */
  budgetSplit: "shared" as BudgetSplit,
});

/** Defaults of compileSchema (one JSON value: JSON Schema's own semantics, nothing left to a validator). */
export const SCHEMA_GRAMMAR_DEFAULTS = Object.freeze({
  /** Default: "strict". */
  unsupported: "strict" as UnsupportedPolicy,
  /** Default: "schema". */
  extraMembers: "schema" as ExtraMembersPolicy,
  /** Default: "shared". */
  budgetSplit: "shared" as BudgetSplit,
});

/** One tool's place in a compiled grammar. */
export interface GrammarTool {
  readonly name: string;
  /** Worst-case tokens of one call block to it (open and close tags included); undefined when left out. */
  readonly worstCaseTokens: number | undefined;
  /**
   * Formats that spell arguments as tags: the listed parameters whose values are JSON (objects, arrays, numbers),
   * those written as raw text (their schemas allow strings), and whether an extra parameter's value is JSON.
   * Undefined in JSON formats.
   */
  readonly params?: { readonly json: readonly string[]; readonly raw: readonly string[]; readonly extraJson: boolean };
  /** Where its arguments hold arrays of distinct items (uniqueItems), which the runtime's guard holds; absent: none. */
  readonly unique?: UniquePlan;
  /**
   * Whether its arguments may hold an extra or pattern member, whose key only the engine's key guard keeps from
   * repeating one already written (listed members the grammar writes at most once); absent: none.
   */
  readonly openKeys?: true;
}

/** A compiled grammar: immutable, cacheable, shared by every request with the same tools and options. */
export interface CompiledGrammar {
  /** GBNF text for llama.cpp (special tags as `<[id]>` tokens). */
  readonly gbnf: string;
  /** Name of the start rule. */
  readonly rootRule: "root";
  readonly format: FormatId;
  readonly toolChoice: ToolChoice;
  readonly phase: GrammarPhase;
  readonly parallel: boolean;
  readonly maxCalls: number;
  readonly maxTokens: number;
  /**
   * Worst-case tokens of one more call: the separator before it plus the longest call block. The runtime ends
   * a turn after a call when fewer tokens than this are left. 0 when the grammar admits no call.
   */
  readonly worstCaseCallTokens: number;
  /** Worst-case tokens of the thinking phase (0 without one). */
  readonly thinkingTokens: number;
  /** Every requested tool, in order. */
  readonly tools: readonly GrammarTool[];
  /** Tools the grammar leaves out because even their shortest call does not fit maxTokens. */
  readonly omittedTools: readonly string[];
  /** The token that opens a call (the trigger of a lazy grammar). */
  readonly triggerToken: number;
  /** The token that closes a call block: where a turn counts a finished call and where a forced closing stops. */
  readonly closeToken: number;
  /**
   * Every special token the GBNF names as `<[id]>` (call and think tags), each once: besides text, the only
   * tokens a matcher has to ask the grammar about.
   */
  readonly specialTokens: readonly number[];
  /** Texts that end a value at a free position inside a call, longest first (the format's `valueClosers`). */
  readonly valueClosers: readonly string[];
  /** Size of the grammar: rules and bytes of GBNF. */
  readonly stats: { readonly rules: number; readonly bytes: number };
  /** What the grammar constrains: its hash, the keywords ignored, the ones left to the validator. */
  readonly constraint: ConstraintReport;
  /** How the budget was split (under "shared" a call may exceed maxTokens: see ToolGrammarOptions.budgetSplit). */
  readonly budgetSplit: BudgetSplit;
}

/** A single JSON value compiled from a schema (e.g. a response format). */
export interface CompiledSchema {
  readonly gbnf: string;
  readonly rootRule: "root";
  readonly maxTokens: number;
  /** Worst-case tokens of the value (beyond maxTokens only under budgetSplit "shared"). */
  readonly worstCaseTokens: number;
  /** How the budget was split among the value's parts. */
  readonly budgetSplit: BudgetSplit;
  readonly stats: { readonly rules: number; readonly bytes: number };
  /** What the grammar constrains (see CompiledGrammar.constraint). */
  readonly constraint: ConstraintReport;
  /** Where the value holds arrays of distinct items, under `guardedUnique`; absent: none. */
  readonly unique?: UniquePlan;
}

export interface SchemaGrammarOptions {
  /** Token budget of the value. Default: 512. */
  maxTokens?: number;
  /** Format whose tags the value may never spell. Default: "hermes". */
  format?: FormatId | ToolCallFormat;
  /** See ToolGrammarOptions.unsupported. Default: "strict". */
  unsupported?: UnsupportedPolicy;
  /**
   * Lower `uniqueItems` as plain arrays marked in `unique`, for a caller that holds it beside the grammar (the
   * runtime's semantic guard: `KeyGuard` with the plan). Without it, uniqueItems is refused. Default: false.
   */
  guardedUnique?: boolean;
  /** See ToolGrammarOptions.extraMembers. Default: "schema". */
  extraMembers?: ExtraMembersPolicy;
  /** See ToolGrammarOptions.budgetSplit. Default: "shared". */
  budgetSplit?: BudgetSplit;
}
