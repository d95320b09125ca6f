// Owns: lowering a JSON Schema into the compiler's value tree (one node per kind of JSON value): the walk over a
// schema, `$ref`, `nullable`, type arrays, `not`, if/then/else, dependencies and enum/const; allOf, unions and each
// kind's keywords are lowered by lower-*.ts. A keyword value the grammar cannot honour becomes an
// `unsupported_keyword` error at its JSON pointer.

import { err, ok, type QtcError, type Result } from "../errors.js";
import type { ConstraintSites, ExtraMembersPolicy } from "./constraint-report.js";
import type { JsonSchema } from "../tools/types.js";
import { deepEqual, invalid, isAnnotation, isObject, mergeSchemas, pointer, resolveRef, unsupported } from "./schema-keywords.js";
import { expandDependencies, hasDependencies } from "./dependencies.js";
import { applyNot, ifThenElse } from "./not.js";
import { judgeOf, mentionsRef } from "./value-judge.js";
import { type Body, disjoint, type Node, typeAccepts, valueKey } from "./schema-nodes.js";
import { SCHEMA_LIMITS, tooLarge } from "./limits.js";
import { MAX_MERGE_DEPTH, type LowerContext, type OneOfRecord } from "./lower-context.js";
import { mergeParts } from "./lower-all-of.js";
import { lowerUnion } from "./lower-union.js";
import { lowerInteger, lowerNumber, lowerString } from "./lower-scalars.js";
import { lowerArray } from "./lower-array.js";
import type { CodeRange } from "./gbnf.js";
import { ANY_TAG_START } from "./regex-gbnf.js";
import { lowerObject } from "./lower-object.js";

export { deref, disjoint, type Kind, type Node, type Prop } from "./schema-nodes.js";

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
export function lowerDocument(root: JsonSchema | boolean, hint: string, ids: { next: number }, extraMembers: ExtraMembersPolicy, sites: ConstraintSites, guardedUnique = false, tagStarts: readonly CodeRange[] = ANY_TAG_START): Result<Node> {
  try {
    const lowerer = new Lowerer(root, ids, extraMembers, sites, guardedUnique, tagStarts);
    const lowered = lowerer.lower(root, "", hint, 0);
    if (!lowered.ok) return lowered;
    const overlap = lowerer.checkOneOfs();
    return overlap ? err(overlap) : lowered;
  } catch (e) {
    if (!(e instanceof TreeTooLarge)) throw e;
    return err(tooLarge(e.path, `the schema expands (through $ref and allOf) into more than ${SCHEMA_LIMITS.maxTreeNodes} nodes`));
  }
}

/** Thrown by node() past an attempt's own share of nodes; caught by that attempt (see Lowerer.attempt). */
class AttemptTooLarge extends Error {}

/** Most negations through refs lowered one inside another (a negated recursive schema is refused past it). */
const MAX_NOT_NESTING = 6;

class Lowerer implements LowerContext {
  private readonly refs = new Map<string, Node & { k: "ref" }>();
  private any: (Node & { k: "ref" }) | undefined;
  private made = 0;
  /** Most nodes made so far that node() allows: the schema's limit, or an attempt's share of it. */
  private cap: number = SCHEMA_LIMITS.maxTreeNodes;
  /** Negations through a `$ref` now being lowered, one inside another (see lowerNot). */
  private notNesting = 0;
  /** oneOfs to check once every `$ref` has its target. */
  readonly oneOfs: OneOfRecord[] = [];

  constructor(
    readonly root: unknown,
    private readonly ids: { next: number },
    readonly extraMembers: ExtraMembersPolicy,
    readonly sites: ConstraintSites,
    /** uniqueItems is held beside the grammar (see PolicyOptions.guardedUnique). */
    readonly guardedUnique: boolean,
    /** What may not follow a pattern's `<` (see PolicyOptions.tagStarts). */
    readonly tagStarts: readonly CodeRange[],
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

  node(path: string, hint: string, body: Body): Node {
    if (++this.made > this.cap) throw this.cap < SCHEMA_LIMITS.maxTreeNodes ? new AttemptTooLarge() : new TreeTooLarge(path);
    return { id: this.ids.next++, path, hint, ...body } as Node;
  }

  attempt<T>(share: number, build: () => T): T | undefined {
    const [made, cap] = [this.made, this.cap];
    this.cap = made + Math.floor((cap - made) * share);
    try {
      return build();
    } catch (e) {
      if (!(e instanceof AttemptTooLarge)) throw e;
      // What the attempt made is dropped: it does not count against the schema's limit.
      this.made = made;
      return undefined;
    } finally {
      this.cap = cap;
    }
  }

  never(path: string, hint: string): Node {
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
      const merged = mergeParts(this, base, (allOf as unknown[]).map((part, i) => ({ part, at: pointer(path, "allOf", i), depth })));
      if (!merged.ok) return merged;
      return this.lower(merged.value, path, hint, depth + 1);
    }
    if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return lowerUnion(this, schema, path, hint, depth);
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

  resolvePart(part: unknown, at: string): Result<JsonSchema | boolean> {
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
        return lowerInteger(this, s, path, hint);
      case "number":
        return lowerNumber(this, s, path, hint);
      case "string":
        return lowerString(this, s, path, hint);
      case "array":
        return lowerArray(this, s, path, hint, depth);
      case "object":
        return lowerObject(this, s, path, hint, depth);
      default:
        return ok(this.anyNode());
    }
  }
}
