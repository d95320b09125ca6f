// Owns: the parse fuzz: generated outputs (parse-fuzz-gen.ts) through batch and streaming under random
// chunkings, in the case's own thinking mode (with the oracle) and in the other two (streaming == batch only),
// and once more as untrusted output (a proxy's, issue 52: streaming == batch, no fenced or invalid call).
// Counts divergences, calls emitted from a fence or reasoning, valid calls missed, invalid calls accepted and
// throws. Seeded: a failure names its case seed, and `generateCase(seededRandom(caseSeed))` rebuilds it.

import { createParser } from "../../dist/parse/parser.js";
import type { ParseEvent, ParseResult } from "../../dist/parse/types.js";
import type { ThinkingStart } from "../../dist/parse/options.js";
import { seededRandom } from "../../dist/random.js";
import { FUZZ_TOOLS, generateCase, type FuzzCase } from "./parse-fuzz-gen.js";

export const PARSE_FUZZ_DEFAULTS = Object.freeze({
  /** Generated outputs. */
  count: 200_000,
  seed: 1,
  /** Stop early after this many seconds (the counts say how many ran). */
  maxSeconds: 1800,
  /** Failures kept as examples in the report. */
  maxExamples: 10,
});

export interface FuzzOptions {
  count: number;
  seed: number;
  maxSeconds: number;
  maxExamples: number;
}

export type FailureKind = "divergence" | "fenced_call" | "missed_call" | "invalid_accepted" | "threw";

export interface FuzzReport {
  seed: number;
  cases: number;
  /** Parser runs (batch and streamed), all modes. */
  parses: number;
  calls: number;
  rejected: number;
  expected: number;
  counts: Record<FailureKind, number>;
  byThinking: Record<ThinkingStart, number>;
  seconds: number;
  examples: Array<{ kind: FailureKind; caseSeed: number; thinking: ThinkingStart; detail: string }>;
}

const MODES: readonly ThinkingStart[] = ["auto", "open", "closed"];

/** A report with nothing counted yet (a run, or one case replayed by its seed). */
export function emptyFuzzReport(seed: number): FuzzReport {
  return {
    seed,
    cases: 0,
    parses: 0,
    calls: 0,
    rejected: 0,
    expected: 0,
    counts: { divergence: 0, fenced_call: 0, missed_call: 0, invalid_accepted: 0, threw: 0 },
    byThinking: { auto: 0, open: 0, closed: 0 },
    seconds: 0,
    examples: [],
  };
}

export function runParseFuzz(options: Partial<FuzzOptions> = {}): FuzzReport {
  const o = { ...PARSE_FUZZ_DEFAULTS, ...options };
  const seeds = seededRandom(o.seed);
  const report = emptyFuzzReport(o.seed);
  const t0 = performance.now();
  for (let i = 0; i < o.count; i++) {
    if (i % 256 === 0 && (performance.now() - t0) / 1000 > o.maxSeconds) break;
    const caseSeed = Math.floor(seeds() * 2 ** 32);
    runCase(caseSeed, report, o.maxExamples);
  }
  report.seconds = Math.round((performance.now() - t0) / 10) / 100;
  return report;
}

/** One case: its own mode twice (two chunkings, plus the oracle), each other mode once. */
export function runCase(caseSeed: number, report: FuzzReport, maxExamples = 10): void {
  const r = seededRandom(caseSeed);
  const fx = generateCase(r);
  report.cases++;
  report.byThinking[fx.thinking]++;
  report.expected += fx.expected.length;
  const fail = (kind: FailureKind, thinking: ThinkingStart, detail: string) => {
    report.counts[kind]++;
    if (report.examples.length < maxExamples) report.examples.push({ kind, caseSeed, thinking, detail });
  };
  for (const thinking of MODES) {
    const own = thinking === fx.thinking;
    let batch: Run;
    try {
      batch = run(fx, thinking, [fx.text]);
      report.parses++;
      for (const chunks of own ? [chunk(fx.text, r), chunk(fx.text, r)] : [chunk(fx.text, r)]) {
        const stream = run(fx, thinking, chunks);
        report.parses++;
        if (stream.key !== batch.key) fail("divergence", thinking, `chunks ${JSON.stringify(chunks.slice(0, 40))}`);
        if (own) judge(fx, stream.result, (kind, d) => fail(kind, thinking, d));
      }
    } catch (e) {
      fail("threw", thinking, e instanceof Error ? `${e.name}: ${e.message}`.slice(0, 200) : String(e));
      continue;
    }
    if (own) {
      report.calls += batch.result.calls.length;
      report.rejected += batch.result.errors.length;
      judge(fx, batch.result, (kind, d) => fail(kind, thinking, d));
      try {
        // Untrusted output may keep a quoted call as text (no missed_call check), never anything else.
        const loose = run(fx, thinking, [fx.text], true);
        const chunks = chunk(fx.text, r);
        const stream = run(fx, thinking, chunks, true);
        report.parses += 2;
        if (stream.key !== loose.key) fail("divergence", thinking, `untrusted, chunks ${JSON.stringify(chunks.slice(0, 40))}`);
        judge({ ...fx, expected: [] }, loose.result, (kind, d) => fail(kind, thinking, `untrusted: ${d}`));
      } catch (e) {
        fail("threw", thinking, `untrusted: ${e instanceof Error ? `${e.name}: ${e.message}`.slice(0, 200) : String(e)}`);
      }
    }
  }
}

