// `qtc serve` through the CLI, in-process: bad flags are one line and exit 2; with the tiny model it prints where
// it listens, serves an OpenAI client (with the API key), and exits 0 on SIGINT.

import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterEach, describe, expect, test, vi } from "vitest";
import { main } from "../../src/cli/cli.js";
import { tinyModelPath } from "../helpers/models.js";
import { waitFor } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Start the CLI in-process; `output()` is what it has written so far; `done` resolves to the exit code. */
function launch(...args: string[]): { done: Promise<number>; output: () => { stdout: string; stderr: string } } {
  let stdout = "";
  let stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((stderr += String(chunk)), true));
  return { done: main(["node", "qtc", ...args]), output: () => ({ stdout, stderr }) };
}

/** Send headers and half a body with the key, then nothing: what the server answers before it closes. */
function stalledBody(port: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port: Number(port) }, () => {
      socket.write("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k3y\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":");
    });
    let out = "";
    socket.on("data", (d) => (out += d.toString("utf8")));
    socket.on("close", () => resolve(out));
    socket.on("error", () => undefined);
  });
}

describe("qtc serve", () => {
  test.each([
    [["serve", "--model", "x", "--log-format", "xml"]],
    [["serve", "--model", "x", "--log-level", "loud"]],
    [["serve", "--model", "x", "--port", "70000"]],
    [["serve", "--model", "x", "--parallel", "0"]],
    [["serve", "--model", "x", "--mode", "loose"]],
    [["serve", "--model", "x", "--body-timeout", "0"]],
    [["serve", "--model", "x", "--max-connections", "-1"]],
    [["serve", "--model", "x", "--call-policy", "always"]],
    [["serve", "--model", "x", "--unsupported", "loose"]],
  ])("%j → one line on stderr, exit 2", async (args) => {
    const run = launch(...args);
    expect(await run.done).toBe(2);
    expect(run.output().stdout).toBe("");
    expect(run.output().stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  test("a model that does not exist → one line, no stack", async () => {
    const run = launch("serve", "--model", "/nonexistent/model.gguf");
    expect(await run.done).toBeGreaterThan(0);
    expect(run.output().stderr).toMatch(/^qtc: .+\n$/);
  });

  test("without --model it serves the default qwen3-0.6b (here: its download, refused offline)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "qtc-models-"));
    vi.stubEnv("QTC_MODELS_DIR", dir);
    vi.stubEnv("QTC_HF_ENDPOINT", "http://127.0.0.1:9");
    try {
      const run = launch("serve", "--port", "0");
      expect(await run.done).toBe(1);
      expect(run.output().stderr).toMatch(/^qtc: could not download .*Qwen3-0\.6B.*\n$/i);
    } finally {
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("--host beyond this machine without --api-key warns before anything loads", async () => {
    const run = launch("serve", "--model", "/nonexistent/model.gguf", "--host", "0.0.0.0");
    expect(await run.done).toBeGreaterThan(0);
    const lines = run.output().stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^qtc serve: warning: --host 0\.0\.0\.0 .*--api-key/);
    const keyed = launch("serve", "--model", "/nonexistent/model.gguf", "--host", "0.0.0.0", "--api-key", "k");
    await keyed.done;
    expect(keyed.output().stderr).not.toMatch(/warning/);
  });

  test("a port in use → one line naming it, exit 2", async () => {
    const blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const run = launch("serve", "--model", await tinyModelPath(), "--port", String(port), "--threads", "2", "--context-size", "512", "--gpu", "cpu");
      expect(await run.done).toBe(2);
      expect(run.output().stderr).toBe(`qtc: 127.0.0.1:${port} is already in use; pick another --port\n`);
    } finally {
      blocker.close();
    }
  });

  test("serves until SIGINT, then exits 0", async () => {
    const before = new Set(process.listeners("SIGINT"));
    const run = launch("serve", "--model", await tinyModelPath(), "--port", "0", "--parallel", "2", "--api-key", "k3y", "--threads", "2", "--context-size", "1024", "--gpu", "cpu", "--body-timeout", "300");
    await waitFor(() => run.output().stdout.includes("\n") || /^qtc: /m.test(run.output().stderr), 60_000);
    const line = run.output().stdout;
    expect(line).toMatch(/^qtc serve: http:\/\/127\.0\.0\.1:\d+\/v1 \(model .+, synthetic: random weights, constrained, parallel 2, 2 threads, format hermes, API key required\)\n$/);
    const baseURL = line.match(/(http:\/\/\S+\/v1)/)![1]!;

    const health = (await (await fetch(baseURL.replace(/\/v1$/, "/health"))).json()) as { slots: unknown };
    expect(health.slots).toEqual({ total: 2, busy: 0, queued: 0 });
    const noKey = new OpenAI({ baseURL, apiKey: "wrong", maxRetries: 0 });
    await expect(noKey.models.list()).rejects.toMatchObject({ status: 401 });
    const client = new OpenAI({ baseURL, apiKey: "k3y", maxRetries: 0 });
    const tool = { type: "function" as const, function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } };
    const r = await client.chat.completions.create({ model: "tiny", messages: [{ role: "user", content: "read it" }], tools: [tool], tool_choice: "required", max_tokens: 96, seed: 1 });
    const call = r.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("read_file");
    // Logs go to stderr as text (the default), one line per request; nothing else is written there.
    const logLines = run.output().stderr.trimEnd().split("\n");
    for (const l of logLines) expect(l).toMatch(/^\d{4}-\d\d-\d\dT\S+ (INFO|WARN) /);
    expect(logLines.filter((l) => / request method=POST route=\/v1\/chat\/completions status=200 ms=\d+ prompt_tokens=\d+ completion_tokens=\d+ calls_valid=1 calls_rejected=0$/.test(l))).toHaveLength(1);
    // --body-timeout reaches the server: a body that stops arriving gets 408 request_timeout.
    expect(await stalledBody(new URL(baseURL).port)).toMatch(/^HTTP\/1\.1 408 [\s\S]*"request_timeout"/);

    // Deliver SIGINT to the command's own handler only (not to the test runner's).
    const added = process.listeners("SIGINT").filter((l) => !before.has(l));
    expect(added).toHaveLength(1);
    (added[0] as () => void)();
    expect(await run.done).toBe(0);
    await expect(fetch(baseURL.replace(/\/v1$/, "/health"))).rejects.toThrow();
  });

  test("--call-policy and --unsupported reach the server", async () => {
    const before = new Set(process.listeners("SIGINT"));
    const run = launch("serve", "--model", await tinyModelPath(), "--port", "0", "--threads", "2", "--context-size", "1024", "--gpu", "cpu", "--call-policy", "required-first", "--unsupported", "strict");
    await waitFor(() => run.output().stdout.includes("\n") || /^qtc: /m.test(run.output().stderr), 60_000);
    const line = run.output().stdout;
    expect(line).toMatch(/, call policy required-first\)\n$/);
    const url = `${line.match(/(http:\/\/\S+\/v1)/)![1]!}/chat/completions`;
    const ask = (parameters: unknown) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "f", parameters } }], tool_choice: "auto", max_tokens: 96 }) });
    // "…|a.{11}$" (an `a` twelve characters from the end: 2^12 DFA states) is past what the grammar's automata hold.
    const strict = await ask({ type: "object", properties: { a: { type: "string", allOf: [{ pattern: "^a" }, { pattern: "b$|a.{11}$" }] } } });
    expect([strict.status, ((await strict.json()) as { error: { code: string } }).error.code]).toEqual([400, "unsupported_keyword"]);
    const first = (await (await ask({ type: "object", properties: { a: { type: "string" } }, required: ["a"] })).json()) as { choices: Array<{ finish_reason: string }> };
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    const added = process.listeners("SIGINT").filter((l) => !before.has(l));
    (added[0] as () => void)();
    expect(await run.done).toBe(0);
  }, 90_000);
});
