// Owns: `npm run bench:parse`: post-parser throughput (batch, 16-byte and 1-byte streaming) on a generated
// corpus, next to a naive baseline (the open/close-tag regex plus JSON.parse) measured in the same run.
// Prints a table and writes JSON (default bench/results/parse-speed.json).

import { Buffer } from "node:buffer";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname } from "node:path";
import { hermes, qwen3coder, QWEN3_TOKENS, createParser, parse, compileValidators } from "../dist/index.js";
import { renderToolCall, seededRandom } from "./lib/internals.js";

export const PARSE_BENCH_DEFAULTS = Object.freeze({
  /** Corpus size in MB (10^6 UTF-8 bytes). */
  corpusMb: 4,
  /** Measuring time per fast mode, in seconds (interleaved rounds after one warm-up pass; see measureAll). */
  seconds: 2,
  /** PRNG seed of the corpus. */
  seed: 42,
  out: "bench/results/parse-speed.json",
  /** Targets from issue 3. */
  minBatchRatio: 0.5,
  minStream16MBps: 20,
});

const OPEN = hermes.open.text;
const CLOSE = hermes.close.text;
const THINK = [QWEN3_TOKENS.thinkOpen.text, QWEN3_TOKENS.thinkClose.text] as const;

const TOOLS = compileValidators([
  { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "list_files", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "grep", parameters: { type: "object", properties: { pattern: { type: "string" }, path: { type: "string" } }, required: ["pattern", "path"] } },
  { name: "write_file", parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] } },
  { name: "run_tests", parameters: { type: "object", properties: {} } },
  {
    name: "search",
    parameters: {
      type: "object",
      properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 50 }, mode: { type: "string", enum: ["fast", "exact"] } },
      required: ["query"],
    },
  },
]);

// ---- corpus ------------------------------------------------------------------------------------------------

const WORDS = "the a file test function returns value parser call read write module import export error fix check line code node array string object index src lib path result".split(" ");

function makeDoc(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const sentence = () => Array.from({ length: 6 + Math.floor(r() * 14) }, () => pick(WORDS)).join(" ") + ".";
  const paragraph = () => Array.from({ length: 2 + Math.floor(r() * 5) }, sentence).join(" ");
  const code = () => Array.from({ length: 3 + Math.floor(r() * 12) }, () => `  const ${pick(WORDS)} = ${pick(WORDS)}(${pick(WORDS)});`).join("\n");
  const path = () => `src/${pick(WORDS)}/${pick(WORDS)}.ts`;
  const hermesCall = (name: string, args: Record<string, unknown>) => `${OPEN}\n{"name": "${name}", "arguments": ${JSON.stringify(args).replace(/","/g, '", "').replace(/":/g, '": ')}}\n${CLOSE}`;
  const xmlCall = (name: string, args: Record<string, string>) => renderToolCall({ name, arguments: args }, qwen3coder);
  const validCall = () => {
    const xml = r() < 0.5;
    const k = r();
    if (k < 0.35) return xml ? xmlCall("read_file", { path: path() }) : hermesCall("read_file", { path: path() });
    if (k < 0.6) {
      const content = code();
      return xml ? xmlCall("write_file", { path: path(), content }) : hermesCall("write_file", { path: path(), content });
    }
    if (k < 0.8) return xml ? xmlCall("grep", { pattern: pick(WORDS), path: "src" }) : hermesCall("grep", { pattern: pick(WORDS), path: "src" });
    return xml ? xmlCall("search", { query: sentence(), limit: String(1 + Math.floor(r() * 20)) }) : hermesCall("search", { query: sentence(), limit: 1 + Math.floor(r() * 20) });
  };
  const invalidCall = () => {
    const k = r();
    if (k < 0.25) return hermesCall("delete_everything", { path: "/" });
    if (k < 0.5) return `${OPEN}\n{"name": "write_file", "arguments": {"path": "${path()}", "content": "${code()}"}}\n${CLOSE}`; // raw newlines
    if (k < 0.75) return xmlCall("read_file", { file: path() });
    return hermesCall("search", { query: "q", limit: "many" });
  };
  const parts: string[] = [];
  if (r() < 0.7) parts.push(`${THINK[0]}\n${paragraph()}\n${paragraph()}\n${THINK[1]}\n\n`);
  const blocks = 3 + Math.floor(r() * 8);
  for (let i = 0; i < blocks; i++) {
    const k = r();
    if (k < 0.45) parts.push(paragraph());
    else if (k < 0.6) parts.push("```ts\n" + code() + "\n```");
    else if (k < 0.9) parts.push(validCall());
    else parts.push(invalidCall());
  }
  if (r() < 0.1) parts.push(hermesCall("write_file", { path: path(), content: code() }).slice(0, 80)); // cut off
  return parts.join("\n");
}

