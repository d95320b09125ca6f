// Owns: the xgrammar rows of `npm run bench:grammar`: each harness grammar in xgrammar's dialect, compiled by
// xgrammar itself (web-xgrammar, WASM) for the Qwen3 vocabulary, and its per-token mask time over seeded random
// walks under the mask (what vLLM's and SGLang's samplers pay per token), p50 and p99.

import { FORMAT_IDS, resolveFormat } from "../../dist/formats/index.js";
import { compileXgrammar } from "../../dist/grammar/xgrammar.js";
import { XgrammarSession } from "../../dist/engines/xgrammar-check.js";
import { xgrammarVersion } from "../../dist/engines/xgrammar-wasm.js";
import type { ToolDefinition } from "../../dist/tools/types.js";

export const XGRAMMAR_BENCH_DEFAULTS = Object.freeze({
  /** Seeded walks per grammar. */
  walks: 6,
  /** Tokens per walk at most. */
  walkTokens: 256,
  /** Issue 28's targets: compile < 2 s, mask < 100 µs per token at p50. */
  targetCompileMs: 2000,
  targetMaskP50Us: 100,
});

export interface XgrammarRow {
  grammar: string;
  compileMs: number;
  maskP50Us: number;
  maskP99Us: number;
  masks: number;
  kb: number;
}

/** Structure tokens the walks prefer, so they close strings, objects and calls (byte-level spellings). */
const PREFER = ['"', '"}', "}", "}}", '"}}', "Ċ", "</", "<tool_call>", "</tool_call>", "<|im_end|>", "</parameter>", "</function>", "<parameter", "=", ">Ċ"];

/** Quantile of sorted numbers (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Compile and mask cost of the harness tools' xgrammar grammars (Qwen3 formats; tool choice auto and required). */
export async function runXgrammarBench(harness: readonly ToolDefinition[], opts: Partial<typeof XGRAMMAR_BENCH_DEFAULTS> = {}): Promise<{ version: string; rows: XgrammarRow[] }> {
  const o = { ...XGRAMMAR_BENCH_DEFAULTS, ...opts };
  const session = await XgrammarSession.create();
  const prefer = session.tokenIds(PREFER);
  const rows: XgrammarRow[] = [];
  try {
    // Qwen3 formats only: the vocabulary is Qwen3's.
    for (const format of FORMAT_IDS.filter((f) => resolveFormat(f).open.token === 151657)) {
      for (const toolChoice of ["auto", "required"] as const) {
        const g = compileXgrammar(harness, { format, toolChoice, maxTokens: 512 });
        if (!g.ok) throw new Error(g.error.message);
        const t0 = performance.now();
        const compiled = await session.compile(g.value.ebnf);
        const compileMs = performance.now() - t0;
        const masks: number[] = [];
        for (let i = 0; i < o.walks; i++) masks.push(...(await session.walk(compiled, { seed: 100 + i, maxTokens: o.walkTokens, prefer })).maskMicros);
        compiled.dispose();
        masks.sort((a, b) => a - b);
        rows.push({ grammar: `harness ${format} ${toolChoice}`, compileMs, maskP50Us: quantile(masks, 0.5), maskP99Us: quantile(masks, 0.99), masks: masks.length, kb: g.value.stats.bytes / 1024 });
      }
    }
  } finally {
    session.dispose();
  }
  return { version: xgrammarVersion(), rows };
}

/** The table's lines. */
export function xgrammarTable(result: { version: string; rows: XgrammarRow[] }): string[] {
  const out = ["", `xgrammar ${result.version} (web-xgrammar, Qwen3 vocabulary)  compile ms  mask µs p50   p99  masks  KiB`];
  for (const r of result.rows) {
    out.push(
      `  ${r.grammar.padEnd(44)} ${r.compileMs.toFixed(0).padStart(9)}  ${r.maskP50Us.toFixed(0).padStart(11)} ${r.maskP99Us.toFixed(0).padStart(5)} ${String(r.masks).padStart(6)} ${r.kb.toFixed(1).padStart(4)}`,
    );
  }
  out.push(`  targets: compile < ${XGRAMMAR_BENCH_DEFAULTS.targetCompileMs} ms, mask p50 < ${XGRAMMAR_BENCH_DEFAULTS.targetMaskP50Us} µs`);
  return out;
}
