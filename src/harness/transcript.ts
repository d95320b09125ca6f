// Owns: the transcript file (JSONL, one AgentRun record per line): appending a run, reading runs back, and
// the truncation of large tool results inside a record.

import { promises as fs } from "node:fs";
import path from "node:path";
import type { AgentRun } from "./types.js";

/** Cut a tool result for the transcript, keeping its head and tail. */
export function truncateForTranscript(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil(max * 0.75);
  const tail = max - head;
  return `${text.slice(0, head)}\n[… ${text.length - max} characters cut in the transcript …]\n${tail > 0 ? text.slice(-tail) : ""}`;
}

/** Append one run as one JSON line, creating the file and its folder when needed. */
export async function appendTranscript(file: string, run: AgentRun): Promise<void> {
  await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await fs.appendFile(file, `${JSON.stringify(run)}\n`, "utf8");
}

/** True when a parsed JSON value looks like an AgentRun record (enough for replay and reports). */
export function isRunRecord(value: unknown): value is AgentRun {
  const v = value as Partial<AgentRun> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    v.kind === "qtc-agent-run" &&
    Array.isArray(v.turns) &&
    v.turns.every((t) => typeof t === "object" && t !== null && typeof t.raw === "string")
  );
}

/**
 * Parse a transcript's text into its run records. Returns an error message (for the caller to report) when
 * a non-empty line is not a run record.
 */
export function parseTranscript(text: string): { ok: true; runs: AgentRun[] } | { ok: false; message: string } {
  const parsed = parseRecordLines(text, isRunRecord, "a qtc agent run record");
  return parsed.ok ? { ok: true, runs: parsed.records } : parsed;
}

/**
 * JSON Lines whose every non-empty line must pass `accept` (`what` names such a line in the message); the first
 * line that does not is reported, with its number.
 */
export function parseRecordLines<T>(text: string, accept: (value: unknown) => value is T, what: string): { ok: true; records: T[] } | { ok: false; message: string } {
  const records: T[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      return { ok: false, message: `line ${i + 1} is not JSON: ${(e as Error).message}` };
    }
    if (!accept(value)) return { ok: false, message: `line ${i + 1} is not ${what}` };
    records.push(value);
  }
  return { ok: true, records };
}
