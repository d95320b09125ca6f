// Owns: the `qtc pull` command: download a model (registry name, hf: URI or URL) into the model cache with a
// progress bar.

import type { Command } from "commander";
import { PULL_OFFLINE_HINT, pullModel } from "../../model/download.js";
import { DEFAULT_MODEL, MODEL_REGISTRY } from "../../model/registry.js";

export function registerPull(program: Command): Command {
  return program
    .command("pull")
    .description("Download a model into the model cache (~/.cache/qtc/models, $XDG_CACHE_HOME/qtc/models, or $QTC_MODELS_DIR): a registry name, hf:<user>/<repo>/<file>.gguf, or a URL")
    .argument("[model]", `registry name (${MODEL_REGISTRY.map((m) => m.name).join(", ")}), hf: URI or URL`, DEFAULT_MODEL)
    .option("--force", "download again even if the file is already there", false)
    .action(async (model: string, flags: { force: boolean }) => {
      const r = await pullModel(model, { force: flags.force, offlineHint: PULL_OFFLINE_HINT });
      const size = `${(r.bytes / 1e6).toFixed(1)} MB`;
      process.stdout.write(
        r.alreadyPresent
          ? `already present: ${r.path} (${size})\n`
          : `downloaded ${r.uri}\n  to ${r.path} (${size}) in ${(r.ms / 1000).toFixed(1)} s\n`,
      );
    });
}
