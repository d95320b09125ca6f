// Owns: lowering objects: listed, required, extra and pattern members, their counts, and propertyNames (held
// by the rewrite in property-names.ts).

import { err, ok, type Result } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { EVERY_TYPE, isObject, pointer, refTarget, unsupported } from "./schema-keywords.js";
import { avoidsAny, type KeyAvoid } from "./extra-key.js";
import { planPatterns } from "./pattern-properties.js";
import { MIN_EXTRA_MEMBERS } from "./not-values.js";
import type { Node, Prop } from "./schema-nodes.js";
import { foldPropertyNames } from "./property-names.js";
import type { LowerContext } from "./lower-context.js";

export function lowerObject(cx: LowerContext, schema: JsonSchema, path: string, hint: string, depth: number): Result<Node> {
  // propertyNames held by a rewrite (property-names.ts); its pattern's members, which the document does not have,
  // are refused at propertyNames when the grammar cannot hold them.
  const folded = foldPropertyNames(schema, (v) => refTarget(cx.root, v, path));
  // One that could not be folded (after allOf parts met: a pattern beside names, pattern members beside it).
  if (!folded && "propertyNames" in schema) return err(unsupported(pointer(path, "propertyNames"), "propertyNames that neither names the keys nor is one pattern beside no other pattern members is not supported"));
  const r = lowerMembers(cx, folded ?? schema, path, hint, depth);
  const made = pointer(path, "patternProperties");
  if (folded && !r.ok && r.error.code === "unsupported_keyword" && !("patternProperties" in schema) && r.error.path?.startsWith(made)) {
    return err(unsupported(pointer(path, "propertyNames"), `propertyNames cannot be held: ${r.error.message}`));
  }
  return r;
}

