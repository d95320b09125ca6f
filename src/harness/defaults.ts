// Owns: every default of the harness (sandbox caps, loop settings, the system prompt), in two objects the
// CLI help reads.

import { RESOURCE_DEFAULTS, type ResourceLimits, type SandboxMode } from "./os-sandbox.js";
import { SHARED_DEFAULTS } from "../defaults.js";

/** Caps of the sandboxed tools. Each cap, when hit, is told to the model in the tool's result. */
export interface SandboxLimits {
  /** Bytes of a file `read_file` returns; the rest is cut with a note. Default: 8192. */
  maxReadBytes: number;
  /** Bytes one `write_file` may write; larger writes are refused whole. Default: 65536. */
  maxWriteBytes: number;
  /** Bytes all `write_file` calls of one run may write together. Default: 1048576. */
  maxTotalWriteBytes: number;
  /** Entries `list_files` returns. Default: 200. */
  maxListEntries: number;
  /** Matching lines `grep` returns. Default: 50. */
  maxGrepMatches: number;
  /** Characters of one matching line `grep` shows. Default: 200. */
  maxGrepLineChars: number;
  /** Files larger than this are skipped by `grep` (and said so). Default: 1048576. */
  maxGrepFileBytes: number;
  /** Files `grep` scans before it stops. Default: 2000. */
  maxGrepFiles: number;
  /** Largest compiled grep pattern (RE2 program instructions); larger patterns are refused. Default: 10000. */
  maxGrepProgram: number;
  /**
   * Matching work allowed on one line, in program instructions × characters: RE2 is linear in the line but
   * also in the pattern's size, so lines longer than `maxGrepLineWork / programSize` characters (at least
   * 1000) are skipped, and the model is told. Default: 20000000 (about a second at worst).
   */
  maxGrepLineWork: number;
  /** Time one grep may take; checked between lines, it stops the search with a note. Default: 3000 ms. */
  grepTimeBudgetMs: number;
  /** Time `run_tests` (and the final check) may take before its process group is killed. Default: 10000 ms. */
  testTimeoutMs: number;
  /** Characters of test output kept (the tail). Default: 4000. */
  maxTestOutputChars: number;
  /**
   * Run the tests under Node's permission model, reads and writes confined to the run folder, when this Node
   * has it (`--permission`, or `--experimental-permission` on Node 20). Child processes the tests start
   * are not confined by it (the OS sandbox below confines them). Default: true.
   */
  confineTests: boolean;
  /**
   * The OS sandbox every process of `run_tests` and of the final check runs in. `"bwrap"` (bubblewrap): no
   * network, a minimal read-only root (system folders, Node, a few /etc files; no /etc/passwd, /root, /home, or
   * the qtc package), a private /tmp, the run folder as the only writable place, and a pid namespace killed
   * with the run. Where bwrap is missing or fails its self-check the run is refused (`sandbox_unavailable`).
   * `"off"` runs the code unconfined and must be asked for (`--unsafe-no-sandbox`). Default: "bwrap".
   */
  sandbox: SandboxMode;
  /**
   * What each process in the sandbox may use: memory, processes, file size, open files, and the size of its
   * /tmp (see ResourceLimits; docs/security.md). Applies under `"bwrap"` only. Default: RESOURCE_DEFAULTS
   * (1 GiB of memory per process and 2 GiB together, 512 tasks, 64 MiB per file, 1024 open files, a
   * 64 MiB /tmp).
   */
  resources: ResourceLimits;
  /** Files of the model's workspace carried into the fresh copy a run is judged on; more fail the verdict. Default: 5000. */
  maxJudgedFiles: number;
  /** Bytes of those files together; more fail the verdict. Default: 67108864 (64 MiB). */
  maxJudgedBytes: number;
}

export const SANDBOX_DEFAULTS: Readonly<SandboxLimits> = Object.freeze({
  maxReadBytes: 8192,
  maxWriteBytes: 65536,
  maxTotalWriteBytes: 1_048_576,
  maxListEntries: 200,
  maxGrepMatches: 50,
  maxGrepLineChars: 200,
  maxGrepFileBytes: 1_048_576,
  maxGrepFiles: 2000,
  maxGrepProgram: 10_000,
  maxGrepLineWork: 20_000_000,
  grepTimeBudgetMs: 3000,
  testTimeoutMs: 10_000,
  maxTestOutputChars: 4000,
  confineTests: true,
  sandbox: "bwrap",
  resources: RESOURCE_DEFAULTS,
  maxJudgedFiles: 5000,
  maxJudgedBytes: 64 * 1024 * 1024,
});

export const SYSTEM_PROMPT = [
  "You are a careful software engineer working in a small JavaScript project.",
  "You can read, search and write files and run the project's tests with the tools you are given.",
  "Paths are relative to the project root; you cannot leave the project folder.",
  "Find the problem, fix the code (not the tests), and run the tests to check your fix.",
  "When the tests pass, reply with a one-line summary and no tool call.",
].join(" ");

/** Settings of one agent run. */
export const AGENT_DEFAULTS = Object.freeze({
  /** Turns before the run ends with status `turn_limit`. Default: 8. */
  maxTurns: 8,
  /** Token budget of one turn. Default: 512. */
  maxTokens: SHARED_DEFAULTS.maxTokens,
  /** Default: "constrained". */
  mode: "constrained" as const,
  /** Default: 0. */
  seed: 0,
  /** Default: "auto". */
  toolChoice: "auto" as const,
  /** Default: false. */
  thinking: false,
  /** Characters of one tool result kept in the transcript (the model always gets the whole result). Default: 2000. */
  transcriptResultChars: 2000,
  /** Default: the prompt above. */
  systemPrompt: SYSTEM_PROMPT,
});
