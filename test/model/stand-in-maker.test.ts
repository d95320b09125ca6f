// Owns: tests that a trained stand-in (`synthetic:tiny-tuned`) resolves only through the maker the caller hands
// resolveModel (the model stage never reaches up into training), and what it reports then.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { resolveModel, type StandInMaker } from "../../src/model/resolve.js";

const dir = await mkdtemp(path.join(tmpdir(), "qtc-stand-in-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("trained stand-ins in resolveModel", () => {
  it("without a maker: model_not_found (exit 2) that says how to load one", async () => {
    const e = await resolveModel("synthetic:tiny-tuned", { modelsDir: dir }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(QtcException);
    expect([(e as QtcException).code, (e as QtcException).exitCode]).toEqual(["model_not_found", 2]);
    expect((e as QtcException).message).toContain("standIns");
  });

  it("with a maker: asks it for the named stand-in in the models folder, and reports a trained stand-in", async () => {
    const file = path.join(dir, "made.gguf");
    await writeFile(file, "");
    const asked: Array<[string, string]> = [];
    const maker: StandInMaker = async (name, opts) => (asked.push([name, opts.modelsDir]), file);
    const r = await resolveModel("synthetic:tiny-weak", { modelsDir: dir, standIns: maker });
    expect(asked).toEqual([["tiny-weak", dir]]);
    expect(r).toEqual({ path: file, name: "qtc-trained-stand-in-tiny-weak", synthetic: true, source: "synthetic", format: "hermes" });
  });

  it("the distilled stand-in is one too: made by the maker, reported as a trained stand-in", async () => {
    const file = path.join(dir, "distilled.gguf");
    await writeFile(file, "");
    const asked: string[] = [];
    const r = await resolveModel("synthetic:tiny-distilled", { modelsDir: dir, standIns: async (name) => (asked.push(name), file) });
    expect([asked, r.name, r.path]).toEqual([["tiny-distilled"], "qtc-trained-stand-in-tiny-distilled", file]);
  });
});
