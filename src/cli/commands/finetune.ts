// Owns: the `qtc finetune` command: full fine-tune of an F32 GGUF on `qtc data` JSONL through llama.cpp's
// training API (qtc's native driver), loss on assistant tokens only, progress on stderr.

import type { Command } from "commander";
import { fail } from "../../errors.js";
import { intOption, numberOption } from "../options.js";
import { checkOutputFile } from "../out-path.js";
import { FINETUNE_DEFAULTS, finetune, type TrainProgress } from "../../training/finetune.js";

interface FinetuneFlags {
  model: string;
  data: string;
  out: string;
  epochs: number;
  lr: number;
  seed: number;
  ctx: number;
  threads: number;
  maxSteps: number;
  lora?: number;
  alpha?: number;
}

function printProgress(p: TrainProgress): void {
  const f = p.fields;
  if (p.kind === "start") process.stderr.write(`training on ${f.samples} samples, ${f.trained} assistant tokens of ${f.tokens}\n`);
  if (p.kind === "step") process.stderr.write(`  epoch ${f.epoch} step ${f.step}  loss ${f.loss}  acc ${f.acc}  eta ${f.eta_s}s\n`);
  if (p.kind === "epoch") process.stderr.write(`epoch ${f.epoch}  loss ${f.loss}  acc ${f.acc}  ${f.seconds}s  eta ${f.eta_s}s\n`);
}

export function registerFinetune(program: Command): Command {
  return program
    .command("finetune")
    .description("Fine-tune an F32 GGUF on qtc data JSONL (llama.cpp's training API; loss on assistant tokens only)")
    .requiredOption("--model <spec>", "F32 GGUF path, or synthetic:tiny (its F32 variant)")
    .requiredOption("--data <file>", "OpenAI chat fine-tuning JSONL (qtc data writes train.jsonl)")
    .requiredOption("--out <file>", "the tuned GGUF to write")
    .option("--epochs <n>", "passes over the data", intOption(1, 1000), FINETUNE_DEFAULTS.epochs)
    .option("--lr <x>", "AdamW learning rate", numberOption(1e-8, 1), FINETUNE_DEFAULTS.lr)
    .option("--seed <n>", "seed of the sample order", intOption(0, 0x7fffffff), FINETUNE_DEFAULTS.seed)
    .option("--ctx <n>", "tokens per training window (a multiple of 256)", intOption(256, 32768), FINETUNE_DEFAULTS.contextSize)
    .option("--threads <n>", "CPU threads for training", intOption(1, 1024), FINETUNE_DEFAULTS.threads)
    .option("--max-steps <n>", "windows per epoch at most (0: all)", intOption(0), FINETUNE_DEFAULTS.maxSteps)
    .option("--lora <rank>", "train a LoRA adapter of this rank beside the frozen base; --out is then the adapter GGUF (load it with --lora)", intOption(1, 1024))
    .option("--alpha <a>", "LoRA scale numerator: updates are scaled by alpha / rank (default: the rank)", numberOption(1e-6, 1e6))
    .action(async (flags: FinetuneFlags) => {
      checkOutputFile("--out", flags.out);
      if (flags.alpha !== undefined && flags.lora === undefined) fail("invalid_option", "--alpha goes with --lora RANK");
      const { lora, alpha, ...rest } = flags;
      const r = await finetune({ ...rest, contextSize: flags.ctx, onProgress: printProgress, ...(lora !== undefined ? { lora: { rank: lora, alpha } } : {}) });
      process.stdout.write(`wrote ${r.out} (${r.samples} samples, ${r.epochs.length} epochs, ${r.seconds.toFixed(1)} s)\n`);
    });
}
