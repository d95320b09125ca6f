// Owns: turning an OpenAI chat-completions body into a runtime GenerateRequest, refusing what qtc cannot honour
// (with a 400 naming the field and what to send instead).

import type { AssistantToolCall, ChatMessage } from "../prompt/types.js";
import type { GenerateRequest } from "../runtime/types.js";
import type { ValidatorCache } from "../tools/index.js";
import type { JsonSchema, ToolChoice, ToolInput } from "../tools/types.js";
import { ApiError, badRequest, type ParamHints, unsupported } from "./api-error.js";
import {
  checkMaxTokens,
  checkNesting,
  checkResponseSchema,
  checkTextNesting,
  checkToolChoice,
  convertFunctionTools,
  isObject,
  listNames,
  type Obj,
  optionalString,
  type ToolChoiceWording,
  requireObject,
  requireString,
  type SchemaCheck,
  seedOf,
} from "./convert-util.js";
import { reasoningOfEffort, templateKwargsOf } from "./reasoning-fields.js";
import { readStopSequences } from "./stop-sequences.js";
import { choicesOf } from "./choices.js";
import { constraintOfOpenAIBody } from "./constraint-fields.js";
import type { BudgetAsk } from "./budget.js";
import { type ResolvedServerOptions, SERVER_DEFAULTS } from "./defaults.js";

export interface OpenAIPlan {
  /** The runtime request, without `signal` (the route adds it). */
  request: GenerateRequest;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with `usage` and no choices. */
  includeUsage: boolean;
  /** The fields library errors are reported against. */
  params: ParamHints;
  /** `stop`: the answer text ends before the first one. */
  stop: string[];
  /** The output-token ask, fitted to the context by the route. */
  budget: BudgetAsk;
  /** `n`: choices to generate (1 when streamed). */
  choices: number;
}

type Ctx = Pick<ResolvedServerOptions, "mode" | "maxTokensLimit"> & Partial<Pick<ResolvedServerOptions, "maxNestingDepth" | "defaultMaxTokens" | "maxTokensCap">> & SchemaCheck;

/** Convert a body that passed OPENAI_CHAT_BODY; throws ApiError (400) for anything qtc cannot honour. */
export function openAIToGenerate(body: Obj, ctx: Ctx): OpenAIPlan {
  refuseUnsupported(body);
  const { tools, names } = convertTools(body.tools, ctx);
  const toolChoice = convertToolChoice(body.tool_choice, names);
  const maxTokensParam = body.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens";
  const given = body.max_completion_tokens ?? body.max_tokens;
  const asked = given === undefined || given === null ? undefined : checkMaxTokens(given as number, ctx, maxTokensParam);
  // A placeholder until the route fits the budget to the context (a missing ask is what the context leaves).
  const maxTokens = asked ?? ctx.defaultMaxTokens ?? SERVER_DEFAULTS.defaultMaxTokens;
  const request: GenerateRequest = {
    messages: convertMessages(body.messages as unknown[], ctx.maxNestingDepth ?? SERVER_DEFAULTS.maxNestingDepth),
    mode: ctx.mode,
    maxTokens,
    ...(tools.length ? { tools } : {}),
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(typeof body.parallel_tool_calls === "boolean" ? { parallel: body.parallel_tool_calls } : {}),
    ...(typeof body.temperature === "number" ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === "number" ? { topP: body.top_p } : {}),
    ...(seedOf(body.seed) !== undefined ? { seed: seedOf(body.seed) } : {}),
    ...reasoningOfEffort(body.reasoning_effort, "reasoning_effort"),
    ...templateKwargsOf(body.chat_template_kwargs),
    ...(body.logprobs === true ? { logprobs: typeof body.top_logprobs === "number" ? body.top_logprobs : 0 } : {}),
  };
  // With tools under "auto" the answer is that JSON or tool calls; with calls required the schema plays no part.
  const schema = responseSchemaOf(body.response_format, ctx.validators);
  if (schema) request.responseSchema = schema;
  const constrained = constraintOfOpenAIBody(body, ctx, schema !== undefined);
  if (constrained) request.constraint = constrained.constraint;
  const stream = body.stream === true;
  const choices = choicesOf(body.n, stream);
  const options = body.stream_options;
  if (options != null && !stream) throw badRequest("stream_options is only allowed with stream: true.", "stream_options");
  const params: ParamHints = { maxTokens: maxTokensParam, ...(schema ? { responseSchema: responseSchemaParam(body.response_format) } : constrained ? { responseSchema: constrained.param } : {}) };
  const stop = readStopSequences(body.stop, "stop", true);
  const budget: BudgetAsk = { asked, param: maxTokensParam, dialect: "openai" };
  return { request, stream, includeUsage: stream && isObject(options) && options.include_usage === true, params, stop, budget, choices };
}

