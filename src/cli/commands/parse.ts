// Owns: the `qtc parse` command: read model output (a file, stdin, or JSONL lines), run the strict
// post-parser, print one JSON object per input (IR, OpenAI or Anthropic shape).

import { once } from "node:events";
import { createReadStream, statSync } from "node:fs";
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { PARSE_SHAPES, toShape, type ParseShape } from "../../adapters/report.js";
import { fail } from "../../errors.js";
import { FORMAT_IDS } from "../../formats/index.js";
import type { FormatId } from "../../formats/types.js";
import { explainParse, explanationLines } from "../../parse/explain.js";
import { parseJsonlLine } from "../../parse/jsonl.js";
import { PARSER_DEFAULTS, type ThinkingStart } from "../../parse/options.js";
import { parse } from "../../parse/parser.js";
import { loadToolsFile } from "../../tools/load.js";
import { choiceOption } from "../options.js";
import { readTextFile, unreadable } from "../read-file.js";

interface ParseFlags {
  tools?: string;
  format: FormatId | "auto";
  shape: ParseShape;
  jsonl?: boolean;
  truncated?: boolean;
  thinking: ThinkingStart;
  explain?: boolean;
}

const FORMAT_CHOICES = ["auto", ...FORMAT_IDS] as const;
const THINKING_CHOICES = ["auto", "open", "closed"] as const;

export function registerParse(program: Command): Command {
  return program
    .command("parse")
    .description("Parse model output into tool calls with the strict post-parser; prints JSON")
    .argument("[file]", 'model output to parse ("-" or none: stdin)')
    .option("--tools <file>", "tools JSON: an OpenAI, Anthropic or bare {name, parameters} list (default: none; names not checked)")
    .option("--format <format>", `tool-call format: ${FORMAT_CHOICES.join("|")}`, choiceOption(FORMAT_CHOICES), PARSER_DEFAULTS.format)
    .option("--shape <shape>", `output shape: ${PARSE_SHAPES.join("|")}`, choiceOption(PARSE_SHAPES), "ir")
    .option("--thinking <start>", `how the output starts: ${THINKING_CHOICES.join("|")}`, choiceOption(THINKING_CHOICES), PARSER_DEFAULTS.thinking)
    .option("--truncated", "the output was cut off at the token limit (default: false)")
    .option("--explain", "print, for each block, why it was accepted or rejected, with its byte offsets (instead of JSON; default: false)")
    .option("--jsonl", 'read one JSON object per line, {"text", "tools"?, "format"?, "truncated"?}, and print one result per line')
    .action(async (file: string | undefined, flags: ParseFlags) => {
      if (flags.explain && flags.jsonl) fail("invalid_option", "--explain reads one output; it does not combine with --jsonl");
      const tools = flags.tools ? loadToolsFile(flags.tools) : undefined;
      if (flags.jsonl) {
        const input = file === undefined || file === "-" ? process.stdin : openFile(file);
        for await (const line of createInterface({ input, crlfDelay: Infinity })) {
          if (line.trim() === "") continue;
          const outcome = parseJsonlLine(line, { tools, format: flags.format, thinking: flags.thinking, truncated: flags.truncated === true });
          const out = outcome.ok ? toShape(outcome.value, flags.shape, outcome.truncated) : { error: outcome.error };
          if (!process.stdout.write(JSON.stringify(out) + "\n")) await once(process.stdout, "drain");
        }
        return;
      }
      const text = file === undefined || file === "-" ? await readStdin() : readTextFile(file);
      const result = parse(text, { tools, format: flags.format, thinking: flags.thinking, truncated: flags.truncated === true });
      if (flags.explain) {
        process.stdout.write(explanationLines(explainParse(text, result)).join("\n") + "\n");
        return;
      }
      process.stdout.write(JSON.stringify(toShape(result, flags.shape, flags.truncated === true), null, 2) + "\n");
    });
}

function openFile(path: string): NodeJS.ReadableStream {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (e) {
    fail("file_not_found", `cannot read ${path}: ${unreadable(e)}`, { path });
  }
  if (!isFile) fail("file_not_found", `cannot read ${path}: not a file`, { path });
  return createReadStream(path, { encoding: "utf8" });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