function lowerMembers(cx: LowerContext, s: JsonSchema, path: string, hint: string, depth: number): Result<Node> {
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : []);
  const listed = isObject(s.properties) ? s.properties : {};
  let extra: Node | null = null;
  const ap = s.additionalProperties;
  if (ap === undefined && cx.extraMembers === "schema") extra = cx.anyNode();
  else if (ap === undefined) {
    if (cx.sites.closed.length < 64) cx.sites.closed.push(path);
    cx.sites.closedCount++;
  } else if (ap !== false) {
    const r = cx.lower(ap, pointer(path, "additionalProperties"), `${hint}-extra`, depth + 1);
    if (!r.ok) return r;
    extra = r.value;
  }
  const patterned = isObject(s.patternProperties) && Object.keys(s.patternProperties).length > 0 ? lowerPatterns(cx, s, path, hint, depth, Object.keys(listed), extra) : undefined;
  if (patterned && !patterned.ok) return patterned;
  const plan = patterned?.value;
  if (plan) extra = plan.spelled;
  const props: Prop[] = [];
  for (const [name, own] of Object.entries(listed)) {
    const also = plan?.listed.get(name);
    const sub = also ? { allOf: [own, ...also] } : own;
    const r = cx.lower(sub, pointer(path, "properties", name), `${hint}-${name}`, depth + 1);
    if (!r.ok) return r;
    const never = isNever(r.value);
    // A required member no value satisfies makes the object unsatisfiable (the compile names it); an optional
    // one is never written, but stays listed so that no extra key spells its name (`"a": false` beside
    // additionalProperties would otherwise admit any "a").
    props.push({ name, node: r.value, required: required.has(name), ...(never ? { never: true } : {}) });
  }
  for (const name of required) {
    if (name in listed) continue;
    // Closed by policy, a required member no one listed is still written (the schema demands it).
    const byPattern = plan ? cx.lower(plan.required(name), pointer(path, "required"), `${hint}-${name}`, depth + 1) : undefined;
    if (byPattern && !byPattern.ok) return byPattern;
    const node = byPattern ? byPattern.value : (extra ?? (ap === undefined ? cx.anyNode() : undefined));
    // A required member no key may name: no object satisfies this schema (refused as unsatisfiable where nothing else can stand in).
    if (!node) return ok(cx.never(path, hint));
    props.push({ name, node, required: true });
  }
  const count = props.filter((p) => !p.never).length;
  const requiredCount = props.filter((p) => p.required).length;
  // minProperties 1 with no required member: the object is not empty (exact). Beyond that: refused.
  const nonEmpty = typeof s.minProperties === "number" && s.minProperties === 1 && requiredCount === 0;
  // Extra or pattern members: the grammar writes at least minProperties - required of them, whatever optional
  // listed members it writes too (a subset: an object reaching the minimum through those has the extra members
  // anyway); the key guard keeps their keys distinct, and the guarded closing spells distinct ones.
  const open = extra !== null || (plan?.keys.length ?? 0) > 0;
  // `not` of additionalProperties false asks for an extra member (MIN_EXTRA_MEMBERS); with none possible, no object.
  const forced = typeof s[MIN_EXTRA_MEMBERS] === "number" ? (s[MIN_EXTRA_MEMBERS] as number) : undefined;
  if (forced !== undefined && !open) return ok(cx.never(path, hint));
  const minExtra = typeof s.minProperties === "number" && s.minProperties > requiredCount && !nonEmpty && open ? Math.max(s.minProperties - requiredCount, forced ?? 0) : forced;
  if (typeof s.minProperties === "number" && typeof s.maxProperties === "number" && s.maxProperties < s.minProperties) return ok(cx.never(path, hint));
  if (typeof s.minProperties === "number" && s.minProperties > requiredCount && !nonEmpty && minExtra === undefined) {
    return err(unsupported(pointer(path, "minProperties"), "minProperties beyond the required properties is supported only over extra or pattern members (or 1)"));
  }
  // maxProperties: the listed members must fit it; extra members get what is left (a subset when optional
  // listed members are left out: never more members than the bound).
  let maxExtra: number | undefined;
  if (typeof s.maxProperties === "number") {
    if (s.maxProperties < count) return fewerMembers(cx, s, props, path, hint, depth) ?? err(unsupported(pointer(path, "maxProperties"), `maxProperties below the number of listed properties is supported only where at most ${MAX_MEMBER_SETS} sets of the optional ones fit it`));
    if (extra !== null || plan?.keys.length) maxExtra = s.maxProperties - count;
    // Room for every optional listed member leaves too few extra members for the minimum.
    if (minExtra !== undefined && (maxExtra ?? 0) < minExtra) {
      return err(unsupported(pointer(path, "minProperties"), "minProperties with maxProperties beside optional listed properties is supported only where every listed property and the minimum's extra members fit the maximum"));
    }
  }
  const patternKeys = maxExtra === 0 || !plan?.keys.length ? {} : { patternKeys: plan.keys };
  const keyAvoid = plan ? { keyAvoid: plan.avoid } : {};
  return ok(cx.node(path, hint, { k: "object", props, extra: maxExtra === 0 ? null : extra, ...patternKeys, ...keyAvoid, ...(maxExtra ? { maxExtra } : {}), ...(nonEmpty ? { nonEmpty } : {}), ...(minExtra ? { minExtra } : {}) }));
}

/** Most sets of optional listed members fewerMembers spells, one object each. */
const MAX_MEMBER_SETS = 64;

/**
 * maxProperties below the number of listed members: one object per set of optional listed members that fits it,
 * those members required and the other optional ones never written (listed as `false`, so that no extra key spells
 * them either). Exact: an object's listed members are one such set, and no two objects share their set. Undefined
 * when there are more than MAX_MEMBER_SETS sets.
 */
