// Owns: the tool lists clients send, read into the runtime's tools: Anthropic custom tools and Responses function
// tools; Responses `namespace` groups flattened (and mapped back in the response); tools qtc cannot run (server
// tools, built-ins) left out with a notice; `defer_loading` tools held out of the prompt and grammar until the
// conversation loads them (a `tool_reference`, a call in history, or the tool choice naming them).

import type { JsonSchema, ToolInput } from "../tools/types.js";
import { badRequest } from "./api-error.js";
import { checkToolSchemas, checkUniqueNames, isObject, type Obj, optionalString, requireObject, requireToolName, type SchemaCheck } from "./convert-util.js";

/** One tool a client declared, before the deferred ones are set aside. */
export interface DeclaredTool {
  /** The name the model sees (a namespaced tool's flattened name). */
  name: string;
  tool: ToolInput;
  /** `defer_loading: true`: left out until the conversation loads it. */
  deferred: boolean;
  /** Where the request declared it (`tools[3]`, `input[0].tools[1].tools[2]`), for errors. */
  at: string;
  /** A Responses namespace member: the namespace and the member's own name, which the response's call carries. */
  namespace?: NamespacedName;
}

export interface NamespacedName {
  namespace: string;
  name: string;
}

/** What a request declared: its tools, and what was left out (each left-out thing is one notice). */
export interface DeclaredTools {
  tools: DeclaredTool[];
  notices: string[];
}

/** The tools a turn offers, after deferred tools not yet loaded are set aside. */
export interface OfferedTools {
  tools: ToolInput[];
  names: string[];
  notices: string[];
  /** Flattened name → namespace and member name, for the function_call items of the response. */
  namespaces: ReadonlyMap<string, NamespacedName>;
}

/** How many names a notice lists before it says "and N more". */
const NOTICE_NAMES = 8;

/** `a, b, c and 4 more`. */
export function nameList(names: readonly string[]): string {
  const shown = names.slice(0, NOTICE_NAMES).map((n) => `"${n}"`).join(", ");
  return names.length > NOTICE_NAMES ? `${shown} and ${names.length - NOTICE_NAMES} more` : shown;
}

/**
 * Anthropic `tools`: custom tools (no `type`, or `"custom"`) are offered; every typed tool (server tools such as
 * `web_search_20250305`, Anthropic-defined client tools such as `bash_20250124`, tool search) needs Anthropic's
 * side or a schema qtc does not have, so it is left out with a notice instead of refusing the whole request.
 */
export function readAnthropicTools(raw: unknown): DeclaredTools {
  const out: DeclaredTools = { tools: [], notices: [] };
  if (raw === undefined || raw === null) return out;
  const skipped: string[] = [];
  (raw as unknown[]).forEach((t, i) => {
    const at = `tools[${i}]`;
    const tool = requireObject(t, at);
    if (tool.type !== undefined && tool.type !== null && tool.type !== "custom") {
      skipped.push(`${typeof tool.name === "string" ? tool.name : "?"} (${String(tool.type).slice(0, 64)})`);
      return;
    }
    const name = requireToolName(tool.name, `${at}.name`);
    const description = optionalString(tool.description, `${at}.description`);
    if (!isObject(tool.input_schema)) throw badRequest(`${at}.input_schema must be a JSON Schema object.`, `${at}.input_schema`);
    const input: ToolInput = { name, ...(description !== undefined ? { description } : {}), input_schema: tool.input_schema as JsonSchema };
    out.tools.push({ name, tool: input, deferred: tool.defer_loading === true, at });
  });
  if (skipped.length) out.notices.push(`left out ${skipped.length} tool${skipped.length === 1 ? "" : "s"} that only Anthropic's servers can run or define (${nameList(skipped)}); qtc offers custom tools with an input_schema`);
  return out;
}

/** Tool types of the Responses API that run on OpenAI's side (or need a freeform grammar): left out, with a notice. */
function responsesBuiltIn(type: unknown): boolean {
  return typeof type === "string" && type !== "function" && type !== "namespace";
}

/**
 * Responses tools (`tools`, and the `additional_tools` input items Codex sends them in): function tools are
 * offered; a `namespace` is flattened into its function members, each named `<namespace><sep><name>` for the
 * model and mapped back to `namespace` + `name` in the response; built-in and custom tools (`web_search`,
 * `file_search`, `mcp`, `custom`, `tool_search`, …) are left out with a notice.
 */
