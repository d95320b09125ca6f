// Owns: lowering a JSON Schema into the compiler's value tree (one node per kind of JSON value), resolving
// `$ref`, merging `allOf`, spreading type arrays, `anyOf`/`oneOf` and `nullable` into unions. A keyword value
// the grammar cannot honour becomes an `unsupported_keyword` error at its JSON pointer.

import { err, ok, type QtcError, type Result } from "../errors.js";
import type { ConstraintSites, ExtraMembersPolicy } from "./constraint-report.js";
import type { JsonSchema } from "../tools/types.js";
import type { ParsedPattern } from "./regex.js";
import { boundedPattern, bounds, decimalPlaces, farBound, int32Bounds } from "./schema-bounds.js";
import { numberBoundsSpellable } from "./numbers.js";
import {
  deepEqual,
  invalid,
  isAnnotation,
  isObject,
  mergeSchemas,
  pointer,
  resolveRef,
  unsupported,
} from "./schema-keywords.js";
import { ASSERTED_FORMATS, FORMAT_PATTERNS, FORMAT_SUPERSETS, isSupportedFormat, type StringFormat } from "./string-formats.js";
import { narrowerPattern } from "./regex-overlap.js";
import { shapeString } from "./string-plan.js";
import { avoidsAny, type KeyAvoid } from "./extra-key.js";
import { planPatterns } from "./pattern-properties.js";
import { expandDependencies, hasDependencies } from "./dependencies.js";
import { applyNot, ifThenElse } from "./not.js";
import { MIN_EXTRA_MEMBERS } from "./not-values.js";
import { judgeOf, mentionsRef } from "./value-judge.js";
import { type Body, deref, disjoint, type Node, type Prop, typeAccepts, valueKey } from "./schema-nodes.js";
import { SCHEMA_LIMITS, tooLarge } from "./limits.js";
import { foldPropertyNames } from "./property-names.js";
import { layOut, planContains, slotOf, type ContainsPlan, type Slot } from "./contains.js";

export { deref, disjoint, type Kind, type Node, type Prop } from "./schema-nodes.js";

const MAX_MERGE_DEPTH = 32;
/** Most options an allOf's unions are distributed into (their product); past it the union stays after the rest. */
const MAX_DISTRIBUTED = 16;

