// Issue 30, item 8: `qtc chat` printed the model's output and the workspace's files raw, so an ANSI escape in
// either could retitle, clear or rewrite the user's terminal. Every line is now printed with its control
// characters visibly escaped.
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatSession } from "../../src/cli/chat-session.js";
import { terminalText } from "../../src/cli/terminal-text.js";
import { executeTool } from "../../src/harness/execute.js";
import { createWorkspace, removeWorkspace, type Workspace } from "../../src/harness/workspace.js";
import type { GenerateResult } from "../../src/runtime/types.js";
import { makeScratch, removeScratch, type Scratch } from "../harness/helpers.js";

/** Retitles the terminal, clears the screen, moves the cursor home, then a carriage return, a C1 CSI and an RTL override. */
const HOSTILE = "\u001b]0;pwned\u0007\u001b[2J\u001b[Hok\rfake\u009b31m\u202eevil";
/** Any control character a terminal acts on (tab aside). */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const turn = (over: Partial<GenerateResult>): GenerateResult =>
  ({ content: "", toolCalls: [], errors: [], finishReason: "stop", usage: { completionTokens: 5 }, timings: { decodeTokensPerSecond: 10 }, ...over }) as unknown as GenerateResult;

let s: Scratch;
let ws: Workspace;
beforeAll(async () => {
  s = await makeScratch();
  const project = path.join(s.tasks, "project");
  await fs.mkdir(project);
  await fs.writeFile(path.join(project, "notes.txt"), `${HOSTILE}\n`);
  ws = await createWorkspace(project, { tmpRoot: s.runs });
});
afterAll(async () => {
  await removeWorkspace(ws);
  await removeScratch(s);
});

describe("issue 30: qtc chat never prints control characters raw", () => {
  it("escapes them in the model's text, a call's arguments and name, a rejection, and a workspace file read by a call", async () => {
    const call = { id: "c1", name: `read_file${HOSTILE}`, arguments: `{"path":"notes.txt","x":"\u009b\u007f"}`, parsedArguments: { path: "notes.txt" }, start: 0 };
    const rejected = { reason: "unknown_tool", name: HOSTILE, message: `no tool ${HOSTILE}`, raw: "", start: 0 };
    const turns = [turn({ content: HOSTILE, toolCalls: [call] as never, errors: [rejected] as never, finishReason: "tool_calls" }), turn({ content: `done ${HOSTILE}` })];
    const lines: string[] = [];
    const session = createChatSession({
      generate: async () => turns.shift()!,
      tools: [],
      modes: ["constrained"],
      toolChoice: "auto",
      maxTokens: 64,
      maxSteps: 3,
      run: async (_name, args) => (await executeTool(ws, "read_file", args)).text,
      print: (line) => lines.push(line),
    });
    await session.send("hi");
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) expect(line).not.toMatch(CONTROL);
    const all = lines.join("\n");
    // Shown, escaped: the file's content came through the call's result, the model's text through its lines.
    expect(all).toContain("\\x1b]0;pwned\\x07\\x1b[2J\\x1b[Hok\\rfake\\x9b31m\\u202eevil");
    expect(lines.find((l) => l.startsWith("  result:"))).toContain("\\x1b[2J");
    expect(lines[0]).toBe("assistant: \\x1b]0;pwned\\x07\\x1b[2J\\x1b[Hok\\rfake\\x9b31m\\u202eevil");
  });

  it("keeps printable text, tabs included, as it is, and escaping twice changes nothing", () => {
    expect(terminalText("naïve\tcafé — 漢字 🙂")).toBe("naïve\tcafé — 漢字 🙂");
    expect(terminalText(terminalText(HOSTILE))).toBe(terminalText(HOSTILE));
  });
});