export function readResponsesTools(lists: ReadonlyArray<{ raw: unknown; at: string }>): DeclaredTools {
  const out: DeclaredTools = { tools: [], notices: [] };
  const skipped: string[] = [];
  for (const { raw, at } of lists) {
    if (raw === undefined || raw === null) continue;
    if (!Array.isArray(raw)) throw badRequest(`${at} must be an array of tools.`, at);
    raw.forEach((t, i) => readResponsesTool(t, `${at}[${i}]`, out, skipped, undefined));
  }
  // Codex replays its whole transcript, `additional_tools` items included: a tool declared again, identically, counts once.
  out.tools = dedupe(out.tools);
  if (skipped.length) out.notices.push(`left out ${skipped.length} built-in tool${skipped.length === 1 ? "" : "s"} that qtc cannot run (${nameList(skipped)}); qtc offers function tools`);
  return out;
}

function readResponsesTool(t: unknown, at: string, out: DeclaredTools, skipped: string[], inNamespace: string | undefined): void {
  const tool = requireObject(t, at);
  if (tool.type === "namespace" && inNamespace === undefined) {
    const namespace = requireToolName(tool.name, `${at}.name`);
    if (!Array.isArray(tool.tools)) throw badRequest(`${at}.tools must be an array of function tools.`, `${at}.tools`);
    tool.tools.forEach((member, j) => readResponsesTool(member, `${at}.tools[${j}]`, out, skipped, namespace));
    return;
  }
  if (responsesBuiltIn(tool.type)) {
    skipped.push(typeof tool.name === "string" ? `${tool.name} (${String(tool.type).slice(0, 64)})` : String(tool.type).slice(0, 64));
    return;
  }
  const own = requireToolName(tool.name, `${at}.name`);
  const name = inNamespace === undefined ? own : flatName(inNamespace, own);
  requireToolName(name, `${at}.name`);
  const description = optionalString(tool.description, `${at}.description`);
  if (tool.parameters !== undefined && tool.parameters !== null && !isObject(tool.parameters)) {
    throw badRequest(`${at}.parameters must be a JSON Schema object.`, `${at}.parameters`);
  }
  const parameters = (tool.parameters ?? { type: "object", properties: {} }) as JsonSchema;
  const input: ToolInput = { type: "function", function: { name, ...(description !== undefined ? { description } : {}), parameters } };
  out.tools.push({ name, tool: input, deferred: tool.defer_loading === true, at, ...(inNamespace !== undefined ? { namespace: { namespace: inNamespace, name: own } } : {}) });
}

/**
 * A namespace member's name as the model sees it: the two joined as they read (`mcp__fs__` + `read` is
 * `mcp__fs__read`, the way MCP clients already spell such names), else with `__` between them.
 */
export function flatName(namespace: string, name: string): string {
  return /[_.:-]$/.test(namespace) ? `${namespace}${name}` : `${namespace}__${name}`;
}

/**
 * The tools a turn offers: every tool not deferred, and the deferred ones the conversation loaded. Names must be
 * unique over everything declared (a later load must not change what a name means); the offered schemas are
 * compiled now, under the server's schema policy, so a tool the grammar cannot hold is refused naming it (strict)
 * or left to the validator (validate) — the same verdict under every tool choice.
 */
export function offerTools(declared: DeclaredTools, loaded: ReadonlySet<string>, check: SchemaCheck): OfferedTools {
  const unique = declared.tools;
  checkUniqueNames(unique.map((t) => t.name), "tools");
  const offered = unique.filter((t) => !t.deferred || loaded.has(t.name));
  const held = unique.filter((t) => t.deferred && !loaded.has(t.name)).map((t) => t.name);
  const notices = [...declared.notices];
  if (held.length) notices.push(`held back ${held.length} tool${held.length === 1 ? "" : "s"} marked defer_loading until the conversation loads ${held.length === 1 ? "it" : "them"} (${nameList(held)})`);
  const tools = offered.map((t) => t.tool);
  checkToolSchemas(tools, check, offered.map((t) => t.at));
  const namespaces = new Map<string, NamespacedName>();
  for (const t of offered) if (t.namespace) namespaces.set(t.name, t.namespace);
  return { tools, names: offered.map((t) => t.name), notices, namespaces };
}

/** Drop a tool declared again with the same definition; a different definition under one name stays (and is refused). */
function dedupe(tools: DeclaredTool[]): DeclaredTool[] {
  const seen = new Set<string>();
  return tools.filter((t) => {
    const key = `${t.name}\u0000${JSON.stringify(t.tool)}${t.deferred}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The tool a `tool_choice` names, whatever the API's shape (it counts as loaded: the client asked for it). */
export function choiceName(raw: unknown): string | undefined {
  if (!isObject(raw)) return undefined;
  const choice = raw as Obj;
  if (typeof choice.name === "string") return choice.name;
  if (isObject(choice.function) && typeof choice.function.name === "string") return choice.function.name;
  return undefined;
}
