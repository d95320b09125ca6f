// Owns: turning an OpenAI Responses API body (`POST /v1/responses`: `input` items, `instructions`, function
// tools, `text.format`) into a runtime GenerateRequest, refusing what qtc cannot honour with a 400 naming the field.

import type { AssistantToolCall, ChatMessage } from "../prompt/types.js";
import type { GenerateRequest } from "../runtime/types.js";
import type { ValidatorCache } from "../tools/index.js";
import type { JsonSchema, ToolChoice } from "../tools/types.js";
import { badRequest, type ParamHints, unsupported } from "./api-error.js";
import type { BudgetAsk } from "./budget.js";
import { choiceName, flatName, type NamespacedName, offerTools, readResponsesTools } from "./client-tools.js";
import {
  checkMaxTokens,
  checkResponseSchema,
  checkTextNesting,
  checkToolChoice,
  isObject,
  listNames,
  type Obj,
  optionalString,
  requireObject,
  requireString,
  type SchemaCheck,
  type ToolChoiceWording,
} from "./convert-util.js";
import { reasoningOfEffort, type ReasoningFields } from "./reasoning-fields.js";
import { constraintOfOpenAIBody } from "./constraint-fields.js";
import { type ResolvedServerOptions, SERVER_DEFAULTS } from "./defaults.js";

export interface ResponsesPlan {
  /** The runtime request, without `signal` (the route adds it). */
  request: GenerateRequest;
  stream: boolean;
  params: ParamHints;
  /** Request fields a response object echoes back. */
  echo: ResponsesEcho;
  /** The output-token ask, fitted to the context by the route. */
  budget: BudgetAsk;
  /** What qtc left out or changed (built-in tools, deferred tools, history items), said in the response. */
  notices: string[];
  /** Flattened tool name → namespace and name: a call to a namespace member comes back as the two. */
  namespaces: ReadonlyMap<string, NamespacedName>;
}

export interface ResponsesEcho {
  instructions: string | null;
  max_output_tokens: number;
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  tool_choice: unknown;
  tools: unknown[];
  text: unknown;
  metadata: unknown;
}

type Ctx = Pick<ResolvedServerOptions, "mode" | "maxTokensLimit"> & Partial<Pick<ResolvedServerOptions, "maxNestingDepth" | "defaultMaxTokens" | "maxTokensCap">> & SchemaCheck;

/** Convert a body that passed RESPONSES_BODY; throws ApiError (400) for anything qtc cannot honour. */
export function responsesToGenerate(body: Obj, ctx: Ctx): ResponsesPlan {
  refuseUnsupported(body);
  const input = convertInput(body.input, ctx.maxNestingDepth ?? SERVER_DEFAULTS.maxNestingDepth);
  const declared = readResponsesTools([{ raw: body.tools, at: "tools" }, ...input.toolLists]);
  const chosen = choiceName(body.tool_choice);
  if (chosen !== undefined) input.loaded.add(isObject(body.tool_choice) && typeof body.tool_choice.namespace === "string" ? flatName(body.tool_choice.namespace, chosen) : chosen);
  const { tools, names, notices, namespaces } = offerTools(declared, input.loaded, ctx);
  const toolChoice = convertToolChoice(body.tool_choice, names);
  const asked = body.max_output_tokens === undefined || body.max_output_tokens === null ? undefined : checkMaxTokens(body.max_output_tokens as number, ctx, "max_output_tokens");
  // A placeholder until the route fits the budget to the context (a missing ask is what the context leaves).
  const maxTokens = asked ?? ctx.defaultMaxTokens ?? SERVER_DEFAULTS.defaultMaxTokens;
  const instructions = optionalString(body.instructions ?? undefined, "instructions");
  const messages = input.messages; // a namespaced history call already carries its flattened name
  const schema = responseSchemaOf(body.text, ctx.validators);
  const request: GenerateRequest = {
    messages: instructions !== undefined ? [{ role: "system", content: instructions }, ...messages] : messages,
    mode: ctx.mode,
    maxTokens,
    ...(tools.length ? { tools } : {}),
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(typeof body.parallel_tool_calls === "boolean" ? { parallel: body.parallel_tool_calls } : {}),
    ...(typeof body.temperature === "number" ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === "number" ? { topP: body.top_p } : {}),
    ...thinkingOf(body.reasoning),
    ...(schema ? { responseSchema: schema } : {}),
  };
  const constrained = constraintOfOpenAIBody(body, ctx, schema !== undefined);
  if (constrained) request.constraint = constrained.constraint;
  const echo: ResponsesEcho = {
    instructions: instructions ?? null,
    max_output_tokens: maxTokens,
    parallel_tool_calls: body.parallel_tool_calls !== false,
    temperature: typeof body.temperature === "number" ? body.temperature : null,
    top_p: typeof body.top_p === "number" ? body.top_p : null,
    tool_choice: body.tool_choice ?? "auto",
    tools: (body.tools as unknown[] | undefined) ?? [],
    text: echoedText(body.text),
    metadata: checkMetadata(body.metadata),
  };
  const params: ParamHints = { maxTokens: "max_output_tokens", ...(schema ? { responseSchema: "text.format.schema" } : constrained ? { responseSchema: constrained.param } : {}) };
  const budget: BudgetAsk = { asked, param: "max_output_tokens", dialect: "openai" };
  return { request, stream: body.stream === true, params, echo, budget, notices: [...notices, ...input.notices], namespaces };
}

