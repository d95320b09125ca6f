// Owns: dispatching one tool call to its sandboxed implementation. Never throws: every failure becomes a
// ToolOutcome whose text the model reads.

import { grepTool, listFilesTool, readFileTool, writeFileTool } from "./fs-tools.js";
import { runTestsTool } from "./run-tests.js";
import { HARNESS_TOOL_NAMES, type HarnessToolName, type ToolOutcome } from "./types.js";
import type { Workspace } from "./workspace.js";

/** The string arguments each tool requires. */
const TOOL_ARGS: Readonly<Record<HarnessToolName, readonly string[]>> = {
  read_file: ["path"],
  list_files: ["path"],
  grep: ["pattern", "path"],
  write_file: ["path", "content"],
  run_tests: [],
};

/** Run one tool call in the workspace. */
export async function executeTool(ws: Workspace, name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
  if (!(HARNESS_TOOL_NAMES as readonly string[]).includes(name)) {
    return { code: "unknown_tool", text: `Error: there is no tool "${name}"; the tools are ${HARNESS_TOOL_NAMES.join(", ")}.` };
  }
  const tool = name as HarnessToolName;
  const expected = TOOL_ARGS[tool];
  for (const key of expected) {
    if (typeof args[key] !== "string") {
      return { code: "invalid_arguments", text: `Error: ${tool} needs a string argument "${key}".` };
    }
  }
  const extra = Object.keys(args).filter((k) => !expected.includes(k));
  if (extra.length) {
    return { code: "invalid_arguments", text: `Error: ${tool} takes no argument ${extra.map((k) => `"${k}"`).join(", ")}.` };
  }
  const s = (key: string): string => args[key] as string;
  try {
    switch (tool) {
      case "read_file":
        return await readFileTool(ws, s("path"));
      case "list_files":
        return await listFilesTool(ws, s("path"));
      case "grep":
        return await grepTool(ws, s("pattern"), s("path"));
      case "write_file":
        return await writeFileTool(ws, s("path"), s("content"));
      case "run_tests":
        return await runTestsTool(ws);
    }
  } catch (e) {
    const ex = e as NodeJS.ErrnoException;
    return { code: "io_error", text: `Error: ${tool} failed: ${ex.code ? `${ex.code} ` : ""}${ex.message ?? String(e)}` };
  }
}
