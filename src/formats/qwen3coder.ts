// Owns: the qwen3coder tool-call format used by Qwen3-Coder.
// Template: Qwen3-Coder's chat_template renders
// `<tool_call>\n<function=NAME>\n<parameter=ARG>\nVALUE\n</parameter>\n</function>\n</tool_call>`;
// string values are raw text, other values JSON.

import { QWEN3_TOKENS } from "./qwen3-tokens.js";
import type { ToolCallFormat } from "./types.js";

export const qwen3coder: ToolCallFormat = {
  id: "qwen3coder",
  description: "Qwen3-Coder: <tool_call>\\n<function=NAME>\\n<parameter=ARG>\\nVALUE\\n</parameter>\\n</function>\\n</tool_call>",
  open: QWEN3_TOKENS.toolCallOpen,
  close: QWEN3_TOKENS.toolCallClose,
  framing: "\n",
  blockSeparator: "\n",
  body: {
    kind: "xml",
    functionOpen: "<function=",
    functionClose: "</function>",
    parameterOpen: "<parameter=",
    parameterClose: "</parameter>",
    tagEnd: ">",
    stringValues: "raw",
  },
};
