// The schema corpus: for every schema, in both formats, qtc's constraint engine accepts each valid instance
// (rendered as a call the way the chat template spells it) and rejects each invalid one; the post-parser agrees
// on the valid ones, and ajv agrees on what is valid.

import { beforeAll, describe, expect, it } from "vitest";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { parse } from "../../src/parse/index.js";
import { compileValidators } from "../../src/tools/index.js";
import type { LlamaModel } from "node-llama-cpp";
import { loadCorpus, renderCall, tinyModel } from "./helpers.js";

const corpus = loadCorpus();
let model: LlamaModel;

beforeAll(async () => {
  ({ model } = await tinyModel());
});

describe("schema corpus", () => {
  it(`holds at least 30 schemas with at least 3 valid and 3 invalid instances each (${corpus.length} schemas)`, () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
    for (const entry of corpus) {
      expect(entry.valid.length, entry.name).toBeGreaterThanOrEqual(3);
      expect(entry.invalid.length, entry.name).toBeGreaterThanOrEqual(3);
    }
  });

  it("labels its instances the way ajv judges them", () => {
    for (const entry of corpus) {
      const tool = compileValidators([entry.tool]).get(entry.tool.name)!;
      for (const v of [...entry.valid, ...(entry.hermesOnly ?? [])]) expect(tool.validate(v), `${entry.name} valid ${JSON.stringify(v)}`).toBeNull();
      for (const v of entry.invalid) expect(tool.validate(v), `${entry.name} invalid ${JSON.stringify(v)}`).not.toBeNull();
    }
  });

  for (const entry of corpus) {
    for (const format of ["hermes", "qwen3coder"] as const) {
      it(`${entry.name} (${format}): accepts ${entry.valid.length} valid, rejects ${entry.invalid.length} invalid`, async () => {
        const compiled = compileToolGrammar([entry.tool], { format, toolChoice: "required", parallel: false, maxTokens: 1024 });
        if (!compiled.ok) throw new Error(`${compiled.error.code} at ${compiled.error.path}: ${compiled.error.message}`);
        const checker = await GrammarChecker.create(model, compiled.value);
        for (const args of format === "hermes" ? [...entry.valid, ...(entry.hermesOnly ?? [])] : entry.valid) {
          const text = renderCall(format, entry.tool.name, args);
          expect(checker.checkText(text), `valid ${text}`).toEqual({ accepted: true, complete: true });
          const parsed = parse(text, { tools: [entry.tool], format });
          expect(parsed.errors, `parser on ${text}`).toEqual([]);
          expect(parsed.calls.map((c) => c.parsedArguments)).toEqual([args]);
        }
        for (const args of entry.invalid) {
          const text = renderCall(format, entry.tool.name, args);
          expect(checker.checkText(text).accepted, `invalid ${text}`).toBe(false);
        }
      });
    }
  }
});
