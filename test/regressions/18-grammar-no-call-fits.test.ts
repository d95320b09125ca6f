// Issue 18, item 4: `qtc grammar --max-tokens 64` under `auto` printed `root ::= free-text` without a word when
// no call fits the budget. Now a warning line goes to stderr and into `--json`; a tool left out while others
// fit is named the same way, and a budget every call fits stays silent.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "qtc-18-grammar-"));
const tool = (name: string, minLength: number) => ({ name, parameters: { type: "object", properties: { path: { type: "string", minLength } }, required: ["path"] } });
function toolsFile(name: string, tools: object[]): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(tools));
  return path;
}
const bigOnly = toolsFile("big.json", [tool("write_file", 200)]);
const mixed = toolsFile("mixed.json", [{ name: "run_tests", parameters: { type: "object", properties: {} } }, tool("write_file", 200)]);

it("no call fits under auto: one warning line on stderr, the grammar still printed", async () => {
  const r = await runCli(["grammar", "--tools", bigOnly, "--max-tokens", "64"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^root ::= free-text\n/);
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^qtc: warning: .*write_file/);
});

it("--json carries the same warning with its code and the tools left out", async () => {
  const r = await runCli(["grammar", "--tools", bigOnly, "--max-tokens", "64", "--json"]);
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { gbnf: string; omittedTools: string[]; warnings: { code: string; tools: string[] }[] };
  expect(out.gbnf).toMatch(/^root ::= free-text\n/);
  expect(out.omittedTools).toEqual(["write_file"]);
  expect(out.warnings).toMatchObject([{ code: "no_call_fits", tools: ["write_file"] }]);
  expect(r.stderr).toContain("write_file");
});

it("a tool left out while another fits is named too", async () => {
  const r = await runCli(["grammar", "--tools", mixed, "--max-tokens", "64", "--json"]);
  const out = JSON.parse(r.stdout) as { gbnf: string; warnings: { code: string; tools: string[] }[] };
  expect(out.gbnf).toContain("run_tests");
  expect(out.warnings).toMatchObject([{ code: "tools_left_out", tools: ["write_file"] }]);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
});

it("a budget every call fits prints no warning", async () => {
  const r = await runCli(["grammar", "--tools", mixed, "--max-tokens", "2048", "--json"]);
  expect(r.stderr).toBe("");
  expect((JSON.parse(r.stdout) as { warnings: unknown[] }).warnings).toEqual([]);
});

it("required still refuses the budget with exit 2 (unchanged)", async () => {
  const r = await runCli(["grammar", "--tools", bigOnly, "--max-tokens", "64", "--tool-choice", "required"]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
});
