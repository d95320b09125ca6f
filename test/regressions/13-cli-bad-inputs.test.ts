// Issue 13, item 13: every bad input to the built CLI (dist/, `npm run build`) is one line on stderr and exit
// code 2: no hang, no stack trace, no llama.cpp log lines, no "unexpected failure". Bad GGUFs (empty, 20 and
// 24 bytes, counts of 2^63-1, huge arrays and strings, wrong magic or version, truncated), files that are
// folders or garbage, output paths that cannot be written, and flag values out of range.

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { writeGguf } from "../../src/model/gguf-writer.js";
import { tinyModelPath } from "../helpers/models.js";

const ROOT = new URL("../..", import.meta.url).pathname;
const BIN = join(ROOT, "bin/qtc.js");
const TASK = join(ROOT, "bench/tasks/is-leap-year");
/** A bad input must fail fast: the 2^63-1 header used to hang until killed. */
const LIMIT_MS = 60_000;

let dir: string;
const at = (name: string) => join(dir, name);

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}
function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
}
const MAX_I64 = 2n ** 63n - 1n;
const header = (version: number, tensors: bigint, kvs: bigint) => Buffer.concat([Buffer.from("GGUF"), u32(version), u64(tensors), u64(kvs)]);
const str = (s: string) => Buffer.concat([u64(BigInt(Buffer.byteLength(s))), Buffer.from(s)]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "qtc-13-cli-"));
  const model = readFileSync(await tinyModelPath());
  const files: Record<string, Buffer | string> = {
    "g0.gguf": Buffer.alloc(0),
    "g20.gguf": Buffer.concat([Buffer.from("GGUF"), u32(3), u64(0n), Buffer.alloc(4)]),
    "g24-kvs.gguf": header(3, 0n, MAX_I64),
    "g24-tensors.gguf": header(3, MAX_I64, 0n),
    "magic.gguf": Buffer.concat([Buffer.from("GGUX"), Buffer.alloc(100)]),
    "version.gguf": header(99, 0n, 0n),
    "big-array.gguf": Buffer.concat([header(3, 0n, 1n), str("abc"), u32(9), u32(4), u64(2n ** 62n)]),
    "big-string.gguf": Buffer.concat([header(3, 0n, 1n), u64(2n ** 60n), Buffer.from("abc")]),
    "truncated.gguf": model.subarray(0, model.length >> 1),
    "truncated-meta.gguf": model.subarray(0, 100_000),
    "garbage.bin": Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 73 + 11) & 0xff)),
    "empty.json": "",
    "notjson.json": "{not json",
    "object.json": '{"a": 1}',
    "numbers.json": "[1, 2, 3]",
    "replay.json": '["done"]',
    "deep-messages.json":
      '[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "t", "arguments": ' +
      '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000) + '}}]}, {"role": "tool", "content": "ok"}]',
    "file.txt": "a file, not a folder",
  };
  for (const [name, data] of Object.entries(files)) writeFileSync(at(name), data);
  mkdirSync(at("folder"));
  // Sound structure, but an architecture llama.cpp does not know: it refuses (and logs why) after the checks.
  await writeGguf(at("alien.gguf"), [{ key: "general.architecture", value: { type: "string", value: "alien9" } }], [], () => []);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stderr: string;
}

function qtc(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, QTC_DEBUG: "" } });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), LIMIT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

const RUN = ["run", "--prompt", "hi", "--max-tokens", "1", "--threads", "1", "--context-size", "256", "--model"];
const SMALL = ["--threads", "1", "--context-size", "256"];

