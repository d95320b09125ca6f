// Owns: the definitions of the 5 harness tools, as the model sees them (OpenAI shape, all arguments strings).

import type { ToolInput } from "../tools/types.js";
import type { HarnessToolName } from "./types.js";

/** A tool in the OpenAI shape. */
export type HarnessTool = Extract<ToolInput, { type: "function" }>;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function tool(name: HarnessToolName, description: string, args: Record<string, string>): HarnessTool {
  return deepFreeze({
    type: "function",
    function: {
      name,
      description,
      parameters: {
        type: "object",
        properties: Object.fromEntries(
          Object.entries(args).map(([arg, text]) => [arg, { type: "string", description: text }]),
        ),
        required: Object.keys(args),
        additionalProperties: false,
      },
    },
  } satisfies HarnessTool);
}

/** The 5 tools every agent run offers, in the order the prompt lists them. Deeply frozen; share freely. */
export const HARNESS_TOOLS: readonly HarnessTool[] = Object.freeze([
  tool("read_file", "Read a text file of the project.", { path: "File path relative to the project root." }),
  tool("list_files", "List the files under a folder of the project, recursively.", {
    path: 'Folder path relative to the project root ("." for the root).',
  }),
  tool("grep", "Search the project's files for lines matching a regular expression (RE2 syntax).", {
    pattern: "Regular expression (RE2 syntax).",
    path: 'File or folder to search, relative to the project root ("." for everything).',
  }),
  tool("write_file", "Create or overwrite a file of the project with the given content.", {
    path: "File path relative to the project root.",
    content: "The complete new content of the file.",
  }),
  tool("run_tests", "Run the project's test suite (node --test) and show the tail of its output.", {}),
]);
