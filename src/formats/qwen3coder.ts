// Owns: the qwen3coder tool-call format used by Qwen3-Coder.
// Template: Qwen3-Coder's chat_template renders
// `<tool_call>\n<function=NAME>\n<parameter=ARG>\nVALUE\n</parameter>\n</function>\n</tool_call>`;
// string values are raw text, other values JSON.

import { QWEN3_TOKENS } from "./qwen3-tokens.js";
import { JSON_VALUE_CLOSERS } from "./hermes.js";
import type { ToolCallFormat } from "./types.js";

const PARAMETER_CLOSE = "</parameter>";
const FUNCTION_CLOSE = "</function>";
/** The suffixes of a closing tag, for when its start was forced already. */
const suffixes = (tag: string) => Array.from({ length: tag.length - 1 }, (_, i) => tag.slice(i + 1));

export const qwen3coder: ToolCallFormat = {
  id: "qwen3coder",
  description: "Qwen3-Coder: <tool_call>\\n<function=NAME>\\n<parameter=ARG>\\nVALUE\\n</parameter>\\n</function>\\n</tool_call>",
  open: QWEN3_TOKENS.toolCallOpen,
  close: QWEN3_TOKENS.toolCallClose,
  framing: "\n",
  blockSeparator: "\n",
  stringText: "raw",
  // A raw value ends at its framing newline and closing tag; JSON-typed values close as in hermes.
  valueClosers: Object.freeze([
    "\n" + PARAMETER_CLOSE,
    "\n" + FUNCTION_CLOSE,
    ...suffixes(PARAMETER_CLOSE),
    ...suffixes(FUNCTION_CLOSE),
    ...JSON_VALUE_CLOSERS,
  ]),
  body: {
    kind: "xml",
    functionOpen: "<function=",
    functionClose: FUNCTION_CLOSE,
    parameterOpen: "<parameter=",
    parameterClose: PARAMETER_CLOSE,
    tagEnd: ">",
    stringValues: "raw",
  },
};
