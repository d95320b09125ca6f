// `qtc grammar --dialect xgrammar`: prints xgrammar's EBNF for a tools file (TagDispatch under auto, no `<[id]>`
// token terminals, no unrolled budgets), and `--check FILE` judges a text with xgrammar itself.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTmp } from "../bench/helpers.js";
import { runCli } from "../helpers/cli.js";

const TOOLS = new URL("../../grammars/harness-tools.json", import.meta.url).pathname;
const CALL = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>';

describe("qtc grammar --dialect xgrammar", () => {
  it("prints xgrammar's EBNF: TagDispatch under auto, tags as text, no token terminals", async () => {
    const r = await runCli(["grammar", "--tools", TOOLS, "--dialect", "xgrammar"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^root ::= TagDispatch\(\("<tool_call>", call-rest\)\)$/m);
    expect(r.stdout).not.toMatch(/<\[\d+\]>/);
    const required = await runCli(["grammar", "--tools", TOOLS, "--dialect", "xgrammar", "--tool-choice", "required", "--format", "qwen3coder"]);
    expect(required.stdout).toMatch(/^root ::= calls$/m);
    expect(required.stdout).toContain('"<function=run_tests>\\n"');
  });

  it("--check accepts a valid call (exit 0) and rejects one to an undeclared tool (exit 1), judged by xgrammar", async () => {
    const dir = await makeTmp();
    const good = join(dir, "good.txt");
    const bad = join(dir, "bad.txt");
    writeFileSync(good, CALL);
    writeFileSync(bad, CALL.replace("read_file", "delete_file"));
    const yes = await runCli(["grammar", "--tools", TOOLS, "--dialect", "xgrammar", "--tool-choice", "required", "--check", good]);
    expect([yes.code, yes.stdout]).toEqual([0, "accepted\n"]);
    const no = await runCli(["grammar", "--tools", TOOLS, "--dialect", "xgrammar", "--tool-choice", "required", "--check", bad]);
    expect(no.code).toBe(1);
  }, 60_000);

  it("refuses --thinking (the dialect has no thinking phase)", async () => {
    const r = await runCli(["grammar", "--tools", TOOLS, "--dialect", "xgrammar", "--thinking"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
  });
});

describe("tool choice auto without parallel calls", () => {
  it("ends the output after one dispatched call (loop_after_dispatch=false)", async () => {
    const r = await runCli(["grammar", "--tools", TOOLS, "--dialect", "xgrammar", "--no-parallel"]);
    expect(r.stdout).toMatch(/^root ::= TagDispatch\(\("<tool_call>", call-rest\), loop_after_dispatch=false\)$/m);
  });
});
