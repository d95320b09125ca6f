// Owns: the OpenAI Responses API shapes: the `response` object with its output items (`reasoning`, `message` with
// `output_text`, `function_call`), and the stream encoder that turns runtime events into `response.*` events.

import { randomBytes } from "node:crypto";
import { openAIToolCallId } from "../adapters/index.js";
import type { ToolCall } from "../parse/types.js";
import type { GenerateEvent, GenerateResult } from "../runtime/types.js";
import { type ApiError, openAIErrorBody } from "./api-error.js";
import type { SseFrame } from "./generation.js";
import type { ResponsesEcho } from "./responses-request.js";
import { qtcExtension } from "./response-common.js";
import type { NamespacedName } from "./client-tools.js";

export interface ResponsesMeta {
  /** `resp_…` */
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
  echo: ResponsesEcho;
  /** Flattened tool name → namespace and member name: such a call's item carries the two. */
  namespaces: ReadonlyMap<string, NamespacedName>;
}

export function newResponsesMeta(model: string, echo: ResponsesEcho, namespaces: ReadonlyMap<string, NamespacedName> = new Map()): ResponsesMeta {
  return { id: `resp_${hex()}`, created: Math.floor(Date.now() / 1000), model, echo, namespaces };
}

const hex = () => randomBytes(12).toString("hex");

type Item = Record<string, unknown> & { type: string; id: string };

const reasoningItem = (text: string, status = "completed"): Item => ({ type: "reasoning", id: `rs_${hex()}`, status, summary: [], content: [{ type: "reasoning_text", text }] });
const outputText = (text: string) => ({ type: "output_text", text, annotations: [], logprobs: [] });
const messageItem = (text: string | null, status = "completed"): Item => ({
  type: "message",
  id: `msg_${hex()}`,
  status,
  role: "assistant",
  content: text === null ? [] : [outputText(text)],
});
/** A function_call item; a namespace member's call names its namespace and its own name, as the client declared them. */
const callItem = (call: Pick<ToolCall, "id" | "name">, args: string, namespaces: ReadonlyMap<string, NamespacedName>, status = "completed"): Item => {
  const ns = namespaces.get(call.name);
  return {
    type: "function_call",
    id: `fc_${call.id}`,
    call_id: openAIToolCallId(call),
    name: ns ? ns.name : call.name,
    ...(ns ? { namespace: ns.namespace } : {}),
    arguments: args,
    status,
  };
};

function usageOf(result: GenerateResult) {
  const { promptTokens, completionTokens } = result.usage;
  return {
    input_tokens: promptTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: promptTokens + completionTokens,
  };
}

/** Cut off at max_output_tokens without a call: "incomplete", as OpenAI reports it. */
const incomplete = (result: GenerateResult) => result.finishReason === "length" && result.toolCalls.length === 0;

/** The `response` object; `result` absent while a stream is still in progress. */
function responseObject(meta: ResponsesMeta, output: Item[], result?: GenerateResult): Record<string, unknown> {
  const status = !result ? "in_progress" : incomplete(result) ? "incomplete" : "completed";
  return {
    id: meta.id,
    object: "response",
    created_at: meta.created,
    status,
    error: null,
    incomplete_details: result && incomplete(result) ? { reason: "max_output_tokens" } : null,
    model: meta.model,
    output,
    store: false,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    truncation: "disabled",
    user: null,
    ...meta.echo,
    usage: result ? usageOf(result) : null,
    ...(result ? { qtc: qtcExtension(result) } : {}),
  };
}

/** The whole `response` of a finished turn: reasoning, the message, then one function_call item per call. */
export function responsesCompletion(result: GenerateResult, meta: ResponsesMeta): Record<string, unknown> {
  const output: Item[] = [];
  if (result.reasoning) output.push(reasoningItem(result.reasoning));
  if (result.content !== "" || result.toolCalls.length === 0) output.push(messageItem(result.content));
  for (const call of result.toolCalls) output.push(callItem(call, call.arguments, meta.namespaces));
  return responseObject(meta, output, result);
}

/** An output item being streamed: its index, and the text or arguments sent so far. */
interface OpenItem {
  item: Item;
  index: number;
  text: string;
  /** The runtime's call index, for function_call items. */
  callIndex?: number;
}

/**
 * Stateful: feed it every runtime event in order. Each item streams as `response.output_item.added`, its deltas
 * (`response.output_text.delta`, `response.reasoning_text.delta`, `response.function_call_arguments.delta`), their
 * `.done`, and `response.output_item.done`; the last event is `response.completed` (or `response.incomplete`)
 * holding every item with the ids it streamed under. Every event carries `sequence_number`, from 0.
 */
export class ResponsesStreamEncoder {
  readonly #meta: ResponsesMeta;
  #seq = 0;
  #open: OpenItem | null = null;
  readonly #done: Item[] = [];

  constructor(meta: ResponsesMeta) {
    this.#meta = meta;
  }

