// Owns: tests for src/harness/loop.ts with replayed models: a fixing run, malformed calls, the turn limit, a failing
// model, the final check restoring the shipped tests, and transcripts that replay to the same run.

import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/prompt/types.js";
import type { GenerateRequest } from "../../src/runtime/types.js";
import { runAgent } from "../../src/harness/loop.js";
import { createReplayModel } from "../../src/harness/replay-model.js";
import { parseTranscript } from "../../src/harness/transcript.js";
import type { AgentModel } from "../../src/harness/types.js";
import { ADD_TASK, hermesCall, makeScratch, makeTask, removeScratch, type Scratch } from "./helpers.js";

let s: Scratch;
let taskDir: string;
beforeAll(async () => {
  s = await makeScratch();
  taskDir = await makeTask(s.tasks, ADD_TASK);
});
afterAll(async () => {
  await removeScratch(s);
});

const FIXED = "export function add(a, b) {\n  return a + b;\n}\n";

/** Records every request the loop sends. */
function recording(model: AgentModel): { model: AgentModel; requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    model: { ...model, generate: (req) => (requests.push(structuredClone({ ...req, signal: undefined })), model.generate(req)) },
  };
}

describe("runAgent", () => {
  it("a replayed fix ends answered with the tests passing", async () => {
    const { model, requests } = recording(
      createReplayModel([
        hermesCall("list_files", { path: "." }),
        `Let me look.\n${hermesCall("read_file", { path: "src/add.js" })}`,
        hermesCall("write_file", { path: "src/add.js", content: FIXED }),
        hermesCall("run_tests", {}),
        "Fixed: add() now adds.",
      ]),
    );
    const run = await runAgent({ task: taskDir, model, tmpRoot: s.runs });
    expect(run.status).toBe("answered");
    expect(run.testsPassed).toBe(true);
    expect(run.finalTests.tests).toBe(1);
    expect(run.counts).toEqual({ turns: 5, blocks: 4, valid: 4, invalid: 0, invalidByReason: {}, toolErrorsByCode: {} });
    expect(run.turns.map((t) => t.results.map((r) => r.code))).toEqual([["ok"], ["ok"], ["ok"], ["ok"], []]);
    expect(run.turns[0]!.results[0]!.content).toBe("package.json\nsrc/\nsrc/add.js\ntest/\ntest/add.test.js");
    expect(run.turns[1]!.results[0]!.content).toBe(ADD_TASK.files["src/add.js"]);
    // the conversation the model saw on its last turn
    const last = requests[4]!.messages;
    expect(last[0]!.role).toBe("system");
    expect(last[1]).toEqual({ role: "user", content: ADD_TASK.prompt });
    const assistant = last[4] as Extract<ChatMessage, { role: "assistant" }>;
    expect(assistant.content).toBe("Let me look.");
    expect(assistant.tool_calls).toEqual([
      { id: run.turns[1]!.calls[0]!.id, type: "function", function: { name: "read_file", arguments: '{"path":"src/add.js"}' } },
    ]);
    expect(last[5]).toEqual({ role: "tool", content: ADD_TASK.files["src/add.js"], tool_call_id: run.turns[1]!.calls[0]!.id, name: "read_file" });
    expect(requests.every((r) => r.maxTokens === 512 && r.mode === "constrained" && r.toolChoice === "auto" && r.seed === 0)).toBe(true);
    expect(requests[0]!.tools!.map((t) => ("function" in t ? t.function.name : t.name))).toEqual([
      "read_file",
      "list_files",
      "grep",
      "write_file",
      "run_tests",
    ]);
    // the run folder is gone
    expect(await fs.readdir(s.runs)).toEqual([]);
  });

  it("three malformed calls get three error results and the run goes on", async () => {
    const bad = [
      "<tool_call>\n{not json}\n</tool_call>",
      '<tool_call>\n{"name": "delete_everything", "arguments": {}}\n</tool_call>',
      '<tool_call>\n{"name": "read_file", "arguments": {"path": 7}}\n</tool_call>',
    ];
    const { model, requests } = recording(
      createReplayModel([
        `${bad[0]}\n${hermesCall("read_file", { path: "src/add.js" })}\n${bad[1]}\n${bad[2]}`,
        hermesCall("write_file", { path: "src/add.js", content: FIXED }),
        "Done.",
      ]),
    );
    const run = await runAgent({ task: taskDir, model, tmpRoot: s.runs });
    expect(run.status).toBe("answered");
    expect(run.testsPassed).toBe(true);
    expect(run.counts).toMatchObject({ blocks: 5, valid: 2, invalid: 3, invalidByReason: { invalid_json: 1, unknown_tool: 1, schema: 1 } });
    const first = run.turns[0]!;
    expect(first.results.map((r) => [r.code, r.reason ?? null])).toEqual([
      ["rejected_call", "invalid_json"],
      ["ok", null],
      ["rejected_call", "unknown_tool"],
      ["rejected_call", "schema"],
    ]);
    // the model reads each parser message as that block's result, in the order it wrote the blocks
    const seen = requests[1]!.messages.slice(-4);
    expect(seen.map((m) => m.role)).toEqual(["tool", "tool", "tool", "tool"]);
    expect(seen.map((m) => m.content)).toEqual([
      first.errors[0]!.message,
      ADD_TASK.files["src/add.js"],
      first.errors[1]!.message,
      first.errors[2]!.message,
    ]);
    // and sees the raw text of what it wrote wrong
    const assistant = requests[1]!.messages.at(-5) as Extract<ChatMessage, { role: "assistant" }>;
    expect(assistant.content).toBe(bad.join("\n"));
    expect(assistant.tool_calls).toHaveLength(1);
  });

  it("a model that never answers ends at the turn limit", async () => {
    const model = createReplayModel(Array.from({ length: 10 }, () => hermesCall("list_files", { path: "src" })));
    const run = await runAgent({ task: taskDir, model, maxTurns: 3, tmpRoot: s.runs });
    expect(run.status).toBe("turn_limit");
    expect(run.counts.turns).toBe(3);
    expect(run.testsPassed).toBe(false);
    expect(run.finalTests.tests).toBe(1);
  });

  it("a model that throws ends the run with status error, never an exception", async () => {
    let calls = 0;
    const model: AgentModel = {
      name: "broken",
      synthetic: true,
      generate: async (req) => {
        if (calls++ === 1) throw new Error("context overflow");
        return createReplayModel([hermesCall("list_files", { path: "." })]).generate(req);
      },
    };
    const run = await runAgent({ task: taskDir, model, tmpRoot: s.runs });
    expect(run.status).toBe("error");
    expect(run.error).toBe("the model failed on turn 2: context overflow");
    expect(run.counts.turns).toBe(1);
    expect(run.testsPassed).toBe(false);
  });

  it("the final check restores the shipped tests, so rewriting them does not pass the task", async () => {
    const cheat = 'import { test } from "node:test";\ntest("nothing", () => {});\n';
    const model = createReplayModel([hermesCall("write_file", { path: "test/add.test.js", content: cheat }), hermesCall("run_tests", {}), "All green."]);
    const run = await runAgent({ task: taskDir, model, tmpRoot: s.runs });
    expect(run.turns[1]!.results[0]!.code).toBe("ok");
    expect(run.status).toBe("answered");
    expect(run.testsPassed).toBe(false);
  });

  it("an empty replay is an immediate final answer", async () => {
    const run = await runAgent({ task: taskDir, model: createReplayModel([]), tmpRoot: s.runs });
    expect(run.status).toBe("answered");
    expect(run.counts.turns).toBe(1);
    expect(run.turns[0]!.raw).toBe("");
  });

  it("writes one transcript line per run, and replaying it reproduces the run", async () => {
    const file = path.join(s.root, "t", "runs.jsonl");
    const outputs = [hermesCall("grep", { pattern: "a - b", path: "src" }), hermesCall("write_file", { path: "src/add.js", content: FIXED }), "ok"];
    const first = await runAgent({ task: taskDir, model: createReplayModel(outputs), transcript: file, seed: 7, tmpRoot: s.runs });
    const second = await runAgent({ task: taskDir, model: createReplayModel(`replay:${file}`), transcript: file, seed: 7, tmpRoot: s.runs });
    const parsed = parseTranscript(await fs.readFile(file, "utf8"));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.runs).toHaveLength(2);
    expect(parsed.runs[0]!.turns.map((t) => t.raw)).toEqual(outputs);
    expect(parsed.runs[0]).toMatchObject({ task: "add-task", seed: 7, status: "answered", testsPassed: true, mode: "constrained" });
    expect(second.model).toBe("replay:runs.jsonl");
    const shape = (r: typeof first) => r.turns.map((t) => [t.raw, t.calls.map((c) => [c.name, c.arguments]), t.results.map((r) => [r.code, r.content])]);
    expect(shape(second)).toEqual(shape(first));
    expect(second.testsPassed).toBe(true);
    expect(first.turns[0]!.results[0]!.content).toBe("src/add.js:2:   return a - b;");
  });

  it("cuts large tool results in the transcript but not for the model", async () => {
    const big = "x".repeat(5000);
    const { model, requests } = recording(
      createReplayModel([hermesCall("write_file", { path: "big.txt", content: big }), hermesCall("read_file", { path: "big.txt" }), "done"]),
    );
    const run = await runAgent({ task: taskDir, model, tmpRoot: s.runs });
    const r = run.turns[1]!.results[0]!;
    expect(r.chars).toBe(5000);
    expect(r.content.length).toBeLessThan(2100);
    expect(r.content).toContain("characters cut in the transcript");
    expect(requests[2]!.messages.at(-1)!.content).toBe(big);
  });
});
