// Owns: the public surface of the prompt stage.

export type { AssistantToolCall, ChatMessage } from "./types.js";
export { renderPrompt, renderPromptSegments, RENDER_PROMPT_DEFAULTS, type RenderPromptOptions } from "./render.js";
export { PromptBuilder, type PromptSegment } from "./segments.js";
export { renderToolCall, renderPastCalls, writeToolCall, writePastCalls, type PastCall } from "./render-calls.js";
export { renderHermesToolsSection, renderCoderToolsSection, writeHermesToolsSection, writeCoderToolsSection, writeQwen35ToolsSection } from "./render-tools.js";
export { toTemplateTool, toTemplateTools, type TemplateTool } from "./template-tools.js";
export { QWEN3_CODER_DEFAULT_SYSTEM } from "./render-qwen3-coder.js";
export { MAX_RENDER_DEPTH, pythonJsonDumps, pythonJsonString, pythonStr, pythonStringRepr, pythonStrip, pythonLstrip, pythonRstrip } from "./python-json.js";
export { QWEN38_EFFORTS, REASONING_EFFORTS, type TemplateEffort } from "./render-qwen38.js";
