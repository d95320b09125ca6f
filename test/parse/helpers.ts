// Shared fixtures for the parser tests: the harness's five tools plus a few typed ones, and helpers.
import { createParser, type ParseEvent, type ParseResult } from "../../src/parse/index.js";
import type { ParserOptions } from "../../src/parse/options.js";

export const TOOLS = [
  { type: "function", function: { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
  { type: "function", function: { name: "list_files", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
  { type: "function", function: { name: "grep", parameters: { type: "object", properties: { pattern: { type: "string" }, path: { type: "string" } }, required: ["pattern", "path"] } } },
  { type: "function", function: { name: "write_file", parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] } } },
  { type: "function", function: { name: "run_tests", parameters: { type: "object", properties: {} } } },
  {
    name: "search",
    input_schema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1 },
        limit: { type: "integer", minimum: 1, maximum: 50 },
        mode: { type: "string", enum: ["fast", "exact"] },
        filters: { type: "object", properties: { lang: { type: "string" }, tags: { type: "array", items: { type: "string" } } }, additionalProperties: false },
        verbose: { type: "boolean" },
        cutoff: { type: ["number", "null"] },
      },
      required: ["query"],
    },
  },
  { name: "note", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: true } },
];

/** Deterministic ids for tests that compare whole results. */
export function counterIds(prefix = "id"): () => string {
  let n = 0;
  return () => `${prefix}${++n}`;
}

/** Feed chunks one by one; returns every event, in order. */
export function feedAll(chunks: readonly string[], options: ParserOptions = {}, truncated = false): ParseEvent[] {
  const parser = createParser(options);
  const events: ParseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.feed(chunk));
  events.push(...parser.end({ truncated }));
  return events;
}

/** Events with adjacent deltas of one kind merged (chunking changes how text is split, nothing else). */
export function normalizeEvents(events: readonly ParseEvent[]): ParseEvent[] {
  const out: ParseEvent[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if ((e.type === "text-delta" || e.type === "reasoning-delta") && last?.type === e.type) {
      out[out.length - 1] = { type: e.type, text: last.text + e.text };
    } else out.push(e);
  }
  return out;
}

export function resultOf(events: readonly ParseEvent[]): ParseResult {
  const last = events[events.length - 1];
  if (last?.type !== "finish") throw new Error("no finish event");
  return last.result;
}

/** qwen3coder block text in the template's canonical spelling. */
export function xmlCall(name: string, params: Record<string, string>): string {
  const body = Object.entries(params)
    .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
    .join("");
  return `<tool_call>\n<function=${name}>\n${body}</function>\n</tool_call>`;
}

/** hermes block text in the template's canonical spelling (json.dumps separators). */
export function jsonCall(name: string, args: unknown): string {
  return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${pyJson(args)}}\n</tool_call>`;
}

function pyJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyJson).join(", ")}]`;
  if (v && typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`).join(", ")}}`;
  return JSON.stringify(v);
}
