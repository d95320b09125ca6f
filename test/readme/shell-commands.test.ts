// Issue 18: every shell command in the README runs in a test or in .ci/run; a README command that nothing runs is
// a defect. A command counts as run by CI when .ci/run has it as a line of its own, and as run by a test when
// test/readme/command-coverage.ts names the test, and that test file holds the entry's evidence and every word
// of the command. The failure names each README command that lacks one, with its line.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { README_COMMAND_COVERAGE, type CommandCoverage } from "./command-coverage.js";
import { REPO, readmeText, shellCommands } from "./readme-blocks.js";

const read = (file: string) => readFileSync(join(REPO, file), "utf8");

/** The words a test must mention: everything after the program (`npx qtc`, `npm run`, `node`). */
function wordsOf(command: string): string[] {
  return command.replace(/^(npx( --no-install)? qtc|npm run|npm|node)\s*/, "").split(" ").filter(Boolean);
}

function coverageProblems(command: string, entry: CommandCoverage): string[] {
  if (!existsSync(join(REPO, entry.test))) return [`"${command}": ${entry.test} does not exist`];
  const text = read(entry.test);
  const missing = [...entry.evidence, ...wordsOf(command)].filter((needle) => !text.includes(needle));
  return missing.length ? [`"${command}": ${entry.test} does not contain ${missing.map((m) => JSON.stringify(m)).join(", ")}`] : [];
}

/** Every problem with the README's commands: one that nothing runs, and a coverage entry that does not hold. */
export function commandProblems(markdown: string, ciScript: string, coverage: Readonly<Record<string, CommandCoverage>>): string[] {
  const ciLines = new Set(ciScript.split("\n").map((l) => l.trim()));
  const commands = shellCommands(markdown);
  const problems: string[] = [];
  for (const { command, line } of commands) {
    if (ciLines.has(command)) continue;
    const entry = coverage[command];
    if (entry) problems.push(...coverageProblems(command, entry));
    else problems.push(`README.md line ${line}: "${command}" is run by no test and not by .ci/run; run it in a test and name that test in test/readme/command-coverage.ts, or add the line to .ci/run`);
  }
  const listed = new Set(commands.map((c) => c.command));
  for (const command of Object.keys(coverage)) {
    if (!listed.has(command)) problems.push(`test/readme/command-coverage.ts: "${command}" is no longer in README.md; remove or update its entry`);
  }
  return problems;
}

describe("README shell commands", () => {
  it("finds the README's commands", () => {
    const commands = shellCommands(readmeText()).map((c) => c.command);
    expect(commands).toContain("npm ci");
    expect(commands).toContain("npm test");
    expect(commands.length).toBeGreaterThanOrEqual(8);
  });

  it("every one runs in .ci/run or in the test named for it", () => {
    expect(commandProblems(readmeText(), read(".ci/run"), README_COMMAND_COVERAGE)).toEqual([]);
  });

  it("names a command nothing runs, an entry whose test lacks a flag, and a stale entry", () => {
    const markdown = "```sh\nnpm test\nnpx qtc frobnicate --now   # new\nnpx qtc bench --constrained --extra\n```\n";
    const coverage = {
      "npx qtc bench --constrained --extra": { test: "test/regressions/18-npm-install.test.ts", evidence: [] },
      "npx qtc gone": { test: "test/regressions/18-npm-install.test.ts", evidence: [] },
    };
    const problems = commandProblems(markdown, "npm test\n", coverage);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain('README.md line 3: "npx qtc frobnicate --now"');
    expect(problems[1]).toContain('"--extra"');
    expect(problems[2]).toContain('"npx qtc gone"');
  });

  it("joins continued lines and drops prompts and comments", () => {
    const markdown = "```bash\n$ npx qtc run \\\n  --model m   # note\n# only a comment\n```\n";
    expect(shellCommands(markdown)).toEqual([{ command: "npx qtc run --model m", line: 2 }]);
  });
});
