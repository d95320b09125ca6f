// Owns: telling a schema no value satisfies (its least cost is infinite) from one that only needs a larger
// budget, and naming the subschema to blame: the `unsatisfiable_schema` error (see docs/grammar.md).

import type { QtcError } from "../errors.js";
import type { Costs } from "./schema-cost.js";
import type { Node } from "./schema-nodes.js";

/**
 * Undefined when some value fits `node`; else an `unsatisfiable_schema` error at the JSON pointer of the
 * innermost subschema that admits nothing (a required member, an item, or every branch of a union).
 */
export function unsatisfiable(node: Node, costs: Costs): QtcError | undefined {
  if (Number.isFinite(costs.min(node))) return undefined;
  const path = culprit(node, costs);
  return { code: "unsatisfiable_schema", message: `no value satisfies the schema at ${path || "/"} (e.g. minimum above maximum, minLength above maxLength, an empty enum, or a required property that is false); fix the bounds`, path };
}

/** Walk down the infinite-cost parts to the one that causes it (a cycle stops at the node it returns to). */
function culprit(start: Node, costs: Costs): string {
  const seen = new Set<number>();
  let n = start;
  for (;;) {
    if (seen.has(n.id)) return n.path;
    seen.add(n.id);
    const next = cause(n, costs);
    if (!next) return n.path;
    n = next;
  }
}

function cause(n: Node, costs: Costs): Node | undefined {
  const never = (c: Node) => !Number.isFinite(costs.min(c));
  switch (n.k) {
    case "ref":
      return n.target;
    case "union":
      return n.options.length === 1 ? n.options[0] : undefined;
    case "object":
      return n.props.find((p) => p.required && never(p.node))?.node;
    case "array": {
      const tuple = n.prefix.slice(0, n.minItems).find(never);
      if (tuple) return tuple;
      return n.minItems > n.prefix.length && n.items && never(n.items) ? n.items : undefined;
    }
    default:
      return undefined;
  }
}