export function makeCorpus(mb: number, seed: number): string[] {
  const r = seededRandom(seed);
  const docs: string[] = [];
  let bytes = 0;
  while (bytes < mb * 1e6) {
    const doc = makeDoc(r);
    docs.push(doc);
    bytes += Buffer.byteLength(doc);
  }
  return docs;
}

// ---- modes -------------------------------------------------------------------------------------------------

const NAIVE = new RegExp(`${esc(OPEN)}(.*?)${esc(CLOSE)}|${esc(OPEN)}(.*)`, "gs");

function naive(docs: readonly string[]): number {
  let ok = 0;
  for (const doc of docs) {
    for (const m of doc.matchAll(NAIVE)) {
      try {
        JSON.parse((m[1] ?? m[2] ?? "").trim());
        ok++;
      } catch {
        /* counted as invalid */
      }
    }
  }
  return ok;
}

function batch(docs: readonly string[]): number {
  let calls = 0;
  for (const doc of docs) calls += parse(doc, { tools: TOOLS }).calls.length;
  return calls;
}

function streaming(docs: readonly string[], size: number): number {
  let calls = 0;
  for (const doc of docs) {
    const p = createParser({ tools: TOOLS });
    for (let i = 0; i < doc.length; i += size) for (const e of p.feed(doc.slice(i, i + size))) if (e.type === "call") calls++;
    for (const e of p.end()) if (e.type === "call") calls++;
  }
  return calls;
}

/**
 * Time the modes on the corpus split into groups, in interleaved rounds (so a busy machine slows all modes
 * alike), until `seconds` per fast mode have passed; the slow mode then gets `slowRounds` rounds of its own.
 * A mode's time is the sum over groups of its best time on each group (the min-of-N estimate of the
 * undisturbed time).
 */
function measureAll(
  modes: Record<string, (docs: readonly string[]) => number>,
  groups: readonly (readonly string[])[],
  bytes: number,
  seconds: number,
  slow: string,
  slowRounds = 3,
): Record<string, { mbps: number; rounds: number; result: number }> {
  const names = Object.keys(modes);
  const best = new Map(names.map((n) => [n, groups.map(() => Infinity)]));
  const rounds = new Map(names.map((n) => [n, 0]));
  const result = new Map(names.map((n) => [n, groups.reduce((sum, g) => sum + modes[n]!(g), 0)])); // warm-up
  const round = (name: string) => {
    const times = best.get(name)!;
    groups.forEach((group, i) => {
      const t0 = performance.now();
      modes[name]!(group);
      times[i] = Math.min(times[i]!, performance.now() - t0);
    });
    rounds.set(name, rounds.get(name)! + 1);
  };
  const fast = names.filter((n) => n !== slow);
  const deadline = performance.now() + seconds * 1000 * fast.length;
  do for (const name of fast) round(name);
  while (performance.now() < deadline || rounds.get(fast[0]!)! < 3);
  if (names.includes(slow)) for (let i = 0; i < slowRounds; i++) round(slow);
  return Object.fromEntries(
    names.map((n) => {
      const ms = best.get(n)!.reduce((a, b) => a + b, 0);
      return [n, { mbps: bytes / 1e6 / (ms / 1000), rounds: rounds.get(n)!, result: result.get(n)! }];
    }),
  );
}

