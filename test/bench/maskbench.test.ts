// bench:maskbench on three schemas in MaskBench's file format (written for this test; no MaskBench data is in
// the repository): instances checked in schema key order by qtc's engine and key guard (the default) and by
// the same engine on the grammar alone, compile errors by code, and a valid instance the grammar spells otherwise counted as
// an artefact, not a validation error.

import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { MASKBENCH_DEFAULTS, renderTable, runSchemaFile, summarize } from "../../bench/lib/maskbench.js";
import { EngineTables } from "../../bench/lib/maskbench-check.js";
import { tinyModel } from "../grammar/helpers.js";

const DIR = new URL("../fixtures/maskbench/", import.meta.url).pathname;
let model: LlamaModel;
let engine: EngineTables;
beforeAll(async () => {
  ({ model } = await tinyModel());
  engine = EngineTables.create(model);
});

describe("MaskBench runner", () => {
  for (const checker of ["qtc", "grammar"] as const) it(`judges each schema and prints MaskBench's table next to the published engines (checker ${checker})`, async () => {
    const o = { ...MASKBENCH_DEFAULTS, maxTokens: 512, checker };
    const results = [];
    for (const f of ["Own---not.json", "Own---number.json", "Own---person.json"]) results.push(await runSchemaFile(model, engine, DIR, f, o));
    expect(results.map((r) => [r.file, r.status, r.code])).toEqual([
      ["Own---not.json", "compile-error", "unsupported_keyword"],
      ["Own---number.json", "passing", undefined],
      ["Own---person.json", "passing", undefined],
    ]);
    expect(results[1]!.artefacts).toEqual({ "number-spelling": 1 });
    const s = summarize(results);
    expect([s.passing, s.compileErrors, s.artefactOnly, s.invalidationErrors, s.validationErrors]).toEqual([2, 1, 1, 0, 0]);
    expect(renderTable(s, "qtc")).toContain("| LLGuidance 0.7.10 (published) | 8909 |");
  });

  it("under validate the grammar admits what the validator must judge (MaskBench counts it)", async () => {
    const r = await runSchemaFile(model, engine, DIR, "Own---not.json", { ...MASKBENCH_DEFAULTS, maxTokens: 512, unsupported: "validate" });
    expect([r.status, r.invalidAccepted]).toEqual(["invalidation-error", 1]);
  });
});
