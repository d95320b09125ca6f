// Owns: the hermes tool-call format used by Qwen3, Qwen2.5 and QwQ.
// Template: Qwen3's chat_template renders `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>` with
// `tojson`, i.e. Python json.dumps spelling (", " and ": " separators).

import { jsonCallFormat, PYTHON_JSON_SEPARATORS, type JsonCallSettings } from "./json-call.js";
import { QWEN3_TOKENS } from "./qwen3-tokens.js";

/** hermes as data: a variant (other tags, other keys) is `jsonCallFormat({ ...HERMES_SETTINGS, … })`. */
export const HERMES_SETTINGS: Readonly<JsonCallSettings> = Object.freeze({
  id: "hermes",
  description: 'Qwen3 / Qwen2.5 / QwQ: <tool_call>\\n{"name": …, "arguments": {…}}\\n</tool_call>',
  open: QWEN3_TOKENS.toolCallOpen,
  close: QWEN3_TOKENS.toolCallClose,
  framing: "\n",
  blockSeparator: "\n",
  // Qwen3's template separates a first call only from content before it.
  separateFirstCall: false,
  template: "qwen3",
  templateMarkers: [QWEN3_TOKENS.toolCallOpen.text],
  spelling: { nameKey: "name", argumentsKey: "arguments", ...PYTHON_JSON_SEPARATORS },
});

export const hermes = jsonCallFormat(HERMES_SETTINGS);
