// Observability: one log line per request (method, route, status, time, tokens, calls valid/rejected), in JSON
// or text, and `/metrics` as Prometheus text whose counters follow the requests served.

import { Writable } from "node:stream";
import { afterEach, describe, expect, test } from "vitest";
import { serverLogger, textLine } from "../../src/server/log-format.js";
import { fakeRuntime } from "./fake-runtime.js";
import { post, READ_FILE_OPENAI, type Running, start } from "./helpers.js";

const user = [{ role: "user" as const, content: "hi" }];
let server: Running | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

function sink(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  let pending = "";
  const stream = new Writable({
    write(chunk, _e, done) {
      pending += chunk.toString();
      const parts = pending.split("\n");
      pending = parts.pop()!;
      lines.push(...parts.filter((l) => l.trim()));
      done();
    },
  });
  return { stream, lines };
}

/** Parse Prometheus text: every non-comment line is `name{labels} value`; HELP/TYPE precede each family. */
function parsePrometheus(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const samples: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  const typed = new Set<string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = /^# TYPE (\w+) (counter|gauge)$/.exec(line);
    if (type) {
      typed.add(type[1]!);
      continue;
    }
    if (line.startsWith("# HELP ")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (-?[0-9.e+]+|NaN|[+-]Inf)$/.exec(line);
    if (!m) throw new Error(`not Prometheus text: ${line}`);
    expect(typed.has(m[1]!), `${m[1]} has no TYPE line before it`).toBe(true);
    const labels: Record<string, string> = {};
    for (const pair of (m[3] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[4]) });
  }
  return samples;
}

const value = (samples: ReturnType<typeof parsePrometheus>, name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);

describe("request log", () => {
  test("one JSON line per request, with tokens and calls for generations, streamed too", async () => {
    const out = sink();
    server = await start({ runtime: fakeRuntime(), logger: serverLogger("info", "json", out.stream) });
    await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: [READ_FILE_OPENAI], tool_choice: "required" });
    await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 8, messages: user, stream: true });
    await fetch(`${server.url}/nope`);
    const records = out.lines.map((l) => JSON.parse(l)).filter((r) => r.msg === "request");
    expect(records).toHaveLength(3);
    expect(records[0]).toMatchObject({ method: "POST", route: "/v1/chat/completions", status: 200, prompt_tokens: 10, calls_valid: 1, calls_rejected: 0 });
    expect(records[0].completion_tokens).toBeGreaterThan(0);
    expect(typeof records[0].ms).toBe("number");
    expect(records[1]).toMatchObject({ method: "POST", route: "/v1/messages", status: 200, prompt_tokens: 10, calls_valid: 0 });
    expect(records[2]).toMatchObject({ method: "GET", route: "unmatched", status: 404 });
    expect(records[2].prompt_tokens).toBeUndefined();
  });

  test("text format: one readable line per record; level silent writes nothing", async () => {
    expect(textLine(JSON.stringify({ level: 30, time: 0, msg: "request", method: "POST", route: "/v1/messages", status: 200, note: "a b" }))).toBe(
      '1970-01-01T00:00:00.000Z INFO request method=POST route=/v1/messages status=200 note="a b"',
    );
    const out = sink();
    server = await start({ runtime: fakeRuntime(), logger: serverLogger("info", "text", out.stream) });
    await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user });
    expect(out.lines.filter((l) => l.includes(" INFO request "))).toHaveLength(1);
    expect(out.lines.find((l) => l.includes(" INFO request "))).toMatch(/method=POST route=\/v1\/chat\/completions status=200 ms=\d+ prompt_tokens=10 completion_tokens=\d+ calls_valid=0 calls_rejected=0$/);
    await server.app.close();
    const quiet = sink();
    server = await start({ runtime: fakeRuntime(), logger: serverLogger("silent", "text", quiet.stream) });
    await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user });
    expect(quiet.lines).toEqual([]);
  });
});

describe("/metrics", () => {
  test("parses as Prometheus text and counts requests, tokens, calls and the queue", async () => {
    server = await start({ runtime: fakeRuntime(), parallel: 2 });
    await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, tools: [READ_FILE_OPENAI], tool_choice: "required" });
    await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user });
    await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [] });
    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parsePrometheus(await res.text());
    expect(value(samples, "qtc_requests_total", { route: "/v1/chat/completions", status: "200" })).toBe(2);
    expect(value(samples, "qtc_requests_total", { route: "/v1/chat/completions", status: "400" })).toBe(1);
    expect(value(samples, "qtc_prompt_tokens_total")).toBe(20);
    expect(value(samples, "qtc_completion_tokens_total")).toBeGreaterThan(0);
    expect(value(samples, "qtc_tool_calls_total", { outcome: "accepted" })).toBe(1);
    expect(value(samples, "qtc_queue_depth")).toBe(0);
    expect(value(samples, "qtc_slots_total")).toBe(2);
    expect(value(samples, "qtc_decode_tokens_per_second")).toBe(100);
  });

  test("rejected calls are counted by reason", async () => {
    const runtime = fakeRuntime();
    const inner = runtime.stream.bind(runtime);
    runtime.stream = async function* (request) {
      for await (const event of inner(request)) {
        if (event.type === "done") {
          yield { type: "error", error: { reason: "invalid_json", message: "m", raw: "<tool_call>{", start: 0, end: 0 } };
          yield { type: "done", result: { ...event.result, errors: [{ reason: "invalid_json", message: "m", raw: "", start: 0, end: 0 }, { reason: "unknown_tool", message: "m", raw: "", start: 0, end: 0 }] } };
        } else yield event;
      }
    };
    server = await start({ runtime });
    await post(`${server.url}/v1/chat/completions`, { model: "m", messages: user, stream: true });
    const samples = parsePrometheus(await (await fetch(`${server.url}/metrics`)).text());
    expect(value(samples, "qtc_tool_calls_total", { outcome: "rejected", reason: "invalid_json" })).toBe(1);
    expect(value(samples, "qtc_tool_calls_total", { outcome: "rejected", reason: "unknown_tool" })).toBe(1);
  });

  test("with an API key, /metrics needs it (it tells usage); /health does not", async () => {
    server = await start({ runtime: fakeRuntime(), apiKey: "k" });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer k" } })).status).toBe(200);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});
