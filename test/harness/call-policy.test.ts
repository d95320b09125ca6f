// Owns: tests for the call policies of the agent loop (src/harness/call-policy.ts): what each turn's request
// carries, the `finish` call ending a run as its answer, and the policy named in the run record.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALL_POLICIES, planRequest, planTurn } from "../../src/harness/call-policy.js";
import { runAgent } from "../../src/harness/loop.js";
import { createReplayModel } from "../../src/harness/replay-model.js";
import type { AgentModel } from "../../src/harness/types.js";
import type { GenerateRequest } from "../../src/runtime/types.js";
import { ADD_TASK, hermesCall, makeScratch, makeTask, removeScratch, type Scratch } from "./helpers.js";

let s: Scratch;
let taskDir: string;
beforeAll(async () => {
  s = await makeScratch();
  taskDir = await makeTask(s.tasks, ADD_TASK);
});
afterAll(() => removeScratch(s));

const FIXED = "export function add(a, b) {\n  return a + b;\n}\n";
const names = (req: GenerateRequest): string[] => (req.tools ?? []).map((t) => ("function" in t ? t.function.name : (t as { name: string }).name));

function recording(model: AgentModel): { model: AgentModel; requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return { requests, model: { ...model, generate: (req) => (requests.push(structuredClone({ ...req, signal: undefined })), model.generate(req)) } };
}

const FIX = [hermesCall("read_file", { path: "src/add.js" }), hermesCall("write_file", { path: "src/add.js", content: FIXED })];

describe("call policies in the agent loop", () => {
  it("required-first asks for a call on turn 1 only, then the run's tool choice", async () => {
    const { model, requests } = recording(createReplayModel([...FIX, "Done."]));
    const run = await runAgent({ task: taskDir, model, tmpRoot: s.runs, callPolicy: "required-first" });
    expect(requests.map((r) => r.toolChoice)).toEqual(["required", "auto", "auto"]);
    expect(requests.every((r) => r.logitBias === undefined)).toBe(true);
    expect(run.callPolicy).toBe("required-first");
    expect(run.status).toBe("answered");
  });

  it("finish-tool offers finish, requires a call every turn, and a finish call is the answer (nothing runs)", async () => {
    const { model, requests } = recording(createReplayModel([...FIX, hermesCall("finish", { answer: "add() adds." }), hermesCall("run_tests", {})]));
    const run = await runAgent({ task: taskDir, model, tmpRoot: s.runs, callPolicy: "finish-tool" });
    expect(requests).toHaveLength(3);
    expect(requests.every((r) => r.toolChoice === "required")).toBe(true);
    expect(names(requests[0]!)).toEqual(["read_file", "list_files", "grep", "write_file", "run_tests", "finish"]);
    expect(run.status).toBe("answered");
    expect(run.testsPassed).toBe(true);
    expect(run.counts.valid).toBe(3);
    expect(run.turns[2]!.calls[0]!.name).toBe("finish");
    expect(run.turns[2]!.results[0]!.code).toBe("ok");
  });

  it("a finish call under another policy is an unknown tool, not an answer", async () => {
    const run = await runAgent({ task: taskDir, model: createReplayModel([hermesCall("finish", { answer: "x" })]), tmpRoot: s.runs, maxTurns: 1 });
    expect(run.status).toBe("turn_limit");
    expect(run.callPolicy).toBe("auto");
  });

  it("open-bias puts a positive logit bias on the open tag's token every turn", async () => {
    const { model, requests } = recording(createReplayModel([...FIX, "Done."]));
    await runAgent({ task: taskDir, model, tmpRoot: s.runs, callPolicy: "open-bias" });
    expect(requests.map((r) => r.toolChoice)).toEqual(["auto", "auto", "auto"]);
    for (const r of requests) expect(r.logitBias).toEqual({ 151657: 5 });
  });

  it("planRequest applies a policy to one request with the caller's tools", () => {
    const tools = [{ name: "x", parameters: { type: "object" } }];
    expect(planRequest("finish-tool", tools, "auto").tools!.map((t) => ("function" in (t as object) ? (t as { function: { name: string } }).function.name : (t as { name: string }).name))).toEqual(["x", "finish"]);
    expect(planRequest("required-first", tools, "auto").toolChoice).toBe("required");
    expect(planRequest("auto", undefined, "auto")).toEqual({ tools: undefined, toolChoice: "auto" });
    for (const p of CALL_POLICIES) expect(planTurn(p, 3, "auto").tools.length).toBeGreaterThanOrEqual(5);
  });
});