/** Parameters OpenAI defines that qtc does not implement: refused unless they are at their neutral value. */
function refuseUnsupported(body: Obj): void {
  const set = (v: unknown) => v !== undefined && v !== null;
  if (set(body.top_logprobs) && body.logprobs !== true) throw badRequest("top_logprobs needs logprobs: true.", "top_logprobs");
  if (isObject(body.logit_bias) && Object.keys(body.logit_bias).length) throw unsupported("logit_bias", "logit_bias is not supported; remove logit_bias.");
  for (const key of ["presence_penalty", "frequency_penalty"]) {
    if (set(body[key]) && body[key] !== 0) throw unsupported(key, `${key} is not supported; remove it or send 0.`);
  }
  if (set(body.functions) || set(body.function_call)) {
    throw unsupported(set(body.functions) ? "functions" : "function_call", "functions and function_call are deprecated; send tools and tool_choice.");
  }
  if (set(body.audio)) throw unsupported("audio", "audio output is not supported; qtc serves text-only models.");
  if (set(body.modalities) && !(Array.isArray(body.modalities) && body.modalities.every((m) => m === "text"))) {
    throw unsupported("modalities", 'Only the "text" modality is supported.');
  }
  if (set(body.prediction)) throw unsupported("prediction", "predicted outputs are not supported; remove prediction.");
  if (set(body.web_search_options)) throw unsupported("web_search_options", "web search is not supported; remove web_search_options.");
}

function convertTools(raw: unknown, check: SchemaCheck): { tools: ToolInput[]; names: string[] } {
  return convertFunctionTools(raw, check, (tool, p) => ({ fn: requireObject(tool.function, `${p}.function`), at: `${p}.function` }));
}

const SHAPE_MESSAGE = 'tool_choice must be "auto", "none", "required" or {"type": "function", "function": {"name": …}}';

/** OpenAI's tool_choice mapped onto a ToolChoice (shape only), then checked by the one normalizer. */
function convertToolChoice(raw: unknown, names: string[]): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") return checkToolChoice(raw as ToolChoice, names, (name) => wording(raw, name, names));
  const choice = raw as Obj;
  if (choice.type !== "function") {
    throw new ApiError(400, "invalid_tool_choice", `tool_choice.type must be "function"; got ${JSON.stringify(choice.type)}.`, "tool_choice.type");
  }
  const fn = requireObject(choice.function, "tool_choice.function");
  const name = requireString(fn.name, "tool_choice.function.name");
  return checkToolChoice({ name }, names, (n) => wording(raw, n, names));
}

function wording(raw: unknown, name: string | undefined, names: string[]): ToolChoiceWording {
  return {
    shape: { message: `${SHAPE_MESSAGE}; got ${JSON.stringify(raw)}.`, param: "tool_choice" },
    no_tools: { message: 'tool_choice "required" needs tools; send tools or drop tool_choice.', param: "tool_choice" },
    unknown_name: { message: `tool_choice names "${name}", which is not among the tools: ${listNames(names)}.`, param: "tool_choice.function.name" },
  };
}

function responseSchemaParam(raw: unknown): string {
  return (raw as Obj).type === "json_schema" ? "response_format.json_schema.schema" : "response_format";
}

