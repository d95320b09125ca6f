// `qtc run` in-process with the synthetic tiny model: the --json contract, the summary, and one-line errors
// (exit 2) for a missing model file, a bad tools file, an unknown tool in --tool-choice and a bad
// --response-schema file; a JSON answer with --response-schema.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { QtcException } from "../../src/errors.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { generateOnce } from "../../src/engines/run-once.js";
import { loadToolsFile } from "../../src/tools/index.js";
import { tinyModelPath } from "../helpers/models.js";
import { runCli } from "../helpers/cli.js";

let dir: string;
let toolsFile: string;
let model: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "qtc-run-cli-"));
  toolsFile = join(dir, "tools.json");
  await writeFile(toolsFile, JSON.stringify(HARNESS_TOOLS));
  model = await tinyModelPath();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const run = (...args: string[]) => runCli(args);

const common = ["--threads", "1", "--context-size", "1024", "--gpu", "cpu"];

describe("qtc run", () => {
  test("--model synthetic:qwen3.5-tiny --tool-choice required: a valid call in the Qwen3.5 format", async () => {
    const r = await run("run", "--model", "synthetic:qwen3.5-tiny", "--tools", new URL("../../grammars/harness-tools.json", import.meta.url).pathname, "--prompt", "Read src/index.js", "--tool-choice", "required", "--max-tokens", "96", "--seed", "4", "--json", ...common);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { calls: Array<{ name: string }>; errors: unknown[]; finishReason: string; raw: string };
    expect(out.errors).toEqual([]);
    expect(out.finishReason).toBe("tool_calls");
    expect(out.calls.length).toBeGreaterThanOrEqual(1);
    // Qwen3.5's spelling: the XML body inside the call tags, which the Qwen3.5 vocabulary holds as single tokens.
    expect(out.raw).toMatch(/^<tool_call>\n<function=[a-z_]+>\n[\s\S]*<\/function>\n<\/tool_call>$/);
  });

  test("--json prints content, reasoning, calls, errors, finishReason, usage, timings and raw", async () => {
    const r = await run("run", "--model", "synthetic:tiny", "--tools", toolsFile, "--prompt", "List the files.", "--tool-choice", "list_files", "--max-tokens", "64", "--seed", "5", "--json", ...common);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["content", "reasoning", "calls", "errors", "finishReason", "usage", "timings", "raw"]);
    const calls = out.calls as Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const call of calls) {
      expect(Object.keys(call)).toEqual(["id", "name", "arguments"]);
      expect(call.name).toBe("list_files");
      expect(typeof call.arguments.path).toBe("string");
    }
    expect(out.errors).toEqual([]);
    expect(out.finishReason).toBe("tool_calls");
    expect(String(out.raw).startsWith("<tool_call>\n")).toBe(true);
    expect(Object.keys(out.usage as object)).toEqual(["promptTokens", "completionTokens", "forcedTokens", "promptTokensReused"]);
  });

  test("without --json prints a summary naming the synthetic model and each call", async () => {
    const r = await run("run", "--model", model, "--tools", toolsFile, "--prompt", "Run the tests.", "--tool-choice", "required", "--max-tokens", "64", "--seed", "9", ...common);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("qtc-synthetic-tiny (synthetic: random weights)");
    expect(r.stdout).toMatch(/^call (read_file|list_files|grep|write_file|run_tests) \{/m);
    expect(r.stdout).toMatch(/^finish tool_calls · \d+ prompt \+ \d+ completion tokens/m);
  });

  test("--response-schema: the answer is JSON that fits the schema, and --json reports it as answer", async () => {
    const schemaFile = join(dir, "answer.json");
    const schema = { type: "object", properties: { done: { type: "boolean" }, files: { type: "integer", minimum: 0 } }, required: ["done", "files"], additionalProperties: false };
    await writeFile(schemaFile, JSON.stringify(schema));
    const r = await run("run", "--model", model, "--prompt", "How many files?", "--response-schema", schemaFile, "--max-tokens", "48", "--seed", "2", "--json", ...common);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const out = JSON.parse(r.stdout) as { content: string; answer: { ok: boolean; value: { done: unknown; files: unknown } } };
    const value = JSON.parse(out.content) as { done: unknown; files: unknown };
    expect(out.answer).toEqual({ ok: true, value });
    expect([Object.keys(value), typeof value.done, Number.isInteger(value.files)]).toEqual([["done", "files"], "boolean", true]);
    const summary = await run("run", "--model", model, "--prompt", "How many files?", "--response-schema", schemaFile, "--max-tokens", "48", "--seed", "2", ...common);
    expect(summary.stdout).toContain("answer fits the response schema");
  });

  test.each([
    ["a missing response schema file", ["--model", "synthetic:tiny", "--prompt", "hi", "--response-schema", "/nonexistent/schema.json"]],
    ["a response schema file that is not JSON", ["--model", "synthetic:tiny", "--prompt", "hi", "--response-schema", "BAD"]],
    ["a missing model file", ["--model", "/nonexistent/model.gguf", "--prompt", "hi"]],
    ["a tools file that is not JSON", ["--model", "synthetic:tiny", "--tools", "BAD", "--prompt", "hi"]],
    ["an unknown tool in --tool-choice", ["--model", "synthetic:tiny", "--tools", "TOOLS", "--tool-choice", "rm_rf", "--prompt", "hi"]],
    ["both --prompt and --messages", ["--model", "synthetic:tiny", "--prompt", "hi", "--messages", "x.json"]],
  ])("%s → one line on stderr, exit 2", async (_what, args) => {
    const bad = join(dir, "bad.json");
    await writeFile(bad, "[{ not json");
    const r = await run("run", ...args.map((a) => (a === "BAD" ? bad : a === "TOOLS" ? toolsFile : a)), ...common);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr.startsWith("qtc: ")).toBe(true);
  });

  test("the library behind it fails with stable codes for the same mistakes", async () => {
    const code = async (f: () => unknown) => {
      try {
        await f();
        return "no error";
      } catch (e) {
        return e instanceof QtcException ? e.code : String(e);
      }
    };
    const bad = join(dir, "bad.json");
    await writeFile(bad, "[{ not json");
    const messages = [{ role: "user" as const, content: "hi" }];
    expect(await code(() => generateOnce({ model: "/nonexistent/model.gguf" }, { messages }))).toBe("model_not_found");
    expect(await code(() => loadToolsFile(bad))).toBe("invalid_tools");
    expect(await code(() => generateOnce({ model: "synthetic:tiny" }, { messages, tools: [...HARNESS_TOOLS], toolChoice: { name: "rm_rf" } }))).toBe("invalid_tool_choice");
  });
});
