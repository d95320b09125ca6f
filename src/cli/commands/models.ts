// Owns: the `qtc models` command: prints the registry (what `--model NAME` downloads, from which repository,
// which quantization, how big, and whether it is already in the model cache) and every GGUF in the cache.

import type { Command } from "commander";

const mb = (bytes: number): string => (bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${(bytes / 1e6).toFixed(0)} MB`);

export function registerModels(program: Command): Command {
  return program
    .command("models")
    .description("List the models qtc knows (the registry: names, repositories, files, sizes) and those in the model cache")
    .option("--json", "print the listing as JSON")
    .action(async (flags: { json?: boolean }) => {
      const { listModels } = await import("../../model/list-models.js");
      const listing = listModels();
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(listing, null, 2)}\n`);
        return;
      }
      const rows = listing.registry.map((m) => [
        m.isDefault ? `${m.name} (default)` : m.name,
        m.format,
        m.quantization ?? "?",
        `~${mb(m.approxBytes)}`,
        `${m.repository}/${m.file}`,
        m.downloaded ? "downloaded" : "-",
      ]);
      const head = ["name", "format", "quant", "size", "repository/file (Hugging Face)", "cache"];
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
      const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
      const out = [`Registry (qtc --model NAME downloads it on first use; qtc pull NAME downloads it now):`, `  ${line(head)}`];
      for (const r of rows) out.push(`  ${line(r)}`);
      out.push("", "Synthetic models (qtc writes them itself, random weights): synthetic:tiny, synthetic:0.6b, synthetic:qwen3.5-tiny");
      out.push("", `Model cache: ${listing.modelsDir} (QTC_MODELS_DIR moves it)`);
      if (listing.cache.length === 0) out.push("  (empty)");
      for (const c of listing.cache) out.push(`  ${c.file}  ${mb(c.bytes)}${c.registryName ? `  = ${c.registryName}` : ""}  ${c.path}`);
      process.stdout.write(`${out.join("\n")}\n`);
    });
}
