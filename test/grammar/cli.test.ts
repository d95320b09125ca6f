// `qtc grammar` in-process through the CLI's main(): prints GBNF, checks texts (exit 0/1 and where a rejected
// text stops matching), and turns a refused schema into one line with its JSON pointer (exit 2).

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { normalizeTools } from "../../src/tools/index.js";
import { renderCall } from "./helpers.js";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "qtc-grammar-cli-"));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const toolsPath = new URL("../../grammars/harness-tools.json", import.meta.url).pathname;

const run = (args: string[]) => runCli(["grammar", ...args]);

afterEach(() => {
  process.exitCode = undefined;
});

describe("qtc grammar", () => {
  it("prints the grammar the library compiles for the same flags", async () => {
    const r = await run(["--tools", toolsPath, "--format", "qwen3coder", "--tool-choice", "required", "--no-parallel", "--max-tokens", "300"]);
    expect(r.code).toBe(0);
    const tools = normalizeTools(JSON.parse(readFileSync(toolsPath, "utf8")));
    // The CLI's own default split is worst-case (issue 52: a grammar whose budget holds without qtc's guard).
    const expected = compileToolGrammar(tools, { format: "qwen3coder", toolChoice: "required", parallel: false, maxTokens: 300, budgetSplit: "worst-case" });
    expect(expected.ok && r.stdout).toBe(expected.ok && expected.value.gbnf);
  });

  it("takes a tool name as the tool choice", async () => {
    const r = await run(["--tools", toolsPath, "--tool-choice", "grep"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("tool-grep-call");
    expect(r.stdout).not.toContain("tool-read-file-call");
  });

  it("--check says accepted (exit 0) or where a rejected text stops matching (exit 1)", async () => {
    const good = write("good.txt", renderCall("hermes", "read_file", { path: "a.js" }));
    const ok = await run(["--tools", toolsPath, "--tool-choice", "required", "--check", good]);
    expect(ok).toMatchObject({ code: 0, stdout: "accepted\n" });
    const bad = write("bad.txt", '<tool_call>\n{"name": "read_file", "arguments": {"file": "a.js"}}\n</tool_call>');
    const no = await run(["--tools", toolsPath, "--tool-choice", "required", "--check", bad]);
    expect(no.code).toBe(1);
    expect(no.stdout).toBe('rejected: stops matching at line 2, column 38 (offset 49): "file\\": \\"a.js\\"}}\\n</tool_call>"\n');
    const short = write("short.txt", '<tool_call>\n{"name": "read_file"');
    expect((await run(["--tools", toolsPath, "--tool-choice", "required", "--check", short])).stdout).toBe(
      "rejected: the text ends before the grammar is complete\n",
    );
  });

  it("refuses an unsupported keyword with its pointer (exit 2), and bad flags", async () => {
    // A value spelling a call tag is refused under every policy (a keyword the grammar cannot hold is left to the
    // validator under the default `validate` policy since issue 31).
    const tools = write("tools.json", JSON.stringify([{ name: "t", parameters: { type: "object", properties: { a: { type: "string", enum: ["<tool_call>"] } } } }]));
    const r = await run(["--tools", tools]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^qtc: tool "t": .*\(at \/properties\/a\)\n$/);
    expect((await run(["--tools", toolsPath, "--max-tokens", "0"])).code).toBe(2);
    expect((await run(["--tools", toolsPath, "--format", "mistral"])).code).toBe(2);
    expect((await run(["--tools", join(dir, "missing.json")])).code).toBe(2);
  });
});
