// Owns: checking the caller's chat messages and reducing them to what the templates read (bad input throws
// `invalid_messages`).

import { fail } from "../errors.js";
import type { PastCall } from "./render-calls.js";
import type { ChatMessage } from "./types.js";

/** A message as the template renderers read it; a missing assistant `content` is "" (see renderPrompt). */
export type TemplateMessage =
  | { role: "system" | "user" | "tool"; content: string }
  | { role: "assistant"; content: string; reasoning: string | null; calls: PastCall[] };

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function bad(path: string, why: string): never {
  fail("invalid_messages", `${path}: ${why}`, { path: `/${path.replace(/\[(\d+)\]/g, "/$1").replace(/\./g, "/")}` });
}

function toCall(raw: unknown, path: string): PastCall {
  if (!isObject(raw)) bad(path, "a tool call must be an object");
  // The templates accept `{function: {name, arguments}}` (OpenAI) and a bare `{name, arguments}`.
  const fn = isObject(raw.function) ? raw.function : raw;
  const where = isObject(raw.function) ? `${path}.function` : path;
  if (typeof fn.name !== "string" || fn.name === "") bad(`${where}.name`, "must be a non-empty string");
  const args = fn.arguments;
  if (typeof args !== "string" && !isObject(args)) bad(`${where}.arguments`, "must be JSON text or an object");
  return { name: fn.name, arguments: args };
}

function toMessage(raw: unknown, i: number): TemplateMessage {
  const path = `messages[${i}]`;
  if (!isObject(raw)) bad(path, "a message must be an object");
  const { role } = raw;
  if (role === "system" || role === "user" || role === "tool") {
    if (typeof raw.content !== "string") bad(`${path}.content`, `a ${role} message needs string content`);
    return { role, content: raw.content };
  }
  if (role !== "assistant") bad(`${path}.role`, `unknown role ${JSON.stringify(role)}; expected system, user, assistant or tool`);
  const content = raw.content ?? "";
  if (typeof content !== "string") bad(`${path}.content`, "must be a string or null");
  const reasoning = raw.reasoning_content ?? null;
  if (reasoning !== null && typeof reasoning !== "string") bad(`${path}.reasoning_content`, "must be a string or null");
  const rawCalls = raw.tool_calls ?? [];
  if (!Array.isArray(rawCalls)) bad(`${path}.tool_calls`, "must be an array");
  const calls = rawCalls.map((c, k) => toCall(c, `${path}.tool_calls[${k}]`));
  return { role, content, reasoning, calls };
}

/** The messages checked and reduced; throws `invalid_messages` (with a JSON pointer) on malformed input. */
export function toTemplateMessages(messages: readonly ChatMessage[]): TemplateMessage[] {
  if (!Array.isArray(messages)) fail("invalid_messages", "messages must be an array");
  if (messages.length === 0) fail("invalid_messages", "messages must not be empty");
  return messages.map((m, i) => toMessage(m, i));
}
