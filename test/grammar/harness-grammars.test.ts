// The checked-in grammars of the harness tools: the same as a fresh compile, built from the same tool
// definitions the agent loop offers, and loadable by qtc's constraint engine.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { grammarsDir, harnessGrammarFiles } from "../../src/grammar/harness-grammars.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import { normalizeTools } from "../../src/tools/index.js";
import { renderCall, tinyModel } from "./helpers.js";

const dir = new URL("../../grammars/", import.meta.url).pathname;
const toolsJson = readFileSync(join(dir, "harness-tools.json"), "utf8");

describe("grammars/", () => {
  it("holds the harness tools exactly as the agent loop defines them", () => {
    expect(normalizeTools(JSON.parse(toolsJson))).toEqual(normalizeTools([...HARNESS_TOOLS]));
  });

  it("matches a fresh compile (run `npm run grammars` after changing the compiler)", () => {
    const files = harnessGrammarFiles(toolsJson);
    if (!files.ok) throw new Error(files.error.message);
    expect(Object.keys(files.value).sort()).toEqual(["harness-hermes.gbnf", "harness-qwen35.gbnf", "harness-qwen36.gbnf", "harness-qwen38.gbnf", "harness-qwen3coder.gbnf"]);
    for (const [name, text] of Object.entries(files.value)) {
      expect(readFileSync(join(dir, name), "utf8"), name).toBe(text);
    }
    expect(grammarsDir()).toBe(join(new URL("../../", import.meta.url).pathname, "grammars"));
  });

  it("loads into qtc's engine and accepts a harness call in each format", async () => {
    const { model } = await tinyModel();
    for (const format of ["hermes", "qwen3coder"] as const) {
      const checker = await GrammarChecker.create(model, readFileSync(join(dir, `harness-${format}.gbnf`), "utf8"));
      const call = renderCall(format, "grep", { pattern: "TODO", path: "src" });
      expect(checker.checkText(call)).toEqual({ accepted: true, complete: true });
      expect(checker.checkText(`I will search.\n${call}`)).toEqual({ accepted: true, complete: true });
    }
  });
});
