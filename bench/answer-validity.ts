// Owns: `npm run bench:answers`: answer validity with and without an answer constraint on the bench's tasks. Each
// task's prompt, the harness tools under tool choice "auto", and a request to end with a verdict: one row per
// constraint (regex, choice, grammar) and mode (constrained, unconstrained), counting turns that end as valid calls
// or as an answer the constraint accepts. Prints a table and writes JSON (default bench/results/answer-validity.json).

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createRuntime, type AnswerConstraint, type GenerationMode, type GenerateResult } from "../dist/index.js";
import { HARNESS_TOOLS, listTaskDirs, loadTask, makeStandIn } from "./lib/internals.js";
import { readBenchFlags, runBenchScript } from "./lib/script-args.js";

export const ANSWER_BENCH_DEFAULTS = Object.freeze({
  /** Model spec. Default: "synthetic:tiny". */
  model: "synthetic:tiny",
  /** Tasks (the first, by name). Default: 10. */
  tasks: 10,
  /** Seeds per task. Default: 2. */
  seeds: 2,
  /** Token budget of a turn. Default: 96. */
  maxTokens: 96,
  /** CPU threads. Default: 2. */
  threads: 2,
  /** Default: "bench/tasks". */
  taskRoot: "bench/tasks",
  /** Default: "bench/results/answer-validity.json". */
  out: "bench/results/answer-validity.json",
});

/** The constraints each task's turn runs under, with the instruction that asks for that answer. */
const CONSTRAINTS: ReadonlyArray<{ kind: string; constraint: AnswerConstraint; ask: string }> = [
  { kind: "regex", constraint: { regex: "(FIXED|BLOCKED): [a-z ]{1,40}" }, ask: 'When done, answer "FIXED: <what>" or "BLOCKED: <why>".' },
  { kind: "choice", constraint: { choice: ["FIXED", "BLOCKED", "UNSURE"] }, ask: "When done, answer FIXED, BLOCKED or UNSURE." },
  { kind: "grammar", constraint: { grammar: 'root ::= ("FIXED" | "BLOCKED") " (" [0-9]{1,2} " files)"' }, ask: 'When done, answer like "FIXED (2 files)".' },
];

export interface AnswerRow {
  constraint: string;
  mode: GenerationMode;
  turns: number;
  /** Turns ending as calls, all valid. */
  validCalls: number;
  /** Turns ending as a text answer. */
  answers: number;
  /** Answers the constraint accepts. */
  acceptedAnswers: number;
  /** (validCalls + acceptedAnswers) / turns. */
  validity: number;
}

function tally(rows: Map<string, AnswerRow>, kind: string, mode: GenerationMode, r: GenerateResult): void {
  const key = `${kind}/${mode}`;
  const row = rows.get(key) ?? { constraint: kind, mode, turns: 0, validCalls: 0, answers: 0, acceptedAnswers: 0, validity: 0 };
  row.turns++;
  if (r.toolCalls.length > 0 && r.errors.length === 0) row.validCalls++;
  if (r.toolCalls.length === 0 && r.errors.length === 0) {
    row.answers++;
    if (r.answer?.ok) row.acceptedAnswers++;
  }
  row.validity = (row.validCalls + row.acceptedAnswers) / row.turns;
  rows.set(key, row);
}

async function main(): Promise<void> {
  const v = readBenchFlags("qtc bench:answers", {
    model: { type: "string", default: ANSWER_BENCH_DEFAULTS.model },
    tasks: { type: "string", default: String(ANSWER_BENCH_DEFAULTS.tasks) },
    seeds: { type: "string", default: String(ANSWER_BENCH_DEFAULTS.seeds) },
    "max-tokens": { type: "string", default: String(ANSWER_BENCH_DEFAULTS.maxTokens) },
    threads: { type: "string", default: String(ANSWER_BENCH_DEFAULTS.threads) },
    out: { type: "string", default: ANSWER_BENCH_DEFAULTS.out },
  });
  const dirs = (await listTaskDirs(ANSWER_BENCH_DEFAULTS.taskRoot)).slice(0, Number(v.tasks));
  const tasks = await Promise.all(dirs.map((d) => loadTask(d)));
  const rt = await createRuntime({ model: v.model, threads: Number(v.threads), contextSize: 2048, standIns: makeStandIn });
  const rows = new Map<string, AnswerRow>();
  try {
    for (const c of CONSTRAINTS) {
      for (const mode of ["unconstrained", "constrained"] as const) {
        for (const task of tasks) {
          for (let seed = 0; seed < Number(v.seeds); seed++) {
            const messages = [{ role: "user" as const, content: `${task.prompt}\n${c.ask}` }];
            const r = await rt.generate({ messages, tools: [...HARNESS_TOOLS], toolChoice: "auto", mode, constraint: c.constraint, seed, maxTokens: Number(v["max-tokens"]) });
            tally(rows, c.kind, mode, r);
            process.stderr.write(".");
          }
        }
      }
    }
  } finally {
    await rt.close();
  }
  process.stderr.write("\n");
  const table = [...rows.values()];
  process.stdout.write(`answer validity, ${v.model}, ${tasks.length} tasks × ${v.seeds} seeds, tool choice auto\n`);
  process.stdout.write("constraint  mode           turns  valid calls  answers  accepted  validity\n");
  for (const r of table) {
    process.stdout.write(`${r.constraint.padEnd(12)}${r.mode.padEnd(15)}${String(r.turns).padStart(5)}  ${String(r.validCalls).padStart(11)}  ${String(r.answers).padStart(7)}  ${String(r.acceptedAnswers).padStart(8)}  ${(r.validity * 100).toFixed(1).padStart(7)}%\n`);
  }
  mkdirSync(dirname(v.out), { recursive: true });
  writeFileSync(v.out, JSON.stringify({ model: v.model, tasks: tasks.map((t) => t.id), seeds: Number(v.seeds), rows: table }, null, 2) + "\n");
}

await runBenchScript("qtc bench:answers", main);
