// Owns: reading README.md's fenced code blocks (TypeScript examples and shell commands) for the README tests.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../..", import.meta.url));

export interface FencedBlock {
  /** The info string after the fence, e.g. "ts" or "sh". */
  lang: string;
  code: string;
  /** 1-based line of the opening fence, so a failure points at the README line. */
  line: number;
}

export function readmeText(): string {
  return readFileSync(`${REPO}README.md`, "utf8");
}

/** Every fenced block (``` or ~~~) in a Markdown text, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trim().startsWith(fence)) body.push(lines[j++]!);
    blocks.push({ lang: open[2]!.toLowerCase(), code: body.join("\n"), line: i + 1 });
    i = j;
  }
  return blocks;
}

const TS_LANGS = new Set(["ts", "typescript", "tsx", "mts"]);
const SHELL_LANGS = new Set(["sh", "bash", "shell", "console", "zsh"]);

export const typescriptBlocks = (markdown: string) => fencedBlocks(markdown).filter((b) => TS_LANGS.has(b.lang));
export const shellBlocks = (markdown: string) => fencedBlocks(markdown).filter((b) => SHELL_LANGS.has(b.lang));

export interface ShellCommand {
  command: string;
  line: number;
}

/**
 * The commands of the README's shell blocks: one per line (a trailing `\` joins the next), with `$ ` prompts
 * and `# comments` removed, whitespace collapsed. A `#` counts as a comment only after whitespace, so
 * `--model hf:user/repo#x` stays whole.
 */
export function shellCommands(markdown: string): ShellCommand[] {
  const out: ShellCommand[] = [];
  for (const block of shellBlocks(markdown)) {
    const lines = block.code.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = block.line + 1 + i;
      let text = lines[i]!;
      while (/\\\s*$/.test(text) && i + 1 < lines.length) text = text.replace(/\\\s*$/, " ") + lines[++i]!;
      const command = text.replace(/^\s*\$\s+/, "").replace(/(^|\s)#.*$/, "").replace(/\s+/g, " ").trim();
      if (command !== "") out.push({ command, line });
    }
  }
  return out;
}
