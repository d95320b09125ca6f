// Owns: lowering anyOf and oneOf into unions; a oneOf's options are made disjoint where that is exact (literals
// apart, non-empty arrays, whole types two options share, "this one and none of the others"), else recorded to
// be judged once every `$ref` has its target.

import { ok, err, type Result } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { isAnnotation, isObject, mergeSchemas, pointer, unsupported } from "./schema-keywords.js";
import { judgeOf } from "./value-judge.js";
import { deref, disjoint, type Node } from "./schema-nodes.js";
import { type LowerContext, recordsMark } from "./lower-context.js";

/** Most options of an overlapping oneOf held as "this one and none of the others" (each negates all the others). */
const MAX_EXACTLY_ONE = 8;
/**
 * The share of the schema's remaining value-tree nodes that rewrite may make: past it the oneOf is judged as it is
 * (its options are often proven disjoint once every `$ref` has its target), not refused for size.
 */
const EXACTLY_ONE_SHARE = 0.9;

/** Whether no two of these nodes may match one value (as far as `disjoint` can tell, or `apart` says). */
function pairwiseDisjoint(options: readonly Node[], apart: ReadonlySet<string>): boolean {
  for (let i = 0; i < options.length; i++) for (let j = i + 1; j < options.length; j++) if (!apart.has(`${i},${j}`) && !disjoint(options[i]!, options[j]!)) return false;
  return true;
}

export function lowerUnion(cx: LowerContext, schema: JsonSchema, path: string, hint: string, depth: number): Result<Node> {
  if (Array.isArray(schema.anyOf) && Array.isArray(schema.oneOf)) {
    return err(unsupported(pointer(path, "oneOf"), "anyOf and oneOf in the same schema are not supported"));
  }
  const key = Array.isArray(schema.anyOf) ? "anyOf" : "oneOf";
  const { [key]: list, ...base } = schema;
  const hasBase = Object.keys(base).some((k) => !isAnnotation(k));
  const options: Node[] = [];
  for (const [i, option] of (list as unknown[]).entries()) {
    const at = pointer(path, key, i);
    let merged: unknown = option;
    if (hasBase) {
      const resolved = cx.resolvePart(option, at);
      if (!resolved.ok) return resolved;
      if (typeof resolved.value === "boolean") merged = resolved.value ? base : false;
      else {
        const m = mergeSchemas(base, resolved.value, at);
        if (!m.ok) return m;
        merged = m.value;
      }
    }
    const r = cx.lower(merged, at, `${hint}-${i + 1}`, depth + 1);
    if (!r.ok) return r;
    options.push(r.value);
  }
  const apart = key === "oneOf" ? literalsApart(cx, list as unknown[], path) : new Set<string>();
  if (key === "oneOf") nonEmptyArrays(cx, options, apart);
  const exclusive = key === "oneOf" && options.length > 1 ? withoutSharedKinds(cx, options) : options;
  if (key === "oneOf" && options.length > 1 && !pairwiseDisjoint(exclusive, apart)) {
    const held = exactlyOne(cx, list as unknown[], hasBase ? base : undefined, path, hint, depth);
    if (held) return ok(held);
  }
  if (key === "oneOf" && options.length > 1) cx.oneOfs.push({ path, options: exclusive, apart });
  return ok(exclusive.length === 1 ? exclusive[0]! : cx.node(path, hint, { k: "union", options: exclusive }));
}

/**
 * Pairs of oneOf options ("i,j", i < j) known disjoint because one of them is an enum or const none of whose
 * values the other admits (judged by the validator: a pattern, a format or a bound the node tree cannot compare).
 */
function literalsApart(cx: LowerContext, list: readonly unknown[], path: string): Set<string> {
  const apart = new Set<string>();
  const raw = list.map((o, i) => {
    const r = cx.resolvePart(o, pointer(path, "oneOf", i));
    return r.ok ? r.value : undefined;
  });
  const valuesOf = (o: unknown) => (isObject(o) && (Array.isArray(o.enum) || "const" in o) ? (Array.isArray(o.enum) ? o.enum : [o.const]) : undefined);
  for (let i = 0; i < raw.length; i++) {
    for (let j = i + 1; j < raw.length; j++) {
      const [values, other] = valuesOf(raw[i]) ? [valuesOf(raw[i])!, raw[j]] : [valuesOf(raw[j]), raw[i]];
      if (!values || other === undefined) continue;
      const judge = judgeOf(other, cx.root);
      if (judge && values.every((v) => !judge(v))) apart.add(`${i},${j}`);
    }
  }
  return apart;
}

