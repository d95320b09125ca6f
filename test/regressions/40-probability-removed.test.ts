// Issue 40: each bench row says how much probability the constraint removed (the distortion users ask about):
// per token sampled under the grammar, the banned mass of the model's own distribution; the row reports its mean
// per token and its 90th percentile. Before, rows had no such field and the transcripts dropped the figures.
// Here a model whose results carry known figures runs through the real agent loop; the transcript keeps them
// and the row summarizes them (the runtime's measurement itself: test/runtime/probability-removed.test.ts).

import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowFromRuns } from "../../src/bench/metrics.js";
import { TABLE_COLUMNS } from "../../src/bench/format.js";
import { runAgent } from "../../src/harness/loop.js";
import type { AgentModel } from "../../src/harness/types.js";
import type { GenerateRequest, GenerateResult } from "../../src/runtime/types.js";
import { call, makeTasks, makeTmp, meteredReplay } from "../bench/helpers.js";

let root: string;
let task: string;

beforeAll(async () => {
  root = await makeTmp();
  task = path.join(await makeTasks(path.join(root, "tasks")), "add-task");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A replay whose turns report these figures, one list per turn. */
function withRemoved(perTurn: number[][]): AgentModel {
  const inner = meteredReplay([call("read_file", { path: "src/add.js" }), "Done."], [{ completion: 10, forced: 2, tps: 20 }]);
  let turn = 0;
  return {
    ...inner,
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const r = await inner.generate(req);
      return { ...r, probabilityRemoved: perTurn[turn++] ?? [] };
    },
  };
}

describe("probability removed, per bench row", () => {
  it("transcripts keep the per-token figures; the row gives their mean per token and p90", async () => {
    const nine = Array.from({ length: 9 }, () => 0.2);
    const run = await runAgent({ task, tmpRoot: root, model: withRemoved([[...nine.slice(0, 4), 0.9], [...nine.slice(4), 0.123456]]) });
    expect(run.turns[0]!.probabilityRemoved).toEqual([0.2, 0.2, 0.2, 0.2, 0.9]);
    expect(run.turns[1]!.probabilityRemoved).toEqual([0.2, 0.2, 0.2, 0.2, 0.2, 0.1235]);
    const row = rowFromRuns({ model: "m", synthetic: true, mode: "constrained", lora: null }, [run]);
    expect(row.probabilityRemoved).not.toBeNull();
    expect(row.probabilityRemoved!.steps).toBe(11);
    expect(row.probabilityRemoved!.meanPerToken).toBeCloseTo((9 * 0.2 + 0.9 + 0.1235) / 11, 10);
    // Nearest rank: the 10th of 11 sorted values.
    expect(row.probabilityRemoved!.p90).toBeCloseTo(0.2, 10);
    const column = TABLE_COLUMNS.find((c) => c.head.startsWith("p removed"))!;
    expect(column.cell(row)).toBe("25.7% / 20.0%");
  });

  it("a row without measured tokens says so (null, n/a)", async () => {
    const run = await runAgent({ task, tmpRoot: root, model: meteredReplay(["No idea."], [{ completion: 8, forced: 0, tps: 40 }]) });
    const row = rowFromRuns({ model: "m", synthetic: true, mode: "unconstrained", lora: null }, [run]);
    expect(row.probabilityRemoved).toBeNull();
    expect(TABLE_COLUMNS.find((c) => c.head.startsWith("p removed"))!.cell(row)).toBe("n/a");
  });
});
