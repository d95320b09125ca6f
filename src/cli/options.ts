// Owns: flag value parsers shared by CLI commands. Each throws commander's InvalidArgumentError, which the
// CLI turns into a one-line error with exit code 2.

import { InvalidArgumentError } from "commander";
import type { ToolChoice } from "../tools/types.js";

/** Parse a whole number within [min, max]. */
/** Largest context size a command takes: node-llama-cpp spun for minutes sizing a 10^11-token context. */
export const MAX_CONTEXT_SIZE = 1_048_576;

export function intOption(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected a whole number, got "${value}".`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a number from ${min} to ${max}, got ${n}.`);
    return n;
  };
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
