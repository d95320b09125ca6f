// Owns: the qwen3coder tool-call format used by Qwen3-Coder.
// Template: Qwen3-Coder's chat_template renders
// `<tool_call>\n<function=NAME>\n<parameter=ARG>\nVALUE\n</parameter>\n</function>\n</tool_call>`;
// string values are raw text, other values JSON.

import { QWEN3_TOKENS } from "./qwen3-tokens.js";
import { xmlCallFormat, type XmlCallSettings } from "./xml-call.js";

const FUNCTION_OPEN = "<function=";
const PARAMETER_OPEN = "<parameter=";

/** qwen3coder as data: a variant is `xmlCallFormat({ ...QWEN3CODER_SETTINGS, … })`. */
export const QWEN3CODER_SETTINGS: Readonly<XmlCallSettings> = Object.freeze({
  id: "qwen3coder",
  description: "Qwen3-Coder: <tool_call>\\n<function=NAME>\\n<parameter=ARG>\\nVALUE\\n</parameter>\\n</function>\\n</tool_call>",
  open: QWEN3_TOKENS.toolCallOpen,
  close: QWEN3_TOKENS.toolCallClose,
  framing: "\n",
  blockSeparator: "\n",
  // Qwen3-Coder's template writes a newline before every call block.
  separateFirstCall: true,
  template: "qwen3-coder",
  templateMarkers: [FUNCTION_OPEN, PARAMETER_OPEN],
  spelling: {
    functionOpen: FUNCTION_OPEN,
    functionClose: "</function>",
    parameterOpen: PARAMETER_OPEN,
    parameterClose: "</parameter>",
    tagEnd: ">",
  },
});

export const qwen3coder = xmlCallFormat(QWEN3CODER_SETTINGS);
