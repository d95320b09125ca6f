// Issue 27: the `open-bias` call policy of the agent loop, the bench and `qtc run` biased Qwen3's `<tool_call>`
// id (151657) whatever the run's format; under qwen35 that id is an ordinary BPE token, and Qwen3.5's own
// `<tool_call>` (248058) got no bias. The harness now biases the open tag of the model's format, as qtc serve does.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { generateOnce } from "../../src/engines/run-once.js";
import { hermes, qwen35, qwen3coder, QWEN3_TOKENS, QWEN35_TOKENS } from "../../src/formats/index.js";
import { planRequest, planTurn } from "../../src/harness/call-policy.js";
import { runAgent } from "../../src/harness/loop.js";
import { createReplayModel } from "../../src/harness/replay-model.js";
import { resolveAgentModel } from "../../src/harness/run-task.js";
import type { AgentModel } from "../../src/harness/types.js";
import type { GenerateRequest } from "../../src/runtime/types.js";
import { ADD_TASK, makeScratch, makeTask, removeScratch, type Scratch } from "../harness/helpers.js";

let s: Scratch;
let taskDir: string;
beforeAll(async () => {
  s = await makeScratch();
  taskDir = await makeTask(s.tasks, ADD_TASK);
});
afterAll(() => removeScratch(s));

/** A replay model that says it runs `format`, recording each request the loop sends. */
function recording(format: AgentModel["format"]): { model: AgentModel; requests: GenerateRequest[] } {
  const replay = createReplayModel(["Done."]);
  const requests: GenerateRequest[] = [];
  return { requests, model: { ...replay, format, generate: (req) => (requests.push(req), replay.generate(req)) } };
}

describe("open-bias biases the open tag of the run's format", () => {
  test("planTurn and planRequest: each format's own open id (qwen35's is not Qwen3's)", () => {
    expect(QWEN35_TOKENS.toolCallOpen.token).not.toBe(QWEN3_TOKENS.toolCallOpen.token);
    for (const format of [hermes, qwen3coder, qwen35]) {
      const want = { [format.open.token]: 5 };
      expect(planTurn("open-bias", 0, "auto", format.id).logitBias).toEqual(want);
      expect(planTurn("open-bias", 2, "auto", format).logitBias).toEqual(want);
      expect(planRequest("open-bias", [], "auto", format.id).logitBias).toEqual(want);
    }
    expect(planTurn("open-bias", 0, "auto", "qwen35").logitBias).toEqual({ [QWEN35_TOKENS.toolCallOpen.token]: 5 });
    // A model that does not say its format keeps the default (hermes), as before.
    expect(planTurn("open-bias", 0, "auto").logitBias).toEqual({ [QWEN3_TOKENS.toolCallOpen.token]: 5 });
  });

  test("the agent loop biases the model's format's open tag", async () => {
    for (const [format, token] of [["qwen35", QWEN35_TOKENS.toolCallOpen.token], ["hermes", hermes.open.token], ["qwen3coder", qwen3coder.open.token]] as const) {
      const { model, requests } = recording(format);
      await runAgent({ task: taskDir, model, tmpRoot: s.runs, callPolicy: "open-bias", maxTurns: 1 });
      expect(requests.map((r) => r.logitBias)).toEqual([{ [token]: 5 }]);
    }
  });

  test("a runtime-backed agent model says its format; qtc run's request is planned at the loaded model's format", async () => {
    const model = await resolveAgentModel("synthetic:qwen3.5-tiny", { threads: 1, contextSize: 512 });
    try {
      expect(model.format).toBe("qwen35");
    } finally {
      await model.close?.();
    }
    const seen: string[] = [];
    const out = await generateOnce(
      { model: "synthetic:qwen3.5-tiny", threads: 1, contextSize: 512 },
      { messages: [{ role: "user", content: "hi" }], maxTokens: 1, seed: 0 },
      (req, format) => {
        seen.push(typeof format === "string" ? format : format.id);
        return { ...req, logitBias: planRequest("open-bias", [], "auto", format).logitBias };
      },
    );
    expect(seen).toEqual(["qwen35"]);
    expect(out.format).toBe("qwen35");
  });
});