/** One allOf part to merge: the schema, its JSON pointer and how deeply allOf/$ref nest above it. */
interface Part {
  part: unknown;
  at: string;
  depth: number;
}
const JSON_TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"];
const FAMILIES: Record<string, readonly string[]> = {
  object: ["properties", "required", "additionalProperties", "minProperties", "maxProperties", "patternProperties", "dependencies", "dependentRequired", "dependentSchemas", "propertyNames"],
  array: ["items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains"],
  string: ["minLength", "maxLength", "pattern", "format"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
};

/** Thrown inside lowering when the value tree outgrows its limit; caught by lowerSchema (never escapes). */
class TreeTooLarge extends Error {
  constructor(readonly path: string) {
    super("value tree too large");
  }
}

/**
 * Lower a schema document (checked against the limits and scanned already: see lowerSchema in schema-policy.ts)
 * into a value tree. `oneOf` disjointness is judged once every `$ref` is resolved.
 */
export function lowerDocument(root: JsonSchema | boolean, hint: string, ids: { next: number }, extraMembers: ExtraMembersPolicy, sites: ConstraintSites, guardedUnique = false): Result<Node> {
  try {
    const lowerer = new Lowerer(root, ids, extraMembers, sites, guardedUnique);
    const lowered = lowerer.lower(root, "", hint, 0);
    if (!lowered.ok) return lowered;
    const overlap = lowerer.checkOneOfs();
    return overlap ? err(overlap) : lowered;
  } catch (e) {
    if (!(e instanceof TreeTooLarge)) throw e;
    return err(tooLarge(e.path, `the schema expands (through $ref and allOf) into more than ${SCHEMA_LIMITS.maxTreeNodes} nodes`));
  }
}

/** Most negations through refs lowered one inside another (a negated recursive schema is refused past it). */
const MAX_NOT_NESTING = 6;

/** Most options of an overlapping oneOf held as "this one and none of the others" (each negates all the others). */
const MAX_EXACTLY_ONE = 8;

/** Whether no two of these nodes may match one value (as far as `disjoint` can tell, or `apart` says). */
function pairwiseDisjoint(options: readonly Node[], apart: ReadonlySet<string>): boolean {
  for (let i = 0; i < options.length; i++) for (let j = i + 1; j < options.length; j++) if (!apart.has(`${i},${j}`) && !disjoint(options[i]!, options[j]!)) return false;
  return true;
}

class Lowerer {
  private readonly refs = new Map<string, Node & { k: "ref" }>();
  private any: (Node & { k: "ref" }) | undefined;
  private made = 0;
  /** Negations through a `$ref` now being lowered, one inside another (see lowerNot). */
  private notNesting = 0;
  /** oneOfs to check once every `$ref` has its target; `apart`: pairs "i,j" known disjoint already. */
  private readonly oneOfs: { path: string; options: Node[]; apart: ReadonlySet<string> }[] = [];

  constructor(
    private readonly root: unknown,
    private readonly ids: { next: number },
    private readonly extraMembers: ExtraMembersPolicy,
    private readonly sites: ConstraintSites,
    /** uniqueItems is held beside the grammar (see PolicyOptions.guardedUnique). */
    private readonly guardedUnique: boolean,
  ) {}

  /** The first `oneOf` whose options may overlap (judged after lowering, when every `$ref` has its target). */
  checkOneOfs(): QtcError | undefined {
    for (const { path, options, apart } of this.oneOfs) {
      for (let i = 0; i < options.length; i++) {
        for (let j = i + 1; j < options.length; j++) {
          if (!apart.has(`${i},${j}`) && !disjoint(options[i]!, options[j]!)) {
            return unsupported(pointer(path, "oneOf"), `oneOf options ${i} and ${j} may both match one value; use anyOf or make them disjoint (different types or a const discriminator)`);
          }
        }
      }
    }
    return undefined;
  }

  private node(path: string, hint: string, body: Body): Node {
    if (++this.made > SCHEMA_LIMITS.maxTreeNodes) throw new TreeTooLarge(path);
    return { id: this.ids.next++, path, hint, ...body } as Node;
  }

  private never(path: string, hint: string): Node {
    return this.node(path, hint, { k: "union", options: [] });
  }

  /** The "any JSON value" node (recursive through arrays and objects). */
  anyNode(): Node & { k: "ref" } {
    if (this.any) return this.any;
    const ref = this.node("", "any", { k: "ref", target: undefined }) as Node & { k: "ref" };
    this.any = ref;
    ref.target = this.node("", "any", {
      k: "union",
      options: [
        this.node("", "null", { k: "null" }),
        this.node("", "boolean", { k: "boolean" }),
        this.node("", "number", { k: "number" }),
        this.node("", "string", { k: "string", minLength: 0 }),
        this.node("", "any-array", { k: "array", prefix: [], items: ref, minItems: 0 }),
        this.node("", "any-object", { k: "object", props: [], extra: ref }),
      ],
    });
    return ref;
  }

  lower(schema: unknown, path: string, hint: string, depth: number): Result<Node> {
    if (depth > MAX_MERGE_DEPTH) return err(invalid(path, "schema nests $ref/allOf too deeply"));
    if (schema === true) return ok(this.anyNode());
    if (schema === false) return ok(this.never(path, hint));
    if (!isObject(schema)) return err(invalid(path, "a schema must be an object or a boolean"));
    const keys = Object.keys(schema).filter((k) => !isAnnotation(k));
    if (keys.length === 0) return ok(this.anyNode());
    if ("not" in schema) return this.lowerNot(schema, path, hint, depth);
    const branches = ifThenElse(schema);
    if (branches) return this.lowerIf(branches, path, hint, depth);
    if (hasDependencies(schema)) return this.lowerDependencies(schema, path, hint, depth);

    if (typeof schema.$ref === "string") {
      const target = resolveRef(this.root, schema.$ref, path);
      if ("code" in target) return err(target);
      if (keys.length === 1) return this.refNode(schema.$ref, target.schema, target.path);
      const { $ref: _ref, ...rest } = schema;
      if (target.schema === false) return ok(this.never(path, hint));
      if (!isObject(target.schema)) return this.lower(rest, path, hint, depth + 1);
      const merged = mergeSchemas(target.schema, rest, path);
      if (!merged.ok) return merged;
      return this.lower(merged.value, path, hint, depth + 1);
    }
    if (schema.nullable === true) {
      const { nullable: _n, ...rest } = schema;
      const inner = this.lower(rest, path, hint, depth + 1);
      if (!inner.ok) return inner;
      return ok(this.node(path, hint, { k: "union", options: [inner.value, this.node(path, `${hint}-null`, { k: "null" })] }));
    }
    if (Array.isArray(schema.allOf)) {
      const { allOf, ...base } = schema;
      const merged = this.mergeParts(base, (allOf as unknown[]).map((part, i) => ({ part, at: pointer(path, "allOf", i), depth })));
      if (!merged.ok) return merged;
      return this.lower(merged.value, path, hint, depth + 1);
    }
    if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return this.lowerUnion(schema, path, hint, depth);
    if (Array.isArray(schema.type)) {
      const options: Node[] = [];
      for (const t of schema.type) {
        const r = this.lower({ ...schema, type: t }, path, `${hint}-${String(t)}`, depth + 1);
        if (!r.ok) return r;
        options.push(r.value);
      }
      return ok(options.length === 1 ? options[0]! : this.node(path, hint, { k: "union", options }));
    }
    if (typeof schema.type === "string") return this.lowerTyped(schema, schema.type, path, hint, depth);
    if (schema.type !== undefined) return err(invalid(pointer(path, "type"), "type must be a string or an array of strings"));
    // No type: the values the keywords describe (enum/const), or the families their keywords belong to.
    if ("const" in schema || Array.isArray(schema.enum)) return this.lowerTyped(schema, undefined, path, hint, depth);
    const families = Object.entries(FAMILIES)
      .filter(([, words]) => words.some((w) => w in schema))
      .map(([family]) => family);
    if (families.length === 0) return ok(this.anyNode());
    const options: Node[] = [];
    for (const family of families) {
      const r = this.lowerTyped(schema, family, path, `${hint}-${family}`, depth);
      if (!r.ok) return r;
      options.push(r.value);
    }
    // A keyword constrains only values of its own type: every other type stays open (`{"properties": …}` holds an
    // array as JSON Schema says, `{"format": …}` a number).
    return ok(this.node(path, hint, { k: "union", options: [...options, ...this.anyValuesBut(families)], essential: options.length }));
  }

  /** The "any value" node's options of every kind but these (families are named as node kinds). */
  private anyValuesBut(kinds: readonly string[]): Node[] {
    const any = this.anyNode().target as Node & { k: "union" };
    return any.options.filter((o) => !kinds.includes(o.k));
  }

  /** `not` held exactly where it can be (see not.ts): the union of the variants it leaves. */
  private lowerNot(schema: JsonSchema, path: string, hint: string, depth: number): Result<Node> {
    const { not: negated, ...rest } = schema;
    // A negated recursive schema would unfold without end (each level's `not` of its members' refs): refused
    // past MAX_NOT_NESTING nested negations that followed a ref.
    const viaRef = mentionsRef(negated);
    if (viaRef && this.notNesting >= MAX_NOT_NESTING) return err(unsupported(pointer(path, "not"), `not of a recursive $ref is not supported (more than ${MAX_NOT_NESTING} nested negations through refs)`));
    const variants = applyNot(rest, negated, path, (s) => {
      const r = this.resolvePart(s, pointer(path, "not"));
      return r.ok ? r.value : undefined;
    });
    if (!Array.isArray(variants)) return err(variants);
    if (variants.length === 0) return ok(this.never(path, hint));
    const options: Node[] = [];
    if (viaRef) this.notNesting++;
    try {
      for (const [i, v] of variants.entries()) {
        const r = this.lower(v, path, variants.length === 1 ? hint : `${hint}-${i + 1}`, depth + 1);
        if (!r.ok) return r;
        options.push(r.value);
      }
    } finally {
      if (viaRef) this.notNesting--;
    }
    return ok(options.length === 1 ? options[0]! : this.node(path, hint, { k: "union", options }));
  }

  /** if/then/else: the union of its two branches; a branch the grammar cannot hold is refused at `/if`. */
  private lowerIf(branches: JsonSchema[], path: string, hint: string, depth: number): Result<Node> {
    const options: Node[] = [];
    for (const [i, b] of branches.entries()) {
      const r = this.lower(b, path, `${hint}-${i === 0 ? "then" : "else"}`, depth + 1);
      // The branches are merged copies (their pointers name no keyword of the document): a part the grammar
      // cannot hold is refused at /if, which `validate` takes out (then and else then constrain nothing).
      if (!r.ok && r.error.code === "unsupported_keyword") {
        return err(unsupported(pointer(path, "if"), `if/then/else: the ${i === 0 ? "then" : "else"} branch cannot be held (${r.error.message})`));
      }
      if (!r.ok) return r;
      options.push(r.value);
    }
    return ok(this.node(path, hint, { k: "union", options }));
  }

  /** Dependency keywords held exactly: the union of the schema's variants (see dependencies.ts). */
  private lowerDependencies(schema: JsonSchema, path: string, hint: string, depth: number): Result<Node> {
    const variants = expandDependencies(schema, path);
    if (!Array.isArray(variants)) return err(variants);
    const options: Node[] = [];
    for (const [i, v] of variants.entries()) {
      const r = this.lower(v, path, `${hint}-${i + 1}`, depth + 1);
      if (!r.ok) return r;
      options.push(r.value);
    }
    return ok(options.length === 1 ? options[0]! : this.node(path, hint, { k: "union", options }));
  }

  private refNode(ref: string, target: unknown, targetPath: string): Result<Node> {
    const existing = this.refs.get(ref);
    if (existing) return ok(existing);
    const last = ref === "#" ? "root" : ref.split("/").pop()!;
    const node = this.node(targetPath, `def-${last}`, { k: "ref", target: undefined }) as Node & { k: "ref" };
    const known = new Set(this.refs.keys());
    this.refs.set(ref, node);
    const lowered = this.lower(target, targetPath, `def-${last}`, 0);
    // A failed target leaves no half-made node behind: a caller that goes on without this part (a pattern key's
    // value, a merge the grammar cannot hold, a oneOf option tried with `not`) must not meet it again through
    // another $ref with no target — nor through a ref lowered inside it, which may point back at this one.
    if (!lowered.ok) {
      for (const k of [...this.refs.keys()]) if (!known.has(k)) this.refs.delete(k);
      return lowered;
    }
    if (lowered.value === node) return err(invalid(targetPath, `$ref "${ref}" refers only to itself`));
    node.target = lowered.value;
    return ok(node);
  }

  /**
   * `base` with every allOf part merged in, in order; a part's own allOf is merged where the part stands (depth
   * first), so members keep the order a reader sees (nested parts came after the later siblings). A part that is
   * a union (`anyOf`/`oneOf`) followed by more parts is distributed: each option merged with what came before and
   * what comes after (`A, anyOf[X, Y], B` is `anyOf[A X B, A Y B]`, exact), at most MAX_DISTRIBUTED options in all.
   */
  private mergeParts(base: JsonSchema | false, parts: readonly Part[], width = 1): Result<JsonSchema | false> {
    let merged = base;
    const queue = [...parts];
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { part, at, depth } = next;
      if (depth > MAX_MERGE_DEPTH) return err(invalid(at, "schema nests $ref/allOf too deeply"));
      const resolved = this.resolvePart(part, at);
      if (!resolved.ok) return resolved;
      if (resolved.value === true) continue;
      if (resolved.value === false || merged === false) {
        merged = false;
        continue;
      }
      if ("if" in resolved.value && "if" in merged) {
        // A second if/then/else: this part as the union of its two branches (merged as any union is).
        const { if: cond, then: yes, else: no, ...rest } = resolved.value;
        const branches = { anyOf: [{ allOf: [cond, yes ?? true] }, { allOf: [{ not: cond }, no ?? true] }] };
        queue.unshift({ part: { allOf: [rest, branches] }, at, depth: depth + 1 });
        continue;
      }
      const { allOf: inner, ...own } = resolved.value;
      const key = Array.isArray(own.anyOf) === Array.isArray(own.oneOf) ? undefined : Array.isArray(own.anyOf) ? "anyOf" : "oneOf";
      const { [key ?? "anyOf"]: union, ...plain } = own;
      if (Array.isArray(inner)) {
        // Its own members, then its allOf, then its union (as the part reads), before the parts after it.
        const later = inner.map((p, j) => ({ part: p, at: pointer(at, "allOf", j), depth: depth + 1 }));
        queue.unshift(...later, ...(key ? [{ part: { [key]: union }, at, depth }] : []));
        const joined = mergeSchemas(merged, key ? plain : own, at);
        if (!joined.ok) return joined;
        merged = joined.value;
        continue;
      }
      const options = key ? (union as unknown[]) : [];
      if (key && (queue.length > 0 || key in merged) && width * options.length <= MAX_DISTRIBUTED) {
        const head = mergeSchemas(merged, plain, at);
        if (!head.ok) return head;
        const branches: (JsonSchema | false)[] = [];
        for (const [j, option] of options.entries()) {
          const branch = this.mergeParts(head.value, [{ part: option, at: pointer(at, key, j), depth: depth + 1 }, ...queue], width * options.length);
          if (!branch.ok) return branch;
          branches.push(branch.value);
        }
        return ok({ [key]: branches });
      }
      const joined = mergeSchemas(merged, resolved.value, at);
      if (!joined.ok) return joined;
      merged = joined.value;
    }
    return ok(merged);
  }

  private resolvePart(part: unknown, at: string): Result<JsonSchema | boolean> {
    if (typeof part === "boolean") return ok(part);
    if (!isObject(part)) return err(invalid(at, "an allOf part must be a schema"));
    if (typeof part.$ref !== "string") return ok(part);
    const target = resolveRef(this.root, part.$ref, at);
    if ("code" in target) return err(target);
    const { $ref: _r, ...rest } = part;
    if (typeof target.schema === "boolean") return ok(target.schema);
    if (!isObject(target.schema)) return err(invalid(at, "$ref target is not a schema"));
    return mergeSchemas(target.schema, rest, at);
  }

  private lowerUnion(schema: JsonSchema, path: string, hint: string, depth: number): Result<Node> {
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
        const resolved = this.resolvePart(option, at);
        if (!resolved.ok) return resolved;
        if (typeof resolved.value === "boolean") merged = resolved.value ? base : false;
        else {
          const m = mergeSchemas(base, resolved.value, at);
          if (!m.ok) return m;
          merged = m.value;
        }
      }
      const r = this.lower(merged, at, `${hint}-${i + 1}`, depth + 1);
      if (!r.ok) return r;
      options.push(r.value);
    }
    const apart = key === "oneOf" ? this.literalsApart(list as unknown[], path) : new Set<string>();
    if (key === "oneOf") this.nonEmptyArrays(options, apart);
    const exclusive = key === "oneOf" && options.length > 1 ? this.withoutSharedKinds(options) : options;
    if (key === "oneOf" && options.length > 1 && !pairwiseDisjoint(exclusive, apart)) {
      const held = this.exactlyOne(list as unknown[], hasBase ? base : undefined, path, hint, depth);
      if (held) return ok(held);
    }
    if (key === "oneOf" && options.length > 1) this.oneOfs.push({ path, options: exclusive, apart });
    return ok(exclusive.length === 1 ? exclusive[0]! : this.node(path, hint, { k: "union", options: exclusive }));
  }

  /**
   * Pairs of oneOf options ("i,j", i < j) known disjoint because one of them is an enum or const none of whose
   * values the other admits (judged by the validator: a pattern, a format or a bound the node tree cannot compare).
   */
  private literalsApart(list: readonly unknown[], path: string): Set<string> {
    const apart = new Set<string>();
    const raw = list.map((o, i) => {
      const r = this.resolvePart(o, pointer(path, "oneOf", i));
      return r.ok ? r.value : undefined;
    });
    const valuesOf = (o: unknown) => (isObject(o) && (Array.isArray(o.enum) || "const" in o) ? (Array.isArray(o.enum) ? o.enum : [o.const]) : undefined);
    for (let i = 0; i < raw.length; i++) {
      for (let j = i + 1; j < raw.length; j++) {
        const [values, other] = valuesOf(raw[i]) ? [valuesOf(raw[i])!, raw[j]] : [valuesOf(raw[j]), raw[i]];
        if (!values || other === undefined) continue;
        const judge = judgeOf(other, this.root);
        if (judge && values.every((v) => !judge(v))) apart.add(`${i},${j}`);
      }
    }
    return apart;
  }

  /**
   * oneOf options that are arrays of items no two of them share: they overlap only in the empty array, which
   * therefore matches none (oneOf admits none of it). Such options become non-empty and the pair disjoint. Exact.
   */
  private nonEmptyArrays(options: Node[], apart: Set<string>): void {
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
        const nonEmpty = this.node(a.path, a.hint, { k: "array", prefix: [], items: a.items, minItems: 1, ...(a.maxItems === undefined ? {} : { maxItems: a.maxItems }) }) as Node & { k: "array" };
        options[k] = arrays[k] = nonEmpty;
      }
      apart.add(`${i},${j}`);
    }
  }

  /**
   * An overlapping oneOf held exactly where `not` can be: each option i as (base, option i, not any other option),
   * options that no value shares. Undefined when some negation cannot be held (the oneOf is then judged as is).
   */
  private exactlyOne(list: readonly unknown[], base: JsonSchema | undefined, path: string, hint: string, depth: number): Node | undefined {
    if (list.length > MAX_EXACTLY_ONE) return undefined;
    const resolved: unknown[] = [];
    for (const [i, option] of list.entries()) {
      const r = this.resolvePart(option, pointer(path, "oneOf", i));
      if (!r.ok) return undefined;
      resolved.push(r.value);
    }
    // What the attempt records (closed sites, nested oneOfs) is the original lowering's again afterwards.
    const before = { oneOfs: this.oneOfs.length, closed: this.sites.closed.length, closedCount: this.sites.closedCount };
    const options: Node[] = [];
    for (const [i, option] of resolved.entries()) {
      const others = resolved.filter((_, j) => j !== i);
      const parts = [...(base ? [base] : []), option, { not: others.length === 1 ? others[0] : { anyOf: others } }];
      const r = this.lower({ allOf: parts }, pointer(path, "oneOf", i), `${hint}-only-${i + 1}`, depth + 1);
      if (!r.ok) break;
      options.push(r.value);
    }
    this.oneOfs.length = before.oneOfs;
    this.sites.closed.length = before.closed;
    this.sites.closedCount = before.closedCount;
    if (options.length < resolved.length) return undefined;
    return this.node(path, hint, { k: "union", options });
  }

  /**
   * oneOf options that are untyped schemas (see lower: their keywords' types, then every other type whole) without
   * the whole types two of them hold: a value of such a type matches both, so oneOf admits none of it. Exact, and
   * what lets `oneOf: [{properties: …, required: ["a"]}, {properties: …, required: ["b"]}]` be told apart.
   */
  private withoutSharedKinds(options: readonly Node[]): Node[] {
    const fillers = (n: Node) => (n.k === "union" && n.essential !== undefined ? n.options.slice(n.essential) : []);
    const count = new Map<string, number>();
    for (const o of options) for (const f of fillers(deref(o))) count.set(f.k, (count.get(f.k) ?? 0) + 1);
    return options.map((option) => {
      const o = deref(option);
      if (o.k !== "union" || o.essential === undefined || !fillers(o).some((f) => count.get(f.k)! > 1)) return option;
      const kept = [...o.options.slice(0, o.essential), ...fillers(o).filter((f) => count.get(f.k)! === 1)];
      return this.node(o.path, o.hint, { k: "union", options: kept, essential: o.essential });
    });
  }

  private lowerTyped(s: JsonSchema, type: string | undefined, path: string, hint: string, depth: number): Result<Node> {
    if (type !== undefined && !JSON_TYPES.includes(type)) return err(invalid(pointer(path, "type"), `unknown type "${type}"`));
    if ("const" in s || Array.isArray(s.enum)) {
      let values: unknown[] = Array.isArray(s.enum) ? [...s.enum] : [s.const];
      if ("const" in s && Array.isArray(s.enum)) values = values.filter((v) => deepEqual(v, s.const));
      if (type !== undefined) values = values.filter((v) => typeAccepts(type, v));
      // Other keywords beside the values (a pattern, a bound): only the values they admit.
      if (Object.keys(s).some((k) => !isAnnotation(k) && k !== "enum" && k !== "const" && k !== "type")) {
        const judge = judgeOf(s, this.root);
        if (judge) values = values.filter(judge);
      }
      const seen = new Set<string>();
      const unique = values.filter((v) => {
        const key = valueKey(v);
        return !seen.has(key) && (seen.add(key), true);
      });
      return ok(this.node(path, hint, { k: "literal", values: unique }));
    }
    switch (type) {
      case "null":
        return ok(this.node(path, hint, { k: "null" }));
      case "boolean":
        return ok(this.node(path, hint, { k: "boolean" }));
      case "integer":
        return this.lowerInteger(s, path, hint);
      case "number":
        return this.lowerNumber(s, path, hint);
      case "string":
        return this.lowerString(s, path, hint);
      case "array":
        return this.lowerArray(s, path, hint, depth);
      case "object":
        return this.lowerObject(s, path, hint, depth);
      default:
        return ok(this.anyNode());
    }
  }

  private lowerInteger(s: JsonSchema, path: string, hint: string): Result<Node> {
    if (s.multipleOf !== undefined && s.multipleOf !== 1) {
      return err(unsupported(pointer(path, "multipleOf"), "multipleOf is supported only with the value 1 on integers"));
    }
    const b = bounds(s.format === "int32" ? int32Bounds(s) : s, path);
    if (!b.ok) return b;
    const { lo, hi } = b.value;
    const min = lo === undefined ? undefined : lo.open ? Math.floor(lo.value) + 1 : Math.ceil(lo.value);
    const max = hi === undefined ? undefined : hi.open ? Math.ceil(hi.value) - 1 : Math.floor(hi.value);
    const far = farBound(min, max, b.value.loKey, b.value.hiKey, path);
    if (far) return err(far);
    if (min !== undefined && max !== undefined && min > max) return ok(this.never(path, hint));
    return ok(this.node(path, hint, { k: "integer", lo: min, hi: max }));
  }

  private lowerNumber(s: JsonSchema, path: string, hint: string): Result<Node> {
    // ajv-formats' int32 and int64 admit integers only.
    if (s.format === "int32" || s.format === "int64") return this.lowerInteger(s, path, hint);
    // multipleOf 1 is the integers; 10^-k (0.01) at most k fraction digits. Others are refused.
    if (s.multipleOf === 1) return this.lowerInteger(s, path, hint);
    const frac = s.multipleOf === undefined ? undefined : decimalPlaces(s.multipleOf);
    if (s.multipleOf !== undefined && frac === undefined) {
      return err(unsupported(pointer(path, "multipleOf"), "multipleOf on numbers is supported only as 1 or a power of ten below it (0.1, 0.01, …)"));
    }
    const b = bounds(s, path);
    if (!b.ok) return b;
    if (!numberBoundsSpellable(b.value.lo, b.value.hi)) {
      return err(unsupported(pointer(path, b.value.loKey ?? b.value.hiKey!), "number bounds with fractions on both sides of one whole number are not supported"));
    }
    const { lo, hi } = b.value;
    const far = farBound(lo?.value, hi?.value, b.value.loKey, b.value.hiKey, path);
    if (far) return err(far);
    if (lo && hi && (lo.value > hi.value || (lo.value === hi.value && (lo.open || hi.open)))) return ok(this.never(path, hint));
    return ok(this.node(path, hint, frac === undefined ? { k: "number", lo, hi } : { k: "number", lo, hi, frac }));
  }

  private lowerString(s: JsonSchema, path: string, hint: string): Result<Node> {
    const minLength = s.minLength ?? 0;
    if (typeof minLength !== "number" || !Number.isInteger(minLength) || minLength < 0) {
      return err(invalid(pointer(path, "minLength"), "minLength must be a whole number ≥ 0"));
    }
    const maxLength = s.maxLength;
    if (maxLength !== undefined && (typeof maxLength !== "number" || !Number.isInteger(maxLength) || maxLength < 0)) {
      return err(invalid(pointer(path, "maxLength"), "maxLength must be a whole number ≥ 0"));
    }
    let format: StringFormat | undefined;
    let formatPattern: string | undefined;
    if (typeof s.format === "string" && isSupportedFormat(s.format)) format = s.format;
    else if (typeof s.format === "string" && FORMAT_PATTERNS[s.format]) formatPattern = FORMAT_PATTERNS[s.format]!.pattern;
    else if (typeof s.format === "string" && ASSERTED_FORMATS.has(s.format)) {
      return err(unsupported(pointer(path, "format"), `format "${s.format}" is not supported (supported: date, time, date-time, uuid, ${Object.keys(FORMAT_PATTERNS).join(", ")})`));
    }
    // Any other format asserts nothing (ajv ignores formats it does not know): ignored.
    let pattern: ParsedPattern | undefined;
    // A pattern beside a format: held where one language is proven to hold the other (see the string below).
    const narrow = typeof s.pattern === "string" && (formatPattern !== undefined || format) ? narrowerPattern(formatPattern ?? FORMAT_SUPERSETS[format!], s.pattern) : undefined;
    if (formatPattern !== undefined) {
      if (s.pattern !== undefined && narrow === undefined) return err(unsupported(pointer(path, "pattern"), "pattern together with format is not supported (unless one holds every string of the other)"));
      // The narrower of the two: the format's own (the pattern then holds), or the pattern (every string of it
      // is one the format's spelling holds, so one ajv's format accepts).
      const parsed = boundedPattern(narrow ?? formatPattern);
      if (!parsed.ok) return err(unsupported(pointer(path, "format"), `format "${String(s.format)}": ${parsed.reason}`));
      pattern = parsed.value;
    } else if (s.pattern !== undefined) {
      // A format rule's strings all match the pattern (its superset pattern is proven to): the format alone is both.
      if (format && narrow !== FORMAT_SUPERSETS[format]) return err(unsupported(pointer(path, "pattern"), "pattern together with format is not supported (unless the pattern holds every string of the format)"));
      if (typeof s.pattern !== "string") return err(invalid(pointer(path, "pattern"), "pattern must be a string"));
      if (!format) {
        const parsed = boundedPattern(s.pattern);
        if (!parsed.ok) return err(unsupported(pointer(path, "pattern"), `pattern ${JSON.stringify(s.pattern)}: ${parsed.reason}`));
        pattern = parsed.value;
      }
    }
    if (maxLength !== undefined && minLength > maxLength) return ok(this.never(path, hint));
    const shaped = shapeString({ minLength, maxLength, format, pattern }, path);
    if (!shaped.ok) return shaped;
    const chars = shaped.value.chars;
    if (chars && chars.max !== undefined && chars.min > chars.max) return ok(this.never(path, hint));
    return ok(this.node(path, hint, { k: "string", ...shaped.value }));
  }

  private lowerArray(s: JsonSchema, path: string, hint: string, depth: number): Result<Node> {
    const contains = planContains(s, path);
    if (contains && "code" in contains) return err(contains);
    if (contains) return this.lowerContains(contains, path, hint, depth);
    const prefixSchemas: unknown[] = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
    const prefixKey = Array.isArray(s.prefixItems) ? "prefixItems" : "items";
    const restSchema = Array.isArray(s.prefixItems) ? s.items : Array.isArray(s.items) ? s.additionalItems : s.items;
    const restKey = Array.isArray(s.prefixItems) ? "items" : Array.isArray(s.items) ? "additionalItems" : "items";
    const prefix: Node[] = [];
    for (const [i, p] of prefixSchemas.entries()) {
      const r = this.lower(p, pointer(path, prefixKey, i), `${hint}-${i + 1}`, depth + 1);
      if (!r.ok) return r;
      prefix.push(r.value);
    }
    let items: Node | null = null;
    if (restSchema !== false) {
      const r = this.lower(restSchema ?? true, pointer(path, restKey), `${hint}-item`, depth + 1);
      if (!r.ok) return r;
      items = r.value;
    }
    const minItems = s.minItems ?? 0;
    const maxItems = s.maxItems;
    if (typeof minItems !== "number" || !Number.isInteger(minItems) || minItems < 0) return err(invalid(pointer(path, "minItems"), "minItems must be a whole number ≥ 0"));
    if (maxItems !== undefined && (typeof maxItems !== "number" || !Number.isInteger(maxItems) || maxItems < 0)) {
      return err(invalid(pointer(path, "maxItems"), "maxItems must be a whole number ≥ 0"));
    }
    if (s.uniqueItems === true && (maxItems === undefined || maxItems > 1)) {
      // Items from a few literal values: every array of distinct ones is listed (held exactly by the grammar).
      const listed = prefix.length === 0 && items?.k === "literal" ? distinctArrays(items.values, minItems, maxItems) : undefined;
      if (listed) return ok(listed.length === 0 ? this.never(path, hint) : this.node(path, hint, { k: "literal", values: listed }));
      if (this.guardedUnique) {
        // Fewer distinct items than minItems asks (booleans, a small range): no array is valid.
        const most = prefix.length === 0 && items ? distinctValues(items) : undefined;
        const none = (maxItems !== undefined && minItems > maxItems) || (most !== undefined && most < minItems);
        const guarded = (this.sites.guarded ??= []);
        if (!none && guarded.length < 64) guarded.push({ keyword: "uniqueItems", path: pointer(path, "uniqueItems") });
        return ok(none ? this.never(path, hint) : this.node(path, hint, { k: "array", prefix, items, minItems, maxItems, unique: true }));
      }
      return err(unsupported(pointer(path, "uniqueItems"), "uniqueItems: true is not supported (unless maxItems ≤ 1)"));
    }
    if (maxItems !== undefined && minItems > maxItems) return ok(this.never(path, hint));
    return ok(this.node(path, hint, { k: "array", prefix, items, minItems, maxItems }));
  }

  /**
   * `contains` held by a rewrite (see contains.ts): each position of the array (prefix items, then items) written
   * as it is, as matching or as not matching, so that every array written has as many matches as it asks.
   */
  private lowerContains(c: ContainsPlan, path: string, hint: string, depth: number): Result<Node> {
    // The array on its own first: a keyword there the grammar cannot hold is named at its own pointer.
    const plain = this.lowerArray(c.base, path, hint, depth);
    if (!plain.ok || plain.value.k !== "array") return plain;
    const array = plain.value;
    const at = pointer(path, "contains");
    // The forms have no pointer in the document: they are named, and refused, at `contains`.
    let why: string | undefined;
    const form = (schema: unknown, negate: boolean, name: string): Result<Node | undefined> => {
      const r = this.lower({ allOf: [schema, negate ? { not: c.contains } : c.contains] }, at, name, depth + 1);
      if (r.ok || r.error.code !== "unsupported_keyword") return r;
      why ??= r.error.message;
      return ok(undefined);
    };
    const slot = (schema: unknown, node: Node, name: string, needMatch: boolean): Result<Slot> => {
      const match = needMatch ? form(schema, false, `${name}-match`) : ok(undefined);
      if (!match.ok) return match;
      const other = c.most === Infinity ? ok(undefined) : form(schema, true, `${name}-other`);
      if (!other.ok) return other;
      return ok(slotOf(node, match.value, other.value));
    };
    const slots: Slot[] = [];
    for (const [i, schema] of c.prefix.entries()) {
      const r = slot(schema, array.prefix[i]!, `${hint}-${i + 1}`, c.least > 0);
      if (!r.ok) return r;
      slots.push(r.value);
    }
    let rest: Slot | null = null;
    if (array.items) {
      const r = slot(c.rest, array.items, `${hint}-item`, c.least > 0);
      if (!r.ok) return r;
      rest = r.value;
    }
    const laid = layOut(slots, rest, c.least, c.most, array.minItems, array.maxItems);
    // No array has as many matches as asked: named at `contains`.
    if ("never" in laid && laid.never) return ok(this.never(at, hint));
    if ("never" in laid) return err(unsupported(pointer(path, laid.at), `contains cannot be held: ${laid.why}${why ? ` (${why})` : ""}`));
    return ok(this.node(path, hint, { k: "array", ...laid }));
  }

  private lowerObject(schema: JsonSchema, path: string, hint: string, depth: number): Result<Node> {
    // propertyNames held by a rewrite (property-names.ts); its pattern's members, which the document does not have,
    // are refused at propertyNames when the grammar cannot hold them.
    const folded = foldPropertyNames(schema);
    // One that could not be folded (after allOf parts met: a pattern beside names, pattern members beside it).
    if (!folded && "propertyNames" in schema) return err(unsupported(pointer(path, "propertyNames"), "propertyNames that neither names the keys nor is one pattern beside no other pattern members is not supported"));
    const r = this.lowerMembers(folded ?? schema, path, hint, depth);
    const made = pointer(path, "patternProperties");
    if (folded && !r.ok && r.error.code === "unsupported_keyword" && !("patternProperties" in schema) && r.error.path?.startsWith(made)) {
      return err(unsupported(pointer(path, "propertyNames"), `propertyNames cannot be held: ${r.error.message}`));
    }
    return r;
  }

  private lowerMembers(s: JsonSchema, path: string, hint: string, depth: number): Result<Node> {
    const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : []);
    const listed = isObject(s.properties) ? s.properties : {};
    let extra: Node | null = null;
    const ap = s.additionalProperties;
    if (ap === undefined && this.extraMembers === "schema") extra = this.anyNode();
    else if (ap === undefined) {
      if (this.sites.closed.length < 64) this.sites.closed.push(path);
      this.sites.closedCount++;
    } else if (ap !== false) {
      const r = this.lower(ap, pointer(path, "additionalProperties"), `${hint}-extra`, depth + 1);
      if (!r.ok) return r;
      extra = r.value;
    }
    const patterned = isObject(s.patternProperties) && Object.keys(s.patternProperties).length > 0 ? this.lowerPatterns(s, path, hint, depth, Object.keys(listed), extra) : undefined;
    if (patterned && !patterned.ok) return patterned;
    const plan = patterned?.value;
    if (plan) extra = plan.spelled;
    const props: Prop[] = [];
    for (const [name, own] of Object.entries(listed)) {
      const also = plan?.listed.get(name);
      const sub = also ? { allOf: [own, ...also] } : own;
      const r = this.lower(sub, pointer(path, "properties", name), `${hint}-${name}`, depth + 1);
      if (!r.ok) return r;
      const isNever = r.value.k === "union" && r.value.options.length === 0;
      // A required member no value satisfies makes the object unsatisfiable (the compile names it); an optional
      // one is never written, but stays listed so that no extra key spells its name (`"a": false` beside
      // additionalProperties would otherwise admit any "a").
      props.push({ name, node: r.value, required: required.has(name), ...(isNever ? { never: true } : {}) });
    }
    for (const name of required) {
      if (name in listed) continue;
      // Closed by policy, a required member no one listed is still written (the schema demands it).
      const byPattern = plan ? this.lower(plan.required(name), pointer(path, "required"), `${hint}-${name}`, depth + 1) : undefined;
      if (byPattern && !byPattern.ok) return byPattern;
      const node = byPattern ? byPattern.value : (extra ?? (ap === undefined ? this.anyNode() : undefined));
      // A required member no key may name: no object satisfies this schema (refused as unsatisfiable where nothing else can stand in).
      if (!node) return ok(this.never(path, hint));
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
    if (forced !== undefined && !open) return ok(this.never(path, hint));
    const minExtra = typeof s.minProperties === "number" && s.minProperties > requiredCount && !nonEmpty && open ? Math.max(s.minProperties - requiredCount, forced ?? 0) : forced;
    if (typeof s.minProperties === "number" && typeof s.maxProperties === "number" && s.maxProperties < s.minProperties) return ok(this.never(path, hint));
    if (typeof s.minProperties === "number" && s.minProperties > requiredCount && !nonEmpty && minExtra === undefined) {
      return err(unsupported(pointer(path, "minProperties"), "minProperties beyond the required properties is supported only over extra or pattern members (or 1)"));
    }
    // maxProperties: the listed members must fit it; extra members get what is left (a subset when optional
    // listed members are left out: never more members than the bound).
    let maxExtra: number | undefined;
    if (typeof s.maxProperties === "number") {
      if (s.maxProperties < count) return err(unsupported(pointer(path, "maxProperties"), "maxProperties below the number of listed properties is not supported"));
      if (extra !== null || plan?.keys.length) maxExtra = s.maxProperties - count;
      // Room for every optional listed member leaves too few extra members for the minimum.
      if (minExtra !== undefined && (maxExtra ?? 0) < minExtra) {
        return err(unsupported(pointer(path, "minProperties"), "minProperties with maxProperties beside optional listed properties is supported only where every listed property and the minimum's extra members fit the maximum"));
      }
    }
    const patternKeys = maxExtra === 0 || !plan?.keys.length ? {} : { patternKeys: plan.keys };
    const keyAvoid = plan ? { keyAvoid: plan.avoid } : {};
    return ok(this.node(path, hint, { k: "object", props, extra: maxExtra === 0 ? null : extra, ...patternKeys, ...keyAvoid, ...(maxExtra ? { maxExtra } : {}), ...(nonEmpty ? { nonEmpty } : {}), ...(minExtra ? { minExtra } : {}) }));
  }

  /**
   * patternProperties (see pattern-properties.ts): the listed members' extra schemas, the extra-key value
   * (replacing `extra`: null when no spelled key is admitted), and each pattern's key and value nodes. A pattern
   * key or value the grammar cannot hold is dropped when the extra-key rule covers its keys (a subset), else
   * refused at the keyword.
   */
  private lowerPatterns(
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
    const plan = planPatterns(s.patternProperties as Record<string, unknown>, listed, closed ? false : ap, path, avoidPatterns);
    if ("code" in plan) return err(plan);
    const at = pointer(path, "patternProperties");
    let spelled: Node | null = null;
    if (plan.spelled !== undefined) {
      const r = this.lower(plan.spelled, at, `${hint}-extra`, depth + 1);
      // A merge the grammar cannot hold leaves those keys out (fewer members, never an invalid one).
      if (r.ok) spelled = r.value;
    }
    const keys: { key: Node; value: Node }[] = [];
    for (const [i, k] of plan.keyed.entries()) {
      const key = this.lower(k.key, pointer(at, k.pattern), `${hint}-key-${i + 1}`, depth + 1);
      const value = key.ok ? this.lower(k.value, pointer(at, k.pattern), `${hint}-pattern-${i + 1}`, depth + 1) : key;
      if (key.ok && value.ok) keys.push({ key: key.value, value: value.value });
      // Extra keys that avoid the patterns do not cover this one's keys: plan again with keys that may match it.
      else if (avoidsAny(plan.avoid)) return this.lowerPatterns(s, path, hint, depth, listed, extra, false);
      else if (spelled === null) return key.ok && !value.ok ? value : err(unsupported(at, `patternProperties ${JSON.stringify(k.pattern)}: ${key.ok ? "" : key.error.message}`));
    }
    return ok({ listed: plan.listed, spelled, avoid: plan.avoid, keys, required: plan.required });
  }
}

