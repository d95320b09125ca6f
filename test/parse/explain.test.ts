// `qtc parse --explain`: each block's verdict and reason with UTF-8 byte offsets, through the CLI, and the
// library function behind it.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { explainParse, parse } from "../../src/parse/index.js";
import { runCli } from "../helpers/cli.js";
import { jsonCall, TOOLS } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "qtc-explain-"));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const toolsFile = write("tools.json", JSON.stringify(TOOLS));
// "é" and "中" are 2 and 3 bytes in UTF-8 but one UTF-16 unit each: byte offsets differ from string indices.
const prose = "Voilà, I use the <tool_call> tag 中:\n";
const good = jsonCall("read_file", { path: "a.ts" });
const bad = jsonCall("delete_everything", {});
const output = `${prose}${good}\n${bad}`;

afterEach(() => {
  process.exitCode = undefined;
});

describe("qtc parse --explain", () => {
  it("prints one line per block with its verdict, reason and byte offsets, then the notes", async () => {
    const r = await runCli(["parse", "--explain", "--tools", toolsFile, write("out.txt", output)]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("2 blocks detected: 1 accepted, 1 rejected");
    const goodStart = Buffer.byteLength(prose);
    const goodEnd = goodStart + Buffer.byteLength(good);
    const badStart = goodEnd + 1;
    expect(lines[1]).toMatch(new RegExp(`^block 1 bytes ${goodStart}-${goodEnd}: accepted read_file: `));
    expect(lines[2]).toMatch(new RegExp(`^block 2 bytes ${badStart}-${badStart + Buffer.byteLength(bad)}: rejected \\(unknown_tool\\) delete_everything: `));
    expect(lines.some((l) => l.startsWith("note: ") && l.includes("prose"))).toBe(true);
  });

  it("says when no block was detected", async () => {
    const r = await runCli(["parse", "--explain", write("plain.txt", "just text")]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("no tool-call block detected: the whole output is text");
  });

  it("refuses --explain with --jsonl in one line on stderr, exit 2", async () => {
    const r = await runCli(["parse", "--explain", "--jsonl", write("in.jsonl", '{"text": "x"}\n')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("gives byte and UTF-16 offsets that both point at the block", () => {
    const x = explainParse(output, parse(output, { tools: TOOLS }));
    const bytes = Buffer.from(output);
    for (const b of x.blocks) {
      expect(bytes.subarray(b.startByte, b.endByte).toString()).toBe(output.slice(b.start, b.end));
    }
    expect(x.blocks.map((b) => [b.verdict, b.reason])).toEqual([["accepted", undefined], ["rejected", "unknown_tool"]]);
  });
});
