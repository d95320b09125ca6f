// Owns: generateOnce: build the runtime the model spec names (any engine), generate one turn, free it (what `qtc
// run` does), checking the caller's request before the model is loaded so bad input fails fast.

import type { FormatId, ToolCallFormat } from "../formats/index.js";
import { renderPrompt, type ChatMessage } from "../prompt/index.js";
import { compileValidators } from "../tools/index.js";
import { resolveToolChoice } from "../runtime/request.js";
import type { GenerateOutput } from "../runtime/result.js";
import type { ModelInfo, RuntimeOptions } from "../runtime/runtime.js";
import { createRuntime } from "./index.js";
import type { GenerateRequest } from "../runtime/types.js";

export interface GenerateOnceResult {
  result: GenerateOutput;
  modelInfo: ModelInfo;
  format: FormatId;
  settings: { gpu: string | false; threads: number; contextSize: number; sequences: number };
}

/** Build the messages of a one-shot request: an optional system message, then the user prompt. */
export function promptMessages(prompt: string, system?: string): ChatMessage[] {
  return system === undefined ? [{ role: "user", content: prompt }] : [{ role: "system", content: system }, { role: "user", content: prompt }];
}

/**
 * What depends on the model's tool-call format, known only once the model is loaded (the request's own, else the
 * runtime's, from its chat template): e.g. the logit bias of `open-bias` on that format's open tag.
 */
export type AtFormat = (request: GenerateRequest, format: FormatId | ToolCallFormat) => GenerateRequest;

/**
 * Load the model, run one request (after `atFormat`, when given), close. Throws QtcException for bad input
 * (before loading when it can).
 */
export async function generateOnce(runtime: RuntimeOptions, request: GenerateRequest, atFormat?: AtFormat): Promise<GenerateOnceResult> {
  const tools = request.tools && request.tools.length > 0 ? compileValidators(request.tools) : undefined;
  resolveToolChoice(request.toolChoice ?? "auto", tools);
  // Malformed or too deep messages fail here, before seconds of model loading (the runtime renders again).
  renderPrompt({ messages: request.messages, tools: tools?.tools, format: request.format ?? runtime.format });
  const rt = await createRuntime({ ...runtime, sequences: 1 });
  try {
    const result = await rt.generate(atFormat ? atFormat(request, request.format ?? rt.format) : request);
    return { result, modelInfo: rt.modelInfo, format: result.format, settings: rt.settings };
  } finally {
    await rt.close();
  }
}
