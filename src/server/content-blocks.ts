// Owns: Anthropic content blocks as the text a local model reads, one deliberate rule per block type current
// clients send (text, document, search_result, tool_reference, the server tools' history blocks), and what the
// conversation says about deferred tools (which ones it loaded).

import { badRequest, unsupported } from "./api-error.js";
import { isObject, type Obj, requireObject, requireString } from "./convert-util.js";
import { nameList } from "./client-tools.js";

/**
 * What a conversation's blocks told the converter: the tools it loaded (`tool_reference` blocks, tool search
 * results, earlier calls) and the blocks it left out, which become one notice each kind.
 */
export class HistoryNotes {
  readonly loaded = new Set<string>();
  readonly #skipped = new Map<string, number>();

  skip(type: string): void {
    this.#skipped.set(type, (this.#skipped.get(type) ?? 0) + 1);
  }

  notices(): string[] {
    if (this.#skipped.size === 0) return [];
    const kinds = [...this.#skipped].map(([type, n]) => `${type}${n > 1 ? ` ×${n}` : ""}`);
    return [`left out history blocks of tools only Anthropic's servers run (${nameList(kinds)}); the model sees the rest of the conversation`];
  }
}

/** History blocks of server tools (Anthropic ran them; a local model can neither run nor read them). */
const SERVER_TOOL_BLOCKS: ReadonlySet<string> = new Set([
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "container_upload",
]);

/**
 * One content block as text, or undefined when it adds nothing to the prompt. `cache_control` and `citations`
 * are hints for Anthropic's servers and change nothing here. Images and binary documents are refused: the
 * models qtc serves read text, and dropping what the user showed would answer a question nobody asked.
 */
export function blockText(block: Obj, p: string, notes: HistoryNotes): string | undefined {
  switch (block.type) {
    case "text":
      return requireString(block.text, `${p}.text`);
    case "document":
      return documentText(block, p);
    case "search_result":
      return searchResultText(block, p);
    case "tool_reference":
      return toolReferenceText(requireString(block.tool_name, `${p}.tool_name`), notes);
    case "tool_search_tool_result":
      return toolSearchText(block, p, notes);
    case "thinking":
    case "redacted_thinking":
      return undefined; // reasoning of an earlier turn: the Qwen3 templates drop it outside the assistant's own turn
    default:
      if (typeof block.type === "string" && SERVER_TOOL_BLOCKS.has(block.type)) {
        notes.skip(block.type);
        return undefined;
      }
      throw unsupported(`${p}.type`, `Content blocks of type ${JSON.stringify(block.type)} are not supported here: qtc serves text-only models. Send text, document (text source), search_result, tool_use or tool_result blocks.`);
  }
}

/** A tool search result names a deferred tool: from here on it is loaded (offered and in the grammar). */
function toolReferenceText(name: string, notes: HistoryNotes): string {
  notes.loaded.add(name);
  return `Tool "${name}" is now available.`;
}

/** The tool search tool's result block (`tool_search_tool_search_result` with `tool_references`). */
function toolSearchText(block: Obj, p: string, notes: HistoryNotes): string | undefined {
  const content = isObject(block.content) ? block.content : undefined;
  const refs = content && Array.isArray(content.tool_references) ? content.tool_references : [];
  const texts = refs.map((r, i) => toolReferenceText(requireString(requireObject(r, `${p}.content.tool_references[${i}]`).tool_name, `${p}.content.tool_references[${i}].tool_name`), notes));
  return texts.length ? texts.join("\n") : undefined;
}

/** A document with a plain-text source, or with text blocks as its content; title and context first. */
function documentText(block: Obj, p: string): string {
  const source = requireObject(block.source, `${p}.source`);
  let body: string;
  if (source.type === "text") body = requireString(source.data, `${p}.source.data`);
  else if (source.type === "content") body = textBlocks(source.content, `${p}.source.content`);
  else throw unsupported(`${p}.source.type`, `Documents with a ${JSON.stringify(source.type)} source are not supported: qtc serves text-only models. Send the document's text (source type "text").`);
  return [optionalText(block.title, `${p}.title`), optionalText(block.context, `${p}.context`), body].filter((t) => t !== undefined).join("\n");
}

/** A search result as its title, source and text. */
function searchResultText(block: Obj, p: string): string {
  const title = requireString(block.title, `${p}.title`);
  const source = requireString(block.source, `${p}.source`);
  return `${title} (${source})\n${textBlocks(block.content, `${p}.content`)}`;
}

function textBlocks(raw: unknown, p: string): string {
  if (typeof raw === "string") return raw;
  if (!Array.isArray(raw)) throw badRequest(`${p} must be an array of text blocks.`, p);
  return raw
    .map((b, j) => {
      const block = requireObject(b, `${p}[${j}]`);
      if (block.type !== "text") throw unsupported(`${p}[${j}].type`, `Only text blocks are supported here; got ${JSON.stringify(block.type)}.`);
      return requireString(block.text, `${p}[${j}].text`);
    })
    .join("\n");
}

function optionalText(raw: unknown, p: string): string | undefined {
  return raw === undefined || raw === null ? undefined : requireString(raw, p);
}
