// Owns: Kilo CLI (`kilo run`, an opencode fork: a custom OpenAI-compatible provider, Chat Completions, streamed)
// against qtc serve, configured as its docs say for a local provider (base URL, key, model name in kilo.json;
// auto-update, the models catalog fetch, default plugins, LSP downloads, sharing and session ingest off) and run
// with --auto: it sends its real tool list, gets structured tool_calls and executes one.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentTraffic } from "./calls.js";
import { API_KEY, CAN_TRACE, clientEnv, describeExchanges, generations, MODEL_NAME, type Qtc, runClient, scratch, startQtc } from "./harness.js";

const CORE_TOOLS = ["bash", "read", "edit", "write", "glob", "grep"];
// Kilo's own answers when it does not run a call (opencode's, which it inherits): arguments its schema refuses, an
// unknown tool (the AI SDK's message, and the `invalid` stand-in tool), a permission it rejected.
const NOT_RUN = /was called with invalid arguments|tried to call unavailable tool|arguments provided to the tool are invalid|rejected permission/;

let qtc: Qtc;
beforeAll(async () => {
  // As opencode: every request asks for 32,000 tokens (qtc serve --max-tokens-cap 512 bounds them), and each sends
  // `tool_choice: "auto"` explicitly, so --call-policy required-first makes turn 1 call a tool.
  qtc = await startQtc({ contextSize: 16_384, serve: { maxTokensCap: 512, callPolicy: "required-first" } });
}, 120_000);
afterAll(async () => {
  await qtc?.close();
});

function configure(home: string, baseUrl: string): void {
  const dir = join(home, ".config", "kilo");
  mkdirSync(dir, { recursive: true });
  const config = {
    $schema: "https://app.kilo.ai/config.json",
    provider: { qtc: { npm: "@ai-sdk/openai-compatible", name: "qtc", options: { baseURL: `${baseUrl}/v1`, apiKey: "{env:QTC_API_KEY}" }, models: { [MODEL_NAME]: { name: MODEL_NAME } } } },
    model: `qtc/${MODEL_NAME}`,
    autoupdate: false,
    share: "disabled",
  };
  writeFileSync(join(dir, "kilo.json"), JSON.stringify(config, null, 2));
}

describe("Kilo CLI 7.7.7 on qtc serve", () => {
  it("kilo run: its real tool list, structured tool_calls, the call executed, nothing off the machine", { timeout: 240_000 }, async () => {
    const s = scratch("kilo");
    configure(s.home, qtc.url);
    const env = clientEnv(s, {
      QTC_API_KEY: API_KEY,
      KILO_DISABLE_AUTOUPDATE: "1",
      KILO_DISABLE_MODELS_FETCH: "1",
      KILO_DISABLE_DEFAULT_PLUGINS: "1",
      KILO_DISABLE_LSP_DOWNLOAD: "1",
      KILO_DISABLE_SHARE: "1",
      KILO_DISABLE_SESSION_INGEST: "1",
    });
    // --auto, as `kilo run` itself advises for autonomous use: a tool whose permission is "ask" (its memory recall,
    // a path outside the workspace) is otherwise auto-rejected and not run.
    const run = await runClient("kilo", ["run", "--auto", "Read notes.txt and tell me what it says."], { cwd: s.work, env, timeoutMs: 180_000 });
    const log = `exit ${run.code}${run.killed ? " (killed at the time bound)" : ""}\n${describeExchanges(qtc.exchanges)}\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-2500)}`;
    const t = agentTraffic(generations(qtc, "/v1/chat/completions"), "chat");

    // Turn 1 (a call) and turn 2 (its result) at least; a side request (a title) may come first.
    expect(t.requests.length, log).toBeGreaterThanOrEqual(2);
    // Every request it waited for was answered (one it abandoned on exit, a background agent's, is not judged).
    for (const e of t.requests) if (!e.abandoned) expect(e.status, log).toBe(200);
    expect(t.requests.filter((e) => !e.abandoned).length, log).toBeGreaterThanOrEqual(2);
    expect(t.declared, log).toEqual(expect.arrayContaining(CORE_TOOLS));
    // A structured call came back, naming a tool it declared.
    expect(t.calls.length, log).toBeGreaterThanOrEqual(1);
    for (const c of t.calls) expect(t.declared, log).toContain(c.name);
    // It ran the call and sent the tool's own answer back in the next turn.
    expect(t.results.length, log).toBeGreaterThanOrEqual(1);
    for (const r of t.results) {
      expect(r.text.length, log).toBeGreaterThan(0);
      expect(r.text, log).not.toMatch(NOT_RUN);
    }
    expect(run.killed, log).toBe(false);
    if (CAN_TRACE) expect(run.egress, log).toEqual([]);
  });
});
