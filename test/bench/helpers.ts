// Owns: fixtures for the bench tests: tiny tasks written on the fly, hermes call blocks, replay models with
// known usage and timings, and a model opener that serves them to runBench and counts what it was asked for.

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BenchModelHandle, BenchModelOpener } from "../../src/bench/models.js";
import type { BenchMode } from "../../src/bench/types.js";
import { createReplayModel } from "../../src/harness/replay-model.js";
import type { AgentModel } from "../../src/harness/types.js";
import type { GenerateRequest, GenerateResult } from "../../src/runtime/types.js";

export async function makeTmp(prefix = "qtc-bench-test-"): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
}

const TEST_FILE = (fn: string, a: number, b: number, want: number): string =>
  `import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { ${fn} } from "../src/${fn}.js";\n\n` +
  `test("${fn}", () => {\n  assert.equal(${fn}(${a}, ${b}), ${want});\n});\n`;

/** Source of `src/add.js` that passes its test. */
export const ADD_FIX = "export function add(a, b) {\n  return a + b;\n}\n";

/** Write two small tasks (add-task, mul-task) under `root`; returns `root`. */
export async function makeTasks(root: string): Promise<string> {
  const tasks: Record<string, Record<string, string>> = {
    "add-task": { "src/add.js": "export function add(a, b) {\n  return a - b;\n}\n", "test/add.test.js": TEST_FILE("add", 2, 3, 5) },
    "mul-task": { "src/mul.js": "export function mul(a, b) {\n  return a + b;\n}\n", "test/mul.test.js": TEST_FILE("mul", 2, 4, 8) },
  };
  for (const [id, files] of Object.entries(tasks)) {
    const dir = path.join(root, id);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, "task.json"), JSON.stringify({ id, prompt: `Fix ${id}.`, tags: ["test"] }));
    await fs.writeFile(path.join(dir, "package.json"), JSON.stringify({ name: id, private: true, type: "module" }));
    for (const [rel, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await fs.writeFile(path.join(dir, rel), text);
    }
  }
  return root;
}

/** A hermes call block (strict JSON between the tags). */
export function call(name: string, args: Record<string, string>): string {
  return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
}

/** A block the parser rejects as invalid_json (a raw newline inside a string). */
export const BAD_JSON_BLOCK = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a\nb"}}\n</tool_call>';

/** Usage and timing one replayed turn reports. */
export interface TurnMeter {
  completion: number;
  forced: number;
  tps: number;
}

/**
 * A replay model whose turn i reports `meters[i]` (the last one repeats), so token and speed arithmetic can be
 * checked through the real agent loop.
 */
export function meteredReplay(outputs: readonly string[], meters: readonly TurnMeter[], name = "replay:test"): AgentModel {
  const inner = createReplayModel(outputs, { name });
  let turn = 0;
  return {
    name,
    synthetic: true,
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const r = await inner.generate(req);
      const m = meters[Math.min(turn++, meters.length - 1)]!;
      return {
        ...r,
        usage: { promptTokens: 5, completionTokens: m.completion, forcedTokens: m.forced },
        timings: { ...r.timings, decodeTokensPerSecond: m.tps },
      };
    },
  };
}

/** A model per mode for the fake opener: outputs and meters. */
export interface FakeScript {
  outputs: string[];
  meters: TurnMeter[];
}

/** An opener serving metered replays; `calls` records each forRun (spec, mode), `closed` each handle closed. */
export function fakeOpener(scripts: Record<string, Partial<Record<BenchMode, FakeScript>>>): {
  open: BenchModelOpener;
  calls: { spec: string; mode: BenchMode }[];
  closed: string[];
} {
  const calls: { spec: string; mode: BenchMode }[] = [];
  const closed: string[] = [];
  const open: BenchModelOpener = async (spec) => {
    const byMode = scripts[spec.spec];
    if (!byMode) throw new Error(`no script for ${spec.spec}`);
    const handle: BenchModelHandle = {
      info: { ...spec, name: spec.spec.replace(/^fake:/, ""), synthetic: spec.spec.includes("synthetic"), source: "file" },
      async forRun(mode, label) {
        calls.push({ spec: spec.spec, mode });
        const s = byMode[mode];
        if (!s) throw new Error(`no ${mode} script for ${spec.spec}`);
        return meteredReplay(s.outputs, s.meters, label);
      },
      async close() {
        closed.push(spec.spec);
      },
    };
    return handle;
  };
  return { open, calls, closed };
}
