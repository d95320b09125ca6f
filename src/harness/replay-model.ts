// Owns: the replay model (`--model replay:FILE`): recorded assistant outputs played back in order, each judged
// by the strict post-parser, so any run can be reproduced and the loop tested without sampling.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fail } from "../errors.js";
import { formatSeenIn, type FormatId, type ToolCallFormat } from "../formats/index.js";
import type { ParseResult } from "../parse/types.js";
import { resultOf, zeroCounts } from "../runtime/result.js";
import type { GenerateRequest, GenerateResult } from "../runtime/types.js";
import { parse as strictParse } from "../parse/index.js";
import { compileValidators, type CompiledTools, type ToolsLike } from "../tools/index.js";
import { parseTranscript } from "./transcript.js";
import type { AgentModel } from "./types.js";

export const REPLAY_PREFIX = "replay:";

/** True for a `--model` value that names a replay (`replay:FILE` or `replay:FILE#N`). */
export function isReplaySpec(spec: string): boolean {
  return spec.startsWith(REPLAY_PREFIX) && spec.length > REPLAY_PREFIX.length;
}

/** The strict post-parser, as the replay model calls it. */
export type ReplayParse = (text: string, opts: { tools?: ToolsLike; format?: FormatId | ToolCallFormat | "auto" }) => ParseResult;

export interface ReplayOptions {
  /** Name shown in summaries. Default: `replay:<file>`, or `replay:inline` for a list. */
  name?: string;
  /** The parser that judges each output. Default: the strict post-parser (`parse` from src/parse). */
  parse?: ReplayParse;
}

/**
 * Read the outputs a replay file holds: a JSON list of strings, or a transcript (JSONL of run records; the
 * run is chosen by a `#N` suffix, 0-based, default the first). Throws a QtcException for a bad file.
 */
export function loadReplayOutputs(spec: string): { outputs: string[]; file: string } {
  let file = spec.startsWith(REPLAY_PREFIX) ? spec.slice(REPLAY_PREFIX.length) : spec;
  let index = 0;
  const suffix = /^(.+)#(\d+)$/.exec(file);
  if (suffix && !existsSync(file) && existsSync(suffix[1]!)) {
    file = suffix[1]!;
    index = Number(suffix[2]);
  }
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    fail("file_not_found", `replay file not found: ${file}`, { path: file });
  }
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    let list: unknown;
    try {
      list = JSON.parse(trimmed);
    } catch (e) {
      fail("invalid_option", `replay file ${file} is not valid JSON: ${(e as Error).message}`, { path: file });
    }
    if (!Array.isArray(list) || !list.every((x) => typeof x === "string")) {
      fail("invalid_option", `replay file ${file} must be a JSON list of strings (the assistant outputs)`, { path: file });
    }
    return { outputs: list as string[], file };
  }
  const parsed = parseTranscript(trimmed);
  if (!parsed.ok) fail("invalid_option", `replay file ${file}: ${parsed.message}`, { path: file });
  const run = parsed.runs[index];
  if (!run) fail("invalid_option", `replay file ${file} has ${parsed.runs.length} runs; #${index} does not exist`, { path: file });
  return { outputs: run.turns.map((t) => t.raw), file };
}

function formatOf(result: ParseResult, raw: string): FormatId {
  return result.calls[0]?.format ?? formatSeenIn(raw).id;
}

/** Turn one recorded output into the result the runtime would have returned (zero usage and timings, no token ids). */
export function replayResult(raw: string, req: GenerateRequest, parse: ReplayParse = strictParse, tools?: ToolsLike): GenerateResult {
  const parsed = parse(raw, { tools: tools ?? req.tools, format: req.format ?? "auto" });
  const ended = parsed.errors.some((e) => e.reason === "truncated") ? "length" : "stop";
  return resultOf({ parsed, outcome: zeroCounts(ended), raw, mode: "unconstrained", format: formatOf(parsed, raw) });
}

/**
 * A model that plays back recorded outputs in order; once they run out it returns an empty final answer.
 * `source` is a replay spec or file path (see loadReplayOutputs), or the outputs themselves.
 */
export function createReplayModel(source: string | readonly string[], opts: ReplayOptions = {}): AgentModel {
  const loaded = typeof source === "string" ? loadReplayOutputs(source) : { outputs: [...source], file: null };
  const outputs = loaded.outputs;
  let next = 0;
  // Tools are compiled once per distinct list (the loop sends the same list every turn).
  let compiled: { key: string; tools: CompiledTools } | undefined;
  return {
    name: opts.name ?? (loaded.file ? `${REPLAY_PREFIX}${path.basename(loaded.file)}` : `${REPLAY_PREFIX}inline`),
    synthetic: true,
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const raw = next < outputs.length ? outputs[next]! : "";
      next++;
      let tools: CompiledTools | undefined;
      if (req.tools) {
        const key = JSON.stringify(req.tools);
        if (compiled?.key !== key) compiled = { key, tools: compileValidators(req.tools) };
        tools = compiled.tools;
      }
      return replayResult(raw, req, opts.parse ?? strictParse, tools);
    },
  };
}
