// The trainer proven on the synthetic tiny model (F32): plain SGD steps through the patched llama.cpp trainer
// (llama_opt_epoch, what qtc finetune drives) against updates computed independently, by central finite
// differences of the loss the same driver evaluates (forward passes only) on GGUF copies with one weight moved.
// One step from W0 must move a weight by -lr·dL/dw at W0; the second step by -lr·dL/dw at W1, not by
// -lr·(dL/dw at W0 + at W1), which is what a gradient accumulator never reset between steps would apply.

import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureSyntheticModel } from "../../src/model/synthetic.js";
import { buildTrainer } from "../../src/training/index.js";
import { readF32, writeWithF32 } from "../helpers/gguf-tensors.js";

const run = promisify(execFile);
const LR = 0.05;
const H = 2e-3;
/** A 1-D F32 weight every output position depends on, and elements of it with a gradient well above noise. */
const TENSOR = "output_norm.weight";
const INDICES = [0, 5, 17];

let dir: string;
let bin: string;
let w0: string;
let data: string;

const piece = (kind: string, text: string) => `${kind} ${Buffer.byteLength(text)}\n${text}`;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "qtc-sgd-"));
  bin = await buildTrainer();
  w0 = await ensureSyntheticModel("tiny", { dtype: "f32" });
  data = path.join(dir, "data.qtctrain");
  await fs.writeFile(data, [
    "QTCTRAIN 1\n",
    piece("m", "<|im_start|>user\n"), piece("c", "What is the weather in Paris?"), piece("m", "<|im_end|>\n<|im_start|>assistant\n"),
    piece("C", "It is sunny in Paris today, with a light wind from the west."), piece("M", "<|im_end|>"), "E 0\n",
  ].join(""));
}, 120_000);
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const common = () => ["--data", data, "--ctx", "256", "--threads", "2", "--seed", "0"];

/** `steps` SGD steps on the one window (one step per epoch), from `model`; returns the written model. */
async function sgd(model: string, steps: number, name: string): Promise<string> {
  const out = path.join(dir, name);
  await run(bin, ["--model", model, "--out", out, "--optimizer", "sgd", "--lr", String(LR), "--epochs", String(steps), ...common()]);
  return out;
}

async function loss(model: string): Promise<number> {
  const { stderr } = await run(bin, ["--model", model, "--eval", "1", ...common()]);
  const m = /qtc-train eval loss=([0-9.eE+-]+)/.exec(stderr);
  if (!m) throw new Error(`no eval line in: ${stderr}`);
  return Number(m[1]);
}

/** dL/dw[i] by central differences, each side a GGUF copy with that one weight moved by ±H. */
async function fdGradient(model: string, i: number): Promise<number> {
  const w = readF32(model, TENSOR)[i]!;
  const plus = path.join(dir, "plus.gguf");
  const minus = path.join(dir, "minus.gguf");
  writeWithF32(model, plus, TENSOR, i, w + H);
  writeWithF32(model, minus, TENSOR, i, w - H);
  return ((await loss(plus)) - (await loss(minus))) / (2 * H);
}

describe("llama.cpp's trainer, two SGD steps", () => {
  it("moves each weight by -lr times the gradient at the weights of that step", async () => {
    const w1 = await sgd(w0, 1, "w1.gguf");
    const w2 = await sgd(w0, 2, "w2.gguf");
    const [a, b, c] = [readF32(w0, TENSOR), readF32(w1, TENSOR), readF32(w2, TENSOR)];
    const rows = [];
    for (const i of INDICES) {
      const g0 = await fdGradient(w0, i);
      const g1 = await fdGradient(w1, i);
      rows.push({ i, g0, g1, step1: b[i]! - a[i]!, step2: c[i]! - b[i]! });
    }
    for (const r of rows) {
      expect(Math.abs(r.g0)).toBeGreaterThan(1e-2); // a gradient the differences resolve
      // A leftover accumulator would add -lr·g0 to step 2: far outside the 5% band below when |g0| > 0.2·|g1|.
      expect(Math.abs(r.g0)).toBeGreaterThan(0.2 * Math.abs(r.g1));
      expect(Math.abs(r.step1 + LR * r.g0)).toBeLessThan(0.05 * Math.abs(LR * r.g0));
      // The second step is the gradient at W1 alone (an accumulator left over from step 1 would add -lr·g0).
      expect(Math.abs(r.step2 + LR * r.g1)).toBeLessThan(0.05 * Math.abs(LR * r.g1));
    }
  }, 300_000);
});
