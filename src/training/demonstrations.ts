// Owns: demonstrations from a task's reference fix: the turns a competent agent takes (read the file, write the
// fixed file from solution/, run the tests, answer), with the real results the harness's tools return.

import { promises as fs } from "node:fs";
import path from "node:path";
import { fail } from "../errors.js";
import { SYSTEM_PROMPT } from "../harness/defaults.js";
import { executeTool } from "../harness/execute.js";
import type { OsSandbox } from "../harness/os-sandbox.js";
import { isInside, openInside, walkInside } from "../harness/sandbox.js";
import { HARNESS_TOOLS } from "../harness/tools.js";
import { createWorkspace, loadTask, removeWorkspace, SOLUTION_DIR, type Workspace } from "../harness/workspace.js";
import type { ChatMessage } from "../prompt/types.js";
import type { Conversation } from "./types.js";

export interface DemonstrationOptions {
  /** An OS sandbox already checked (saves its self-check per task). Default: resolved per workspace. */
  sandbox?: OsSandbox;
  /** Folder the run folders are made in. Default: os.tmpdir(). */
  tmpRoot?: string;
  /**
   * "fix": read, write the solution, run the tests, answer (the reference fix). "inspect": read, run the tests,
   * answer. "probe": run the tests, answer: one fixed call, what the trained stand-ins learn (a 2-layer, 64-wide
   * model learned neither file contents nor paths here). Default: "fix".
   */
  plan?: DemonstrationPlan;
}

export type DemonstrationPlan = "fix" | "inspect" | "probe";

/**
 * The files of a task's solution/ folder with their contents, by project-relative path (sorted). Only what
 * lies inside the task folder is read: a `solution/` that is a symlink, or a link in it, that leads out of the
 * task folder is refused (`invalid_task`), so no file from elsewhere on the machine becomes training data.
 */
async function solutionFiles(taskDir: string): Promise<Map<string, string>> {
  const taskReal = await fs.realpath(taskDir);
  const root = path.join(taskReal, SOLUTION_DIR);
  const refuse = (rel: string): never =>
    fail("invalid_task", `${path.join(taskDir, SOLUTION_DIR, rel)} is a symlink that leads out of the task folder; a solution is read only from inside it`, { path: path.join(taskDir, SOLUTION_DIR, rel) });
  const rootReal = await fs.realpath(root).catch(() => null);
  if (rootReal === null) return new Map();
  if (!isInside(taskReal, rootReal) || rootReal === taskReal) refuse("");
  const out = new Map<string, string>();
  for await (const e of walkInside(taskReal, rootReal, ".")) {
    if (e.kind === "link-outside") refuse(e.rel);
    if (e.kind !== "file") continue;
    const opened = await openInside(taskReal, e.real, "read");
    if (!opened.ok) return refuse(e.rel);
    try {
      out.set(e.rel, await opened.handle.readFile("utf8"));
    } finally {
      await opened.handle.close();
    }
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Builds the conversation call by call, running each call in the workspace for its real result. */
class Demonstrator {
  readonly messages: ChatMessage[];
  private calls = 0;

  constructor(
    private readonly ws: Workspace,
    prompt: string,
  ) {
    this.messages = [
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: prompt },
    ];
  }

  /** One assistant turn with one call, and the tool's result. */
  async call(name: string, args: Record<string, string>): Promise<void> {
    const id = `call_${this.calls++}`;
    // JSON.stringify is how the agent loop hands a past call back to the template, so history matches inference.
    this.messages.push({ role: "assistant", content: "", tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] });
    const outcome = await executeTool(this.ws, name, args);
    this.messages.push({ role: "tool", content: outcome.text, tool_call_id: id, name });
  }

  answer(text: string): void {
    this.messages.push({ role: "assistant", content: text });
  }
}

const ANSWERS: Record<DemonstrationPlan, (files: string[]) => string> = {
  fix: (files) => `Fixed ${files.join(", ")}; the tests pass.`,
  inspect: (files) => `Read ${files.join(", ")} and ran the tests.`,
  probe: () => "Ran the tests.",
};

/** The reference-fix conversation of one task. Tool results are real: each call runs in a fresh workspace copy. */
export async function demonstrate(taskDir: string, opts: DemonstrationOptions = {}): Promise<Conversation> {
  const task = await loadTask(taskDir);
  const solution = await solutionFiles(task.dir);
  const files = [...solution.keys()];
  const ws = await createWorkspace(task.dir, { sandbox: opts.sandbox, tmpRoot: opts.tmpRoot });
  try {
    const d = new Demonstrator(ws, task.prompt);
    for (const rel of opts.plan === "probe" ? [] : files) {
      const exists = await fs.stat(path.join(ws.root, rel)).catch(() => null);
      if (exists) await d.call("read_file", { path: rel });
      else await d.call("list_files", { path: path.posix.dirname(rel) });
    }
    for (const rel of opts.plan === "fix" || opts.plan === undefined ? files : []) {
      await d.call("write_file", { path: rel, content: solution.get(rel)! });
    }
    await d.call("run_tests", {});
    d.answer(ANSWERS[opts.plan ?? "fix"](files));
    return { messages: d.messages, tools: HARNESS_TOOLS.map((t) => structuredClone(t)), task: task.id, source: "demonstration" };
  } finally {
    await removeWorkspace(ws);
  }
}
