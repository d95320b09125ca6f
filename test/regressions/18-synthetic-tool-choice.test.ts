// Issue 18, item 5: synthetic models behaved differently per command: bench switched to tool choice `required`,
// run and agent kept `auto`, so the README's `qtc run --model synthetic:tiny …` wrote 512 tokens of noise and
// no call. One rule now (defaultToolChoiceFor in src/defaults.ts): no --tool-choice and a synthetic model means
// `required`; a real model, a replay, or an explicit flag keeps what it says.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolChoiceFor } from "../../src/cli/options.js";
import { defaultToolChoice } from "../../src/bench/plan.js";
import { defaultToolChoiceFor } from "../../src/defaults.js";
import { serve } from "../../src/server/serve.js";
import { runCli } from "../helpers/cli.js";
import { tinyModelPath } from "../helpers/models.js";

const dir = mkdtempSync(join(tmpdir(), "qtc-18-choice-"));
const tools = join(dir, "tools.json");
writeFileSync(tools, JSON.stringify([{ name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }]));

describe("the rule", () => {
  it("required when every model is synthetic, auto otherwise; replays do not count", () => {
    expect(defaultToolChoiceFor([{ synthetic: true }])).toBe("required");
    expect(defaultToolChoiceFor([{ synthetic: true }, { synthetic: false }])).toBe("auto");
    expect(defaultToolChoiceFor([{ synthetic: true }, { synthetic: false, source: "replay" }])).toBe("required");
    expect(defaultToolChoiceFor([{ synthetic: false, source: "replay" }])).toBe("auto");
    expect(defaultToolChoiceFor([])).toBe("auto");
  });

  it("the bench's default is the same rule", () => {
    for (const models of [[{ synthetic: true, source: "synthetic" }], [{ synthetic: false, source: "file" }], [{ synthetic: true, source: "synthetic" }, { synthetic: false, source: "registry" }]]) {
      expect(defaultToolChoice(models)).toBe(defaultToolChoiceFor(models));
    }
  });

  it("a CLI model spec: synthetic:*, a synthetic GGUF by path, a real file, a flag", async () => {
    expect(await toolChoiceFor(undefined, "synthetic:tiny")).toBe("required");
    expect(await toolChoiceFor(undefined, await tinyModelPath())).toBe("required");
    const notSynthetic = join(dir, "plain.gguf");
    writeFileSync(notSynthetic, "GGUF not really");
    expect(await toolChoiceFor(undefined, notSynthetic)).toBe("auto");
    expect(await toolChoiceFor(undefined, "qwen3-0.6b")).toBe("auto");
    expect(await toolChoiceFor("auto", "synthetic:tiny")).toBe("auto");
    expect(await toolChoiceFor("read_file", "synthetic:tiny")).toEqual({ name: "read_file" });
  });
});

describe("the commands", () => {
  it("qtc run on a synthetic model without --tool-choice makes a valid call", { timeout: 120_000 }, async () => {
    const r = await runCli(["run", "--model", "synthetic:tiny", "--tools", tools, "--prompt", "read a.txt", "--max-tokens", "96", "--seed", "1", "--threads", "1", "--context-size", "1024", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { calls: { name: string }[]; errors: unknown[] };
    expect(out.calls.length).toBeGreaterThanOrEqual(1);
    expect(out.calls[0]!.name).toBe("read_file");
    expect(out.errors).toEqual([]);
  });

  it("qtc run --tool-choice auto keeps auto (the summary says which choice ran)", { timeout: 120_000 }, async () => {
    const r = await runCli(["run", "--model", "synthetic:tiny", "--tools", tools, "--prompt", "hi", "--tool-choice", "auto", "--max-tokens", "8", "--seed", "1", "--threads", "1", "--context-size", "1024"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toContain("tool choice auto");
  });

  it("qtc agent on a synthetic model without --tool-choice runs under required", { timeout: 120_000 }, async () => {
    const r = await runCli(["agent", "--task", "bench/tasks/is-leap-year", "--model", "synthetic:tiny", "--max-turns", "1", "--max-tokens", "96", "--threads", "1", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as { toolChoice: unknown; counts: { blocks: number; valid: number } };
    expect(run.toolChoice).toBe("required");
    expect(run.counts.blocks).toBeGreaterThanOrEqual(1);
    expect(run.counts.valid).toBe(run.counts.blocks);
  });

  it("qtc serve on a synthetic model: a request with tools and no tool_choice gets a call; tool_choice auto stays auto", { timeout: 120_000 }, async () => {
    const serving = await serve({ model: "synthetic:tiny", port: 0, threads: 1, contextSize: 1024, onInternalError: () => undefined });
    try {
      const ask = async (extra: object) => {
        const body = { model: "m", messages: [{ role: "user", content: "read a.txt" }], tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }], max_tokens: 96, seed: 1, ...extra };
        const response = await fetch(`${serving.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        return (await response.json()) as { choices: { message: { tool_calls?: { function: { name: string } }[] }; finish_reason: string }[] };
      };
      const unnamed = await ask({});
      expect(unnamed.choices[0]!.message.tool_calls?.[0]?.function.name).toBe("read_file");
      const auto = await ask({ tool_choice: "auto", max_tokens: 4 });
      expect(auto.choices[0]!.message.tool_calls ?? []).toEqual([]);
    } finally {
      await serving.close();
    }
  });
});
