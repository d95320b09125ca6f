// Owns: one run of an opencode-family CLI (opencode, and Kilo CLI, its fork) against qtc serve and what the suite
// asserts of it: configured as their docs say for a custom OpenAI-compatible provider (base URL, key and model name
// in the config file; auto-update, the models catalog fetch, default plugins, LSP downloads and sharing off), it
// sends its real tool list, gets structured tool_calls, executes one and sends the tool's answer back.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { agentTraffic } from "./calls.js";
import { API_KEY, CAN_TRACE, clientEnv, describeExchanges, generations, MODEL_NAME, type Qtc, runClient, scratch, startQtc } from "./harness.js";

const CORE_TOOLS = ["bash", "read", "edit", "write", "glob", "grep"];
// The family's own answers when it does not run a call: arguments its schema refuses, an unknown tool (the AI SDK's
// message, and the `invalid` stand-in tool), a permission the run rejected.
const NOT_RUN = /was called with invalid arguments|tried to call unavailable tool|arguments provided to the tool are invalid|rejected permission/;

export interface OpencodeFamilyClient {
  /** The CLI's command, and its config folder under ~/.config and file name (`opencode` → opencode.json). */
  bin: string;
  configSchema: string;
  /** Its environment switches' prefix (`OPENCODE` → OPENCODE_DISABLE_AUTOUPDATE …). */
  envPrefix: string;
  /** Switches beyond the family's common ones. */
  extraSwitches?: string[];
  /** Arguments of `run` before the prompt. */
  runFlags?: string[];
  /** Tools turned off in its config (`"tools": {NAME: false}`), as a user turns a tool off. */
  toolsOff?: string[];
}

/**
 * The server these clients run against: every request asks for 32,000 tokens (their title request too) and random
 * weights seldom end a turn sooner (qtc serve --max-tokens-cap 512); each sends `tool_choice: "auto"` explicitly, so
 * the synthetic model's `required` default (for a request that names none) does not apply: --call-policy
 * required-first, as for Codex, makes turn 1 call a tool.
 */
export function startFamilyQtc(): Promise<Qtc> {
  return startQtc({ contextSize: 16_384, serve: { maxTokensCap: 512, callPolicy: "required-first" } });
}

function configure(client: OpencodeFamilyClient, home: string, baseUrl: string): void {
  const dir = join(home, ".config", client.bin);
  mkdirSync(dir, { recursive: true });
  const config = {
    $schema: client.configSchema,
    provider: { qtc: { npm: "@ai-sdk/openai-compatible", name: "qtc", options: { baseURL: `${baseUrl}/v1`, apiKey: "{env:QTC_API_KEY}" }, models: { [MODEL_NAME]: { name: MODEL_NAME } } } },
    model: `qtc/${MODEL_NAME}`,
    autoupdate: false,
    share: "disabled",
    ...(client.toolsOff ? { tools: Object.fromEntries(client.toolsOff.map((name) => [name, false])) } : {}),
  };
  writeFileSync(join(dir, `${client.bin}.json`), JSON.stringify(config, null, 2));
}

function switches(client: OpencodeFamilyClient): Record<string, string> {
  const names = ["AUTOUPDATE", "MODELS_FETCH", "DEFAULT_PLUGINS", "LSP_DOWNLOAD", "SHARE", ...(client.extraSwitches ?? [])];
  return Object.fromEntries(names.map((name) => [`${client.envPrefix}_DISABLE_${name}`, "1"]));
}

/** `BIN run "Read notes.txt …"` against `qtc`, and every assertion a user relies on. */
export async function expectFamilyRunExecutesACall(client: OpencodeFamilyClient, qtc: Qtc): Promise<void> {
  const s = scratch(client.bin);
  configure(client, s.home, qtc.url);
  const env = clientEnv(s, { QTC_API_KEY: API_KEY, ...switches(client) });
  const run = await runClient(client.bin, ["run", ...(client.runFlags ?? []), "Read notes.txt and tell me what it says."], { cwd: s.work, env, timeoutMs: 180_000 });
  const log = `exit ${run.code}${run.killed ? " (killed at the time bound)" : ""}\n${describeExchanges(qtc.exchanges)}\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-2500)}`;
  const t = agentTraffic(generations(qtc, "/v1/chat/completions"), "chat");

  // Turn 1 (a call) and turn 2 (its result) at least; a title request (no tools) may come first.
  expect(t.requests.length, log).toBeGreaterThanOrEqual(2);
  // Every request it waited for was answered (one it abandoned on exit, a background agent's, is not judged).
  for (const e of t.requests) if (!e.abandoned) expect(e.status, log).toBe(200);
  expect(t.requests.filter((e) => !e.abandoned).length, log).toBeGreaterThanOrEqual(2);
  expect(t.declared, log).toEqual(expect.arrayContaining(CORE_TOOLS));
  for (const name of client.toolsOff ?? []) expect(t.declared, log).not.toContain(name);
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
}
