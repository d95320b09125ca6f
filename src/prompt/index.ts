// Owns: the public surface of the prompt stage.

export type { AssistantToolCall, ChatMessage } from "./types.js";
export { renderPrompt, RENDER_PROMPT_DEFAULTS, type RenderPromptOptions } from "./render.js";
export { renderToolCall, renderPastCalls, type PastCall } from "./render-calls.js";
export { renderHermesToolsSection, renderCoderToolsSection } from "./render-tools.js";
export { toTemplateTool, toTemplateTools, type TemplateTool } from "./template-tools.js";
export { QWEN3_CODER_DEFAULT_SYSTEM } from "./render-qwen3-coder.js";
export { pythonJsonDumps, pythonJsonString, pythonStr, pythonStringRepr, pythonStrip, pythonLstrip, pythonRstrip } from "./python-json.js";
