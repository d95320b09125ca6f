// Owns: what every engine does around a turn, whoever generates it: checking a request and compiling its tools,
// the grammar checks that run before any work (so a bad schema costs nothing), rendering the prompt segments,
// the turn's parser, and finishing: the parser's end judged into the one GenerateResult.

import { fail, QtcException } from "../errors.js";
import type { ToolCallFormat } from "../formats/index.js";
import type { GrammarCache } from "../grammar/compile.js";
import { createParser, type ParseEvent } from "../parse/index.js";
import { renderPromptSegments, type PromptSegment } from "../prompt/index.js";
import { compileValidators, compileValueValidator, type CompiledTools, type ToolDefinition, type ValidatorCache } from "../tools/index.js";
import { answerConstraintOf, checkAnswerBudget } from "./answer-request.js";
import type { TextConstraint } from "../grammar/answer-constraint.js";
import type { AnswerJudge } from "./result.js";
import { streamEventsOf, type ContentEvent } from "../adapters/index.js";
import { checkToolGrammar, type TurnGrammarOptions } from "./grammar-source.js";
import { checkCallBudget, reserveCallInThinking, resolveRequest, type ResolvedRequest } from "./request.js";
import { buildResult, type GenerateOutput, type ResultParts } from "./result.js";
import type { JsonSchema } from "../tools/types.js";
import type { GenerateEvent, GenerateRequest, PreparedRequest } from "./types.js";

type JsonSchemaOrBool = JsonSchema | boolean;

const NO_TOOLS: readonly ToolDefinition[] = Object.freeze([]);

/** What an engine needs to prepare a request. */
export interface TurnContext {
  /** The engine's format, used unless the request names another. */
  format: ToolCallFormat;
  validators: ValidatorCache;
  toolGrammars: GrammarCache;
  /** Token ids of logitBias must be below this. Default: not checked. */
  vocabSize?: number;
}

/** A checked request, ready to generate: its grammar (when one holds the turn) is known to compile. */
export interface PreparedTurn {
  tools: CompiledTools | undefined;
  req: ResolvedRequest;
  answerSchema: JsonSchemaOrBool | undefined;
  /** The request's regex, choice or grammar constraint on the answer, checked. */
  answerConstraint: TextConstraint | undefined;
  /** What judges a text answer: the response schema's validator, or the constraint. */
  judgeAnswer: AnswerJudge | undefined;
  /** The grammar's options when qtc's grammar holds this turn (constrained, with calls possible or an answer schema). */
  grammar: { declared: readonly ToolDefinition[]; options: TurnGrammarOptions } | undefined;
  /** The rendered prompt: template markup and content (content is always tokenized as text). */
  segments: readonly PromptSegment[];
}

/**
 * Check a request and do everything that can fail on bad input before any engine work: compile its tools and
 * response schema, resolve its defaults, check its grammar compiles and that a call fits its budget, and render
 * the prompt (`prepared`: what a prepared request already rendered and read, not done again). Throws QtcException
 * for bad input.
 */
