// Owns: the bridge from the grammar stage to a turn: compiles the request's tool grammar on demand, for the
// phase where it takes over and the token budget left at that point (cached per tools list and options).

import { QtcException } from "../errors.js";
import type { FormatId } from "../formats/index.js";
import { GrammarCache as ToolGrammarCache } from "../grammar/compile.js";
import type { CompiledTools } from "../tools/index.js";
import type { ToolChoice } from "../tools/types.js";
import type { TurnGrammarSource } from "./turn.js";

export interface TurnGrammarOptions {
  format: FormatId;
  toolChoice: Exclude<ToolChoice, "none">;
  parallel: boolean;
  maxCalls: number;
}

/**
 * A grammar source for one request. The runtime runs the `<think>` phase itself, so grammars start after it
 * ("start" = the first answer token, "after-open" = after a sampled `<tool_call>`). Returns undefined when not
 * even one call fits the budget left; other compile errors (a schema the compiler cannot honour) throw, which
 * is why `check` runs before a sequence is taken.
 */
export function turnGrammarSource(tools: CompiledTools, opts: TurnGrammarOptions, cache: ToolGrammarCache): TurnGrammarSource {
  return (phase, maxTokens) => {
    const compiled = cache.compile(tools.tools, {
      format: opts.format,
      toolChoice: opts.toolChoice,
      parallel: opts.parallel,
      maxCalls: opts.parallel ? opts.maxCalls : 1,
      maxTokens,
      thinking: false,
      phase: phase === "full" ? "start" : "after-open",
    });
    if (!compiled.ok) {
      if (compiled.error.code === "budget_too_small") return undefined;
      throw new QtcException(compiled.error);
    }
    return { gbnf: compiled.value.gbnf, worstCaseTokensPerCall: compiled.value.worstCaseCallTokens };
  };
}

/** Throw the compile error of a request's grammar (bad schema, unsupported keyword) before anything runs. */
export function checkToolGrammar(tools: CompiledTools, opts: TurnGrammarOptions, maxTokens: number, cache: ToolGrammarCache): void {
  const compiled = cache.compile(tools.tools, { format: opts.format, toolChoice: opts.toolChoice, parallel: opts.parallel, maxTokens, phase: "start" });
  if (!compiled.ok && compiled.error.code !== "budget_too_small") throw new QtcException(compiled.error);
}