function responseSchemaOf(raw: unknown, cache: ValidatorCache | undefined): JsonSchema | undefined {
  if (raw === undefined || raw === null) return undefined;
  const format = raw as Obj;
  if (format.type === "text") return undefined;
  if (format.type !== "json_object" && format.type !== "json_schema") {
    throw badRequest(`response_format.type must be "text", "json_object" or "json_schema"; got ${JSON.stringify(format.type)}.`, "response_format.type");
  }
  let schema: JsonSchema = { type: "object" };
  if (format.type === "json_schema") {
    const spec = requireObject(format.json_schema, "response_format.json_schema");
    requireString(spec.name, "response_format.json_schema.name");
    schema = requireObject(spec.schema ?? { type: "object" }, "response_format.json_schema.schema") as JsonSchema;
    checkResponseSchema(schema, "response_format.json_schema.schema", cache);
  }
  return schema;
}

function convertMessages(raw: unknown[], maxDepth: number): ChatMessage[] {
  const toolNames = new Map<string, string>();
  return raw.map((m, i): ChatMessage => {
    const p = `messages[${i}]`;
    const msg = m as Obj;
    switch (msg.role) {
      case "system":
      case "developer":
        return { role: "system", content: textOf(msg.content, `${p}.content`) };
      case "user":
        return { role: "user", content: textOf(msg.content, `${p}.content`) };
      case "assistant": {
        const content = msg.content === undefined || msg.content === null ? null : textOf(msg.content, `${p}.content`);
        const out: ChatMessage = { role: "assistant", content };
        const reasoning = optionalString(msg.reasoning_content, `${p}.reasoning_content`);
        if (reasoning !== undefined) out.reasoning_content = reasoning;
        if (msg.tool_calls !== undefined && msg.tool_calls !== null) {
          if (!Array.isArray(msg.tool_calls)) throw badRequest(`${p}.tool_calls must be an array.`, `${p}.tool_calls`);
          out.tool_calls = msg.tool_calls.map((c, j) => historyCall(c, `${p}.tool_calls[${j}]`, toolNames, maxDepth));
        }
        return out;
      }
      case "tool": {
        const id = requireString(msg.tool_call_id, `${p}.tool_call_id`);
        const name = toolNames.get(id) ?? optionalString(msg.name, `${p}.name`);
        return { role: "tool", content: textOf(msg.content, `${p}.content`), tool_call_id: id, ...(name ? { name } : {}) };
      }
      case "function":
        throw unsupported(`${p}.role`, 'role "function" is deprecated; send role "tool" with tool_call_id.');
      default:
        throw badRequest(`${p}.role must be "system", "developer", "user", "assistant" or "tool"; got ${JSON.stringify(msg.role)}.`, `${p}.role`);
    }
  });
}

function historyCall(raw: unknown, p: string, toolNames: Map<string, string>, maxDepth: number): AssistantToolCall {
  const call = requireObject(raw, p);
  if (call.type !== undefined && call.type !== "function") throw badRequest(`${p}.type must be "function".`, `${p}.type`);
  const fn = requireObject(call.function, `${p}.function`);
  const name = requireString(fn.name, `${p}.function.name`);
  const args = fn.arguments ?? "{}";
  if (typeof args !== "string" && !isObject(args)) throw badRequest(`${p}.function.arguments must be a JSON string.`, `${p}.function.arguments`);
  if (typeof args === "string") checkTextNesting(args, maxDepth, `${p}.function.arguments`);
  else checkNesting(args, maxDepth, `${p}.function.arguments`);
  const id = optionalString(call.id, `${p}.id`);
  if (id) toolNames.set(id, name);
  return { ...(id ? { id } : {}), type: "function", function: { name, arguments: args } };
}

/** Message content as text: a string, or an array of `{type: "text", text}` parts joined by newlines. */
function textOf(content: unknown, param: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw badRequest(`${param} must be a string or an array of text parts.`, param);
  return content
    .map((part, j) => {
      const pp = `${param}[${j}]`;
      const obj = requireObject(part, pp);
      if (obj.type === "text") return requireString(obj.text, `${pp}.text`);
      if (obj.type === "refusal") return requireString(obj.refusal, `${pp}.refusal`);
      throw unsupported(`${pp}.type`, `Content parts of type ${JSON.stringify(obj.type)} are not supported: qtc serves text-only models. Send text parts.`);
    })
    .join("\n");
}
