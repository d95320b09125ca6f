// Owns: `npm run bench:maskbench`: flags, the data (a local copy or the cached download), the run over every
// schema with a progress line, the JSON result and MaskBench's table printed next to the published engines.

import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createLlama, ensureSyntheticModel, loadModel } from "../model/index.js";
import { dataFolder, DataError, ensureData } from "./maskbench-data.js";
import { MASKBENCH_DEFAULTS, renderTable, runSchemaFile, type SchemaResult, summarize } from "./maskbench.js";
import { readBenchFlags } from "./script-args.js";

const flags = readBenchFlags("bench:maskbench", {
  data: { type: "string" },
  limit: { type: "string" },
  sample: { type: "string" },
  policy: { type: "string", default: MASKBENCH_DEFAULTS.unsupported },
  "max-tokens": { type: "string", default: String(MASKBENCH_DEFAULTS.maxTokens) },
  out: { type: "string", default: "bench/results/maskbench.json" },
  only: { type: "string" },
});

async function main(): Promise<void> {
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
  let files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  if (flags.only) files = files.filter((f) => f.includes(flags.only!));
  const every = flags.sample ? Math.max(1, Math.round(files.length / Number(flags.sample))) : 1;
  files = files.filter((_, i) => i % every === 0);
  if (flags.limit) files = files.slice(0, Number(flags.limit));
  const policy = flags.policy === "validate" ? "validate" : "strict";
  const o = { ...MASKBENCH_DEFAULTS, unsupported: policy as "strict" | "validate", maxTokens: Number(flags["max-tokens"]) };
  const llama = await createLlama({ gpu: "cpu" });
  const model = await loadModel(llama, { path: await ensureSyntheticModel("tiny") });
  const results: SchemaResult[] = [];
  const t0 = Date.now();
  for (const [i, f] of files.entries()) {
    results.push(await runSchemaFile(model, dir, f, o));
    // llama.cpp's grammars live outside the JS heap: collect them now and then (when node runs with --expose-gc).
    if (i % 20 === 19) (globalThis as { gc?: () => void }).gc?.();
    if (i % 100 === 99 || i === files.length - 1) {
      const s = summarize(results);
      process.stderr.write(`maskbench: ${i + 1}/${files.length} schemas, ${s.passing} passing, ${s.compileErrors} compile errors, ${s.validationErrors} valid-rejected, ${s.invalidationErrors} invalid-accepted, ${s.crashes} crashes, ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    }
  }
  const summary = summarize(results);
  const label = `qtc (compileSchema, ${policy}, budget ${o.maxTokens})`;
  const failures = results.filter((r) => r.status !== "passing").map((r) => ({ file: r.file, status: r.status, code: r.code, message: r.message, validRejected: r.validRejected, invalidAccepted: r.invalidAccepted }));
  mkdirSync(dirname(flags.out!), { recursive: true });
  writeFileSync(flags.out!, JSON.stringify({ bench: "maskbench", label, options: o, files: files.length, summary, failures }, null, 1) + "\n");
  process.stdout.write(renderTable(summary, label) + "\n");
  await model.dispose();
}

void main();
