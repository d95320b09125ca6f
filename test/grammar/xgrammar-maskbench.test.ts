// MaskBench (guidance-ai/jsonschemabench, `maskbench/data`) through the xgrammar dialect, beside qtc's engine on the
// GBNF, when a local copy is there: `QTC_MASKBENCH_XG_DIR` names a folder of MaskBench JSON files (a sample; none is
// committed: the repository carries no licence file). Each schema is refused by both compilers or by neither; every
// instance qtc's engine accepts, xgrammar accepts; one xgrammar accepts and qtc's engine rejects is allowed only
// where the xgrammar grammar leaves a bound to the validator or the GBNF spells the instance otherwise (budget,
// number spelling), and ajv must then agree with the verdict qtc would give.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaOrdered } from "../../bench/lib/maskbench-order.js";
import { compileSchema, compileXgrammarSchema } from "../../src/grammar/index.js";
import { XgrammarSession } from "../../src/engines/xgrammar-check.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { formatsAjv, tinyModel } from "./helpers.js";

const DIR = process.env.QTC_MASKBENCH_XG_DIR;
const files = DIR && existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith(".json")).sort() : [];
const BUDGET = 8192;

let session: XgrammarSession;
let model: LlamaModel;

describe.skipIf(files.length === 0)(`MaskBench sample in xgrammar (${files.length} schemas from QTC_MASKBENCH_XG_DIR; skipped without it)`, () => {
  beforeAll(async () => {
    session = await XgrammarSession.create();
    ({ model } = await tinyModel());
  }, 60_000);
  afterAll(() => session?.dispose());

  it("the same refusals; every instance qtc's engine accepts, xgrammar accepts; xgrammar's extra acceptances are judged by ajv", async () => {
    const ajv = formatsAjv();
    const tally = { schemas: 0, refusedBoth: 0, instances: 0, agree: 0, xgOnly: 0, gbnfOnly: [] as string[], mismatchedRefusal: [] as string[], xgCompileErrors: [] as string[], validatorMissed: [] as string[] };
    for (const f of files) {
      const { schema, tests } = JSON.parse(readFileSync(join(DIR!, f), "utf8")) as { schema: object; tests: { valid: boolean; data: unknown }[] };
      tally.schemas++;
      const gbnf = compileSchema(schema as never, { maxTokens: BUDGET });
      const xg = compileXgrammarSchema(schema as never, { maxTokens: BUDGET });
      if (gbnf.ok !== xg.ok) tally.mismatchedRefusal.push(f);
      if (!gbnf.ok || !xg.ok) {
        tally.refusedBoth++;
        continue;
      }
      const compiled = await session.compile(xg.value.ebnf).catch(() => undefined);
      if (!compiled) {
        tally.xgCompileErrors.push(f);
        continue;
      }
      // A grammar qtc's engine will not hold is refused as the runtime refuses it (schema_too_large): a refusal too.
      const checker = await GrammarChecker.create(model, gbnf.value).catch((e: unknown) => {
        if ((e as { code?: unknown }).code === "schema_too_large") return undefined;
        throw e;
      });
      if (!checker) {
        tally.mismatchedRefusal.push(`${f} (qtc's engine refuses its grammar)`);
        compiled.dispose();
        continue;
      }
      let validate: ((v: unknown) => boolean) | undefined;
      try {
        validate = ajv.compile(schema) as (v: unknown) => boolean;
      } catch {
        validate = undefined;
      }
      for (const t of tests) {
        const text = schemaOrdered(t.data, schema);
        const byEngine = checker.checkText(text).accepted;
        const byXg = await session.accepts(compiled, text);
        tally.instances++;
        if (byEngine === byXg) tally.agree++;
        else if (byEngine) tally.gbnfOnly.push(`${f}: ${text.slice(0, 120)}`);
        else {
          // Admitted by xgrammar only: a bound it leaves to the validator; ajv (qtc's validator) must refuse an invalid one.
          tally.xgOnly++;
          if (!t.valid && validate && validate(t.data)) tally.validatorMissed.push(`${f}: ${text.slice(0, 120)}`);
        }
      }
      compiled.dispose();
    }
    process.stdout.write(`${JSON.stringify({ ...tally, gbnfOnly: tally.gbnfOnly.length, mismatchedRefusal: tally.mismatchedRefusal.length, validatorMissed: tally.validatorMissed.length })}\n`);
    expect(tally.xgCompileErrors).toEqual([]);
    expect(tally.mismatchedRefusal).toEqual([]);
    expect(tally.gbnfOnly).toEqual([]);
    expect(tally.validatorMissed).toEqual([]);
  }, 600_000);
});
