// Owns: the public surface of the engine's semantic state, and which state a format's calls get: over the whole call
// where the call is JSON, over each JSON-valued parameter where arguments are tags.

import type { ToolCallFormat } from "../../formats/index.js";
import type { GrammarTool } from "../../grammar/index.js";
import { KeyGuard, type KeyTracker, type KeyVocab } from "./key-guard.js";
import { XmlKeyGuard } from "./xml-key-guard.js";

export { KeyGuard, KeyVocab, type KeyProbe, type KeyTracker, type UniqueRoots } from "./key-guard.js";
export { XmlKeyGuard } from "./xml-key-guard.js";
export { distinctClosing } from "./distinct-closing.js";
export { SemanticMatcher } from "./semantic-matcher.js";

/**
 * The semantic state of a format's calls over `tools`; undefined where the format writes no JSON to watch, or where
 * no tool's arguments hold a key or an item the grammar alone could repeat (a schema with none of those keywords
 * pays nothing for the state).
 */
export function semanticStateFor(format: ToolCallFormat, tools: readonly GrammarTool[], vocab: KeyVocab): KeyTracker | undefined {
  if (!tools.some((t) => t.openKeys || t.unique)) return undefined;
  if (format.body.decoder === "json-call") {
    const plans = new Map(tools.flatMap((t) => (t.unique ? [[t.name, t.unique] as const] : [])));
    // The state compares keys as the text spells them.
    const spelled = (key: string) => JSON.stringify(key).slice(1, -1);
    const { nameKey, argumentsKey } = format.body.spelling;
    return new KeyGuard(vocab, plans.size > 0 ? { kind: "call", plans, nameKey: spelled(nameKey), argumentsKey: spelled(argumentsKey) } : undefined);
  }
  if (format.stringText === "json") return new KeyGuard(vocab);
  return format.body.decoder === "xml-function" ? new XmlKeyGuard(vocab, format.body.spelling, tools) : undefined;
}