function groupsOf(docs: readonly string[], groupBytes: number): string[][] {
  const groups: string[][] = [[]];
  let size = 0;
  for (const doc of docs) {
    if (size >= groupBytes) {
      groups.push([]);
      size = 0;
    }
    groups[groups.length - 1]!.push(doc);
    size += doc.length;
  }
  return groups;
}

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// ---- main --------------------------------------------------------------------------------------------------

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function main(): void {
  const d = PARSE_BENCH_DEFAULTS;
  const mb = Number(arg("mb") ?? d.corpusMb);
  const seconds = Number(arg("seconds") ?? d.seconds);
  const out = arg("out") ?? d.out;
  const docs = makeCorpus(mb, d.seed);
  const bytes = docs.reduce((n, doc) => n + Buffer.byteLength(doc), 0);
  const summary = { detected: 0, accepted: 0, rejected: {} as Record<string, number> };
  for (const doc of docs) {
    const d = parse(doc, { tools: TOOLS }).diagnostics;
    summary.detected += d.detected;
    summary.accepted += d.accepted;
    for (const [reason, n] of Object.entries(d.rejected)) summary.rejected[reason] = (summary.rejected[reason] ?? 0) + n;
  }
  const modes = measureAll(
    { naive, batch, stream16: (g) => streaming(g, 16), stream1: (g) => streaming(g, 1) },
    groupsOf(docs, 128_000),
    bytes,
    seconds,
    "stream1",
  ) as Record<"naive" | "batch" | "stream16" | "stream1", { mbps: number; rounds: number; result: number }>;
  if (modes.stream16.result !== modes.batch.result || modes.stream1.result !== modes.batch.result) {
    throw new Error(`streaming found ${modes.stream16.result}/${modes.stream1.result} calls, batch ${modes.batch.result}`);
  }
  const ratio = modes.batch.mbps / modes.naive.mbps;
  const report = {
    bench: "parse-speed",
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? "unknown",
    corpus: { docs: docs.length, bytes, seed: d.seed, blocks: summary.detected, accepted: summary.accepted, rejected: summary.rejected },
    parser: { tools: TOOLS.names.length, format: "auto", thinking: "auto" },
    mbps: Object.fromEntries(Object.entries(modes).map(([k, v]) => [k, round(v.mbps)])),
    rounds: Object.fromEntries(Object.entries(modes).map(([k, v]) => [k, v.rounds])),
    method: "corpus in ~128 KB groups; interleaved rounds; per mode, the sum over groups of the best time per group",
    batchToNaive: round(ratio),
    targets: { batchToNaive: d.minBatchRatio, stream16MBps: d.minStream16MBps },
    met: { batchToNaive: ratio >= d.minBatchRatio, stream16MBps: modes.stream16.mbps >= d.minStream16MBps },
  };
  const rows: Array<[string, string, string]> = [
    ["naive regex + JSON.parse (no validation)", fmt(modes.naive.mbps), "1.00×"],
    ["qtc batch (full validation)", fmt(modes.batch.mbps), `${ratio.toFixed(2)}×`],
    ["qtc streaming, 16-byte chunks", fmt(modes.stream16.mbps), `${(modes.stream16.mbps / modes.naive.mbps).toFixed(2)}×`],
    ["qtc streaming, 1-byte chunks", fmt(modes.stream1.mbps), `${(modes.stream1.mbps / modes.naive.mbps).toFixed(2)}×`],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(`corpus: ${docs.length} outputs, ${(bytes / 1e6).toFixed(2)} MB, ${summary.detected} blocks (${summary.accepted} valid); ${report.cpu}, node ${process.version}`);
  console.log(`${"mode".padEnd(w)}  ${"MB/s".padStart(8)}  vs naive`);
  for (const [name, mbps, rel] of rows) console.log(`${name.padEnd(w)}  ${mbps.padStart(8)}  ${rel}`);
  console.log(`targets: batch ≥ ${d.minBatchRatio}× naive: ${report.met.batchToNaive ? "met" : "NOT met"}; 16-byte streaming ≥ ${d.minStream16MBps} MB/s: ${report.met.stream16MBps ? "met" : "NOT met"}`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
  console.log(`wrote ${out}`);
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

function fmt(x: number): string {
  return x.toFixed(1);
}

main();
