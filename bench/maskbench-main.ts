// Owns: `npm run bench:maskbench`: flags, the data (a local copy or the cached download), the run over every
// schema with a progress line, the JSON result and MaskBench's table printed next to the published engines.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureSyntheticModel } from "../dist/index.js";
import { createLlama, loadModel } from "./lib/internals.js";
import { CHECKERS, EngineTables, type CheckerId } from "./lib/maskbench-check.js";
import { dataFolder, DataError, ensureData, selectSchemaFiles } from "./lib/maskbench-data.js";
import { MASKBENCH_DEFAULTS, renderTable, runSchemaFile, type SchemaResult, summarize } from "./lib/maskbench.js";
import { readBenchFlags } from "./lib/script-args.js";

const flags = readBenchFlags("bench:maskbench", {
  data: { type: "string" },
  limit: { type: "string" },
  sample: { type: "string" },
  policy: { type: "string", default: MASKBENCH_DEFAULTS.unsupported },
  split: { type: "string", default: MASKBENCH_DEFAULTS.budgetSplit },
  checker: { type: "string", default: MASKBENCH_DEFAULTS.checker },
  "max-tokens": { type: "string", default: String(MASKBENCH_DEFAULTS.maxTokens) },
  out: { type: "string", default: "bench/results/maskbench.json" },
  only: { type: "string" },
  skip: { type: "string" },
  chunk: { type: "string" },
  raw: { type: "string" },
  merge: { type: "string" },
});

/**
 * A schema still running after this long is stopped and counts as a timeout (the bench's limit is 60 s; one
 * schema once ran past 43 minutes and held up a whole run).
 */
const SCHEMA_KILL_MS = 3 * MASKBENCH_DEFAULTS.timeoutMs;
/** A chunk's allowance: one slow schema, and 20 s for each of the others (most take well under a second). */
const chunkKillMs = (schemas: number) => SCHEMA_KILL_MS + schemas * 20_000;

/**
 * A chunk whose child died (a crash outside a schema's own try, e.g. in llama.cpp) or ran too long: its schemas one
 * per child; one whose child dies is a crash, one still running after SCHEMA_KILL_MS a timeout.
 */
function runOneByOne(args: readonly string[], skip: number, size: number, raw: string): SchemaResult[] {
  const out: SchemaResult[] = [];
  for (let i = skip; i < skip + size; i++) {
    const one = args.map((a, j) => (args[j - 1] === "--skip" ? String(i) : args[j - 1] === "--limit" ? "1" : a));
    const child = spawnSync(process.execPath, one, { stdio: ["ignore", "ignore", "inherit"], timeout: SCHEMA_KILL_MS, killSignal: "SIGKILL" });
    const empty = { file: `#${i}`, tests: 0, validRejected: 0, artefacts: {}, invalidAccepted: 0, labelDisputes: 0, maskUs: [] };
    if (child.status === 0) out.push(...(JSON.parse(readFileSync(raw, "utf8")) as SchemaResult[]));
    // Past the kill time it would have counted as a timeout anyway (over MASKBENCH_DEFAULTS.timeoutMs).
    else if (child.error && (child.error as NodeJS.ErrnoException).code === "ETIMEDOUT") out.push({ ...empty, status: "timeout", code: `killed after ${SCHEMA_KILL_MS / 1000} s` });
    else out.push({ ...empty, status: "crash", code: `exit ${child.status ?? child.signal}` });
  }
  return out;
}

/**
 * Run the schemas in child processes of `size` schemas each: llama.cpp's grammars live outside the JS heap and
 * the process grows with every schema (about 3-20 MB each), so a full run in one process outgrows the machine.
 */
