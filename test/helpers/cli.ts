// Runs the qtc CLI in-process (the same `main` the bin calls) and captures what it prints.

import { vi } from "vitest";
import { main } from "../../src/cli/cli.js";
import { waitFor } from "../server/helpers.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `qtc ...args`; returns the exit code and everything written to stdout and stderr. */
export async function runCli(args: string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  try {
    const code = await main(["node", "qtc", ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = undefined;
  }
}

/** A `qtc serve` started in-process through the CLI (main), as a user starts it. */
export interface ServeCli {
  /** `http://127.0.0.1:PORT` */
  baseURL: string;
  /** Stops it as Ctrl-C does and waits for the CLI to return. */
  stop(): Promise<void>;
}

/**
 * `qtc serve --model synthetic:tiny --port 0 --threads 2 --gpu cpu` plus `flags`, in-process, with its stdout and
 * stderr captured; resolves once it has printed its start line. Call from beforeAll (the first run writes the model).
 */
export async function startServeCli(flags: string[]): Promise<ServeCli> {
  let stdout = "";
  const before = new Set(process.listeners("SIGINT"));
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  const done = main(["node", "qtc", "serve", "--model", "synthetic:tiny", "--port", "0", "--threads", "2", "--gpu", "cpu", ...flags]);
  await waitFor(() => stdout.includes("\n"), 120_000);
  const sigint = process.listeners("SIGINT").find((l) => !before.has(l)) as (() => void) | undefined;
  return {
    baseURL: stdout.match(/(http:\/\/\S+)\/v1/)![1]!,
    stop: async () => {
      sigint?.();
      await done;
      vi.restoreAllMocks();
    },
  };
}