/** Pairs, key length and value length `metadata` may have (the Responses API's own limits). */
const METADATA_LIMITS = Object.freeze({ pairs: 16, keyChars: 64, valueChars: 512 });

/** `metadata` as the API defines it (at most 16 string pairs), checked before it is echoed back. */
function checkMetadata(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  const metadata = requireObject(raw, "metadata");
  const entries = Object.entries(metadata);
  if (entries.length > METADATA_LIMITS.pairs) throw badRequest(`metadata holds ${entries.length} pairs; at most ${METADATA_LIMITS.pairs} are allowed.`, "metadata");
  for (const [key, value] of entries) {
    if (key.length > METADATA_LIMITS.keyChars) throw badRequest(`metadata keys are at most ${METADATA_LIMITS.keyChars} characters.`, "metadata");
    if (typeof value !== "string" || value.length > METADATA_LIMITS.valueChars) {
      throw badRequest(`metadata.${key.slice(0, 64)} must be a string of at most ${METADATA_LIMITS.valueChars} characters.`, "metadata");
    }
  }
  return metadata as Record<string, string>;
}

/** The `text` a response echoes: its format (checked by responseSchemaOf) and verbosity, nothing else of the request. */
function echoedText(raw: unknown): unknown {
  if (raw === undefined || raw === null) return { format: { type: "text" } };
  const text = raw as Obj;
  return { format: text.format ?? { type: "text" }, ...(typeof text.verbosity === "string" ? { verbosity: text.verbosity.slice(0, 16) } : {}) };
}

/** Responses features that need state or media qtc does not keep: refused, never silently dropped. */
function refuseUnsupported(body: Obj): void {
  const set = (v: unknown) => v !== undefined && v !== null;
  if (set(body.previous_response_id)) {
    throw unsupported("previous_response_id", "qtc stores no responses; send the whole conversation in input instead of previous_response_id.");
  }
  if (set(body.conversation)) throw unsupported("conversation", "qtc keeps no conversations; send the whole conversation in input.");
  if (body.background === true) throw unsupported("background", "background responses are not supported; remove background.");
  if (set(body.prompt)) throw unsupported("prompt", "stored prompt templates are not supported; send instructions and input.");
  if (set(body.top_logprobs)) throw unsupported("top_logprobs", "top_logprobs are not supported; remove top_logprobs.");
}

