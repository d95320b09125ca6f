// Owns: loading the parser conformance corpus (cases.jsonl + tools.json) and judging one case against today's
// parser, on the whole text and on several chunkings (streaming must equal batch).

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { createParser, parse, type ParseResult } from "../../../src/parse/index.js";
import type { ParserOptions } from "../../../src/parse/options.js";

const HERE = dirname(fileURLToPath(import.meta.url));
export const BASELINE_PATH = join(HERE, "baseline.json");

export interface ConformanceCase {
  id: string;
  /** The issue-15 class it exercises (0: a plain case that should simply work). */
  class: number;
  /** Where the case comes from: a peer's repository and test file, or an issue. */
  source: string;
  format: "hermes" | "qwen3coder" | "qwen35";
  /** A key of tools.json, or null for no declared tools. */
  tools: string | null;
  text: string;
  truncated?: boolean;
  /** How the output starts (the parser's `thinking` option); default "auto". */
  thinking?: "auto" | "open" | "closed";
  expect: { calls: Array<{ name: string; arguments: Record<string, unknown> }>; errors: number; content?: string };
  /** How peers disagree, when they do. */
  peers?: string;
}

export function loadCorpus(): ConformanceCase[] {
  return readFileSync(join(HERE, "cases.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ConformanceCase);
}

export function loadTools(): Record<string, unknown[]> {
  return JSON.parse(readFileSync(join(HERE, "tools.json"), "utf8")) as Record<string, unknown[]>;
}

export function loadBaseline(): Record<string, "pass" | "fail"> {
  return JSON.parse(readFileSync(BASELINE_PATH, "utf8")) as Record<string, "pass" | "fail">;
}

/** Chunkings every case runs on besides the whole text: fixed sizes and a seeded random split. */
export function chunkingsOf(text: string): string[][] {
  const fixed = [1, 2, 3, 7, 16].map((n) => {
    const out: string[] = [];
    for (let i = 0; i < text.length; i += n) out.push(text.slice(i, i + n));
    return out;
  });
  let seed = text.length * 2654435761 >>> 0;
  const random: string[] = [];
  for (let i = 0; i < text.length; ) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const n = 1 + (seed % 11);
    random.push(text.slice(i, i + n));
    i += n;
  }
  return [...fixed, random];
}

/** What a case is compared on: ids and offsets aside, the calls, the error count and the content. */
function summary(result: ParseResult) {
  return {
    calls: result.calls.map((c) => ({ name: c.name, arguments: c.parsedArguments })),
    errors: result.errors.map((e) => e.reason),
    content: result.content,
  };
}

export type Verdict = { pass: true } | { pass: false; why: string };

export function judgeCase(c: ConformanceCase, tools: Record<string, unknown[]>): Verdict {
  const options: ParserOptions = { format: c.format, thinking: c.thinking ?? "auto" };
  if (c.tools !== null) options.tools = tools[c.tools];
  let batch: ReturnType<typeof summary>;
  try {
    batch = summary(parse(c.text, { ...options, truncated: c.truncated === true }));
  } catch (e) {
    return { pass: false, why: `threw ${(e as Error).message}` };
  }
  const want = c.expect;
  if (!isDeepStrictEqual(batch.calls, want.calls)) return { pass: false, why: `calls ${JSON.stringify(batch.calls)}` };
  if (batch.errors.length !== want.errors) return { pass: false, why: `errors ${JSON.stringify(batch.errors)}` };
  if (want.content !== undefined && batch.content !== want.content.trim()) return { pass: false, why: `content ${JSON.stringify(batch.content)}` };
  for (const chunks of chunkingsOf(c.text)) {
    const parser = createParser(options);
    for (const chunk of chunks) parser.feed(chunk);
    const events = parser.end({ truncated: c.truncated === true });
    const last = events[events.length - 1];
    if (last?.type !== "finish") return { pass: false, why: "stream ended without finish" };
    if (!isDeepStrictEqual(summary(last.result), batch)) return { pass: false, why: `stream differs on chunks of ${chunks[0]?.length}` };
  }
  return { pass: true };
}
