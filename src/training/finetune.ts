// Owns: `qtc finetune`: render the data for the driver, run the native trainer on an F32 GGUF, and turn its
// progress lines into events and its failures into error codes.

import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fail, type ErrorCode } from "../errors.js";
import { resolveModel } from "../model/resolve.js";
import { ensureSyntheticModel } from "../model/synthetic.js";
import { QWEN3_SHAPES, type ShapeName } from "../model/qwen3-shapes.js";
import { buildTrainer } from "./trainer-build.js";
import { readConversations, writeTrainerInput } from "./trainer-input.js";
import type { Conversation } from "./types.js";
import { writeLoraInit, type LoraOptions } from "./lora.js";

export interface FinetuneOptions {
  /** A GGUF path or model spec; `synthetic:<shape>` means its F32 variant (llama.cpp trains F32 only). */
  model: string;
  /** OpenAI chat fine-tuning JSONL (what `qtc data` writes), or conversations already read. */
  data: string | readonly Conversation[];
  /** The tuned GGUF to write. */
  out: string;
  /** Passes over the data. Default: 1. */
  epochs?: number;
  /** AdamW learning rate. Default: 0.001. */
  lr?: number;
  /** When set, the rate falls linearly from `lr` to this over the run. Default: none (constant). */
  lrEnd?: number;
  /** Seed of the sample order. Default: 0. */
  seed?: number;
  /** Tokens a training window holds (longer samples lose their prompt's start). Default: 1024. */
  contextSize?: number;
  /** CPU threads. Default: 2. */
  threads?: number;
  /** Windows per epoch at most (a short run, e.g. for tests). Default: 0 (all). */
  maxSteps?: number;
  /** Called for every progress line. Default: none. */
  onProgress?: (p: TrainProgress) => void;
  /**
   * Train a LoRA adapter (rank, alpha: see LoraOptions) beside the frozen base instead of every weight; `out` is
   * then the adapter GGUF, which `--lora` loads. The base must still be F32. `from` continues training an adapter
   * already trained on this base (a later stage; rank and alpha are then its own). Default: none (full fine-tune).
   */
  lora?: LoraOptions & { from?: string };
}

export const FINETUNE_DEFAULTS = Object.freeze({ epochs: 1, lr: 1e-3, seed: 0, contextSize: 1024, threads: 2, maxSteps: 0 });

/** One progress line of the driver. Loss and accuracy are over assistant tokens only. */
export interface TrainProgress {
  kind: "start" | "step" | "epoch" | "done";
  fields: Record<string, string>;
}

export interface FinetuneResult {
  out: string;
  samples: number;
  epochs: { epoch: number; loss: number; accuracy: number; seconds: number }[];
  seconds: number;
}

const LINE = /^qtc-train (start|step|epoch|done|error) (.*)$/;

/** `key=value` pairs; the last key (`message=`) takes the rest of the line. */
export function parseProgressFields(rest: string): Record<string, string> {
  const at = rest.search(/(^| )message=/);
  const head = at < 0 ? rest : rest.slice(0, at);
  const out: Record<string, string> = {};
  for (const pair of head.split(" ")) {
    const eq = pair.indexOf("=");
    if (eq > 0) out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  if (at >= 0) out.message = rest.slice(rest.indexOf("message=", at) + "message=".length);
  return out;
}

async function modelPath(spec: string): Promise<string> {
  const shape = spec.startsWith("synthetic:") ? (spec.slice("synthetic:".length) as ShapeName) : null;
  if (shape && shape in QWEN3_SHAPES) return ensureSyntheticModel(shape, { dtype: "f32" });
  return (await resolveModel(spec)).path;
}

const TRAINER_CODES: readonly ErrorCode[] = ["unsupported_model", "model_load_failed", "invalid_option", "file_not_found"];

/** Fine-tune `model` on the data; resolves when the tuned GGUF is written. */
export async function finetune(opts: FinetuneOptions): Promise<FinetuneResult> {
  const o = { ...FINETUNE_DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) } as Required<FinetuneOptions>;
  const conversations = typeof o.data === "string" ? await readConversations(o.data) : o.data;
  const [trainer, model] = [await buildTrainer(), await modelPath(o.model)];
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "qtc-finetune-"));
  try {
    const input = path.join(dir, "train.qtc");
    const { samples } = await writeTrainerInput(conversations, input);
    await fs.mkdir(path.dirname(path.resolve(o.out)), { recursive: true });
    const tmpOut = `${path.resolve(o.out)}.${process.pid}.tmp`;
    const args = ["--model", model, "--data", input, "--out", tmpOut, "--epochs", String(o.epochs), "--lr", String(o.lr),
      "--seed", String(o.seed), "--ctx", String(o.contextSize), "--threads", String(o.threads), "--max-steps", String(o.maxSteps)];
    if (opts.lrEnd !== undefined) args.push("--lr-end", String(opts.lrEnd));
    if (opts.lora) {
      const init = opts.lora.from ?? path.join(dir, "lora-init.gguf");
      if (!opts.lora.from) await writeLoraInit(model, init, opts.lora);
      args.push("--lora-init", init);
    }
    const r = await runTrainer(trainer, args, o.onProgress);
    if (r.error) {
      await fs.rm(tmpOut, { force: true });
      const code = TRAINER_CODES.includes(r.error.code as ErrorCode) ? (r.error.code as ErrorCode) : "training_failed";
      fail(code, r.error.message, { exitCode: code === "training_failed" ? 1 : 2 });
    }
    await fs.rename(tmpOut, o.out);
    return { out: o.out, samples, epochs: r.epochs, seconds: r.seconds };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

interface TrainerRun {
  epochs: FinetuneResult["epochs"];
  seconds: number;
  error?: { code: string; message: string };
}

function runTrainer(bin: string, args: string[], onProgress?: (p: TrainProgress) => void): Promise<TrainerRun> {
  return new Promise((resolve) => {
    const p = spawn(bin, args, { stdio: ["ignore", "ignore", "pipe"] });
    const run: TrainerRun = { epochs: [], seconds: 0 };
    let buf = "";
    let tail = "";
    p.stderr.on("data", (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const m = LINE.exec(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (!m) continue;
        const fields = parseProgressFields(m[2]!);
        if (m[1] === "error") run.error = { code: fields.code ?? "training_failed", message: fields.message ?? "the trainer failed" };
        else onProgress?.({ kind: m[1] as TrainProgress["kind"], fields });
        if (m[1] === "epoch") run.epochs.push({ epoch: Number(fields.epoch!.split("/")[0]), loss: Number(fields.loss), accuracy: Number(fields.acc), seconds: Number(fields.seconds) });
        if (m[1] === "done") run.seconds = Number(fields.seconds);
      }
    });
    p.on("error", (e) => resolve({ ...run, error: { code: "training_failed", message: `cannot start ${bin}: ${e.message}` } }));
    p.on("close", (code, signal) => {
      if (code !== 0 && !run.error) run.error = { code: "training_failed", message: `the trainer exited with ${signal ?? code}:\n${tail.slice(-1500)}` };
      resolve(run);
    });
  });
}
