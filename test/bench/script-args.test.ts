// The bench scripts' flags: a bad flag is one line naming the flags and exit 2, never a stack trace.
import { afterEach, describe, expect, it, vi } from "vitest";
import { readBenchFlags } from "../../bench/lib/script-args.js";

const OPTIONS = { rounds: { type: "string", default: "5" }, quiet: { type: "boolean", default: false } } as const;

function run(argv: string[]): { code: number | undefined; stderr: string; stdout: string; values?: unknown } {
  const saved = process.argv;
  process.argv = ["node", "script.js", ...argv];
  let stderr = "";
  let stdout = "";
  vi.spyOn(process.stderr, "write").mockImplementation((s) => ((stderr += String(s)), true));
  vi.spyOn(process.stdout, "write").mockImplementation((s) => ((stdout += String(s)), true));
  vi.spyOn(process, "exit").mockImplementation((code) => {
    throw Object.assign(new Error("exit"), { exitCode: code });
  });
  try {
    return { code: undefined, stderr, stdout, values: readBenchFlags("qtc bench:x", OPTIONS) };
  } catch (e) {
    return { code: (e as { exitCode?: number }).exitCode, stderr, stdout };
  } finally {
    process.argv = saved;
    vi.restoreAllMocks();
  }
}

describe("bench script flags", () => {
  afterEach(() => vi.restoreAllMocks());

  it("reads known flags with their defaults", () => {
    expect(run(["--quiet"]).values).toEqual({ rounds: "5", quiet: true });
  });

  it("answers an unknown flag or a missing value with one line and the flags, exit 2", () => {
    for (const argv of [["--bogus"], ["--rounds"]]) {
      const r = run(argv);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^qtc bench:x: .*\nFlags \(defaults shown\): --rounds "5", --quiet; --help lists them\.\n$/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("lists the flags for --help, exit 0", () => {
    const r = run(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--rounds "5", --quiet');
  });
});
