// Owns: Codex (`codex exec`, OpenAI Responses, streamed) against qtc serve, configured as its docs say for a
// custom provider (base URL, the variable holding the key, the model name; update checks and analytics off): it
// sends its real tool list (namespace tools included), gets a structured function_call and executes it.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentTraffic } from "./calls.js";
import { API_KEY, CAN_TRACE, clientEnv, describeExchanges, generations, MODEL_NAME, type Qtc, runClient, scratch, startQtc } from "./harness.js";

// Tools every Codex 0.171 exec session declares; `multi_agent_v1` is a namespace of function tools.
const CORE_TOOLS = ["exec_command", "write_stdin", "view_image"];

let qtc: Qtc;
beforeAll(async () => {
  // Codex always sends tool_choice "auto", under which random weights never open a call: `qtc serve
  // --call-policy required-first` (what docs/server.md advises for small models) makes turn 1 call. Its prompt is
  // about 8,400 tokens; 12,288 leaves turn 2's free text (bounded by what the context leaves) a short run.
  qtc = await startQtc({ contextSize: 12_288, serve: { callPolicy: "required-first" } });
}, 120_000);
afterAll(async () => {
  await qtc?.close();
});

function configure(home: string, baseUrl: string): void {
  mkdirSync(join(home, ".codex"));
  const toml = [
    `model = "${MODEL_NAME}"`,
    `model_provider = "qtc"`,
    `check_for_update_on_startup = false`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[model_providers.qtc]`,
    `name = "qtc"`,
    `base_url = "${baseUrl}/v1"`,
    `env_key = "QTC_API_KEY"`,
    `wire_api = "responses"`,
    ``,
  ];
  writeFileSync(join(home, ".codex", "config.toml"), toml.join("\n"));
}

describe("Codex 0.171.0 on qtc serve", () => {
  it("codex exec: its real tool list, a structured function_call, the call executed, nothing off the machine", { timeout: 300_000 }, async () => {
    const s = scratch("codex");
    configure(s.home, qtc.url);
    const env = clientEnv(s, { QTC_API_KEY: API_KEY });
    const run = await runClient("codex", ["exec", "--skip-git-repo-check", "Read notes.txt and tell me what it says."], { cwd: s.work, env, timeoutMs: 240_000 });
    const log = `exit ${run.code}${run.killed ? " (killed at the time bound)" : ""}\n${describeExchanges(qtc.exchanges)}\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-2500)}`;
    const t = agentTraffic(generations(qtc, "/v1/responses"), "responses");

    expect(t.requests.length, log).toBeGreaterThanOrEqual(2);
    for (const e of t.requests) expect(e.status, log).toBe(200);
    expect(t.declared, log).toEqual(expect.arrayContaining(CORE_TOOLS));
    expect(t.declared.some((n) => n.startsWith("multi_agent_v1.")), log).toBe(true);
    expect(t.calls.length, log).toBeGreaterThanOrEqual(1);
    // Calls come back under the names Codex declared (a namespace member as its own name, with the namespace).
    for (const c of t.calls) expect(t.declared.some((n) => n === c.name || n.endsWith(`.${c.name}`)), log).toBe(true);
    expect(t.results.length, log).toBeGreaterThanOrEqual(1);
    for (const r of t.results) expect(r.text.length, log).toBeGreaterThan(0);
    // The run ended by itself: turn 2 answered and codex exec finished it.
    expect(run.killed, log).toBe(false);
    expect(run.code, log).toBe(0);
    if (CAN_TRACE) expect(run.egress, log).toEqual([]);
  });
});
