// Owns: whether a lowered value may hold an object key that the grammar itself does not keep distinct. Listed
// members are written at most once each, in their order; an extra or pattern member's key is spelled freely, so only
// the engine's key guard keeps it from repeating one already written. A value with none needs no key state at all.

import { deref, type Node } from "./schema-nodes.js";

/** Whether some object the value may hold takes extra or pattern members (conservative: true where a ref is unresolved). */
export function spellsOpenKeys(root: Node): boolean {
  const seen = new Set<number>();
  const pending: (Node | null)[] = [root];
  while (pending.length > 0) {
    const next = pending.pop();
    if (!next) continue;
    const n = deref(next);
    if (seen.has(n.id)) continue;
    seen.add(n.id);
    if (n.k === "ref") return true;
    if (n.k === "union") pending.push(...n.options);
    else if (n.k === "array") pending.push(...n.prefix, n.items);
    else if (n.k === "object") {
      if (n.extra !== null || (n.patternKeys?.length ?? 0) > 0) return true;
      for (const p of n.props) if (!p.never) pending.push(p.node);
    }
  }
  return false;
}