export function prepareTurn(request: GenerateRequest, ctx: TurnContext, prepared?: Pick<PreparedRequest, "segments" | "answerConstraint">): PreparedTurn {
  const tools: CompiledTools | undefined = request.tools && request.tools.length > 0 ? compileValidators(request.tools, ctx.validators) : undefined;
  const req = resolveRequest(request, tools, ctx.format);
  const { answerSchema, answerConstraint } = answerConstraintOf(request, prepared?.answerConstraint);
  const judgeAnswer = answerConstraint ?? (answerSchema === undefined ? undefined : compileValueValidator(answerSchema, ctx.validators));
  if (ctx.vocabSize !== undefined) {
    for (const token of Object.keys(request.logitBias ?? {})) {
      if (Number(token) >= ctx.vocabSize) fail("invalid_option", `logitBias names token ${token}, beyond the vocabulary (${ctx.vocabSize})`);
    }
  }
  // The grammar's limits are checked before the prompt is rendered: a schema over them costs no tokenizing.
  let grammar: PreparedTurn["grammar"];
  if (req.mode === "constrained" && ((tools && req.toolChoice !== "none") || answerSchema !== undefined || answerConstraint !== undefined)) {
    const options = { format: req.format, toolChoice: req.toolChoice, parallel: req.parallel, maxCalls: req.maxCalls, answerSchema, answerConstraint };
    const declared = tools?.tools ?? NO_TOOLS;
    checkToolGrammar(declared, options, req.maxTokens, ctx.toolGrammars);
    grammar = { declared, options };
  }
  // Under "none" or a named tool the grammar above leaves some tools out; they are judged as "auto" would judge
  // them, so one tool list gets one verdict whatever the tool choice (the compile is cached per list).
  if (req.mode === "constrained" && tools && (req.toolChoice === "none" || typeof req.toolChoice === "object")) {
    checkToolGrammar(tools.tools, { format: req.format, toolChoice: "auto", parallel: req.parallel, maxCalls: req.maxCalls }, req.maxTokens, ctx.toolGrammars);
  }
  checkCallBudget(tools, req);
  checkAnswerBudget({ schema: answerSchema, constraint: answerConstraint }, tools, req);
  req.thinkingBudget = reserveCallInThinking(tools, req);
  return { tools, req, answerSchema, answerConstraint, judgeAnswer, grammar, segments: prepared?.segments ?? promptSegmentsOf(request, tools, req) };
}

/**
 * The prompt a request evaluates. A raw `prompt` is the caller's own text, template markers included (it owns the
 * whole prompt). Otherwise only the template's markers are special tokens: text from users and tools cannot forge
 * turns or calls.
 */
export function promptSegmentsOf(
  request: Pick<GenerateRequest, "messages" | "prompt" | "reasoningEffort" | "preserveThinking">,
  tools: CompiledTools | undefined,
  req: Pick<ResolvedRequest, "format" | "thinking">,
): readonly PromptSegment[] {
  if (request.prompt !== undefined) return [{ kind: "markup", text: request.prompt }];
  const { reasoningEffort, preserveThinking } = request;
  return renderPromptSegments({
    messages: request.messages,
    tools: tools?.tools,
    format: req.format,
    thinking: req.thinking,
    ...(reasoningEffort !== undefined ? { reasoningEffort } : {}),
    ...(preserveThinking !== undefined ? { preserveThinking } : {}),
  });
}

/**
 * The incremental parser of a prepared turn, and the call counter its stream events number calls with.
 * `untrusted`: the output comes from an engine qtc did not constrain (ParserOptions.untrusted).
 */
export function turnParser(turn: PreparedTurn, newId?: () => string, untrusted = false): { parser: ReturnType<typeof createParser>; callIndex: () => number } {
  let calls = 0;
  return {
    // An answer a regex, choice or grammar holds is the text as written: its whitespace may be what it requires.
    parser: createParser({ tools: turn.tools, format: turn.req.format, thinking: turn.req.thinking ? "auto" : "closed", ...(newId ? { newId } : {}), ...(untrusted ? { untrusted } : {}), ...(turn.answerConstraint ? { text: "exact" as const } : {}) }),
    callIndex: () => calls++,
  };
}

/** End the parser (a turn cut at the limit is judged as truncated) and yield its last events and the result. */
export function* finishTurn(
  parser: ReturnType<typeof createParser>,
  parts: Omit<ResultParts, "parsed">,
  callIndex: () => number,
  settle: (event: ParseEvent) => ContentEvent[] = (event) => streamEventsOf(event, callIndex),
): Generator<GenerateEvent, void, void> {
  const events = parser.end({ truncated: parts.outcome.finishReason === "length" });
  for (const event of events) yield* settle(event);
  const finish = events[events.length - 1];
  if (finish?.type !== "finish") throw new QtcException({ code: "internal", message: "the parser ended without a result" }, 1);
  yield { type: "done", result: buildResult({ ...parts, parsed: finish.result }) };
}

/** A turn's result, from its event stream: what every engine's `generate` is (the `done` event's result). */
export async function resultOfStream(events: AsyncIterable<GenerateEvent>): Promise<GenerateOutput> {
  let result: GenerateOutput | undefined;
  for await (const event of events) if (event.type === "done") result = event.result as GenerateOutput;
  if (!result) throw new QtcException({ code: "internal", message: "the stream ended without a result" }, 1);
  return result;
}
