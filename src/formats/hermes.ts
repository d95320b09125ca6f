// Owns: the hermes tool-call format used by Qwen3, Qwen2.5 and QwQ.
// Template: Qwen3's chat_template renders `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>` with
// `tojson`, i.e. Python json.dumps spelling (", " and ": " separators).

import { QWEN3_TOKENS } from "./qwen3-tokens.js";
import type { ToolCallFormat } from "./types.js";

/** The end of a JSON string, object or array, and a digit for a number that still needs one. */
export const JSON_VALUE_CLOSERS: readonly string[] = Object.freeze(['"', "}", "]", "0"]);

export const hermes: ToolCallFormat = {
  id: "hermes",
  description: 'Qwen3 / Qwen2.5 / QwQ: <tool_call>\\n{"name": …, "arguments": {…}}\\n</tool_call>',
  open: QWEN3_TOKENS.toolCallOpen,
  close: QWEN3_TOKENS.toolCallClose,
  framing: "\n",
  blockSeparator: "\n",
  stringText: "json",
  valueClosers: JSON_VALUE_CLOSERS,
  body: { kind: "json", nameKey: "name", argumentsKey: "arguments", itemSep: ", ", keySep: ": " },
};
