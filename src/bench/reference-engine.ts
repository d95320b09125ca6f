// Owns: node-llama-cpp's own function calling, set up for the reference row: its Qwen chat wrapper (with a
// subclass that forces a call when tool choice is `required`), the 5 harness tools as session functions, and
// the context the sessions run in (with the LoRA adapter, when there is one).

import {
  type ChatSessionModelFunction,
  type ChatWrapperGenerateContextStateOptions,
  type ChatWrapperGeneratedContextState,
  defineChatSessionFunction,
  type LlamaContext,
  type LlamaModel,
  QwenChatWrapper,
} from "node-llama-cpp";
import { fail } from "../errors.js";
import { HARNESS_TOOLS } from "../harness/tools.js";

/**
 * Qwen's chat wrapper with every answer forced to open a function call: node-llama-cpp has no tool_choice,
 * and this (`noPrefixTrigger` of type functionCall, injecting the call prefix) is the one way it offers.
 */
export class ForcedCallQwenChatWrapper extends QwenChatWrapper {
  override readonly wrapperName: string = "Qwen (forced call)";
  override generateContextState(opts: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
    const state = super.generateContextState(opts);
    if (opts.availableFunctions === undefined || Object.keys(opts.availableFunctions).length === 0) return state;
    return { ...state, noPrefixTrigger: { type: "functionCall", inject: this.settings.functions.call.prefix } } as ChatWrapperGeneratedContextState;
  }
}

/** The chat wrapper for a run: thinking off = Qwen3's empty think block (`discourage`); required = forced call. */
export function referenceChatWrapper(opts: { thinking: boolean; toolChoice: "auto" | "required" }): QwenChatWrapper {
  const thoughts = opts.thinking ? "auto" : "discourage";
  return opts.toolChoice === "required" ? new ForcedCallQwenChatWrapper({ thoughts }) : new QwenChatWrapper({ thoughts });
}

/** What a session function's handler is given: the tool's name and the params node-llama-cpp parsed. */
export type ReferenceHandler = (name: string, params: Record<string, unknown> | undefined) => Promise<string>;

/**
 * The 5 harness tools as node-llama-cpp session functions (same names, descriptions and string arguments),
 * each calling `handler`. A tool without arguments (run_tests) gets no params schema, as node-llama-cpp expects.
 */
export function referenceFunctions(handler: ReferenceHandler): Record<string, ChatSessionModelFunction> {
  const out: Record<string, ChatSessionModelFunction> = {};
  for (const tool of HARNESS_TOOLS) {
    const { name, description, parameters } = tool.function;
    const props = (parameters?.properties ?? {}) as Record<string, { type: "string"; description?: string }>;
    const hasParams = Object.keys(props).length > 0;
    // The harness schemas use only what node-llama-cpp's GbnfJsonSchema supports: an object of strings,
    // `required`, `additionalProperties: false` and descriptions.
    out[name] = defineChatSessionFunction({
      description,
      params: hasParams
        ? ({ type: "object", properties: props, required: Object.keys(props), additionalProperties: false } as const)
        : undefined,
      handler: (params: unknown) => handler(name, (params ?? undefined) as Record<string, unknown> | undefined),
    }) as unknown as ChatSessionModelFunction;
  }
  return out;
}

export interface ReferenceContextOptions {
  contextSize: number;
  threads: number;
  /** A LoRA adapter GGUF applied to the context. Default: none. */
  lora?: string | null;
}

/** A one-sequence context for the reference sessions. Throws `model_load_failed` (exit 1). */
export async function createReferenceContext(model: LlamaModel, opts: ReferenceContextOptions): Promise<LlamaContext> {
  try {
    return await model.createContext({
      contextSize: opts.contextSize,
      threads: opts.threads,
      sequences: 1,
      ...(opts.lora ? { lora: { adapters: [{ filePath: opts.lora }] } } : {}),
    });
  } catch (e) {
    const why = (e instanceof Error ? e.message : String(e)).split("\n")[0];
    fail("model_load_failed", `could not create the reference row's context${opts.lora ? ` with LoRA ${opts.lora}` : ""}: ${why}`, { exitCode: 1 });
  }
}
