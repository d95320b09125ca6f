// Runs the qtc CLI in-process (the same `main` the bin calls) and captures what it prints.

import { vi } from "vitest";
import { main } from "../../src/cli/cli.js";

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
