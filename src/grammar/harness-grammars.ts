// Owns: the checked-in grammars of the 5 harness tools (grammars/harness-<format>.gbnf), compiled from
// grammars/harness-tools.json; `npm run grammars` (re)writes them, a test checks they match a fresh compile.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Result } from "../errors.js";
import { FORMAT_IDS } from "../formats/index.js";
import { normalizeTools } from "../tools/normalize.js";
import { compileToolGrammar } from "./compile.js";
import type { ToolGrammarOptions } from "./types.js";
import { SHARED_DEFAULTS } from "../defaults.js";

/** Options of the checked-in grammars (the harness defaults: tool choice auto, 512 tokens a turn). */
// The files are loaded as plain GBNF (llama.cpp, other engines) with no budget guard: the worst-case split.
export const HARNESS_GRAMMAR_OPTIONS = Object.freeze({ toolChoice: "auto", maxTokens: SHARED_DEFAULTS.maxTokens, budgetSplit: "worst-case" } satisfies ToolGrammarOptions);

/** File name (under grammars/) → content, for each format. */
export function harnessGrammarFiles(toolsJson: string): Result<Record<string, string>> {
  const tools = normalizeTools(JSON.parse(toolsJson));
  const files: Record<string, string> = {};
  for (const format of FORMAT_IDS) {
    const compiled = compileToolGrammar(tools, { ...HARNESS_GRAMMAR_OPTIONS, format });
    if (!compiled.ok) return compiled;
    const header =
      `# The 5 harness tools (grammars/harness-tools.json), format ${format}, tool choice ${HARNESS_GRAMMAR_OPTIONS.toolChoice}, ` +
      `maxTokens ${HARNESS_GRAMMAR_OPTIONS.maxTokens}: one call takes at most ${compiled.value.worstCaseCallTokens} tokens.\n` +
      "# Written by `npm run grammars`; do not edit (a test compares it with a fresh compile).\n";
    files[`harness-${format}.gbnf`] = header + compiled.value.gbnf;
  }
  return { ok: true, value: files };
}

/** The grammars/ folder of the package (this file runs from dist/grammar/). */
export function grammarsDir(): string {
  return join(fileURLToPath(new URL("../../", import.meta.url)), "grammars");
}

function main(): void {
  const dir = grammarsDir();
  const files = harnessGrammarFiles(readFileSync(join(dir, "harness-tools.json"), "utf8"));
  if (!files.ok) {
    process.stderr.write(`qtc: ${files.error.message}\n`);
    process.exitCode = 1;
    return;
  }
  for (const [name, text] of Object.entries(files.value)) {
    writeFileSync(join(dir, name), text);
    process.stdout.write(`wrote grammars/${name} (${Buffer.byteLength(text)} bytes)\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
