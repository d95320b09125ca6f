// Owns: the chat message shape every stage accepts (the OpenAI chat shape).

/** A call the assistant made earlier in the conversation, as OpenAI sends it back. */
export interface AssistantToolCall {
  id?: string;
  type?: "function";
  function: {
    name: string;
    /** JSON text of the arguments (OpenAI) or the object itself (accepted too). */
    arguments: string | Record<string, unknown>;
  };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content?: string | null;
      /** Reasoning text of an earlier turn (rendered only where the template keeps it). */
      reasoning_content?: string | null;
      tool_calls?: AssistantToolCall[];
    }
  | { role: "tool"; content: string; tool_call_id?: string; name?: string };