/** [what, argv (paths relative to the temp folder), how the one line starts]. */
const CASES: [string, () => string[], RegExp][] = [
  ["empty GGUF", () => [...RUN, at("g0.gguf")], /^qtc: model file .* is not a valid GGUF/],
  ["20-byte GGUF", () => [...RUN, at("g20.gguf")], /^qtc: model file .* is not a valid GGUF/],
  ["24-byte GGUF claiming 2^63-1 metadata entries", () => [...RUN, at("g24-kvs.gguf")], /^qtc: model file .* is not a valid GGUF/],
  ["24-byte GGUF claiming 2^63-1 tensors", () => [...RUN, at("g24-tensors.gguf")], /^qtc: model file .* is not a valid GGUF/],
  ["GGUF with the wrong magic", () => [...RUN, at("magic.gguf")], /^qtc: model file .* is not a valid GGUF/],
  ["GGUF version 99", () => [...RUN, at("version.gguf")], /^qtc: model file .* is not a valid GGUF/],
  ["GGUF array claiming 2^62 items", () => [...RUN, at("big-array.gguf")], /^qtc: model file .* is not a valid GGUF/],
  ["GGUF string claiming 2^60 bytes", () => [...RUN, at("big-string.gguf")], /^qtc: model file .* is not a valid GGUF/],
  ["synthetic model cut in half", () => [...RUN, at("truncated.gguf")], /^qtc: model file .* is not a valid GGUF/],
  ["synthetic model cut inside its metadata", () => [...RUN, at("truncated-meta.gguf")], /^qtc: model file .* is not a valid GGUF/],
  ["binary garbage as a model", () => [...RUN, at("garbage.bin")], /^qtc: model file .* is not a valid GGUF/],
  ["a folder as a model", () => [...RUN, at("folder")], /^qtc: no model file/],
  ["agent on a 2^63-1 GGUF", () => ["agent", "--task", TASK, "--model", at("g24-kvs.gguf"), ...SMALL], /^qtc: model file .* is not a valid GGUF/],
  ["serve on a 2^63-1 GGUF", () => ["serve", "--model", at("g24-kvs.gguf"), "--port", "0", "--threads", "1"], /^qtc: model file .* is not a valid GGUF/],
  ["bench with a 2^63-1 LoRA", () => ["bench", "--tasks", "1", "--seeds", "1", "--model", "synthetic:tiny", "--lora", at("g24-kvs.gguf"), "--out", at("bench-lora"), "--threads", "1"], /^qtc: LoRA adapter .* is not a valid GGUF/],
  ["history nested 10,000 deep", () => ["run", "--model", "synthetic:tiny", "--messages", at("deep-messages.json"), "--max-tokens", "1"], /^qtc: a value to render is nested deeper/],
  ["context size of 10^11 tokens", () => ["run", "--prompt", "hi", "--model", "synthetic:tiny", "--context-size", "99999999999"], /^error: option '--context-size <n>'/],
  ["bench --out naming a file", () => ["bench", "--tasks", "1", "--model", "replay:" + at("replay.json"), "--out", at("file.txt")], /^qtc: --out .*file\.txt/],
  ["bench --out under a file", () => ["bench", "--tasks", "1", "--model", "replay:" + at("replay.json"), "--out", at("file.txt/sub")], /^qtc: --out .*file\.txt/],
  ["make-model --out naming a folder", () => ["make-model", "--out", at("folder")], /^qtc: --out .*folder/],
  ["make-model --out under a file", () => ["make-model", "--out", at("file.txt/x.gguf")], /^qtc: --out .*file\.txt/],
  ["agent --transcript naming a folder", () => ["agent", "--task", TASK, "--model", "replay:" + at("replay.json"), "--transcript", at("folder")], /^qtc: --transcript .*folder/],
  ["agent --transcript under a file", () => ["agent", "--task", TASK, "--model", "replay:" + at("replay.json"), "--transcript", at("file.txt/t.jsonl")], /^qtc: --transcript .*file\.txt/],
  ["messages file that is a folder", () => ["run", "--model", "synthetic:tiny", "--messages", at("folder")], /^qtc: cannot read messages file .*: it is a folder/],
  ["messages file that is empty", () => ["run", "--model", "synthetic:tiny", "--messages", at("empty.json")], /^qtc: messages file .* is not valid JSON/],
  ["messages file of the wrong shape", () => ["run", "--model", "synthetic:tiny", "--messages", at("object.json")], /^qtc: messages file .* must hold/],
  ["tools file of binary garbage", () => ["run", "--model", "synthetic:tiny", "--prompt", "hi", "--tools", at("garbage.bin")], /^qtc: .*garbage\.bin is not valid JSON/],
  ["tools file of numbers", () => ["types", "--tools", at("numbers.json")], /^qtc: .*numbers\.json: tool #1 must be an object/],
  ["response schema that is a folder", () => ["run", "--model", "synthetic:tiny", "--prompt", "hi", "--response-schema", at("folder")], /^qtc: cannot read response schema file .*: it is a folder/],
  ["parse a folder", () => ["parse", at("folder")], /^qtc: cannot read .*: it is a folder/],
  ["missing task folder", () => ["agent", "--task", at("nope"), "--model", "synthetic:tiny"], /^qtc: no task at/],
  ["negative token budget", () => ["run", "--prompt", "hi", "--max-tokens", "-1"], /^error: option '--max-tokens <n>'/],
  ["NaN temperature", () => ["run", "--prompt", "hi", "--temperature", "NaN"], /^error: option '--temperature <t>'/],
  ["unknown mode", () => ["run", "--prompt", "hi", "--mode", "weird"], /^error: option '--mode <mode>'/],
  ["unknown synthetic shape", () => ["run", "--prompt", "hi", "--model", "synthetic:huge"], /^qtc: unknown synthetic shape/],
  ["pull of a name that is not a model", () => ["pull", "nosuch"], /^qtc: "nosuch" is not a registry name/],
];

describe("the CLI on bad input: one line, exit 2", () => {
  for (const [what, args, first] of CASES) {
    test(what, async () => {
      const r = await qtc(args());
      const lines = r.stderr.trimEnd().split("\n");
      expect({ code: r.code, lines: lines.length }, r.stderr).toEqual({ code: 2, lines: 1 });
      expect(r.stderr).not.toMatch(/unexpected failure|\n\s+at |\[node-llama-cpp\]|TypeError|RangeError/);
      expect(lines[0]).toMatch(first);
    });
  }
});

describe("a sound GGUF that llama.cpp refuses", () => {
  test("is one line naming llama.cpp's reason, without its log lines (exit 1, as test/model/load.test.ts)", async () => {
    const r = await qtc([...RUN, at("alien.gguf")]);
    expect({ code: r.code, lines: r.stderr.trimEnd().split("\n").length }, r.stderr).toEqual({ code: 1, lines: 1 });
    expect(r.stderr).toMatch(/^qtc: llama\.cpp could not load .*alien9/);
    expect(r.stderr).not.toMatch(/\[node-llama-cpp\]|unexpected failure/);
  });
});
