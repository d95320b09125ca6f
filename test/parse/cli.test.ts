// `qtc parse` end to end: in-process through the CLI's main() (files), and the built bin for stdin
// (`npm test` builds dist/ first).
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { jsonCall, TOOLS, xmlCall } from "./helpers.js";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "qtc-parse-cli-"));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const toolsFile = write("tools.json", JSON.stringify(TOOLS));
const output = `<think>hm</think>\nSure.\n${xmlCall("read_file", { path: "src/index.ts" })}\n${jsonCall("delete_everything", {})}`;
const outputFile = write("out.txt", output);

const run = (args: string[]) => runCli(["parse", ...args]);

afterEach(() => {
  process.exitCode = undefined;
});

describe("qtc parse", () => {
  it("prints the IR with content, reasoning, calls, errors and diagnostics", async () => {
    const r = await run(["--tools", toolsFile, outputFile]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(Object.keys(json)).toEqual(["content", "reasoning", "calls", "errors", "diagnostics"]);
    expect(json.content).toBe("Sure.");
    expect(json.reasoning).toBe("hm");
    expect(json.calls).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{32}$/), name: "read_file", arguments: { path: "src/index.ts" } }]);
    expect(json.errors.map((e: { reason: string }) => e.reason)).toEqual(["unknown_tool"]);
    expect(json.errors[0].start).toBe(output.indexOf("<tool_call>\n{"));
    expect(json.diagnostics).toMatchObject({ detected: 2, accepted: 1, emitted: 1, rejected: { unknown_tool: 1 } });
  });

  it("prints the OpenAI and Anthropic message shapes", async () => {
    const openai = JSON.parse((await run(["--tools", toolsFile, "--shape", "openai", outputFile])).stdout);
    expect(openai).toMatchObject({ role: "assistant", content: "Sure.", reasoning_content: "hm", tool_calls: [{ type: "function", function: { name: "read_file", arguments: '{"path":"src/index.ts"}' } }] });
    expect(openai.tool_calls[0].id).toMatch(/^call_/);
    const anthropic = JSON.parse((await run(["--tools", toolsFile, "--shape", "anthropic", outputFile])).stdout);
    expect(anthropic).toMatchObject({ role: "assistant", stop_reason: "tool_use", content: [{ type: "text", text: "Sure." }, { type: "tool_use", name: "read_file", input: { path: "src/index.ts" } }] });
  });

  it("honours --format and --truncated", async () => {
    const hermesOnly = JSON.parse((await run(["--tools", toolsFile, "--format", "hermes", outputFile])).stdout);
    expect(hermesOnly.errors.map((e: { reason: string }) => e.reason)).toEqual(["bad_shape", "unknown_tool"]);
    const cut = write("cut.txt", jsonCall("read_file", { path: "abc" }).slice(0, 40));
    const truncated = JSON.parse((await run(["--truncated", cut])).stdout);
    expect(truncated.errors.map((e: { reason: string }) => e.reason)).toEqual(["truncated"]);
  });

  it("reads JSONL: one result per line in order, a bad line yields an error and the rest go on", async () => {
    const lines = [
      JSON.stringify({ text: jsonCall("read_file", { path: "a" }) }),
      "{not json",
      "",
      JSON.stringify({ text: jsonCall("read_file", { path: "a" }), tools: [{ name: "grep" }] }),
      JSON.stringify({ text: "plain" }),
    ];
    const r = await run(["--jsonl", "--tools", toolsFile, write("in.jsonl", lines.join("\n") + "\n")]);
    expect(r.code).toBe(0);
    const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(out).toHaveLength(4);
    expect(out[0].calls.map((c: { name: string }) => c.name)).toEqual(["read_file"]);
    expect(Object.keys(out[1])).toEqual(["error"]);
    expect(out[2].errors.map((e: { reason: string }) => e.reason)).toEqual(["unknown_tool"]);
    expect(out[3]).toMatchObject({ content: "plain", calls: [], errors: [] });
  });

  it("fails with one line and exit 2 for a missing file or a bad tools file", async () => {
    const missing = await run([join(dir, "nope.txt")]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(missing.stderr).toMatch(/^qtc: cannot read/);
    const badTools = await run(["--tools", write("bad.json", "[{"), outputFile]);
    expect(badTools.code).toBe(2);
    expect(badTools.stderr).toMatch(/^qtc: .*not valid JSON.*line 1, column 3/);
    const badSchema = await run(["--tools", write("schema.json", '[{"name": "t", "parameters": {"type": "object", "properties": {"x": {"type": "nope"}}}}]'), outputFile]);
    expect(badSchema.code).toBe(2);
    expect(badSchema.stderr).toContain('tool "t"');
    expect((await run(["--format", "xml", outputFile])).code).toBe(2);
    expect((await run(["--shape", "gemini", outputFile])).code).toBe(2);
  });

  it("reads stdin through the built bin (FILE omitted or -)", () => {
    const r = spawnSync(process.execPath, ["bin/qtc.js", "parse", "--tools", toolsFile], { input: output, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).calls.map((c: { name: string }) => c.name)).toEqual(["read_file"]);
    const jsonl = spawnSync(process.execPath, ["bin/qtc.js", "parse", "--jsonl", "-"], { input: `${JSON.stringify({ text: "a" })}\n${JSON.stringify({ text: "b" })}\n`, encoding: "utf8" });
    expect(jsonl.stdout.trim().split("\n").map((l) => JSON.parse(l).content)).toEqual(["a", "b"]);
  });
});
