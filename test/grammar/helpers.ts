// Shared by the grammar tests: one llama.cpp instance with the synthetic tiny model per test file, the schema
// corpus, rendering an instance as a call in a format's canonical spelling (the prompt renderer, which follows the
// real chat templates), and judging a compiled grammar against qtc's validator.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Llama, LlamaModel } from "node-llama-cpp";
import { getFormat } from "../../src/formats/index.js";
import { renderToolCall } from "../../src/prompt/render-calls.js";
import type { JsonSchema, ToolDefinition } from "../../src/tools/types.js";
import { tinyModelPath } from "../helpers/models.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

/** ajv as qtc's validator judges values: draft 2020-12, ajv-formats ("full"), lengths in code points. */
export function formatsAjv(): Ajv2020 {
  const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
  const ajv = new Ajv2020({ strict: false, unicode: true } as never);
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return ajv;
}

export interface CorpusEntry {
  name: string;
  description: string;
  tool: ToolDefinition;
  valid: Record<string, unknown>[];
  invalid: Record<string, unknown>[];
  /** Valid instances qwen3coder cannot spell as such (e.g. null for a string-or-null parameter, read as text). */
  hermesOnly?: Record<string, unknown>[];
}

const CORPUS_DIR = new URL("./corpus/", import.meta.url).pathname;

/** Every schema of test/grammar/corpus, sorted by name. */
export function loadCorpus(): CorpusEntry[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ""), ...(JSON.parse(readFileSync(join(CORPUS_DIR, f), "utf8")) as Omit<CorpusEntry, "name">) }));
}

/** One call block in the format's canonical spelling. */
export function renderCall(format: "hermes" | "qwen3coder", name: string, args: Record<string, unknown>): string {
  return renderToolCall({ name, arguments: args }, getFormat(format));
}

let loaded: Promise<{ llama: Llama; model: LlamaModel }> | undefined;

/** The synthetic tiny model, loaded once per test file (CPU, llama.cpp logs off). */
export function tinyModel(): Promise<{ llama: Llama; model: LlamaModel }> {
  loaded ??= (async () => {
    const { getLlama } = await import("node-llama-cpp");
    const llama = await getLlama({ gpu: false, build: "never", skipDownload: true, progressLogs: false, logLevel: "error" as never });
    const model = await llama.loadModel({ modelPath: await tinyModelPath() });
    return { llama, model };
  })();
  return loaded;
}

/** The schema compiled by compileSchema and by qtc's engine: whether a JSON text is accepted whole. */
export async function schemaChecker(schema: JsonSchema | boolean, maxTokens = 256): Promise<(text: string) => boolean> {
  const { compileSchema } = await import("../../src/grammar/index.js");
  const { GrammarChecker } = await import("../../src/model/grammar-checker.js");
  const { model } = await tinyModel();
  const r = compileSchema(schema, { maxTokens });
  if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
  const c = await GrammarChecker.create(model, r.value);
  return (text) => c.checkText(text).accepted;
}

/** Each JSON text: the grammar accepts it exactly when qtc's validator does. */
export async function agreesWithValidator(schema: JsonSchema, texts: readonly string[], maxTokens = 256): Promise<void> {
  const { compileValueValidator } = await import("../../src/tools/validators.js");
  const { expect } = await import("vitest");
  const accepts = await schemaChecker(schema, maxTokens);
  const validate = compileValueValidator(schema);
  for (const t of texts) expect(accepts(t), `${JSON.stringify(schema)} ${t}`).toBe(validate(JSON.parse(t)) === null);
}

/**
 * The schema compiled under `strict` (budget 256): each value, in canonical spelling, is admitted by the grammar
 * (qtc's engine, text alone) exactly when qtc's validator accepts it, and at least one is admitted.
 */
export async function admitsExactlyValid(schema: JsonSchema, values: readonly unknown[]): Promise<void> {
  const { compileSchema } = await import("../../src/grammar/index.js");
  const { canonicalJson } = await import("../../src/grammar/canonical-json.js");
  const { judgeTextWithGbnf } = await import("../../src/engine/text-judge.js");
  const { compileValueValidator } = await import("../../src/tools/validators.js");
  const { expect } = await import("vitest");
  const r = compileSchema(schema, { maxTokens: 256, unsupported: "strict" });
  if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
  const validate = compileValueValidator(schema);
  let admitted = 0;
  for (const v of values) {
    const admits = judgeTextWithGbnf(r.value.gbnf, canonicalJson(v)) === "accepted";
    if (admits) admitted++;
    expect(admits, JSON.stringify(v)).toBe(validate(v) === null);
  }
  expect(admitted).toBeGreaterThan(0);
}
