// Owns: tests for how trained stand-ins are named: a GGUF with a stand-in sidecar is reported as a trained
// stand-in (never as plain random weights), and the stand-in names resolve only to their own recipes.

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveModel, STAND_IN_SPECS } from "../../src/model/resolve.js";
import { DISTILLED_STAND_IN, LORA_STAND_IN_RECIPE, recipeKey, STAND_IN_RECIPES, STAND_INS, standInFileName, standInOf, standInSidecar } from "../../src/training/stand-ins.js";
import { demonstrate } from "../../src/training/demonstrations.js";
import { tinyModelPath } from "../helpers/models.js";

describe("trained stand-ins", () => {
  it("the model stage and the training stage agree on the stand-in names", () => {
    expect([...STAND_IN_SPECS]).toEqual([...STAND_INS]);
    expect(Object.keys(STAND_IN_RECIPES)).toEqual([...STAND_INS]);
    // weak is tuned's first stage, on the same data, stopped after fewer steps
    const [weak, tuned] = [STAND_IN_RECIPES["tiny-weak"], STAND_IN_RECIPES["tiny-tuned"]];
    expect(weak.plan).toBe(tuned.plan);
    expect(weak.stages).toHaveLength(1);
    const { maxSteps, epochs, ...weakStage } = weak.stages[0]!;
    const { maxSteps: _none, epochs: tunedEpochs, ...tunedStage } = tuned.stages[0]!;
    expect(weakStage).toEqual(tunedStage);
    expect(maxSteps! * epochs).toBeLessThan(40 * tunedEpochs);
    // the last stage's windows hold a whole first-turn bench prompt (~650 tokens)
    expect(tuned.stages.at(-1)!.contextSize).toBeGreaterThanOrEqual(768);
  });

  it("the LoRA stand-in learns tuned's data at rank 8, its last stage on whole first-turn prompts", () => {
    const [lora, tuned] = [LORA_STAND_IN_RECIPE, STAND_IN_RECIPES["tiny-tuned"]];
    expect(lora.plan).toBe(tuned.plan);
    expect(lora.lora).toEqual({ rank: 8, alpha: 16 });
    expect(lora.stages.map((s) => s.contextSize)).toEqual([tuned.stages[0]!.contextSize, tuned.stages.at(-1)!.contextSize]);
    expect(lora.stages.map((s) => s.seed)).toEqual([tuned.stages[0]!.seed, tuned.stages.at(-1)!.seed]);
  });

  it("the distilled stand-in learns from the base's constrained runs, on tuned's first and last stages", () => {
    const [distilled, tuned] = [STAND_IN_RECIPES[DISTILLED_STAND_IN], STAND_IN_RECIPES["tiny-tuned"]];
    expect("plan" in distilled).toBe(false); // no demonstration: its own runs are its only data
    // the random base calls only when made to (0% under auto): the grammar forces turn 1's call
    expect(distilled.distill.callPolicy).toBe("required-first");
    expect(distilled.distill.seeds).toEqual([0, 1]);
    const shape = ({ epochs: _e, ...s }: (typeof tuned.stages)[number]) => s;
    expect(distilled.stages.map(shape)).toEqual([shape(tuned.stages[0]!), shape(tuned.stages.at(-1)!)]);
    expect(distilled.stages.at(-1)!.contextSize).toBeGreaterThanOrEqual(768);
    expect(standInFileName(DISTILLED_STAND_IN)).toBe("synthetic-tiny-distilled.gguf");
  });

  it("a recipe's cache key follows its data-generation settings and stages", async () => {
    const tasks = path.resolve("bench/tasks");
    const distilled = STAND_IN_RECIPES[DISTILLED_STAND_IN];
    const key = await recipeKey(distilled, tasks);
    expect(await recipeKey(structuredClone(distilled), tasks)).toBe(key);
    expect(await recipeKey({ ...distilled, distill: { ...distilled.distill, seeds: [0] } }, tasks)).not.toBe(key);
    expect(await recipeKey({ ...distilled, distill: { ...distilled.distill, maxTokens: 128 } }, tasks)).not.toBe(key);
    expect(await recipeKey({ ...distilled, distill: { ...distilled.distill, callPolicy: "finish-tool" } }, tasks)).not.toBe(key);
    expect(await recipeKey({ ...distilled, stages: distilled.stages.slice(1) }, tasks)).not.toBe(key);
    expect(await recipeKey(STAND_IN_RECIPES["tiny-tuned"], tasks)).not.toBe(key);
  });

  it("learn from probe demonstrations: one run_tests call with its real result, then the answer", async () => {
    const c = await demonstrate(path.resolve("bench/tasks/fizzbuzz"), { plan: STAND_IN_RECIPES["tiny-tuned"].plan });
    expect(c.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    const call = c.messages[2]!;
    expect(call.role === "assistant" && call.tool_calls?.map((t) => [t.function.name, t.function.arguments])).toEqual([["run_tests", "{}"]]);
    expect(c.messages[3]!.content).not.toBe(""); // the harness's real (failing) test output
  }, 60_000);

  it("a GGUF with a stand-in sidecar is named qtc-trained-stand-in-*, a copy without one stays qtc-synthetic-tiny", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "qtc-standin-"));
    try {
      const file = path.join(dir, "m.gguf");
      await fs.copyFile(await tinyModelPath(), file);
      expect((await resolveModel(file)).name).toBe("qtc-synthetic-tiny");
      expect(standInOf(file)).toBeNull();
      await fs.writeFile(standInSidecar(file), JSON.stringify({ name: "tiny-weak", label: "trained stand-in" }));
      expect(standInOf(file)).toBe("tiny-weak");
      expect((await resolveModel(file)).name).toBe("qtc-trained-stand-in-tiny-weak");
      await fs.writeFile(standInSidecar(file), JSON.stringify({ name: "not-a-stand-in" }));
      expect((await resolveModel(file)).name).toBe("qtc-synthetic-tiny");
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
