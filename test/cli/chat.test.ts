// `qtc chat`: each call shown as it is judged (valid, or rejected and why) with its result, per mode; the chat
// stops a message's chain when a turn makes no call; bad flags are one line and exit 2.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createChatSession } from "../../src/cli/chat-session.js";
import type { GenerateResult } from "../../src/runtime/types.js";
import { runCli } from "../helpers/cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

/** A GenerateResult with only what the chat reads. */
const turn = (over: Partial<GenerateResult>): GenerateResult =>
  ({ content: "", toolCalls: [], errors: [], finishReason: "stop", usage: { completionTokens: 5 }, timings: { decodeTokensPerSecond: 10 }, ...over }) as unknown as GenerateResult;
const call = { id: "c1", name: "read_file", arguments: '{"path":"a.js"}', parsedArguments: { path: "a.js" }, start: 0 };
const rejected = { reason: "unknown_arguments", name: "read_file", message: "read_file takes no argument x", raw: "<tool_call>…</tool_call>", start: 0 };

describe("the chat session", () => {
  it("shows a valid call and its result, a rejected one with its reason, and stops at a turn without calls", async () => {
    const turns = [turn({ toolCalls: [call] as never, finishReason: "tool_calls" }), turn({ errors: [rejected] as never }), turn({ content: "done" })];
    const seen: unknown[] = [];
    const lines: string[] = [];
    const session = createChatSession({
      generate: async (request) => (seen.push(request.messages.length), turns.shift()!),
      tools: [],
      modes: ["constrained"],
      toolChoice: "auto",
      maxTokens: 64,
      maxSteps: 5,
      run: async (name, args) => `ran ${name} on ${String(args.path)}`,
      print: (line) => lines.push(line),
    });
    await session.send("hi");
    expect(lines.filter((l) => !l.startsWith("("))).toEqual([
      'call read_file {"path":"a.js"} valid',
      "  result: ran read_file on a.js",
      "call read_file rejected (unknown_arguments): read_file takes no argument x",
      "assistant: done",
    ]);
    // user; + assistant and its tool result; + assistant and the rejection as a tool result.
    expect(seen).toEqual([1, 3, 5]);
  });

  it("with a tools file only (nothing to run) a call is shown and the turn ends; both modes answer, tagged", async () => {
    const lines: string[] = [];
    const session = createChatSession({
      generate: async () => turn({ toolCalls: [call] as never }),
      tools: [],
      modes: ["unconstrained", "constrained"],
      toolChoice: "required",
      maxTokens: 64,
      maxSteps: 5,
      print: (line) => lines.push(line),
    });
    await session.send("hi");
    expect(lines.filter((l) => l.includes(" valid"))).toEqual(['[unconstrained] call read_file {"path":"a.js"} valid', '[constrained] call read_file {"path":"a.js"} valid']);
    expect(lines.filter((l) => l.includes("result: (not run"))).toHaveLength(2);
  });
});

describe("qtc chat", () => {
  it("needs exactly one of --tools or --workspace (one line, exit 2)", async () => {
    const r = await runCli(["chat", "-m", "synthetic:tiny"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("runs the harness tools in a copy of the workspace, constrained calls valid, and exits at the end of input", { timeout: 180_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "qtc-chat-"));
    writeFileSync(join(dir, "a.js"), "export const a = 1;\n");
    const r = spawnSync(process.execPath, [join(repo, "bin", "qtc.js"), "chat", "-m", "synthetic:tiny", "--workspace", dir, "--max-tokens", "96", "--max-steps", "2", "--seed", "1", "--threads", "1", "--context-size", "2048"], {
      input: "read a.js\n",
      encoding: "utf8",
      timeout: 170_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^qtc chat: model qtc-synthetic-tiny \(synthetic: random weights\), constrained, tool choice required/);
    const calls = lines.filter((l) => l.startsWith("call "));
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.every((l) => l.endsWith(" valid"))).toBe(true);
    expect(lines.filter((l) => l.startsWith("  result: ")).length).toBe(calls.length);
    // The tools acted in a copy: the folder itself is as it was.
    expect(readdirSync(dir)).toEqual(["a.js"]);
    expect(readFileSync(join(dir, "a.js"), "utf8")).toBe("export const a = 1;\n");
  });
});
