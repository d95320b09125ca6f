// Owns: the public surface of the adapters (OpenAI and Anthropic shapes, the qtc parse report).

export {
  createOpenAIDeltaTranslator,
  openAIFinishReason,
  openAIToolCallId,
  toOpenAIMessage,
  toOpenAIToolCallDeltas,
  toOpenAIToolCalls,
  type OpenAIAssistantMessage,
  type OpenAIDelta,
  type OpenAIFinishReason,
  type OpenAIStreamOptions,
  type OpenAIToolCall,
  type OpenAIToolCallDelta,
} from "./openai.js";
export {
  anthropicStopReason,
  anthropicToolUseId,
  createAnthropicEventTranslator,
  toAnthropicContent,
  toAnthropicToolUse,
  type AnthropicContentBlock,
  type AnthropicOptions,
  type AnthropicStopReason,
  type AnthropicStreamEvent,
} from "./anthropic.js";
export { fragments, ADAPTER_DEFAULTS } from "./fragments.js";
export { streamEventsOf, type ContentEvent, type StreamEvent, type TranslatedEvent, type TranslatorInput } from "./events.js";
export { PARSE_SHAPES, toReport, toShape, type AnthropicMessageShape, type ParseReport, type ParseShape } from "./report.js";
