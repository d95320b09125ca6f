// Owns: the `qtc data` command: make fine-tuning data (the train half's reference-fix demonstrations and kept
// transcript turns) as OpenAI chat JSONL and as the chat template's rendered text.

import type { Command } from "commander";
import { collect } from "../options.js";
import { checkOutputDir, checkNotInPackage } from "../out-path.js";
import { DATASET_DEFAULTS, makeDataset } from "../../training/index.js";

interface DataFlags {
  out: string;
  tasks: string;
  transcript: string[];
  passedOnly: boolean;
  demonstrations: boolean;
}

export function registerData(program: Command): Command {
  return program
    .command("data")
    .description("Make fine-tuning data from the train half of the bench tasks (reference fixes) and from bench transcripts")
    .requiredOption("--out <dir>", "folder for train.jsonl (OpenAI chat fine-tuning), train.rendered.jsonl and summary.json")
    .option("--tasks <dir>", "bench tasks folder", DATASET_DEFAULTS.tasksDir)
    .option("--transcript <file>", "bench transcript (JSONL run records) to take kept turns from; repeatable", collect, [])
    .option("--passed-only", "take transcript runs only when their task's tests passed", DATASET_DEFAULTS.passedOnly)
    .option("--no-demonstrations", "leave out the reference-fix demonstrations")
    .action(async (flags: DataFlags) => {
      checkOutputDir("--out", flags.out);
      checkNotInPackage("--out", flags.out);
      const s = await makeDataset({
        outDir: flags.out,
        tasksDir: flags.tasks,
        transcripts: flags.transcript,
        passedOnly: flags.passedOnly,
        noDemonstrations: !flags.demonstrations,
      });
      const t = s.transcripts;
      process.stdout.write(
        `split   ${s.train.length} train / ${s.test.length} test tasks (sorted ids, alternating)\n` +
          `demos   ${s.demonstrations} conversations from reference fixes\n` +
          `runs    ${t.runs} transcript runs: ${t.keptTurns} turns kept, ${t.droppedTurns} dropped (${t.droppedRuns} runs excluded)\n` +
          `samples ${s.samples} assistant turns, ${(s.renderedBytes / 1024).toFixed(1)} KB rendered\n` +
          `wrote   ${s.files.openai}\n        ${s.files.rendered}\n        ${s.files.summary}\n`,
      );
    });
}
