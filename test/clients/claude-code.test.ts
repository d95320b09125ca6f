// Owns: Claude Code (`claude -p … --max-turns 2`, Anthropic Messages, streamed) against qtc serve, started as
// its README says with only the base URL, key and model name set (plus its switches for telemetry, error
// reports and updates): it sends its real tool list, gets structured tool_use blocks and executes one.

import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentTraffic, type ReturnedCall, type SentResult } from "./calls.js";
import { API_KEY, CAN_TRACE, CLIENT_NODE_MAJOR, clientEnv, clientPackage, describeExchanges, generations, minimumNodeMajor, MODEL_NAME, type Qtc, runClient, scratch, startQtc } from "./harness.js";

/**
 * What each version declares in its first request, its sub-agent tool held back (SUB_AGENT). 2.1.197: 23 tools
 * here (24 with Agent; the issue counted 25 in another build). 2.1.332 (issue 40): 11 (12 with Agent), the rest
 * deferred behind its ToolSearch tool (WebFetch, WebSearch and NotebookEdit are no longer sent up front).
 */
const DECLARES: Record<string, { core: string[]; atLeast: number }> = {
  "@anthropic-ai/claude-code": { core: ["Bash", "Edit", "Read", "Write", "WebFetch", "WebSearch", "NotebookEdit"], atLeast: 20 },
  "claude-code-new": { core: ["Bash", "Edit", "Read", "Write", "ToolSearch"], atLeast: 10 },
};
/**
 * Claude Code's sub-agent tool, turned off as its users turn a tool off (`--disallowedTools`): a sub-agent runs a
 * loop of its own that `--max-turns` does not bound, and random weights call tools on every turn, so a run whose
 * model picked Agent asked for generations until the time bound (2 of 7 runs of 2.1.197, one CI run of 2.1.332;
 * 21-tool requests with 5, 7, … 49 messages after the two turns).
 */
const SUB_AGENT = "Agent";
// Claude Code's own answers when it does not run a call: an unknown tool, input its schema refuses.
const NOT_RUN = /No such tool available|InputValidationError/;
/**
 * A rule of Claude Code's own that the schema it declares does not state: both versions refuse a Bash command that
 * holds a control character other than tab and LF (C0 with CR, DEL, C1: "command contains control characters that
 * would be hidden in the approval dialog"); the declared `command` is only `{"type": "string"}`. Random weights write
 * such a character now and then (the qwen3.8 case of the CI run of stop 61; 0 of 6 runs here). A call refused for
 * this alone is judged on what qtc owns: its input satisfies the declared schema (checked for every call) and the
 * field Claude Code names does hold such a character.
 */
const HIDDEN_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const HIDDEN_CONTROL_REFUSAL = /control characters that would be hidden in the approval dialog/;

/** The input schema a call's tool declared, judged as its draft says (Claude Code's schemas name draft-07 or 2020-12). */
function schemaErrors(schema: unknown, input: unknown): string | null {
  const draft2020 = typeof schema === "object" && schema !== null && String((schema as { $schema?: unknown }).$schema ?? "").includes("2020-12");
  const ajv = draft2020 ? new Ajv2020({ strict: false, validateFormats: false }) : new Ajv({ strict: false, validateFormats: false });
  const validate = ajv.compile(schema as object);
  return validate(input) ? null : ajv.errorsText(validate.errors);
}

/** True when the result is Claude Code refusing the call only for its hidden-control-character rule, and the named fields hold one. */
function refusedForHiddenControl(result: SentResult, call: ReturnedCall | undefined): boolean {
  const issues = /InputValidationError: (\[[\s\S]*\])<\/tool_use_error>/.exec(result.text)?.[1];
  if (issues === undefined || call === undefined) return false;
  const list = JSON.parse(issues) as { message?: string; path?: unknown[] }[];
  return list.length > 0 && list.every((i) => HIDDEN_CONTROL_REFUSAL.test(i.message ?? "") && i.path?.length === 1 && HIDDEN_CONTROL.test(String((call.args as Record<string, unknown>)[String(i.path[0])])));
}

/**
 * The versions the suite runs, each against its own qtc serve: the one pinned since the suite began, and the
 * newest (issue 40), which needs Node ≥ 22 (.ci/run puts Node 24 first on PATH for this suite).
 */
const VERSIONS = ["@anthropic-ai/claude-code", "claude-code-new"].map((name) => ({ name, pkg: clientPackage(name) }));
/**
 * The models each version runs on: the synthetic tiny Qwen3, and for the newest also the Qwen3.8 stand-in (issue 51:
 * Qwen3.8's template, XML calls and Qwen3.5's special tokens), with nothing but the base URL, key and model name
 * set: no CLAUDE_CODE_MODEL_CAPABILITIES (clientEnv passes no variable it is not given).
 */
