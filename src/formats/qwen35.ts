// Owns: the qwen35 tool-call format used by Qwen3.5 and Qwen3.6.
// Template: Qwen3.5's chat_template (llama.cpp `models/templates/Qwen3.5-4B.jinja`; Qwen3.6's differs only in
// a `preserve_thinking` switch) puts `<tools>` first in the system turn and renders a call as
// `<tool_call>\n<function=NAME>\n<parameter=ARG>\nVALUE\n</parameter>\n</function>\n</tool_call>`: Qwen3-Coder's
// XML body, in a vocabulary whose special ids differ from Qwen3's (QWEN35_TOKENS). A blank line separates the
// first call from content before it; one newline separates the calls after it.

import { QWEN35_TOKENS } from "./qwen35-tokens.js";
import { QWEN3CODER_SETTINGS } from "./qwen3coder.js";
import { xmlCallFormat, type XmlCallSettings } from "./xml-call.js";

/** qwen35 as data: Qwen3-Coder's spelling under Qwen3.5's template and tokens. */
export const QWEN35_SETTINGS: Readonly<XmlCallSettings> = Object.freeze({
  ...QWEN3CODER_SETTINGS,
  id: "qwen35",
  description: "Qwen3.5 / Qwen3.6: <tool_call>\\n<function=NAME>\\n<parameter=ARG>\\nVALUE\\n</parameter>\\n</function>\\n</tool_call>",
  open: QWEN35_TOKENS.toolCallOpen,
  close: QWEN35_TOKENS.toolCallClose,
  // The template writes nothing before a first call after empty content, a blank line after content.
  separateFirstCall: false,
  firstCallSeparator: "\n\n",
  template: "qwen3.5",
  // Qwen3-Coder's template spells the body tags but never `<think>`; Qwen3's spells `<think>` but not the body tags.
  templateMarkers: [...QWEN3CODER_SETTINGS.templateMarkers, QWEN35_TOKENS.thinkOpen.text],
  think: Object.freeze({ open: QWEN35_TOKENS.thinkOpen, close: QWEN35_TOKENS.thinkClose, openedByPrompt: true }),
});

export const qwen35 = xmlCallFormat(QWEN35_SETTINGS);
