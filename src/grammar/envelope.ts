// Owns: the text around the arguments, generated from the format definition: the call block (open tag token,
// framing, function name, close tag token), the call list under parallel/maxCalls, free text that can never
// spell a tag, the thinking phase, and the root rule for each tool choice and phase.

import type { ToolCallFormat } from "../formats/types.js";
import { utf8Length } from "./canonical-json.js";
import { literal, type RuleSet, tokenRef } from "./gbnf.js";
import type { ParamSpelling } from "./schema-emit.js";
import type { TextChains } from "./text-chain.js";
import type { GrammarPhase } from "./types.js";

/** Tags bounded text may never spell in this format: its call tags, its body tags, and the thinking tags. */
export function tagWords(format: ToolCallFormat): string[] {
  return format.tagWords();
}

/** Literal text before and after a tool's arguments inside the block (between the framing newlines). */
export function bodyAround(format: ToolCallFormat, name: string): { before: string; after: string } {
  return format.bodyAround(name);
}

/** How each argument is spelled when the format writes arguments as tags (undefined for a JSON body). */
export function paramSpelling(format: ToolCallFormat): ParamSpelling | undefined {
  return format.parameterTags();
}

/** Tokens of a block around its body: the open and close tag tokens and the framing text. */
export function blockOverhead(format: ToolCallFormat): number {
  return 2 + 2 * utf8Length(format.framing);
}

export interface ToolBody {
  name: string;
  /** GBNF of the body (between the framing), e.g. `{"name": …, "arguments": …}`. */
  expr: string;
  /** GBNF of the body after the format's bare opener (phase "after-bare-open" only). */
  bareExpr?: string;
}

export interface RootPlan {
  format: ToolCallFormat;
  phase: GrammarPhase;
  /** "text" = no calls; "calls" = at least one call first; "auto" = free text, or calls (after optional text). */
  mode: "text" | "calls" | "auto";
  bodies: readonly ToolBody[];
  maxCalls: number;
  /** Bytes of free text when the answer is text only. */
  textBudget: number;
  /** A rule for a JSON answer (its schema's value) that takes the place of free text; no text before calls then. */
  answer?: string;
  /** Bytes of free text before calls (auto). */
  prefaceBudget: number;
  /** Bytes of thinking text; undefined for no thinking phase. */
  thinkingBudget?: number;
}

/** The root expression; defines the call rules it needs. */
export function buildRoot(rules: RuleSet, text: TextChains, plan: RootPlan): string {
  const f = plan.format;
  const framing = literal(f.framing);
  const hasCalls = plan.mode !== "text" && plan.bodies.length > 0;
  let call = "";
  let more = "";
  let body = "";
  if (hasCalls) {
    body = plan.bodies.length === 1 ? plan.bodies[0]!.expr : rules.add("call-body", plan.bodies.map((b) => b.expr).join(" | "));
    call = rules.add("call", `${tokenRef(f.open.token)} ${framing} ${body} ${framing} ${tokenRef(f.close.token)}`);
    if (plan.maxCalls > 1) {
      const next = rules.add("next-call", `${literal(f.blockSeparator)} ${call}`);
      more = `${next}{0,${plan.maxCalls - 1}}`;
    }
  }
  const calls = hasCalls ? (more ? rules.add("calls", `${call} ${more}`) : call) : "";
  if (plan.phase === "after-open") {
    if (!hasCalls) return '""';
    return `${framing} ${body} ${framing} ${tokenRef(f.close.token)}${more ? " " + more : ""}`;
  }
  if (plan.phase === "after-bare-open") {
    // A call written without its open tag ends with its body; wrapped calls may follow.
    if (!hasCalls) return '""';
    const bare = plan.bodies.map((b) => b.bareExpr ?? b.expr);
    const first = bare.length === 1 ? bare[0]! : rules.add("bare-call-body", bare.join(" | "));
    return `${first}${more ? " " + more : ""}`;
  }
  const think =
    plan.thinkingBudget === undefined
      ? ""
      : rules.add(
          "thinking",
          // Where the template's generation prompt opened the think block already, the answer starts inside it.
          `${f.think.openedByPrompt ? "" : tokenRef(f.think.open.token) + " "}${text.bytes(plan.thinkingBudget)} ${tokenRef(f.think.close.token)} "\\n\\n"`,
        );
  const lead = think ? think + " " : "";
  const answer = () => plan.answer ?? rules.add("free-text", text.bytes(plan.textBudget));
  if (!hasCalls) {
    if (plan.mode === "calls") return '""';
    return `${lead}${answer()}`;
  }
  if (plan.mode === "calls") return `${lead}${calls}`;
  const options = [answer(), calls];
  if (plan.answer === undefined && plan.prefaceBudget >= 1) {
    const preface = rules.add("preface", `${text.requiredUnit()} ${text.bytes(Math.max(0, plan.prefaceBudget - text.requiredUnitBytes))}`);
    if (plan.prefaceBudget >= text.requiredUnitBytes) options.push(`${preface} ${literal(f.blockSeparator)} ${calls}`);
  }
  return `${lead}${options.length > 1 ? `(${options.join(" | ")})` : options[0]}`;
}

/** Worst-case tokens of the thinking phase for a text budget. */
export function thinkingTokens(budget: number): number {
  return 2 + budget + 2;
}