const CASES = VERSIONS.flatMap((v) => [{ ...v, model: "synthetic:tiny" }, ...(v.name === "claude-code-new" ? [{ ...v, model: "synthetic:qwen3.8-tiny" }] : [])]);

for (const { name, pkg, model } of CASES) {
  const skip = pkg === null ? `${name} is not installed (npm ci in test/clients/)` : CLIENT_NODE_MAJOR < minimumNodeMajor(pkg.node) ? `it needs Node ${pkg.node}, the node on PATH is ${CLIENT_NODE_MAJOR}` : null;
  describe.skipIf(skip !== null)(`Claude Code ${pkg?.version ?? name} on qtc serve --model ${model}${skip ? ` (skipped: ${skip})` : ""}`, () => {
    let qtc: Qtc;
    beforeAll(async () => {
      qtc = await startQtc({ model, serve: { maxTokensCap: 512 } }); // it asks for 32,000 tokens; random weights would spend them all (qtc serve --max-tokens-cap 512)
      if (model !== "synthetic:tiny") expect(qtc.format).toBe("qwen38");
    }, 120_000);
    afterAll(async () => {
      await qtc?.close();
    });

    it("claude -p --max-turns 2: its real tool list, a structured tool_use, the call executed, nothing off the machine", { timeout: 240_000 }, async () => {
      const s = scratch("claude");
      const env = clientEnv(s, {
        ANTHROPIC_BASE_URL: qtc.url,
        ANTHROPIC_API_KEY: API_KEY,
        ANTHROPIC_MODEL: MODEL_NAME,
        // Offline: no telemetry, error reports, auto-update or other traffic that is not the model's.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        DISABLE_AUTOUPDATER: "1",
      });
      expect(env.CLAUDE_CODE_MODEL_CAPABILITIES).toBeUndefined();
      const run = await runClient(pkg!.bins.claude!, ["-p", "Read notes.txt and tell me what it says.", "--max-turns", "2", "--disallowedTools", SUB_AGENT, "--output-format", "json"], { cwd: s.work, env, timeoutMs: 180_000 });
      const log = `exit ${run.code}${run.killed ? " (killed at the time bound)" : ""}\n${describeExchanges(qtc.exchanges)}\nstdout: ${run.stdout.slice(0, 1500)}\nstderr: ${run.stderr.slice(-1500)}`;
      const t = agentTraffic(generations(qtc, "/v1/messages"), "anthropic");

      // Every generation it asked for was answered; two turns ran (its turn limit, not an error, ended it).
      expect(t.requests.length, log).toBeGreaterThanOrEqual(2);
      // Every request it waited for was answered (one it abandoned on exit, a background agent's, is not judged).
      for (const e of t.requests) if (!e.abandoned) expect(e.status, log).toBe(200);
      expect(t.requests.filter((e) => !e.abandoned).length, log).toBeGreaterThanOrEqual(2);
      expect(t.declared, log).toEqual(expect.arrayContaining(DECLARES[name]!.core));
      expect(t.declared, log).not.toContain(SUB_AGENT);
      expect(t.declared.length, log).toBeGreaterThanOrEqual(DECLARES[name]!.atLeast);
      // A structured call came back, naming a tool it declared.
      expect(t.calls.length, log).toBeGreaterThanOrEqual(1);
      for (const c of t.calls) expect(t.declared, log).toContain(c.name);
      // Each call's input satisfies the schema Claude Code declared for its tool.
      for (const c of t.calls) expect(schemaErrors(t.schemas.get(c.name), c.args), `${c.name} ${JSON.stringify(c.args)}\n${log}`).toBeNull();
      // It ran the call and sent the tool's own answer back in turn 2 (or refused it by its own rule alone, above).
      expect(t.results.length, log).toBeGreaterThanOrEqual(1);
      for (const r of t.results) {
        if (refusedForHiddenControl(r, t.calls.find((c) => c.id === r.id))) continue;
        expect(r.text, log).not.toMatch(NOT_RUN);
      }
      // It ended by itself, inside the time bound, so its JSON result is whole.
      expect(run.killed, log).toBe(false);
      const result = JSON.parse(run.stdout) as { subtype: string; num_turns: number; api_error_status?: number };
      expect(result.api_error_status, log).toBeUndefined();
      expect(result.subtype, log).toBe("error_max_turns");
      if (CAN_TRACE) expect(run.egress, log).toEqual([]);
    });
  });
}