function thinkingOf(raw: unknown): ReasoningFields {
  if (raw === undefined || raw === null) return {};
  return reasoningOfEffort(requireObject(raw, "reasoning").effort, "reasoning.effort");
}

function convertToolChoice(raw: unknown, names: string[]): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  const shape = `tool_choice must be "auto", "none", "required" or {"type": "function", "name": …}; got ${JSON.stringify(raw)}.`;
  const wording = (name: string | undefined): ToolChoiceWording => ({
    shape: { message: shape, param: "tool_choice" },
    no_tools: { message: 'tool_choice "required" needs tools; send tools or drop tool_choice.', param: "tool_choice" },
    unknown_name: { message: `tool_choice names "${name}", which is not among the tools: ${listNames(names)}.`, param: "tool_choice.name" },
  });
  if (typeof raw === "string") return checkToolChoice(raw as ToolChoice, names, wording);
  const choice = requireObject(raw, "tool_choice");
  if (choice.type !== "function") throw unsupported("tool_choice.type", shape);
  return checkToolChoice({ name: chosenName(choice) }, names, wording);
}

/** The tool a `{type: "function"}` choice names: a namespace member by its flattened name. */
function chosenName(choice: Obj): string {
  const name = requireString(choice.name, "tool_choice.name");
  const namespace = optionalString(choice.namespace, "tool_choice.namespace");
  return namespace ? flatName(namespace, name) : name;
}

/** `text.format`: text, json_object, or json_schema with its `schema` (flat, as the Responses API has it). */
function responseSchemaOf(raw: unknown, cache: ValidatorCache | undefined): JsonSchema | undefined {
  if (raw === undefined || raw === null) return undefined;
  const format = requireObject(raw, "text").format;
  if (format === undefined || format === null) return undefined;
  const f = requireObject(format, "text.format");
  if (f.type === "text") return undefined;
  if (f.type === "json_object") return { type: "object" };
  if (f.type !== "json_schema") throw badRequest(`text.format.type must be "text", "json_object" or "json_schema"; got ${JSON.stringify(f.type)}.`, "text.format.type");
  requireString(f.name, "text.format.name");
  const schema = requireObject(f.schema ?? { type: "object" }, "text.format.schema") as JsonSchema;
  checkResponseSchema(schema, "text.format.schema", cache);
  return schema;
}

/** What `input` holds: the conversation, the tool lists it carries, the tools it loaded, what was left out. */
interface ConvertedInput {
  messages: ChatMessage[];
  /** `additional_tools` items (Codex sends its tools there) and `tool_search_output` items (tools a search loaded). */
  toolLists: Array<{ raw: unknown; at: string }>;
  /** Tools the conversation loaded: called earlier, or named by the tool choice. */
  loaded: Set<string>;
  notices: string[];
}

/** History items of built-in tools qtc cannot run: left out of the prompt, with a notice. */
const BUILT_IN_ITEMS: ReadonlySet<string> = new Set([
  "web_search_call",
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "code_interpreter_call",
  "image_generation_call",
  "local_shell_call",
  "local_shell_call_output",
  "shell_call",
  "shell_call_output",
  "apply_patch_call",
  "apply_patch_call_output",
  "mcp_call",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "custom_tool_call",
  "custom_tool_call_output",
  "tool_search_call",
  "compaction",
]);

/**
 * `input` as chat messages: a string is one user message; items are messages, `function_call`s (joined onto the
 * assistant turn they belong to; a namespaced call as its flattened name) and `function_call_output`s (tool
 * results, named by their call). Reasoning items of earlier turns are skipped: the Qwen3 template drops earlier
 * reasoning anyway. Items that carry tools (`additional_tools`, `tool_search_output`) add to the tool list.
 */