/**
 * oneOf options that are arrays of items no two of them share: they overlap only in the empty array, which
 * therefore matches none (oneOf admits none of it). Such options become non-empty and the pair disjoint. Exact.
 */
function nonEmptyArrays(cx: LowerContext, options: Node[], apart: Set<string>): void {
  const plain = (n: Node) => (n.k === "array" && n.prefix.length === 0 && n.items !== null ? n : undefined);
  const arrays = options.map(plain);
  const pairs: [number, number][] = [];
  for (let i = 0; i < options.length; i++) {
    for (let j = i + 1; j < options.length; j++) {
      if (apart.has(`${i},${j}`) || disjoint(options[i]!, options[j]!)) continue;
      const [a, b] = [arrays[i], arrays[j]];
      if (!a || !b || !disjoint(a.items!, b.items!)) return;
      pairs.push([i, j]);
    }
  }
  for (const [i, j] of pairs) {
    for (const k of [i, j]) {
      const a = arrays[k]!;
      if (a.minItems >= 1) continue;
      const nonEmpty = cx.node(a.path, a.hint, { k: "array", prefix: [], items: a.items, minItems: 1, ...(a.maxItems === undefined ? {} : { maxItems: a.maxItems }) }) as Node & { k: "array" };
      options[k] = arrays[k] = nonEmpty;
    }
    apart.add(`${i},${j}`);
  }
}

/**
 * An overlapping oneOf held exactly where `not` can be: each option i as (base, option i, not any other option),
 * options that no value shares. Undefined when some negation cannot be held (the oneOf is then judged as is).
 */
function exactlyOne(cx: LowerContext, list: readonly unknown[], base: JsonSchema | undefined, path: string, hint: string, depth: number): Node | undefined {
  if (list.length > MAX_EXACTLY_ONE) return undefined;
  const resolved: unknown[] = [];
  for (const [i, option] of list.entries()) {
    const r = cx.resolvePart(option, pointer(path, "oneOf", i));
    if (!r.ok) return undefined;
    resolved.push(r.value);
  }
  // What the attempt records (closed sites, nested oneOfs) is the original lowering's again afterwards.
  const restore = recordsMark(cx);
  const options = cx.attempt(EXACTLY_ONE_SHARE, () => {
    const made: Node[] = [];
    for (const [i, option] of resolved.entries()) {
      const others = resolved.filter((_, j) => j !== i);
      const parts = [...(base ? [base] : []), option, { not: others.length === 1 ? others[0] : { anyOf: others } }];
      const r = cx.lower({ allOf: parts }, pointer(path, "oneOf", i), `${hint}-only-${i + 1}`, depth + 1);
      if (!r.ok) return undefined;
      made.push(r.value);
    }
    return made;
  });
  restore();
  if (!options) return undefined;
  return cx.node(path, hint, { k: "union", options });
}

/**
 * oneOf options that are untyped schemas (see lower: their keywords' types, then every other type whole) without
 * the whole types two of them hold: a value of such a type matches both, so oneOf admits none of it. Exact, and
 * what lets `oneOf: [{properties: …, required: ["a"]}, {properties: …, required: ["b"]}]` be told apart.
 */
function withoutSharedKinds(cx: LowerContext, options: readonly Node[]): Node[] {
  const fillers = (n: Node) => (n.k === "union" && n.essential !== undefined ? n.options.slice(n.essential) : []);
  const count = new Map<string, number>();
  for (const o of options) for (const f of fillers(deref(o))) count.set(f.k, (count.get(f.k) ?? 0) + 1);
  return options.map((option) => {
    const o = deref(option);
    if (o.k !== "union" || o.essential === undefined || !fillers(o).some((f) => count.get(f.k)! > 1)) return option;
    const kept = [...o.options.slice(0, o.essential), ...fillers(o).filter((f) => count.get(f.k)! === 1)];
    return cx.node(o.path, o.hint, { k: "union", options: kept, essential: o.essential });
  });
}