  start(): SseFrame[] {
    const response = responseObject(this.#meta, []);
    return [this.#frame("response.created", { response }), this.#frame("response.in_progress", { response })];
  }

  event(event: GenerateEvent): SseFrame[] {
    switch (event.type) {
      case "reasoning-delta":
        return event.text ? [...this.#ensure("reasoning"), this.#frame("response.reasoning_text.delta", this.#textDelta(event.text))] : [];
      case "text-delta":
        return event.text ? [...this.#ensure("message"), this.#frame("response.output_text.delta", { ...this.#textDelta(event.text), logprobs: [] })] : [];
      case "tool-call-start":
        return this.#openCall(event.index, { id: event.id, name: event.name });
      case "tool-call-delta":
        return this.#open?.callIndex === event.index && event.argumentsDelta ? [this.#argsDelta(event.argumentsDelta)] : [];
      case "tool-call":
        return this.#finishCall(event.index, event.call);
      case "error":
        return [];
      case "done": {
        const frames = this.#close();
        const response = responseObject(this.#meta, this.#done, event.result);
        return [...frames, this.#frame(incomplete(event.result) ? "response.incomplete" : "response.completed", { response })];
      }
    }
  }

  /** The Responses stream's error event. */
  error(error: ApiError): SseFrame[] {
    const { code, message, param } = openAIErrorBody(error).error;
    return [this.#frame("error", { code, message, param })];
  }

  #frame(type: string, body: Record<string, unknown>): SseFrame {
    return { event: type, data: { type, sequence_number: this.#seq++, ...body } };
  }

  #textDelta(delta: string): Record<string, unknown> {
    const open = this.#open!;
    open.text += delta;
    return { item_id: open.item.id, output_index: open.index, content_index: 0, delta };
  }

  #argsDelta(delta: string): SseFrame {
    const open = this.#open!;
    open.text += delta;
    return this.#frame("response.function_call_arguments.delta", { item_id: open.item.id, output_index: open.index, delta });
  }

  /** Open a reasoning or message item unless one of that kind is open. */
  #ensure(kind: "reasoning" | "message"): SseFrame[] {
    if (this.#open?.item.type === kind) return [];
    const frames = this.#close();
    const item = kind === "reasoning" ? reasoningItem("", "in_progress") : messageItem(null, "in_progress");
    this.#open = { item, index: this.#done.length, text: "" };
    frames.push(this.#frame("response.output_item.added", { output_index: this.#open.index, item }));
    if (kind === "message") frames.push(this.#frame("response.content_part.added", { ...this.#partOf(this.#open), part: outputText("") }));
    return frames;
  }

  #openCall(callIndex: number, call: Pick<ToolCall, "id" | "name">): SseFrame[] {
    const frames = this.#close();
    const item = callItem(call, "", this.#meta.namespaces, "in_progress");
    this.#open = { item, index: this.#done.length, text: "", callIndex };
    frames.push(this.#frame("response.output_item.added", { output_index: this.#open.index, item }));
    return frames;
  }

  /** A whole call: what its deltas did not send, then its `.done` events. */
  #finishCall(callIndex: number, call: ToolCall): SseFrame[] {
    const frames = this.#open?.callIndex === callIndex ? [] : this.#openCall(callIndex, call);
    const open = this.#open!;
    const rest = call.arguments.startsWith(open.text) ? call.arguments.slice(open.text.length) : "";
    if (rest) frames.push(this.#argsDelta(rest));
    open.text = call.arguments;
    return [...frames, ...this.#close()];
  }

  /** The `.done` events of the open item, which joins the finished output. */
  #close(): SseFrame[] {
    const open = this.#open;
    if (!open) return [];
    this.#open = null;
    const frames: SseFrame[] = [];
    let item: Item;
    if (open.item.type === "message") {
      item = { ...open.item, status: "completed", content: [outputText(open.text)] };
      frames.push(this.#frame("response.output_text.done", { ...this.#partOf(open), text: open.text, logprobs: [] }));
      frames.push(this.#frame("response.content_part.done", { ...this.#partOf(open), part: outputText(open.text) }));
    } else if (open.item.type === "reasoning") {
      item = { ...open.item, status: "completed", content: [{ type: "reasoning_text", text: open.text }] };
      frames.push(this.#frame("response.reasoning_text.done", { ...this.#partOf(open), text: open.text }));
    } else {
      item = { ...open.item, status: "completed", arguments: open.text };
      frames.push(this.#frame("response.function_call_arguments.done", { item_id: item.id, output_index: open.index, name: item.name, arguments: open.text }));
    }
    frames.push(this.#frame("response.output_item.done", { output_index: open.index, item }));
    this.#done.push(item);
    return frames;
  }

  #partOf(open: OpenItem): Record<string, unknown> {
    return { item_id: open.item.id, output_index: open.index, content_index: 0 };
  }
}
