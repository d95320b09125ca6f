// Owns: the file the native driver reads: rendered samples as length-prefixed pieces ("QTCTRAIN 1"), markup
// vs content (special tokens parsed or not) and prompt vs assistant (trained or not).

import { promises as fs } from "node:fs";
import { fail, QtcException } from "../errors.js";
import { renderSamples } from "./render-samples.js";
import type { Conversation, RenderedSample, TrainingPiece } from "./types.js";

const HEADER = "QTCTRAIN 1\n";

function kindOf(p: TrainingPiece): string {
  const k = p.special ? "m" : "c";
  return p.assistant ? k.toUpperCase() : k;
}

/**
 * Bounds of the fine-tuning input. A JSONL line past `maxLineBytes` is refused before it is parsed; a rendered
 * piece past `maxPieceBytes` (the most the driver reads as one piece, native/qtc-finetune.cpp) is refused when
 * the driver's input is written, never left for the driver to misread.
 */
export const TRAINER_INPUT_LIMITS = Object.freeze({
  /** Bytes of one line of fine-tuning JSONL. Default: 16 MiB. */
  maxLineBytes: 16 << 20,
  /** Bytes of one piece of the driver's input; must equal MAX_PIECE_BYTES in the driver. Default: 64 MiB. */
  maxPieceBytes: 64 << 20,
});

const MIB = (n: number): string => `${(n / (1 << 20)).toFixed(1)} MiB`;

/** The driver's input for these samples, as bytes. Throws `invalid_option` for a piece the driver cannot read. */
export function encodeTrainerInput(samples: readonly RenderedSample[]): Buffer {
  const parts: Buffer[] = [Buffer.from(HEADER)];
  for (const s of samples) {
    for (const p of s.pieces) {
      const bytes = Buffer.from(p.text, "utf8");
      if (bytes.length > TRAINER_INPUT_LIMITS.maxPieceBytes) {
        fail("invalid_option", `turn ${s.message} of ${s.task} renders a ${MIB(bytes.length)} run of text; the trainer takes at most ${MIB(TRAINER_INPUT_LIMITS.maxPieceBytes)}`);
      }
      parts.push(Buffer.from(`${kindOf(p)} ${bytes.length}\n`), bytes);
    }
    parts.push(Buffer.from("E 0\n"));
  }
  return Buffer.concat(parts);
}

const ROLES: ReadonlySet<string> = new Set(["system", "user", "assistant", "tool"]);

/** Why a parsed line is not a conversation qtc can render, or null. Names the message and field. */
function lineProblem(v: unknown): string | null {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "is not a JSON object";
  const c = v as Record<string, unknown>;
  if (!Array.isArray(c.messages) || !Array.isArray(c.tools)) return 'needs "messages" and "tools" arrays';
  for (const [k, m] of (c.messages as unknown[]).entries()) {
    const at = `messages[${k}]`;
    if (typeof m !== "object" || m === null || Array.isArray(m)) return `${at} is ${m === null ? "null" : typeof m}, not a message object`;
    const msg = m as Record<string, unknown>;
    if (typeof msg.role !== "string" || !ROLES.has(msg.role)) return `${at}.role must be one of ${[...ROLES].join(", ")}`;
    if (msg.content !== undefined && msg.content !== null && typeof msg.content !== "string") return `${at}.content must be a string`;
    if (msg.tool_calls === undefined || msg.tool_calls === null) continue;
    if (!Array.isArray(msg.tool_calls)) return `${at}.tool_calls must be an array`;
    for (const [j, call] of (msg.tool_calls as unknown[]).entries()) {
      const f = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
      if (typeof f !== "object" || f === null || typeof f.name !== "string") return `${at}.tool_calls[${j}] needs a function with a name`;
      let args = f.arguments;
      if (typeof args === "string") {
        try {
          args = JSON.parse(args);
        } catch {
          return `${at}.tool_calls[${j}].function.arguments is not JSON`;
        }
      }
      if (typeof args !== "object" || args === null || Array.isArray(args)) return `${at}.tool_calls[${j}].function.arguments is not a JSON object`;
    }
  }
  return null;
}

/**
 * Read OpenAI chat fine-tuning JSONL (as `qtc data` writes it). Throws `invalid_option` naming the line for a
 * line over TRAINER_INPUT_LIMITS.maxLineBytes, one that is not JSON, or one that is not a conversation qtc
 * can render (a null message, an unknown role, tool arguments that are not a JSON object); each conversation
 * is rendered here once, so a renderer refusal names its line too.
 */
export async function readConversations(file: string): Promise<Conversation[]> {
  const data = await fs.readFile(file).catch(() => fail("file_not_found", `cannot read ${file}`, { path: file }));
  const out: Conversation[] = [];
  let start = 0;
  for (let i = 0; start < data.length; i++) {
    const nl = data.indexOf(10, start);
    const end = nl < 0 ? data.length : nl;
    const where = `${file}:${i + 1}`;
    if (end - start > TRAINER_INPUT_LIMITS.maxLineBytes) {
      fail("invalid_option", `${where} is ${MIB(end - start)}; a fine-tuning line holds at most ${MIB(TRAINER_INPUT_LIMITS.maxLineBytes)}`, { path: file });
    }
    const line = data.toString("utf8", start, end);
    start = end + 1;
    if (line.trim() === "") continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      fail("invalid_option", `${where} is not JSON; expected OpenAI chat fine-tuning lines (qtc data writes them)`, { path: file });
    }
    const problem = lineProblem(v);
    if (problem !== null) fail("invalid_option", `${where}: ${problem}`, { path: file });
    const c = v as Partial<Conversation>;
    const conversation: Conversation = { messages: c.messages!, tools: c.tools!, task: typeof c.task === "string" ? c.task : `line-${i + 1}`, source: c.source ?? "demonstration" };
    try {
      renderSamples(conversation);
    } catch (e) {
      fail("invalid_option", `${where}: ${e instanceof QtcException ? e.message : "the chat template cannot render it"}`, { path: file });
    }
    out.push(conversation);
  }
  if (out.length === 0) fail("invalid_option", `${file} holds no conversations`, { path: file });
  return out;
}

/** Render every assistant turn of the conversations and write the driver's input file. */
export async function writeTrainerInput(conversations: readonly Conversation[], file: string): Promise<{ samples: number; bytes: number }> {
  const samples = conversations.flatMap((c) => renderSamples(c));
  const buf = encodeTrainerInput(samples);
  await fs.writeFile(file, buf);
  return { samples: samples.length, bytes: buf.length };
}
