// Owns: flag value parsers shared by CLI commands. Each throws commander's InvalidArgumentError, which the
// CLI turns into a one-line error with exit code 2.

import { existsSync, statSync } from "node:fs";
import { InvalidArgumentError } from "commander";
import { defaultThreads, defaultToolChoiceFor, MAX_DEFAULT_THREADS } from "../defaults.js";
import { isSyntheticModel } from "../model/index.js";
import type { ToolChoice } from "../tools/types.js";

/** Largest context size a command takes: node-llama-cpp spun for minutes sizing a 10^11-token context. */
export const MAX_CONTEXT_SIZE = 1_048_576;

/**
 * The help of `--threads`, the one wording every command that runs a model uses (the default is read when
 * the process starts, so help shows what it is here and now).
 */
export function threadsHelp(): string {
  const now = defaultThreads();
  return `CPU threads (default: the cores not busy when qtc starts, 1 to ${MAX_DEFAULT_THREADS}; here now ${now})`;
}

/** `1 thread`, `4 threads`. */
export function threadsText(n: number): string {
  return `${n} ${n === 1 ? "thread" : "threads"}`;
}

/** Parse a whole number within [min, max]. */
export function intOption(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected a whole number, got "${value}".`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a number from ${min} to ${max}, got ${n}.`);
    return n;
  };
}

/** A `--repeat-guard` value: `off`, or the repeats (≥ 2) of a short span that stop a loop. */
export function repeatGuardOption(value: string): number | false {
  return value.trim() === "off" ? false : intOption(2, 1_000_000)(value);
}

/** Parse a number within [min, max]. */
export function numberOption(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError(`expected a number, got "${value}".`);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a number from ${min} to ${max}, got ${n}.`);
    return n;
  };
}

/** A `--tool-choice` value: `auto`, `required`, `none`, or a tool name. */
export function toolChoiceFlag(value: string): ToolChoice {
  return value === "auto" || value === "required" || value === "none" ? value : { name: value };
}

/**
 * Whether a `--model` spec names a synthetic (random-weight) model: `synthetic:<shape>`, or a GGUF file qtc
 * wrote (its metadata says so). Reads only the file's header; names that need a download are not synthetic.
 */
export async function isSyntheticSpec(spec: string): Promise<boolean> {
  const trimmed = spec.trim();
  if (trimmed.startsWith("synthetic:")) return true;
  if (!existsSync(trimmed) || !statSync(trimmed).isFile()) return false;
  return isSyntheticModel(trimmed).catch(() => false);
}

/**
 * The tool choice a command uses: the flag when given, else the shared rule (`defaultToolChoiceFor` in
 * src/defaults.ts: `required` for a synthetic model, `auto` otherwise).
 */
export async function toolChoiceFor(flag: string | undefined, modelSpec: string): Promise<ToolChoice> {
  if (flag !== undefined) return toolChoiceFlag(flag);
  return defaultToolChoiceFor([{ synthetic: await isSyntheticSpec(modelSpec) }]);
}

/** Help text of `--tool-choice` where the shared default applies. */
export const TOOL_CHOICE_DEFAULT_HELP = "default: auto; required for a synthetic model";

/** Parse one of a fixed set of words. */
export function choiceOption<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(choices as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`expected one of ${choices.join(", ")}, got "${value}".`);
    }
    return value as T;
  };
}

/** Collect a repeatable flag into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