function convertInput(raw: unknown, maxDepth: number): ConvertedInput {
  const out: ConvertedInput = { messages: [], toolLists: [], loaded: new Set(), notices: [] };
  if (typeof raw === "string") return { ...out, messages: [{ role: "user", content: raw }] };
  if (!Array.isArray(raw) || raw.length === 0) throw badRequest("input must be a string or a non-empty array of items.", "input");
  const callNames = new Map<string, string>();
  const skipped = new Map<string, number>();
  raw.forEach((item, i) => {
    const p = `input[${i}]`;
    const it = requireObject(item, p);
    const type = it.type ?? "message";
    if (type === "message") return void out.messages.push(messageOf(it, p));
    if (type === "function_call") {
      const call = callOf(it, p, callNames, maxDepth);
      out.loaded.add(call.function.name);
      return void addCall(out.messages, call);
    }
    if (type === "function_call_output") {
      const id = requireString(it.call_id, `${p}.call_id`);
      const name = callNames.get(id);
      return void out.messages.push({ role: "tool", content: textOf(it.output, `${p}.output`), tool_call_id: id, ...(name ? { name } : {}) });
    }
    if (type === "additional_tools" || type === "tool_search_output") return void out.toolLists.push({ raw: it.tools, at: `${p}.tools` });
    if (type === "reasoning") return;
    if (typeof type === "string" && BUILT_IN_ITEMS.has(type)) return void skipped.set(type, (skipped.get(type) ?? 0) + 1);
    throw unsupported(`${p}.type`, `Input items of type ${JSON.stringify(type)} are not supported; send messages, function_call and function_call_output items.`);
  });
  if (out.messages.length === 0) throw badRequest("input holds no message; send at least one user message.", "input");
  if (skipped.size) out.notices.push(`left out history items of built-in tools qtc cannot run (${[...skipped].map(([t, n]) => `${t}${n > 1 ? ` ×${n}` : ""}`).join(", ")})`);
  return out;
}

function messageOf(it: Obj, p: string): ChatMessage {
  const content = textOf(it.content, `${p}.content`);
  switch (it.role) {
    case "system":
    case "developer":
      return { role: "system", content };
    case "user":
      return { role: "user", content };
    case "assistant":
      return { role: "assistant", content };
    default:
      throw badRequest(`${p}.role must be "system", "developer", "user" or "assistant"; got ${JSON.stringify(it.role)}.`, `${p}.role`);
  }
}

function callOf(it: Obj, p: string, callNames: Map<string, string>, maxDepth: number): AssistantToolCall {
  const id = requireString(it.call_id, `${p}.call_id`);
  const own = requireString(it.name, `${p}.name`);
  const namespace = optionalString(it.namespace, `${p}.namespace`);
  const name = namespace === undefined || namespace === "" ? own : flatName(namespace, own);
  const args = requireString(it.arguments, `${p}.arguments`);
  checkTextNesting(args, maxDepth, `${p}.arguments`);
  callNames.set(id, name);
  return { id, type: "function", function: { name, arguments: args } };
}

/** A call joins the assistant turn just before it (its text, or earlier calls), else starts one. */
function addCall(messages: ChatMessage[], call: AssistantToolCall): void {
  const last = messages[messages.length - 1];
  if (last?.role === "assistant") last.tool_calls = [...(last.tool_calls ?? []), call];
  else messages.push({ role: "assistant", content: null, tool_calls: [call] });
}

/** Content as text: a string, or parts of type input_text / output_text / refusal joined by newlines. */
function textOf(content: unknown, param: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw badRequest(`${param} must be a string or an array of text parts.`, param);
  return content
    .map((part, j) => {
      const pp = `${param}[${j}]`;
      const obj = requireObject(part, pp);
      if (obj.type === "input_text" || obj.type === "output_text") return requireString(obj.text, `${pp}.text`);
      if (obj.type === "refusal") return requireString(obj.refusal, `${pp}.refusal`);
      throw unsupported(`${pp}.type`, `Content parts of type ${JSON.stringify(obj.type)} are not supported: qtc serves text-only models. Send input_text parts.`);
    })
    .join("\n");
}
