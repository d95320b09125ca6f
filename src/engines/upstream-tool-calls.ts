// Owns: tool calls an OpenAI-compatible upstream returns structured (issue 53: Ollama, LM Studio and vLLM with
// a tool parser put them in `message.tool_calls`, streamed as `delta.tool_calls` pieces): collected by index,
// then judged by qtc's own parser as the blocks they stand for, so they pass the same validator and get the same
// rejection reasons as calls written in the text. The upstream's ids are not kept: qtc makes its own.

import { createParser, type Parser } from "../parse/index.js";
import type { CompiledTools } from "../tools/index.js";
import type { ParseEvent } from "../parse/index.js";
import { upstreamFailure } from "./upstream-http.js";

/** Most structured calls one turn may carry (an index past it is an upstream error, not a reason to allocate). */
export const MAX_STRUCTURED_CALLS = 128;

interface Pieces {
  name: string;
  args: string;
}

/** The structured calls of one turn, put together from their streamed pieces. */
export class StructuredCalls {
  private readonly calls = new Map<number, Pieces>();

  constructor(private readonly where: string) {}

  get size(): number {
    return this.calls.size;
  }

  /** One `delta.tool_calls` array (pieces keyed by `index`) or a whole `message.tool_calls` (position as index). */
  push(list: readonly unknown[]): void {
    list.forEach((item, position) => {
      if (typeof item !== "object" || item === null) throw upstreamFailure("upstream_error", `${this.where}: a tool_calls entry is ${JSON.stringify(item)?.slice(0, 40)}, not an object; the reply is refused`);
      const { index, function: fn } = item as { index?: unknown; function?: { name?: unknown; arguments?: unknown } };
      const at = index === undefined ? position : index;
      if (typeof at !== "number" || !Number.isInteger(at) || at < 0 || at >= MAX_STRUCTURED_CALLS) {
        throw upstreamFailure("upstream_error", `${this.where}: tool_calls index ${JSON.stringify(at)?.slice(0, 40)} is not a whole number below ${MAX_STRUCTURED_CALLS}; the reply is refused`);
      }
      let call = this.calls.get(at);
      if (!call) this.calls.set(at, (call = { name: "", args: "" }));
      if (typeof fn?.name === "string") call.name += fn.name;
      // OpenAI sends the arguments as a JSON string (in pieces); Ollama's own API sends an object.
      if (typeof fn?.arguments === "string") call.args += fn.arguments;
      else if (fn?.arguments !== undefined && fn.arguments !== null) call.args += JSON.stringify(fn.arguments);
    });
  }

  /**
   * The calls as hermes blocks, in index order. The name and the arguments go in as JSON strings (the parser
   * decodes a string `arguments` once), with `<` escaped, so no value can spell a tag and end a block early.
   */
  blocks(): string {
    const out: string[] = [];
    for (const at of [...this.calls.keys()].sort((a, b) => a - b)) {
      const { name, args } = this.calls.get(at)!;
      const body = `{"name": ${JSON.stringify(name)}, "arguments": ${JSON.stringify(args === "" ? "{}" : args)}}`.replace(/</g, "\\u003c");
      out.push(`<tool_call>\n${body}\n</tool_call>`);
    }
    return out.join("\n");
  }
}

/**
 * The turn's parser, whose `end` also judges the structured calls (a parser of their own, trusted markup: qtc
 * wrote it) and adds them to the events and the result: their `call` and `call-rejected` events come before
 * `finish`, and the result counts them like any call.
 */
export function withStructuredCalls(parser: Parser, structured: StructuredCalls, tools: CompiledTools | undefined): Parser {
  return {
    feed: (chunk) => parser.feed(chunk),
    end(opts) {
      const events = parser.end(opts);
      if (structured.size === 0) return events;
      const finish = events.pop();
      if (finish?.type !== "finish") return [...events, ...(finish ? [finish] : [])];
      const judge = createParser({ tools, format: "hermes", thinking: "closed" });
      const judged: ParseEvent[] = [...judge.feed(structured.blocks()), ...judge.end()];
      const own = judged.pop();
      const calls = judged.filter((e) => e.type === "call" || e.type === "call-rejected");
      if (own?.type === "finish") {
        const { result } = finish;
        const more = own.result;
        result.calls.push(...more.calls);
        result.errors.push(...more.errors);
        const d = result.diagnostics;
        d.detected += more.diagnostics.detected;
        d.accepted += more.diagnostics.accepted;
        d.emitted += more.diagnostics.emitted;
        for (const [reason, n] of Object.entries(more.diagnostics.rejected)) {
          const key = reason as keyof typeof d.rejected;
          d.rejected[key] = (d.rejected[key] ?? 0) + (n ?? 0);
        }
        d.notes.push(`the upstream returned ${structured.size} structured tool call(s): judged by qtc's parser like calls written in the text`);
      }
      return [...events, ...calls, finish];
    },
  };
}
