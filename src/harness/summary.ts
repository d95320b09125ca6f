// Owns: the readable summary of one agent run that `qtc agent` prints.

import type { AgentRun } from "./types.js";

const counts = (map: Partial<Record<string, number>>): string =>
  Object.entries(map)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");

function shortArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => {
      const s = typeof v === "string" ? v : JSON.stringify(v);
      const shown = s.length > 40 ? `${s.slice(0, 37)}…` : s;
      return `${k}=${JSON.stringify(shown)}`;
    })
    .join(", ");
}

/** A few lines a person can read: the run's settings, one line per turn, and the outcome. */
export function formatRunSummary(run: AgentRun, transcript?: string): string {
  const lines: string[] = [];
  const c = run.counts;
  lines.push(`task     ${run.task}  (${run.taskDir})`);
  lines.push(
    `model    ${run.model}${run.synthetic ? " (synthetic: figures test qtc, not model quality)" : ""}  mode ${run.mode}  seed ${run.seed}`,
  );
  for (const t of run.turns) {
    const parts = t.results.map((r) => {
      if (r.code === "rejected_call") return `rejected block [${r.reason ?? "?"}]`;
      const call = t.calls.find((x) => x.id === r.callId);
      return `${r.name}(${call ? shortArgs(call.arguments) : ""}) -> ${r.code}`;
    });
    const what = parts.length ? parts.join("; ") : `final answer: ${JSON.stringify(oneLine(t.content, 80))}`;
    lines.push(`turn ${String(t.index + 1).padStart(2)}  ${what}`);
  }
  const invalid = c.invalid ? ` (${counts(c.invalidByReason)})` : "";
  lines.push(`turns    ${c.turns} of ${run.maxTurns}`);
  lines.push(`calls    ${c.blocks} blocks: ${c.valid} valid, ${c.invalid} invalid${invalid}`);
  const toolErrors = counts(c.toolErrorsByCode);
  lines.push(`errors   ${toolErrors || "no tool errors"}`);
  lines.push(`status   ${run.status}${run.error ? ` (${run.error})` : ""}`);
  const ft = run.finalTests;
  const testsWhy = ft.timedOut ? "timed out" : ft.tests !== null ? `${ft.tests} tests` : `exit code ${ft.exitCode}`;
  lines.push(`tests    ${run.testsPassed ? "passed" : "failed"} (${testsWhy}, ${ft.ms} ms)`);
  lines.push(`tokens   prompt ${run.tokens.prompt}, completion ${run.tokens.completion}, forced ${run.tokens.forced}`);
  lines.push(`time     ${(run.timings.totalMs / 1000).toFixed(1)} s (model ${(run.timings.generateMs / 1000).toFixed(1)} s, tools ${(run.timings.toolsMs / 1000).toFixed(1)} s)`);
  if (transcript) lines.push(`transcript ${transcript}`);
  return lines.join("\n");
}

function oneLine(text: string, max: number): string {
  const s = text.replace(/\s+/g, " ").trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
