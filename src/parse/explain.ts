// Owns: the per-block explanation `qtc parse --explain` prints: for each detected block, in output order, whether
// it was accepted or rejected and why, with its byte offsets (UTF-8, as a file on disk counts them) and the
// parser's notes (prose kept as text, a quoted close tag, a bare block, a type alias read).

import { Buffer } from "node:buffer";
import type { ParseResult } from "./types.js";

export interface BlockExplanation {
  /** 1-based, in output order. */
  index: number;
  verdict: "accepted" | "rejected";
  name?: string;
  /** The reason code of a rejected block (src/errors.ts). */
  reason?: string;
  /** Why, in words: the message the model would get, or what was accepted. */
  why: string;
  /** Byte offsets of the block in the output's UTF-8 encoding (end exclusive). */
  startByte: number;
  endByte: number;
  /** The same span in UTF-16 code units (String indices), as ToolCall and CallError carry it. */
  start: number;
  end: number;
}

export interface ParseExplanation {
  blocks: BlockExplanation[];
  notes: string[];
  /** One line for the whole output: how many blocks were detected, accepted and rejected. */
  summary: string;
}

/** Explain a parse of `text` (the same text `result` came from). */
export function explainParse(text: string, result: ParseResult): ParseExplanation {
  const spans = [
    ...result.calls.map((c) => ({ start: c.start, end: c.end, verdict: "accepted" as const, name: c.name, why: `valid call of ${c.name} with ${c.arguments}` })),
    ...result.errors.map((e) => ({ start: e.start, end: e.end, verdict: "rejected" as const, name: e.name, reason: e.reason, why: e.message })),
  ].sort((a, b) => a.start - b.start);
  const bytes = byteOffsets(text);
  const blocks = spans.map((s, i): BlockExplanation => {
    const b: BlockExplanation = { index: i + 1, verdict: s.verdict, why: s.why, startByte: bytes(s.start), endByte: bytes(s.end), start: s.start, end: s.end };
    if (s.name !== undefined) b.name = s.name;
    if ("reason" in s) b.reason = s.reason;
    return b;
  });
  const d = result.diagnostics;
  const summary = d.detected === 0
    ? "no tool-call block detected: the whole output is text"
    : `${d.detected} block${d.detected === 1 ? "" : "s"} detected: ${d.accepted} accepted, ${d.detected - d.accepted} rejected`;
  return { blocks, notes: [...d.notes], summary };
}

/** Render an explanation as lines for a terminal. */
export function explanationLines(x: ParseExplanation): string[] {
  const lines = [x.summary];
  for (const b of x.blocks) {
    const head = `block ${b.index} bytes ${b.startByte}-${b.endByte}: ${b.verdict}${b.reason ? ` (${b.reason})` : ""}${b.name ? ` ${b.name}` : ""}`;
    lines.push(`${head}: ${b.why}`);
  }
  for (const n of x.notes) lines.push(`note: ${n}`);
  return lines;
}

/** UTF-16 index → UTF-8 byte offset, counting incrementally over sorted queries (each query is O(distance)). */
function byteOffsets(text: string): (index: number) => number {
  let at = 0;
  let bytes = 0;
  return (index) => {
    if (index < at) {
      at = 0;
      bytes = 0;
    }
    bytes += Buffer.byteLength(text.slice(at, index));
    at = index;
    return bytes;
  };
}
