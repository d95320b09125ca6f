// Owns: qwen-code (`qwen -p`, OpenAI Chat Completions, streamed) against qtc serve, configured as its README says
// (~/.qwen/settings.json: one OpenAI-protocol provider with the base URL, the variable holding the key, the model
// name; usage statistics, telemetry and update checks off): it sends its real tool list, gets structured
// tool_calls and executes one.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentTraffic, chatCalls, declaredTools } from "./calls.js";
import { API_KEY, CAN_TRACE, CLIENT_NODE_MAJOR, clientEnv, clientPackage, describeExchanges, generations, minimumNodeMajor, MODEL_NAME, type Qtc, runClient, scratch, startQtc } from "./harness.js";

/**
 * Per version: the tools it declares for sure, and how a run that qtc served well ends (the client's own guard,
 * never an API error). 0.24.4 (issue 40) has no list_directory, and its loop guard (always on) may end a run of
 * the random-weights model's repeated call before the turn limit does.
 */
const EXPECT: Record<string, { core: string[]; end: RegExp }> = {
  "@qwen-code/qwen-code": { core: ["agent", "read_file", "list_directory", "grep_search", "glob"], end: /Reached max session turns/ },
  "qwen-code-new": { core: ["agent", "read_file", "grep_search", "glob"], end: /Reached max session turns|Loop detection halted the run/ },
};

function configure(home: string, baseUrl: string): void {
  mkdirSync(join(home, ".qwen"));
  const settings = {
    modelProviders: { openai: [{ id: MODEL_NAME, name: MODEL_NAME, baseUrl: `${baseUrl}/v1`, envKey: "QTC_API_KEY" }] },
    security: { auth: { selectedType: "openai" } },
    model: { name: MODEL_NAME },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
  };
  writeFileSync(join(home, ".qwen", "settings.json"), JSON.stringify(settings, null, 2));
}

/**
 * The versions the suite runs, each against its own qtc serve: the one pinned since the suite began, and the
 * newest (issue 40), which needs Node ≥ 22 (.ci/run puts Node 24 first on PATH for this suite).
 */
const VERSIONS = ["@qwen-code/qwen-code", "qwen-code-new"].map((name) => ({ name, pkg: clientPackage(name) }));

for (const { name, pkg } of VERSIONS) {
  const skip = pkg === null ? `${name} is not installed (npm ci in test/clients/)` : CLIENT_NODE_MAJOR < minimumNodeMajor(pkg.node) ? `it needs Node ${pkg.node}, the node on PATH is ${CLIENT_NODE_MAJOR}` : null;
  describe.skipIf(skip !== null)(`qwen-code ${pkg?.version ?? name} on qtc serve${skip ? ` (skipped: ${skip})` : ""}`, () => {
    let qtc: Qtc;
    beforeAll(async () => {
      qtc = await startQtc();
    }, 120_000);
    afterAll(async () => {
      await qtc?.close();
    });

    it("qwen -p --max-session-turns 2: its real tool list, structured tool_calls, the call executed, nothing off the machine", { timeout: 300_000 }, async () => {
      const s = scratch("qwen");
      configure(s.home, qtc.url);
      // qwen-code sends loopback through HTTPS_PROXY too (it ignores NO_PROXY), so no dead proxy: strace checks egress.
      const env = clientEnv(s, { QTC_API_KEY: API_KEY }, { deadProxy: false });
      const run = await runClient(pkg!.bins.qwen!, ["-p", "Read notes.txt and tell me what it says.", "--max-session-turns", "2"], { cwd: s.work, env, timeoutMs: 240_000 });
      const log = `exit ${run.code}${run.killed ? " (killed at the time bound)" : ""}\n${describeExchanges(qtc.exchanges)}\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-1500)}`;
      const t = agentTraffic(generations(qtc, "/v1/chat/completions"), "chat");

      // 0.24.4's loop guard may stop the run on the first answer (the random-weights model's calls repeat), before
      // it runs a call: then one answered request is all there is to judge.
      const halted = name === "qwen-code-new" && /Loop detection halted the run/.test(run.stderr);
      const turns = halted ? 1 : 2;
      expect(t.requests.length, log).toBeGreaterThanOrEqual(turns);
      // Every request it waited for was answered (one it abandoned on exit, a background agent's, is not judged).
      for (const e of t.requests) if (!e.abandoned) expect(e.status, log).toBe(200);
      expect(t.requests.filter((e) => !e.abandoned).length, log).toBeGreaterThanOrEqual(turns);
      expect(t.declared, log).toEqual(expect.arrayContaining(EXPECT[name]!.core));
      expect(t.calls.length, log).toBeGreaterThanOrEqual(1);
      for (const c of t.calls) expect(() => JSON.parse(c.args as string), log).not.toThrow();
      // Each call names a tool its own request declared. The lists differ from request to request in both versions:
      // 0.15.10 reveals deferred tools after a tool_search call (exit_plan_mode, say) and runs background agents with
      // a list of their own; 0.24.4 also sends its structured-output helper (respond_in_schema). So each call is
      // judged against the request it answered, never against the first list.
      for (const e of t.requests) if (e.status === 200) for (const c of chatCalls(e)) expect(declaredTools(e), log).toContain(c.name);
      if (t.requests.length >= 2 || !halted) expect(t.results.length, log).toBeGreaterThanOrEqual(1);
      for (const r of t.results) expect(r.text.length, log).toBeGreaterThan(0);
      // Its session-turn limit (exit 53) or its loop guard ended the run, not an API error.
      expect(run.stderr, log).toMatch(EXPECT[name]!.end);
      expect(run.stderr, log).not.toMatch(/API Error/);
      expect(run.killed, log).toBe(false);
      if (CAN_TRACE) expect(run.egress, log).toEqual([]);
    });
  });
}