/** The oracle: no call from a forbidden span, every expected call emitted as written, no invalid one accepted. */
function judge(fx: FuzzCase, result: ParseResult, fail: (kind: FailureKind, detail: string) => void): void {
  for (const call of result.calls) {
    for (const [s, e] of fx.forbidden) {
      if (call.start < e && call.end > s) fail("fenced_call", `${call.name} at ${call.start}-${call.end} inside ${s}-${e}`);
    }
    for (const [s, e] of fx.mustReject) if (call.start === s && call.end === e) fail("invalid_accepted", call.raw.slice(0, 200));
  }
  for (const want of fx.expected) {
    const got = result.calls.find((c) => c.start === want.start && c.end === want.end);
    if (!got || got.name !== want.name || JSON.stringify(got.parsedArguments) !== JSON.stringify(want.args)) {
      const why = got ? `got ${got.arguments.slice(0, 120)}` : `errors ${JSON.stringify(result.errors.map((e) => [e.reason, e.start]))}`;
      fail("missed_call", `${want.name} at ${want.start}-${want.end}: ${why}`);
    }
  }
}

interface Run {
  result: ParseResult;
  /** The events with adjacent deltas merged, as JSON: equal for equal parses whatever the chunking. */
  key: string;
}

function run(fx: FuzzCase, thinking: ThinkingStart, chunks: readonly string[], untrusted = false): Run {
  let n = 0;
  const parser = createParser({ tools: FUZZ_TOOLS, format: fx.format, thinking, newId: () => `id${++n}`, untrusted });
  const events: ParseEvent[] = [];
  for (const c of chunks) events.push(...parser.feed(c));
  events.push(...parser.end({ truncated: fx.truncated }));
  const last = events[events.length - 1];
  if (last?.type !== "finish") throw new Error("no finish event");
  return { result: last.result, key: JSON.stringify(merge(events)) };
}

function merge(events: readonly ParseEvent[]): ParseEvent[] {
  const out: ParseEvent[] = [];
  for (const e of events) {
    const prev = out[out.length - 1];
    if ((e.type === "text-delta" || e.type === "reasoning-delta") && prev?.type === e.type) out[out.length - 1] = { type: e.type, text: prev.text + e.text };
    else out.push(e);
  }
  return out;
}

/**
 * One of four chunkings: random cut points; one UTF-16 unit at a time (surrogate pairs split); token-like
 * runs of 1-6 units; and cuts after every backtick, tilde, `<`, `>` and newline (where runs and tags split).
 */
export function chunk(text: string, r: () => number): string[] {
  const kind = Math.floor(r() * 4);
  const cuts: number[] = [];
  if (kind === 0) {
    for (let k = Math.floor(r() * 30); k > 0; k--) cuts.push(1 + Math.floor(r() * Math.max(1, text.length - 1)));
    cuts.sort((a, b) => a - b);
  } else if (kind === 1) {
    for (let i = 1; i < text.length; i++) cuts.push(i);
  } else if (kind === 2) {
    for (let i = 1 + Math.floor(r() * 6); i < text.length; i += 1 + Math.floor(r() * 6)) cuts.push(i);
  } else {
    for (let i = 1; i < text.length; i++) if ("`~<>\n".includes(text[i - 1]!) || r() < 0.05) cuts.push(i);
  }
  const out: string[] = [];
  let prev = 0;
  for (const c of cuts) {
    if (c <= prev || c >= text.length) continue;
    out.push(text.slice(prev, c));
    prev = c;
  }
  out.push(text.slice(prev));
  return out;
}
