// Owns: where a value holds arrays whose items must be distinct (uniqueItems), as plain data the runtime's semantic
// guard follows while the value is written: a small graph of value shapes, keeping only those that lead to such an
// array, and the steps a writer takes through it (a member's key, an item's position).

import { canonicalJson } from "./canonical-json.js";
import { deref, type Node } from "./schema-nodes.js";

/** One object or array shape. Children are lists of shape indexes (a union leaves several). */
export interface ValueShape {
  /** An array whose items must be distinct. */
  readonly unique?: true;
  /** Such an array's items where they are a list of literal values: their spellings (the grammar spells them so). */
  readonly literals?: readonly string[];
  /** Listed members: key → the shapes of its value. */
  readonly props?: Readonly<Record<string, readonly number[]>>;
  /** Any other member's value (additionalProperties, pattern members). */
  readonly other?: readonly number[];
  /** Prefix items, by position. */
  readonly prefix?: readonly (readonly number[])[];
  /** Items past the prefix. */
  readonly items?: readonly number[];
}

/** Shapes by index, and the shapes of the value's root. */
export interface UniquePlan {
  readonly shapes: readonly ValueShape[];
  readonly root: readonly number[];
}

type Container = Node & { k: "object" | "array" };

/** A shape before pruning: children by index into every container found. */
interface RawShape {
  unique: boolean;
  literals?: string[];
  props?: Record<string, number[]>;
  other?: number[];
  prefix?: number[][];
  items?: number[];
}

/** The plan of a lowered value; undefined when no array in it asks for distinct items (nothing to guard). */
export function uniquePlan(root: Node): UniquePlan | undefined {
  const index = new Map<number, number>();
  const nodes: Container[] = [];
  const indexOf = (n: Container): number => {
    let i = index.get(n.id);
    if (i === undefined) {
      i = nodes.length;
      index.set(n.id, i);
      nodes.push(n);
    }
    return i;
  };
  const alts = (n: Node | null | undefined): number[] => containers(n).map(indexOf);
  const rootAlts = alts(root);
  const raw: RawShape[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    const each = n.k === "array" && n.items ? deref(n.items) : undefined;
    const literals = n.k === "array" && n.unique && n.prefix.length === 0 && each?.k === "literal" ? each.values.map(canonicalJson) : undefined;
    if (n.k === "array") raw.push({ unique: n.unique === true, ...(literals ? { literals } : {}), prefix: n.prefix.map(alts), items: alts(n.items) });
    else {
      // No prototype: a schema may list a member named `__proto__`.
      const props = Object.create(null) as Record<string, number[]>;
      for (const p of n.props) if (!p.never) props[p.name] = alts(p.node);
      raw.push({ unique: false, props, other: [...alts(n.extra), ...(n.patternKeys ?? []).flatMap((m) => alts(m.value))] });
    }
  }
  const leads = leading(raw);
  if (!rootAlts.some((i) => leads.has(i))) return undefined;
  const kept = [...leads].sort((a, b) => a - b);
  const renumber = new Map(kept.map((old, i) => [old, i]));
  const keep = (list: readonly number[] | undefined): number[] => (list ?? []).filter((i) => leads.has(i)).map((i) => renumber.get(i)!);
  const shapes = kept.map((old): ValueShape => {
    const r = raw[old]!;
    const other = keep(r.other);
    // A listed member leading nowhere stays listed (empty) where other members lead somewhere: its key is no other's.
    const props = Object.fromEntries(Object.entries(r.props ?? {}).map(([k, v]) => [k, keep(v)] as const).filter(([, v]) => v.length > 0 || other.length > 0));
    const prefix = (r.prefix ?? []).map(keep);
    const items = keep(r.items);
    return {
      ...(r.unique ? { unique: true as const } : {}),
      ...(r.literals ? { literals: r.literals } : {}),
      ...(Object.keys(props).length > 0 ? { props } : {}),
      ...(other.length > 0 ? { other } : {}),
      ...(prefix.some((p) => p.length > 0) ? { prefix } : {}),
      ...(items.length > 0 ? { items } : {}),
    };
  });
  return { shapes, root: keep(rootAlts) };
}

/** The object and array nodes a value may be (refs followed, unions flattened). */
function containers(n: Node | null | undefined, depth = 0): Container[] {
  if (!n || depth > 32) return [];
  const d = deref(n);
  if (d.k === "union") return d.options.flatMap((o) => containers(o, depth + 1));
  return d.k === "object" || d.k === "array" ? [d] : [];
}

/** Shapes that are a unique array or hold one somewhere below (a fixpoint: recursive schemas loop). */
function leading(raw: readonly RawShape[]): Set<number> {
  const leads = new Set<number>();
  raw.forEach((r, i) => r.unique && leads.add(i));
  for (let changed = true; changed; ) {
    changed = false;
    raw.forEach((r, i) => {
      if (leads.has(i)) return;
      const children = [...Object.values(r.props ?? {}).flat(), ...(r.other ?? []), ...(r.prefix ?? []).flat(), ...(r.items ?? [])];
      if (children.some((c) => leads.has(c))) {
        leads.add(i);
        changed = true;
      }
    });
  }
  return leads;
}

/**
 * The shapes of a member's value, by its key (a listed member, else any other member). The key is the model's text:
 * it is looked for among the listed members only (`constructor` is no listed member unless the schema lists it).
 */
export function shapesAtKey(plan: UniquePlan, shapes: readonly number[], key: string): number[] {
  return shapes.flatMap((s) => {
    const shape = plan.shapes[s]!;
    const listed = shape.props && Object.hasOwn(shape.props, key) ? shape.props[key] : undefined;
    return listed ?? shape.other ?? [];
  });
}

/** The shapes of an array's item at `position` (0-based). */
export function shapesAtItem(plan: UniquePlan, shapes: readonly number[], position: number): number[] {
  return shapes.flatMap((s) => {
    const shape = plan.shapes[s]!;
    return shape.prefix?.[position] ?? shape.items ?? [];
  });
}

/** The spellings an array of these shapes may hold, where every shape that asks for distinct items lists them. */
export function literalItems(plan: UniquePlan, shapes: readonly number[]): readonly string[] | undefined {
  const unique = shapes.map((s) => plan.shapes[s]!).filter((s) => s.unique);
  if (unique.length === 0 || unique.some((s) => !s.literals)) return undefined;
  return unique.length === 1 ? unique[0]!.literals : [...new Set(unique.flatMap((s) => s.literals!))];
}

/** Whether an array of these shapes must hold distinct items (any of them asks: a guard errs toward valid). */
export function mustBeDistinct(plan: UniquePlan, shapes: readonly number[]): boolean {
  return shapes.some((s) => plan.shapes[s]!.unique === true);
}