function runInChunks(count: number, size: number): SchemaResult[] {
  const tmp = mkdtempSync(join(tmpdir(), "qtc-maskbench-"));
  const results: SchemaResult[] = [];
  const passOn = process.argv.slice(2).filter((_, i, a) => !["--chunk", "--skip", "--limit", "--raw", "--out"].includes(a[i]!) && !["--chunk", "--skip", "--limit", "--raw", "--out"].includes(a[i - 1]!));
  try {
    for (let skip = 0; skip < count; skip += size) {
      const raw = join(tmp, "chunk.json");
      // Children pick their schemas from the sampled list the parent's own --skip starts in.
      const from = Number(flags.skip ?? 0) + skip;
      // The last chunk stops at the parent's own end (it ran into the schemas after them, counted twice).
      const take = Math.min(size, count - skip);
      const args = ["--expose-gc", fileURLToPath(import.meta.url), ...passOn, "--skip", String(from), "--limit", String(take), "--raw", raw, "--out", join(tmp, "out.json")];
      // A chunk that runs past its allowance is run again one schema per child, each with its own kill time.
      const child = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"], timeout: chunkKillMs(take), killSignal: "SIGKILL" });
      if (child.status === 0) results.push(...(JSON.parse(readFileSync(raw, "utf8")) as SchemaResult[]));
      else results.push(...runOneByOne(args, from, take, raw));
      if (flags.raw) writeFileSync(flags.raw, JSON.stringify(results));
      const s = summarize(results);
      process.stderr.write(`maskbench: ${results.length}/${count} schemas (chunks), ${s.passing} passing, ${s.compileErrors} compile errors, ${s.validationErrors} valid-rejected, ${s.invalidationErrors} invalid-accepted, ${s.crashes} crashes\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return results;
}

/** Write the JSON result and print the table for these results. */
function report(results: readonly SchemaResult[], files: number, o: typeof MASKBENCH_DEFAULTS): void {
  const summary = summarize(results);
  const label = `qtc (compileSchema, ${o.unsupported}, budget ${o.maxTokens} ${o.budgetSplit}, checked by ${o.checker === "qtc" ? "qtc's engine + key guard" : "qtc's engine, the grammar alone"})`;
  const failures = results.filter((r) => r.status !== "passing").map((r) => ({ file: r.file, status: r.status, code: r.code, message: r.message, validRejected: r.validRejected, invalidAccepted: r.invalidAccepted }));
  mkdirSync(dirname(flags.out!), { recursive: true });
  writeFileSync(flags.out!, JSON.stringify({ bench: "maskbench", label, options: o, files, summary, failures }, null, 1) + "\n");
  process.stdout.write(renderTable(summary, label) + "\n");
}

/** The --checker flag (qtc or grammar); anything else is refused. */
function checkerFlag(): CheckerId {
  const id = flags.checker as CheckerId;
  if (CHECKERS.includes(id)) return id;
  process.stderr.write(`bench:maskbench: --checker must be one of ${CHECKERS.join(", ")}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  if (flags.merge) {
    // Results of runs over parts of the data (their --raw files), reported as one run.
    const results = flags.merge.split(",").flatMap((f) => JSON.parse(readFileSync(f, "utf8")) as SchemaResult[]);
    const budgetSplit = flags.split === "worst-case" ? "worst-case" : "shared";
    report(results, results.length, { ...MASKBENCH_DEFAULTS, unsupported: flags.policy === "validate" ? "validate" : "strict", budgetSplit, checker: checkerFlag(), maxTokens: Number(flags["max-tokens"]) });
    return;
  }
  let dir: string | undefined;
  try {
    dir = flags.data ? dataFolder(flags.data) : await ensureData();
  } catch (e) {
    if (e instanceof DataError) {
      process.stderr.write(e.message + "\n");
      process.exit(1);
    }
    throw e;
  }
  if (!dir) {
    process.stderr.write(`bench:maskbench: ${flags.data} holds no MaskBench schema files (*.json, or maskbench/data/*.json)\n`);
    process.exit(2);
  }
  const files = selectSchemaFiles(dir, { only: flags.only, sample: flags.sample ? Number(flags.sample) : undefined, skip: flags.skip ? Number(flags.skip) : undefined, limit: flags.limit ? Number(flags.limit) : undefined });
  const policy = flags.policy === "validate" ? "validate" : "strict";
  const budgetSplit = flags.split === "worst-case" ? "worst-case" : "shared";
  const o = { ...MASKBENCH_DEFAULTS, unsupported: policy as "strict" | "validate", budgetSplit: budgetSplit as "shared" | "worst-case", checker: checkerFlag(), maxTokens: Number(flags["max-tokens"]) };
  const results: SchemaResult[] = flags.chunk ? runInChunks(files.length, Number(flags.chunk)) : await runHere(dir, files, o);
  if (flags.raw && !flags.chunk) {
    writeFileSync(flags.raw, JSON.stringify(results));
    return;
  }
  report(results, files.length, o);
}

/** Run the schemas in this process (one model, checked one by one). */
async function runHere(dir: string, files: readonly string[], o: typeof MASKBENCH_DEFAULTS): Promise<SchemaResult[]> {
  const llama = await createLlama({ gpu: "cpu" });
  const model = await loadModel(llama, { path: await ensureSyntheticModel("tiny") });
  const engine = o.checker === "qtc" ? EngineTables.create(model) : undefined;
  const results: SchemaResult[] = [];
  const t0 = Date.now();
  for (const [i, f] of files.entries()) {
    results.push(await runSchemaFile(model, engine, dir, f, o));
    // llama.cpp's grammars live outside the JS heap: collect them now and then (when node runs with --expose-gc).
    if (i % 20 === 19) (globalThis as { gc?: () => void }).gc?.();
    if (i % 100 === 99 || i === files.length - 1) {
      const s = summarize(results);
      process.stderr.write(`maskbench: ${i + 1}/${files.length} schemas, ${s.passing} passing, ${s.compileErrors} compile errors, ${s.validationErrors} valid-rejected, ${s.invalidationErrors} invalid-accepted, ${s.crashes} crashes, ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    }
  }
  await model.dispose();
  return results;
}

void main();
