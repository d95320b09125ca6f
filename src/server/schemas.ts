// Owns: the JSON Schemas fastify checks request bodies against before a handler runs (top-level field types;
// nested content, tools and tool_choice are checked while converting, where the messages can be precise).

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: "null" }] });

/** Body of `POST /v1/chat/completions`. Unknown fields pass (clients send many); unsupported ones are refused later. */
export const OPENAI_CHAT_BODY = {
  type: "object",
  required: ["messages"],
  properties: {
    model: { type: "string" },
    messages: { type: "array", minItems: 1, items: { type: "object", required: ["role"], properties: { role: { type: "string" } } } },
    tools: nullable({ type: "array", items: { type: "object" } }),
    tool_choice: { anyOf: [{ type: "string" }, { type: "object" }, { type: "null" }] },
    parallel_tool_calls: nullable({ type: "boolean" }),
    max_tokens: nullable({ type: "integer", minimum: 1 }),
    max_completion_tokens: nullable({ type: "integer", minimum: 1 }),
    temperature: nullable({ type: "number", minimum: 0, maximum: 2 }),
    top_p: nullable({ type: "number", minimum: 0, maximum: 1 }),
    seed: nullable({ type: "integer" }),
    stream: nullable({ type: "boolean" }),
    stream_options: nullable({ type: "object", properties: { include_usage: { type: "boolean" } } }),
    response_format: nullable({ type: "object", required: ["type"], properties: { type: { type: "string" } } }),
    n: nullable({ type: "integer", minimum: 1 }),
    reasoning_effort: nullable({ type: "string" }),
    logprobs: nullable({ type: "boolean" }),
    top_logprobs: nullable({ type: "integer", minimum: 0, maximum: 20 }),
  },
} as const;

/** Body of `POST /v1/messages`. */
export const ANTHROPIC_MESSAGES_BODY = {
  type: "object",
  required: ["model", "max_tokens", "messages"],
  properties: {
    model: { type: "string" },
    max_tokens: { type: "integer", minimum: 1 },
    messages: { type: "array", minItems: 1, items: { type: "object", required: ["role", "content"], properties: { role: { type: "string" } } } },
    system: { anyOf: [{ type: "string" }, { type: "array" }] },
    tools: { type: "array", items: { type: "object" } },
    tool_choice: { type: "object", required: ["type"], properties: { type: { type: "string" } } },
    temperature: { type: "number", minimum: 0, maximum: 1 },
    top_p: { type: "number", minimum: 0, maximum: 1 },
    top_k: { type: "integer", minimum: 0 },
    stream: { type: "boolean" },
    stop_sequences: { type: "array", items: { type: "string" } },
    thinking: { type: "object", required: ["type"], properties: { type: { type: "string" } } },
  },
} as const;

/** Body of `POST /v1/responses` (the Responses API). `input` items are checked while converting. */
export const OPENAI_RESPONSES_BODY = {
  type: "object",
  required: ["input"],
  properties: {
    model: { type: "string" },
    input: { anyOf: [{ type: "string" }, { type: "array", items: { type: "object" } }] },
    instructions: nullable({ type: "string" }),
    tools: nullable({ type: "array", items: { type: "object" } }),
    tool_choice: { anyOf: [{ type: "string" }, { type: "object" }, { type: "null" }] },
    parallel_tool_calls: nullable({ type: "boolean" }),
    max_output_tokens: nullable({ type: "integer", minimum: 1 }),
    temperature: nullable({ type: "number", minimum: 0, maximum: 2 }),
    top_p: nullable({ type: "number", minimum: 0, maximum: 1 }),
    stream: nullable({ type: "boolean" }),
    text: nullable({ type: "object" }),
    reasoning: nullable({ type: "object" }),
  },
} as const;

/** Body of `POST /v1/completions` (legacy text completions). */
export const OPENAI_COMPLETIONS_BODY = {
  type: "object",
  required: ["prompt"],
  properties: {
    model: { type: "string" },
    prompt: { anyOf: [{ type: "string" }, { type: "array" }] },
    max_tokens: nullable({ type: "integer", minimum: 1 }),
    temperature: nullable({ type: "number", minimum: 0, maximum: 2 }),
    top_p: nullable({ type: "number", minimum: 0, maximum: 1 }),
    seed: nullable({ type: "integer" }),
    stream: nullable({ type: "boolean" }),
    stream_options: nullable({ type: "object", properties: { include_usage: { type: "boolean" } } }),
    n: nullable({ type: "integer", minimum: 1 }),
    logprobs: nullable({ type: "integer", minimum: 0, maximum: 20 }),
  },
} as const;

/** Body of `POST /v1/messages/count_tokens`: a messages body without max_tokens. */
export const ANTHROPIC_COUNT_TOKENS_BODY = {
  ...ANTHROPIC_MESSAGES_BODY,
  required: ["model", "messages"],
  properties: { ...ANTHROPIC_MESSAGES_BODY.properties, max_tokens: { type: "integer", minimum: 1 } },
} as const;
