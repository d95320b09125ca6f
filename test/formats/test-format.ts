// Owns: a test-only third format, built only from what src/formats exports: hermes' JSON body between other
// special tokens (`<tool_response>` 151665 / `</tool_response>` 151666), so a test can prove a format that
// is no built-in one runs through the renderer, the grammar, the parser and the runtime unchanged.

import { HERMES_SETTINGS, jsonCallFormat, QWEN3_TOKENS, type ToolCallFormat } from "../../src/formats/index.js";

export const responseTagsFormat: ToolCallFormat = jsonCallFormat({
  ...HERMES_SETTINGS,
  id: "response-tags",
  description: 'test only: <tool_response>\\n{"name": …, "arguments": {…}}\\n</tool_response>',
  open: QWEN3_TOKENS.toolResponseOpen,
  close: QWEN3_TOKENS.toolResponseClose,
  templateMarkers: [QWEN3_TOKENS.toolResponseOpen.text],
});
