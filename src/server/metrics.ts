// Owns: the server's metrics (requests, queue, tokens, generation time, calls accepted and rejected by reason) and
// their Prometheus text exposition (format 0.0.4) for `GET /metrics`. Hand-written: a few counters and gauges do
// not need prom-client and its two dependencies.

import type { GenerateResult } from "../runtime/types.js";
import type { SlotStats } from "./slots.js";

/** One finished request, as the request log and the metrics see it. */
export interface RequestRecord {
  method: string;
  route: string;
  status: number;
  ms: number;
  /** Set when the request generated. */
  result?: GenerateResult;
  /** Set when the request was refused: the error code and the request field at fault (null: the whole request). */
  error?: { code: string; param: string | null };
}

type Labels = Record<string, string>;

/** A counter family: one value per distinct label set. */
class Counter {
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  constructor(readonly name: string, readonly help: string) {}

  add(labels: Labels, by = 1): void {
    const key = JSON.stringify(labels);
    const entry = this.#values.get(key) ?? { labels, value: 0 };
    entry.value += by;
    this.#values.set(key, entry);
  }

  lines(): string[] {
    return [...this.#values.values()].map(({ labels, value }) => `${this.name}${labelText(labels)} ${formatNumber(value)}`);
  }
}

/** Label values escaped as the exposition format asks (backslash, quote, newline). */
function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

function formatNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN";
}

/** Routes a metric may name: the router's own (so a client cannot mint label values), else "unmatched". */
const routeLabel = (route: string | undefined) => route ?? "unmatched";

export class ServerMetrics {
  readonly #requests = new Counter("qtc_requests_total", "HTTP requests answered, by method, route and status.");
  readonly #seconds = new Counter("qtc_request_duration_seconds_total", "Seconds spent answering requests, by route.");
  readonly #promptTokens = new Counter("qtc_prompt_tokens_total", "Prompt tokens evaluated.");
  readonly #completionTokens = new Counter("qtc_completion_tokens_total", "Tokens generated (sampled and forced).");
  readonly #generationSeconds = new Counter("qtc_generation_seconds_total", "Seconds spent generating; completion tokens over this is tokens per second.");
  readonly #calls = new Counter("qtc_tool_calls_total", "Tool-call blocks the parser judged: accepted, or rejected with the reason.");
  #lastDecode = 0;

  constructor(private readonly slots: () => SlotStats) {}

  record(record: RequestRecord): void {
    const route = routeLabel(record.route);
    this.#requests.add({ method: record.method, route, status: String(record.status) });
    this.#seconds.add({ route }, record.ms / 1000);
    const result = record.result;
    if (!result) return;
    this.#promptTokens.add({}, result.usage.promptTokens);
    this.#completionTokens.add({}, result.usage.completionTokens);
    this.#generationSeconds.add({}, result.timings.totalMs / 1000);
    if (result.timings.decodeTokensPerSecond > 0) this.#lastDecode = result.timings.decodeTokensPerSecond;
    if (result.toolCalls.length) this.#calls.add({ outcome: "accepted", reason: "" }, result.toolCalls.length);
    for (const error of result.errors) this.#calls.add({ outcome: "rejected", reason: error.reason });
  }

  /** The exposition text: HELP and TYPE for each family, then its samples. */
  render(): string {
    const slots = this.slots();
    const out: string[] = [];
    const family = (name: string, type: "counter" | "gauge", help: string, samples: string[]) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples);
    };
    for (const c of [this.#requests, this.#seconds, this.#promptTokens, this.#completionTokens, this.#generationSeconds, this.#calls]) {
      family(c.name, "counter", c.help, c.lines());
    }
    family("qtc_queue_depth", "gauge", "Requests waiting for a generation slot.", [`qtc_queue_depth ${slots.queued}`]);
    family("qtc_slots_busy", "gauge", "Generation slots in use.", [`qtc_slots_busy ${slots.busy}`]);
    family("qtc_slots_total", "gauge", "Generation slots (the server's parallel).", [`qtc_slots_total ${slots.total}`]);
    family("qtc_decode_tokens_per_second", "gauge", "Decode speed of the last finished generation.", [`qtc_decode_tokens_per_second ${formatNumber(this.#lastDecode)}`]);
    return `${out.join("\n")}\n`;
  }
}

/** The fields of the one log line per request. */
export function requestLogFields(record: RequestRecord): Record<string, unknown> {
  const fields: Record<string, unknown> = { method: record.method, route: routeLabel(record.route), status: record.status, ms: Math.round(record.ms) };
  const result = record.result;
  if (result) {
    fields.prompt_tokens = result.usage.promptTokens;
    fields.completion_tokens = result.usage.completionTokens;
    fields.calls_valid = result.toolCalls.length;
    fields.calls_rejected = result.errors.length;
  }
  if (record.error) {
    fields.code = record.error.code;
    // The field as the request spelt it, bounded: it can echo a client's header or tool name.
    if (record.error.param !== null) fields.field = record.error.param.slice(0, 120);
  }
  return fields;
}
