// Owns: a request's answer constraint as the runtime sees it: `constraint` read once (a JSON schema joins
// `responseSchema`'s path, a regex, choice or grammar is checked and bounded before any work), and the judgement of
// a text answer against it (the one validation path, constrained or not).

import { fail, QtcException } from "../errors.js";
import { checkTextConstraint, constraintBreach, constraintKind, type TextConstraint } from "../grammar/answer-constraint.js";
import { leastAnswerTokens } from "../grammar/least-answer-tokens.js";
import type { CompiledTools } from "../tools/index.js";
import type { JsonSchema } from "../tools/types.js";
import { judgeTextWithGbnf } from "../engine/text-judge.js";
import { parseUserGrammar } from "../engine/user-gbnf.js";
import type { ResolvedRequest } from "./request.js";
import type { AnswerCheck, GenerateRequest } from "./types.js";

/**
 * The request's answer schema (`responseSchema` or `constraint.jsonSchema`) or its checked text constraint
 * (`read`: the constraint as a prepared request already read it, not read again).
 */
export function answerConstraintOf(request: Pick<GenerateRequest, "responseSchema" | "constraint">, read?: TextConstraint): {
  answerSchema: JsonSchema | boolean | undefined;
  answerConstraint: TextConstraint | undefined;
} {
  const c = request.constraint;
  if (c === undefined) return { answerSchema: request.responseSchema, answerConstraint: undefined };
  const kind = constraintKind(c);
  if (!kind.ok) throw new QtcException(kind.error);
  if (request.responseSchema !== undefined) fail("invalid_option", "give either responseSchema or constraint, not both");
  if ("jsonSchema" in c) return { answerSchema: c.jsonSchema, answerConstraint: undefined };
  if (read) return { answerSchema: undefined, answerConstraint: read };
  const checked = checkTextConstraint(c, parseUserGrammar);
  if (!checked.ok) throw new QtcException(checked.error);
  return { answerSchema: undefined, answerConstraint: checked.value };
}

/**
 * Why `answer` breaks the constraint, or undefined: the one judge of a text answer (a grammar's by the constraint
 * engine, iteratively and under a work bound).
 */
export function judgeConstraint(c: TextConstraint, answer: string): string | undefined {
  return constraintBreach(c, answer, judgeTextWithGbnf);
}

/**
 * A text answer judged against a regex, choice or grammar constraint: the content as written, or with its
 * surrounding whitespace trimmed (a model's stray newline), must be accepted.
 */
export function judgeText(content: string, truncated: boolean, c: TextConstraint): AnswerCheck {
  const breach = judgeConstraint(c, content);
  if (breach === undefined) return { ok: true, value: content, constraint: c.kind };
  const trimmed = content.trim();
  if (trimmed !== content && judgeConstraint(c, trimmed) === undefined) return { ok: true, value: trimmed, constraint: c.kind };
  if (truncated) return { ok: false, reason: "truncated", message: `the answer was cut off at the token limit before the constraint (${c.kind}) accepted it`, constraint: c.kind };
  return { ok: false, reason: c.kind, message: breach, constraint: c.kind };
}

/**
 * Constrained mode, when the turn can only answer (no tools, or tool choice "none"): refuse a budget below a sound
 * lower bound of the cheapest answer the constraint admits (`budget_too_small`, with both figures), as a call the
 * budget cannot hold is refused: the turn could only end at the limit with an empty or cut answer.
 */
export function checkAnswerBudget(
  answer: { schema: JsonSchema | boolean | undefined; constraint: TextConstraint | undefined },
  tools: CompiledTools | undefined,
  req: Pick<ResolvedRequest, "mode" | "toolChoice" | "thinking" | "maxTokens">,
): void {
  if (req.mode !== "constrained" || (answer.schema === undefined && answer.constraint === undefined)) return;
  if (tools && tools.tools.length > 0 && req.toolChoice !== "none") return;
  const bound = leastAnswerTokens({ ...(answer.constraint ? { constraint: answer.constraint } : {}), ...(answer.schema !== undefined ? { schema: answer.schema } : {}) });
  if (bound === undefined) return;
  // A thinking phase spends its two tags as forced tokens before the answer.
  const least = bound + (req.thinking ? 2 : 0);
  if (req.maxTokens >= least) return;
  const kind = answer.constraint?.kind ?? "JSON schema";
  fail("budget_too_small", `maxTokens ${req.maxTokens} is too small for the shortest answer the constraint (${kind}) admits: it takes at least ${least} tokens; raise maxTokens to ${least} or more`);
}
