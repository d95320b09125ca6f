// Owns: reading tool traffic out of recorded exchanges for each API qtc serves: the tool names a request
// declared, the structured calls a response returned (batch or streamed), and the results a later request sent
// back for them.

import { type Exchange, sseData } from "./harness.js";

/** A call qtc returned, in whichever API's shape, reduced to what the tests compare. */
export interface ReturnedCall {
  id: string;
  name: string;
  /** The arguments as the response carried them (a JSON string in OpenAI shapes; the input object in Anthropic's). */
  args: unknown;
}

/** A result the client sent back for a call id. */
export interface SentResult {
  id: string;
  /** The result's content, flattened to text. */
  text: string;
  isError: boolean;
}

function isStream(e: Exchange): boolean {
  return /^(event|data):/m.test(e.response.slice(0, 200));
}

function json(e: Exchange): any {
  try {
    return JSON.parse(e.response);
  } catch {
    return undefined;
  }
}

/** Tool names the request declared, in every API's shape (Responses `namespace` tools contribute their members). */
export function declaredTools(e: Exchange): string[] {
  const tools: any[] = Array.isArray(e.body?.tools) ? e.body.tools : [];
  const names: string[] = [];
  for (const t of tools) {
    if (t?.type === "namespace" && Array.isArray(t.tools)) for (const m of t.tools) names.push(`${t.name}.${m?.name ?? m?.function?.name}`);
    else names.push(t?.function?.name ?? t?.name ?? t?.type);
  }
  return names;
}

/** The input schema each declared tool gives, by name (Anthropic `input_schema`, OpenAI `function.parameters`). */
export function declaredSchemas(e: Exchange): Map<string, unknown> {
  const tools: any[] = Array.isArray(e.body?.tools) ? e.body.tools : [];
  const schemas = new Map<string, unknown>();
  for (const t of tools) {
    const schema = t?.input_schema ?? t?.function?.parameters ?? t?.parameters;
    const name = t?.function?.name ?? t?.name;
    if (typeof name === "string" && schema !== undefined) schemas.set(name, schema);
  }
  return schemas;
}

/** Anthropic Messages: tool_use blocks of the response. */
export function anthropicCalls(e: Exchange): ReturnedCall[] {
  if (!isStream(e)) return (json(e)?.content ?? []).filter((b: any) => b.type === "tool_use").map((b: any) => ({ id: b.id, name: b.name, args: b.input }));
  const open = new Map<number, { id: string; name: string; text: string }>();
  const calls: ReturnedCall[] = [];
  for (const d of sseData(e.response)) {
    if (d.type === "content_block_start" && d.content_block?.type === "tool_use") open.set(d.index, { id: d.content_block.id, name: d.content_block.name, text: "" });
    if (d.type === "content_block_delta" && d.delta?.type === "input_json_delta") {
      const c = open.get(d.index);
      if (c) c.text += d.delta.partial_json;
    }
    if (d.type === "content_block_stop" && open.has(d.index)) {
      const c = open.get(d.index)!;
      calls.push({ id: c.id, name: c.name, args: c.text === "" ? {} : JSON.parse(c.text) });
    }
  }
  return calls;
}

/** Anthropic Messages: tool_result blocks the request sent back. */
export function anthropicResults(e: Exchange): SentResult[] {
  const out: SentResult[] = [];
  for (const m of e.body?.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b?.type !== "tool_result") continue;
      const text = typeof b.content === "string" ? b.content : (b.content ?? []).map((p: any) => p.text ?? "").join("");
      out.push({ id: b.tool_use_id, text, isError: b.is_error === true });
    }
  }
  return out;
}

/** OpenAI Chat Completions: tool_calls of the response. */
export function chatCalls(e: Exchange): ReturnedCall[] {
  if (!isStream(e)) return (json(e)?.choices?.[0]?.message?.tool_calls ?? []).map((c: any) => ({ id: c.id, name: c.function.name, args: c.function.arguments }));
  const byIndex = new Map<number, { id: string; name: string; args: string }>();
  for (const d of sseData(e.response)) {
    for (const t of d.choices?.[0]?.delta?.tool_calls ?? []) {
      const c = byIndex.get(t.index) ?? { id: "", name: "", args: "" };
      if (t.id) c.id = t.id;
      if (t.function?.name) c.name += t.function.name;
      if (t.function?.arguments) c.args += t.function.arguments;
      byIndex.set(t.index, c);
    }
  }
  return [...byIndex.values()];
}

/** OpenAI Chat Completions: `role: "tool"` messages the request sent back. */
export function chatResults(e: Exchange): SentResult[] {
  return (e.body?.messages ?? [])
    .filter((m: any) => m.role === "tool")
    .map((m: any) => ({ id: m.tool_call_id, text: typeof m.content === "string" ? m.content : (m.content ?? []).map((p: any) => p.text ?? "").join(""), isError: false }));
}

/** OpenAI Responses: function_call items of the response (a stream's from its final `response.*` event). */
export function responsesCalls(e: Exchange): ReturnedCall[] {
  let output: any[] = json(e)?.output ?? [];
  if (isStream(e)) {
    const last = sseData(e.response).filter((d) => d.type === "response.completed" || d.type === "response.incomplete").pop();
    output = last?.response?.output ?? [];
  }
  return output.filter((i: any) => i.type === "function_call").map((i: any) => ({ id: i.call_id, name: i.name, args: i.arguments }));
}

/** OpenAI Responses: function_call_output items the request sent back. */
export function responsesResults(e: Exchange): SentResult[] {
  const input = Array.isArray(e.body?.input) ? e.body.input : [];
  return input
    .filter((i: any) => i.type === "function_call_output")
    .map((i: any) => ({ id: i.call_id, text: typeof i.output === "string" ? i.output : JSON.stringify(i.output), isError: false }));
}

/** What one client run exchanged on its generation route, read back for the shared acceptance checks. */
export interface AgentTraffic {
  /** The generation requests in order. */
  requests: Exchange[];
  /**
   * Tool names the first request with tools declared: a client's side request comes first in some (opencode asks
   * for a session title, with no tools, before the agent's turn).
   */
  declared: string[];
  /** The input schemas of every tool any request declared, by name (a later request may add deferred tools). */
  schemas: Map<string, unknown>;
  /** Calls qtc returned, over all responses. */
  calls: ReturnedCall[];
  /** Results the client sent back for calls qtc returned (matched by id). */
  results: SentResult[];
}

const READERS = {
  anthropic: { calls: anthropicCalls, results: anthropicResults },
  chat: { calls: chatCalls, results: chatResults },
  responses: { calls: responsesCalls, results: responsesResults },
} as const;

/** Read the calls and results of one API's generation exchanges. */
export function agentTraffic(requests: Exchange[], api: keyof typeof READERS): AgentTraffic {
  const read = READERS[api];
  const calls = requests.flatMap((e) => (e.status === 200 ? read.calls(e) : []));
  const ids = new Set(calls.map((c) => c.id));
  const seen = new Set<string>();
  const results = requests.flatMap(read.results).filter((r) => ids.has(r.id) && !seen.has(r.id) && seen.add(r.id));
  const first = requests.map(declaredTools).find((names) => names.length > 0) ?? [];
  const schemas = new Map(requests.flatMap((e) => [...declaredSchemas(e)]));
  return { requests, declared: first, schemas, calls, results };
}