/** How many distinct values a node admits, where it is plainly finite (null, booleans, an integer range); else undefined. */
function distinctValues(node: Node): number | undefined {
  const n = deref(node);
  if (n.k === "null") return 1;
  if (n.k === "boolean") return 2;
  if (n.k === "integer" && n.lo !== undefined && n.hi !== undefined) return Math.max(0, n.hi - n.lo + 1);
  return undefined;
}

/** Most arrays distinctArrays lists (3 values give 16 arrays, 5 give 326). */
const MAX_DISTINCT_ARRAYS = 512;

/** Every array of distinct `values` with `min`..`max` items, or undefined when there are more than MAX_DISTINCT_ARRAYS. */
function distinctArrays(values: readonly unknown[], min: number, max: number | undefined): unknown[][] | undefined {
  const top = Math.min(max ?? values.length, values.length);
  const out: unknown[][] = [];
  const walk = (chosen: unknown[], used: boolean[]): boolean => {
    if (chosen.length >= min) {
      out.push([...chosen]);
      if (out.length > MAX_DISTINCT_ARRAYS) return false;
    }
    if (chosen.length === top) return true;
    for (let i = 0; i < values.length; i++) {
      if (used[i]) continue;
      used[i] = true;
      chosen.push(values[i]);
      const fine = walk(chosen, used);
      chosen.pop();
      used[i] = false;
      if (!fine) return false;
    }
    return true;
  };
  return walk([], values.map(() => false)) ? out : undefined;
}
