// Owns: the `qtc make-model` command: write a synthetic Qwen3 GGUF (real tokenizer, random weights) and report it.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { fail } from "../../errors.js";
import { choiceOption, intOption } from "../options.js";
import { checkOutputFile } from "../out-path.js";
import { DTYPES, type Dtype } from "../../model/quantize.js";
import { SHAPES, type ShapeName } from "../../model/qwen3-shapes.js";
import { modelsDir } from "../../model/paths.js";
import { SYNTHETIC_DEFAULTS, syntheticFileName, VOCABULARIES, type VocabularyName, writeSyntheticModel } from "../../model/synthetic.js";

interface MakeModelFlags {
  shape: ShapeName;
  dtype: Dtype;
  seed: number;
  vocabulary: VocabularyName;
  out?: string;
  force?: boolean;
}

export function registerMakeModel(program: Command): Command {
  return program
    .command("make-model")
    .description("Write a synthetic Qwen3 GGUF: the real Qwen3 tokenizer and chat template, seeded random weights")
    .option("--shape <shape>", `model dimensions: ${SHAPES.join(" or ")}`, choiceOption(SHAPES), SYNTHETIC_DEFAULTS.shape)
    .option("--dtype <dtype>", `weight encoding: ${DTYPES.join(", ")}`, choiceOption(DTYPES), SYNTHETIC_DEFAULTS.dtype)
    .option("--seed <n>", "seed of the random weights (same seed, same bytes)", intOption(0, 0xffffffff), SYNTHETIC_DEFAULTS.seed)
    .option("--vocabulary <name>", `tokenizer and chat template: ${VOCABULARIES.join(" or ")} (Qwen3.5's special ids and template)`, choiceOption(VOCABULARIES), SYNTHETIC_DEFAULTS.vocabulary)
    .option("--out <path>", "output file (default: synthetic-[qwen3.5-]<shape>-<dtype>.gguf in the model cache: ~/.cache/qtc/models, or $QTC_MODELS_DIR)")
    .option("--force", "overwrite the output file if it exists")
    .action(async (flags: MakeModelFlags) => {
      if (flags.out !== undefined) checkOutputFile("--out", flags.out);
      const out = flags.out ?? join(modelsDir(), syntheticFileName(flags.shape, flags.dtype, flags.seed, flags.vocabulary));
      if (!flags.force && existsSync(out)) {
        fail("invalid_option", `${out} already exists; pass --force to overwrite it, or --out another file`, { path: out });
      }
      const r = await writeSyntheticModel({ shape: flags.shape, dtype: flags.dtype, seed: flags.seed, vocabulary: flags.vocabulary, out });
      process.stdout.write(
        `wrote ${r.path}\n` +
          `  synthetic ${r.vocabulary === "qwen3" ? "Qwen3" : "Qwen3.5 stand-in"} ${r.shape}, ${r.dtype}, seed ${r.seed} (random weights)\n` +
          (r.ids === undefined ? "" : `  ids    ${r.ids === "real" ? "real: Qwen3.5's own merges" : "approximate: Qwen3's merges under Qwen3.5's special ids (no Qwen3.5 merges in data/qwen3.5 or $QTC_QWEN35_DATA)"}\n`) +
          `  size   ${r.bytes} bytes (${(r.bytes / 1e6).toFixed(1)} MB)\n` +
          `  sha256 ${r.sha256}\n` +
          `  time   ${(r.ms / 1000).toFixed(2)} s\n`,
      );
    });
}
