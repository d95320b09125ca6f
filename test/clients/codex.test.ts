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
  // --call-policy required-first` (the server's policy for small models) makes turn 1 call. Codex sends no
  // max_output_tokens; `--max-tokens 512` bounds each turn (random weights never end a free-text turn, so turn 2
  // runs to it). Its prompt is about 8,400 tokens.
  qtc = await startQtc({ contextSize: 16_384, serve: { callPolicy: "required-first", defaultMaxTokens: 512 } });
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
    // Every request it waited for was answered (one it abandoned on exit, a background agent's, is not judged).
    for (const e of t.requests) if (!e.abandoned) expect(e.status, log).toBe(200);
    expect(t.requests.filter((e) => !e.abandoned).length, log).toBeGreaterThanOrEqual(2);
    expect(t.declared, log).toEqual(expect.arrayContaining(CORE_TOOLS));
    expect(t.declared.some((n) => n.startsWith("multi_agent_v1.")), log).toBe(true);
    expect(t.calls.length, log).toBeGreaterThanOrEqual(1);
    // Calls come back under the names Codex declared (a namespace member as its own name, with the namespace).
    for (const c of t.calls) expect(t.declared.some((n) => n === c.name || n.endsWith(`.${c.name}`)), log).toBe(true);
    expect(t.results.length, log).toBeGreaterThanOrEqual(1);
    for (const r of t.results) expect(r.text.length, log).toBeGreaterThan(0);
    // Turn 2 was answered. Random weights never end free text, so it stops at max_output_tokens ("incomplete"),
    // which Codex reports as the turn's error (exit 1); a turn that completes must exit 0.
    expect(run.killed, log).toBe(false);
    const last = t.requests.at(-1)!;
    const final = /"type":"response\.(completed|incomplete)"/.exec(last.response)?.[1];
    expect(final, log).toBeDefined();
    if (final === "completed") expect(run.code, log).toBe(0);
    else expect(run.stderr, log).toMatch(/Incomplete response returned, reason: max_output_tokens/);
    expect(run.stderr, log).not.toMatch(/unexpected status|stream disconnected|error sending request/i);
    if (CAN_TRACE) expect(run.egress, log).toEqual([]);
  });
});
