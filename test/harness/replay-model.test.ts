// Owns: tests for src/harness/replay-model.ts: the sources it accepts, the strict parser judging each output, and
// what happens when the outputs run out or the file is bad.

import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { createReplayModel, isReplaySpec } from "../../src/harness/replay-model.js";
import { HARNESS_TOOLS } from "../../src/harness/tools.js";
import type { GenerateRequest } from "../../src/runtime/types.js";
import type { ToolInput } from "../../src/tools/types.js";
import { hermesCall, makeScratch, removeScratch, type Scratch } from "./helpers.js";

let s: Scratch;
beforeAll(async () => {
  s = await makeScratch();
});
afterAll(async () => {
  await removeScratch(s);
});

const req: GenerateRequest = { messages: [{ role: "user", content: "go" }], tools: HARNESS_TOOLS as ToolInput[] };

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof QtcException ? e.code : "not a QtcException";
  }
  return undefined;
}

describe("createReplayModel", () => {
  it("plays outputs in order, judged by the strict parser, then answers empty", async () => {
    const m = createReplayModel([
      hermesCall("read_file", { path: "a.js" }),
      'Hmm <tool_call>\n{"name": "read_file", "arguments": {"path": "a.js", "mode": "x"}}\n</tool_call>',
      `<think>plan</think>${hermesCall("run_tests", {})}`,
      '<tool_call>\n{"name": "grep", "arguments": {"pattern": "a',
    ]);
    expect(m).toMatchObject({ name: "replay:inline", synthetic: true });
    const a = await m.generate(req);
    expect(a).toMatchObject({ content: "", finishReason: "tool_calls", mode: "unconstrained", format: "hermes", errors: [] });
    expect(a.toolCalls.map((c) => [c.name, c.parsedArguments])).toEqual([["read_file", { path: "a.js" }]]);
    expect(a.usage).toEqual({ promptTokens: 0, completionTokens: 0, forcedTokens: 0 });
    const b = await m.generate(req);
    expect(b.toolCalls).toEqual([]);
    expect(b.errors.map((e) => e.reason)).toEqual(["unknown_arguments"]);
    expect(b.content).toBe("Hmm");
    const c = await m.generate(req);
    expect(c.reasoning).toBe("plan");
    expect(c.toolCalls.map((x) => x.name)).toEqual(["run_tests"]);
    const d = await m.generate(req);
    expect(d.errors.map((e) => e.reason)).toEqual(["truncated"]);
    expect(d.finishReason).toBe("length");
    const e = await m.generate(req);
    expect(e).toMatchObject({ raw: "", content: "", toolCalls: [], errors: [], finishReason: "stop" });
  });

  it("reads a JSON list file and a transcript, choosing a run with #N", async () => {
    const list = path.join(s.root, "outputs.json");
    await fs.writeFile(list, JSON.stringify(["first", "second"]));
    const fromList = createReplayModel(`replay:${list}`);
    expect(fromList.name).toBe("replay:outputs.json");
    expect((await fromList.generate(req)).content).toBe("first");

    const record = (raws: string[]) => JSON.stringify({ kind: "qtc-agent-run", version: 1, turns: raws.map((raw) => ({ raw })) });
    const transcript = path.join(s.root, "runs.jsonl");
    await fs.writeFile(transcript, `${record(["run0"])}\n${record(["run1-a", "run1-b"])}\n`);
    expect((await createReplayModel(`replay:${transcript}`).generate(req)).content).toBe("run0");
    const second = createReplayModel(`replay:${transcript}#1`);
    expect((await second.generate(req)).content).toBe("run1-a");
    expect((await second.generate(req)).content).toBe("run1-b");
  });

  it("refuses missing and malformed files with stable codes", async () => {
    expect(codeOf(() => createReplayModel(`replay:${path.join(s.root, "missing.json")}`))).toBe("file_not_found");
    const bad = path.join(s.root, "bad.json");
    await fs.writeFile(bad, "[1, 2]");
    expect(codeOf(() => createReplayModel(bad))).toBe("invalid_option");
    await fs.writeFile(bad, '{"kind": "something else"}\n');
    expect(codeOf(() => createReplayModel(bad))).toBe("invalid_option");
    const one = path.join(s.root, "one.jsonl");
    await fs.writeFile(one, `${JSON.stringify({ kind: "qtc-agent-run", version: 1, turns: [] })}\n`);
    expect(codeOf(() => createReplayModel(`${one}#3`))).toBe("invalid_option");
  });

  it("isReplaySpec", () => {
    expect(isReplaySpec("replay:x.json")).toBe(true);
    expect(isReplaySpec("replay:")).toBe(false);
    expect(isReplaySpec("synthetic:tiny")).toBe(false);
  });
});
