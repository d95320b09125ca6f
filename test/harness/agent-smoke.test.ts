// Owns: the smoke test: one bench task end to end with `synthetic:tiny` in constrained mode (the runtime writes the
// synthetic GGUF into models/ on first use). Random weights never fix the task; what is checked is that the
// loop runs real turns and that every call block the constrained model emitted was valid.

import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTask } from "../../src/harness/run-task.js";
import { makeScratch, removeScratch, type Scratch } from "./helpers.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

let s: Scratch;
beforeAll(async () => {
  s = await makeScratch();
});
afterAll(async () => {
  await removeScratch(s);
});

describe("qtc agent with synthetic:tiny", () => {
  it("runs a task in constrained mode with tool choice required: a valid call every turn, none invalid", { timeout: 300_000 }, async () => {
    const run = await runTask({
      taskDir: path.join(repo, "bench", "tasks", "is-leap-year"),
      model: "synthetic:tiny",
      mode: "constrained",
      toolChoice: "required",
      maxTurns: 2,
      maxTokens: 96,
      threads: 1,
      seed: 1,
      tmpRoot: s.runs,
    });
    expect(run).toMatchObject({ model: "qtc-synthetic-tiny", synthetic: true, mode: "constrained", status: "turn_limit", testsPassed: false });
    expect(run.counts.turns).toBe(2);
    expect(run.counts.invalid).toBe(0);
    for (const turn of run.turns) {
      expect(turn.calls.length).toBeGreaterThan(0);
      expect(turn.results).toHaveLength(turn.calls.length);
      expect(turn.usage.completionTokens).toBeGreaterThan(0);
    }
    expect(run.finalTests.tests).toBe(3);
  });
});
