// Owns: the file the native driver reads: rendered samples as length-prefixed pieces ("QTCTRAIN 1"), markup
// vs content (special tokens parsed or not) and prompt vs assistant (trained or not).

import { promises as fs } from "node:fs";
import { fail } from "../errors.js";
import { renderSamples } from "./render-samples.js";
import type { Conversation, RenderedSample, TrainingPiece } from "./types.js";

const HEADER = "QTCTRAIN 1\n";

function kindOf(p: TrainingPiece): string {
  const k = p.special ? "m" : "c";
  return p.assistant ? k.toUpperCase() : k;
}

/** The driver's input for these samples, as bytes. */
export function encodeTrainerInput(samples: readonly RenderedSample[]): Buffer {
  const parts: Buffer[] = [Buffer.from(HEADER)];
  for (const s of samples) {
    for (const p of s.pieces) {
      const bytes = Buffer.from(p.text, "utf8");
      parts.push(Buffer.from(`${kindOf(p)} ${bytes.length}\n`), bytes);
    }
    parts.push(Buffer.from("E 0\n"));
  }
  return Buffer.concat(parts);
}

/** Read OpenAI chat fine-tuning JSONL (as `qtc data` writes it); throws `invalid_option` on a bad line. */
export async function readConversations(file: string): Promise<Conversation[]> {
  const text = await fs.readFile(file, "utf8").catch(() => fail("file_not_found", `cannot read ${file}`, { path: file }));
  const out: Conversation[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      fail("invalid_option", `${file}:${i + 1} is not JSON; expected OpenAI chat fine-tuning lines (qtc data writes them)`, { path: file });
    }
    const c = v as Partial<Conversation>;
    if (!Array.isArray(c.messages) || !Array.isArray(c.tools)) fail("invalid_option", `${file}:${i + 1} needs "messages" and "tools" arrays`, { path: file });
    out.push({ messages: c.messages, tools: c.tools, task: typeof c.task === "string" ? c.task : `line-${i + 1}`, source: c.source ?? "demonstration" });
  });
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