function fewerMembers(cx: LowerContext, s: JsonSchema, props: readonly Prop[], path: string, hint: string, depth: number): Result<Node> | undefined {
  const max = s.maxProperties as number;
  const optional = props.filter((p) => !p.required && !p.never).map((p) => p.name);
  const room = max - props.filter((p) => p.required).length;
  if (room < 0) return ok(cx.never(path, hint));
  const sets: string[][] = [];
  const walk = (from: number, chosen: string[]): boolean => {
    if (sets.length >= MAX_MEMBER_SETS) return false;
    sets.push(chosen);
    for (let i = from; i < optional.length && chosen.length < room; i++) if (!walk(i + 1, [...chosen, optional[i]!])) return false;
    return true;
  };
  if (!walk(0, [])) return undefined;
  const listed = isObject(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? s.required : [];
  // The variants record their closed objects again; the report counts this object once.
  const before = { closed: cx.sites.closed.length, closedCount: cx.sites.closedCount };
  const options: Node[] = [];
  for (const [i, chosen] of sets.entries()) {
    const left = optional.filter((name) => !chosen.includes(name));
    const variant = { ...s, type: "object", properties: { ...listed, ...Object.fromEntries(left.map((name) => [name, false])) }, required: [...required, ...chosen] };
    const r = cx.lower(variant, path, `${hint}-${i + 1}`, depth + 1);
    if (!r.ok) return r;
    options.push(r.value);
  }
  cx.sites.closed.length = before.closed;
  cx.sites.closedCount = before.closedCount;
  return ok(cx.node(path, hint, { k: "union", options }));
}

/** Whether a lowered node admits no value by its form (the empty union `never` makes). */
function isNever(n: Node): boolean {
  return n.k === "union" && n.options.length === 0;
}

/**
 * Whether a schema (through its `$ref`) admits no value by its form alone: `false`, `not: {}`, or `not` every type
 * (MaskBench's "disallowed" definitions).
 */
function admitsNothing(cx: LowerContext, schema: unknown, at: string): boolean {
  const r = cx.resolvePart(schema, at);
  if (!r.ok) return false;
  if (r.value === false) return true;
  const not = isObject(r.value) ? r.value.not : undefined;
  if (not === true || (isObject(not) && Object.keys(not).length === 0)) return true;
  const types = isObject(not) && Object.keys(not).length === 1 && Array.isArray(not.type) ? not.type : [];
  return EVERY_TYPE.every((t) => types.includes(t));
}

/**
 * patternProperties (see pattern-properties.ts): the listed members' extra schemas, the extra-key value
 * (replacing `extra`: null when no spelled key is admitted), and each pattern's key and value nodes. A pattern
 * key or value the grammar cannot hold is dropped when the extra-key rule covers its keys (a subset), else
 * refused at the keyword.
 */
function lowerPatterns(
  cx: LowerContext,
  s: JsonSchema,
  path: string,
  hint: string,
  depth: number,
  listed: readonly string[],
  extra: Node | null,
  avoidPatterns = true,
): Result<{ listed: Map<string, unknown[]>; spelled: Node | null; avoid: KeyAvoid; keys: { key: Node; value: Node }[]; required: (name: string) => unknown }> {
  const ap = s.additionalProperties;
  const closed = ap === false || (ap === undefined && extra === null);
  const at = pointer(path, "patternProperties");
  const plan = planPatterns(s.patternProperties as Record<string, unknown>, listed, closed ? false : ap, path, avoidPatterns, (schema) => admitsNothing(cx, schema, at));
  if ("code" in plan) return err(plan);
  let spelled: Node | null = null;
  if (plan.spelled !== undefined) {
    const r = cx.lower(plan.spelled, at, `${hint}-extra`, depth + 1);
    // A merge the grammar cannot hold leaves those keys out (fewer members, never an invalid one).
    if (r.ok) spelled = r.value;
  }
  const keys: { key: Node; value: Node }[] = [];
  for (const [i, k] of plan.keyed.entries()) {
    const key = cx.lower(k.key, pointer(at, k.pattern), `${hint}-key-${i + 1}`, depth + 1);
    const value = key.ok ? cx.lower(k.value, pointer(at, k.pattern), `${hint}-pattern-${i + 1}`, depth + 1) : key;
    // A pattern whose keys no value fits adds no member (and would still be charged its key's length).
    if (key.ok && value.ok) {
      if (!isNever(value.value)) keys.push({ key: key.value, value: value.value });
    }
    // Extra keys that avoid the patterns do not cover this one's keys: plan again with keys that may match it.
    else if (avoidsAny(plan.avoid)) return lowerPatterns(cx, s, path, hint, depth, listed, extra, false);
    else if (spelled === null) return key.ok && !value.ok ? value : err(unsupported(at, `patternProperties ${JSON.stringify(k.pattern)}: ${key.ok ? "" : key.error.message}`));
  }
  return ok({ listed: plan.listed, spelled, avoid: plan.avoid, keys, required: plan.required });
}
