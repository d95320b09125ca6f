// Owns: making the training data set on disk (what `qtc data` calls): the split, the demonstrations of the
// train half, kept transcript turns, and the two files: OpenAI chat fine-tuning JSONL and the rendered text.

import { promises as fs } from "node:fs";
import path from "node:path";
import { parse } from "../parse/parser.js";
import { loadTask } from "../harness/workspace.js";
import { parseTranscript } from "../harness/transcript.js";
import { resolveSandbox } from "../harness/os-sandbox.js";
import { fail } from "../errors.js";
import { demonstrate } from "./demonstrations.js";
import { conversationsFromRuns } from "./from-transcripts.js";
import { renderSamples } from "./render-samples.js";
import { splitTasks } from "./split.js";
import type { Conversation, RenderedSample } from "./types.js";

export interface DatasetOptions {
  /** Folder of the bench tasks. Default: bench/tasks. */
  tasksDir?: string;
  /** Bench transcripts (JSONL of run records) to take kept turns from. Default: none. */
  transcripts?: readonly string[];
  /** Take transcript runs only when their task's tests passed. Default: false. */
  passedOnly?: boolean;
  /** Leave out the reference-fix demonstrations. Default: false. */
  noDemonstrations?: boolean;
  /** Folder the files are written to (created). */
  outDir: string;
}

export const DATASET_DEFAULTS = Object.freeze({ tasksDir: "bench/tasks", passedOnly: false, noDemonstrations: false });

/** File names inside the output folder. */
export const DATASET_FILES = Object.freeze({
  /** OpenAI chat fine-tuning JSONL: one conversation a line, `messages` with `tool_calls`, and `tools`. */
  openai: "train.jsonl",
  /** One rendered sample a line: `text` (the template's bytes) and `assistant` ([start, end) in code points). */
  rendered: "train.rendered.jsonl",
  /** The split and the counts. */
  summary: "summary.json",
});

export interface DatasetSummary {
  train: string[];
  test: string[];
  demonstrations: number;
  transcripts: { runs: number; keptTurns: number; droppedTurns: number; droppedRuns: number };
  conversations: number;
  samples: number;
  /** Bytes of rendered text (all samples). */
  renderedBytes: number;
  files: { openai: string; rendered: string; summary: string };
}

/** Every call in a sample's assistant span must parse as a valid call of its tools: the data is checked, not trusted. */
function checkSample(s: RenderedSample, conv: Conversation): void {
  const span = [...s.text].slice(s.assistant[0], s.assistant[1]).join("").replace(/<\|im_end\|>$/, "");
  const r = parse(span, { tools: conv.tools, format: "hermes", thinking: "closed" });
  if (r.errors.length > 0) fail("internal", `a ${conv.source} turn of ${conv.task} has an invalid call (${r.errors[0]!.reason})`, { exitCode: 1 });
}

async function transcriptConversations(files: readonly string[], trainIds: Set<string>, prompts: Map<string, string>, passedOnly: boolean) {
  const runs = [];
  for (const f of files) {
    const parsed = parseTranscript(await fs.readFile(f, "utf8").catch(() => fail("file_not_found", `cannot read transcript ${f}`, { path: f })));
    if (!parsed.ok) fail("invalid_option", `${f}: ${parsed.message}`, { path: f });
    runs.push(...parsed.runs);
  }
  return { runs: runs.length, ...conversationsFromRuns(runs, prompts, { tasks: trainIds, passedOnly }) };
}

/** Make the data set. Throws for bad caller input (missing tasks folder or transcript). */
export async function makeDataset(opts: DatasetOptions): Promise<DatasetSummary> {
  const o = { ...DATASET_DEFAULTS, ...opts };
  const split = await splitTasks(o.tasksDir);
  if (split.train.length === 0) fail("file_not_found", `no tasks under ${o.tasksDir}`, { path: o.tasksDir });
  const trainIds = new Set(split.train.map((d) => path.basename(d)));
  const prompts = new Map<string, string>();
  for (const d of [...split.train, ...split.test]) prompts.set(path.basename(d), (await loadTask(d)).prompt);

  const conversations: Conversation[] = [];
  if (!o.noDemonstrations) {
    const sandbox = await resolveSandbox("bwrap");
    for (const dir of split.train) conversations.push(await demonstrate(dir, { sandbox }));
  }
  const demos = conversations.length;
  const t = o.transcripts?.length
    ? await transcriptConversations(o.transcripts, trainIds, prompts, o.passedOnly)
    : { runs: 0, conversations: [], keptTurns: 0, droppedTurns: 0, droppedRuns: 0 };
  conversations.push(...t.conversations);

  const samples = conversations.flatMap((c) => renderSamples(c).map((s) => (checkSample(s, c), s)));
  await fs.mkdir(o.outDir, { recursive: true });
  const files = {
    openai: path.join(o.outDir, DATASET_FILES.openai),
    rendered: path.join(o.outDir, DATASET_FILES.rendered),
    summary: path.join(o.outDir, DATASET_FILES.summary),
  };
  await fs.writeFile(files.openai, conversations.map((c) => JSON.stringify(c)).join("\n") + "\n");
  await fs.writeFile(files.rendered, samples.map((s) => JSON.stringify({ task: s.task, message: s.message, text: s.text, assistant: s.assistant })).join("\n") + "\n");
  const summary: DatasetSummary = {
    train: [...trainIds],
    test: split.test.map((d) => path.basename(d)),
    demonstrations: demos,
    transcripts: { runs: t.runs, keptTurns: t.keptTurns, droppedTurns: t.droppedTurns, droppedRuns: t.droppedRuns },
    conversations: conversations.length,
    samples: samples.length,
    renderedBytes: samples.reduce((a, s) => a + Buffer.byteLength(s.text), 0),
    files,
  };
  await fs.writeFile(files.summary, JSON.stringify(summary, null, 2) + "\n");
  return summary;
}
