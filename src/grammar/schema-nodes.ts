// Owns: the compiler's value tree (one node kind per kind of JSON value): its types, following refs, and the
// disjointness test that decides whether a oneOf can be a plain union.

import type { KeyAvoid } from "./extra-key.js";
import type { Bound } from "./numbers.js";
import { canonicalJson } from "./canonical-json.js";
import { deepEqual } from "./schema-keywords.js";
import type { StringShape } from "./string-plan.js";
import { languageHolds, languageNfa, languagesDisjoint, type Nfa } from "./regex-overlap.js";

export interface Prop {
  name: string;
  node: Node;
  required: boolean;
  /** An optional member no value satisfies: never written, listed only so that no extra key spells it. */
  never?: boolean;
}

export interface Base {
  id: number;
  /** JSON pointer of the schema this node came from. */
  path: string;
  /** Rule-name hint, e.g. `read-file-args-path`. */
  hint: string;
}

export type Node = Base &
  (
    | { k: "null" }
    | { k: "boolean" }
    | { k: "literal"; values: readonly unknown[] }
    /** `mult`: the integers are multiples of it (multipleOf 2..MAX_MULTIPLE; lo and hi are multiples then). */
    | { k: "integer"; lo?: number; hi?: number; mult?: number }
    /** `frac`: most fraction digits (multipleOf 10^-frac); absent: as many as the budget allows. */
    /** `fractional`: not an integer (a fraction digit that is not 0; no bounds then). */
    | { k: "number"; lo?: Bound; hi?: Bound; frac?: number; fractional?: boolean }
    | ({ k: "string" } & StringShape)
    /** `unique`: items must be distinct (uniqueItems); the grammar admits repeats, the runtime's guard refuses them. */
    | { k: "array"; prefix: Node[]; items: Node | null; minItems: number; maxItems?: number; unique?: boolean }
    | {
        k: "object";
        props: Prop[];
        /** Value of an extra member whose key the extra-key rule spells (not a listed name); null: none. */
        extra: Node | null;
        /** Extra members whose key is spelled by a string node (patternProperties, propertyNames). */
        patternKeys?: { key: Node; value: Node }[];
        /** What extra keys avoid so that they match no pattern (present when patternProperties shaped the object). */
        keyAvoid?: KeyAvoid;
        maxExtra?: number;
        nonEmpty?: boolean;
        /** minProperties beyond the required members, with extra or pattern members: at least this many extra members (distinct keys: the runtime's key guard and its closing). */
        minExtra?: number;
      }
    | {
        k: "union";
        options: Node[];
        /**
         * The first this many options must each be spelled where some value satisfies them, or the union is not
         * (an untyped schema's own keywords: the other types beside them never stand in for a keyword the grammar
         * could not spell). Default: 0.
         */
        essential?: number;
      }
    | { k: "ref"; target: Node | undefined }
  );

export type Kind = Node["k"];
export type Body = Node extends infer N ? (N extends Node ? Omit<N, keyof Base> : never) : never;

/** Follow ref nodes to the node they stand for. */
export function deref(node: Node): Node {
  let n = node;
  // A ref whose target is not lowered yet (inside its own lowering) stays a ref: callers treat it as unknown.
  for (let i = 0; n.k === "ref" && n.target && i < 64; i++) n = n.target;
  return n;
}

export function jsonTypeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

export function typeAccepts(type: string, v: unknown): boolean {
  const t = jsonTypeOf(v);
  return t === type || (type === "number" && t === "integer");
}

/** Whether no value can match both nodes (conservative: false when unsure, or deeper than 32 levels). */
export function disjoint(a: Node, b: Node, depth = 0): boolean {
  if (depth > 32) return false;
  const x = deref(a);
  const y = deref(b);
  if (x.k === "ref" || y.k === "ref") return false;
  if (x.k === "union") return x.options.every((o) => disjoint(o, y, depth + 1));
  if (y.k === "union") return y.options.every((o) => disjoint(x, o, depth + 1));
  if (x.k === "literal" && y.k === "literal") {
    const keys = new Set(y.values.map(valueKey));
    return x.values.every((v) => !keys.has(valueKey(v)));
  }
  if (x.k === "literal") return x.values.every((v) => !kindAccepts(y, v));
  if (y.k === "literal") return y.values.every((v) => !kindAccepts(x, v));
  const kx = kindOf(x);
  const ky = kindOf(y);
  if (kx !== ky) return true;
  if (x.k === "string" && y.k === "string") {
    const [nx, ny] = [stringNfa(x), stringNfa(y)];
    return nx !== undefined && ny !== undefined && languagesDisjoint(nx, ny);
  }
  if (x.k === "object" && y.k === "object") {
    // An object with pattern keys may hold a member of any name: only a listed-or-nothing object is closed.
    const closed = (o: Node & { k: "object" }) => o.extra === null && !o.patternKeys?.length;
    for (const p of x.props) {
      const q = y.props.find((r) => r.name === p.name);
      if (p.required && !q && closed(y)) return true;
      if (q && p.required && q.required && disjoint(p.node, q.node, depth + 1)) return true;
    }
    for (const q of y.props) if (q.required && !x.props.some((p) => p.name === q.name) && closed(x)) return true;
  }
  return false;
}

function kindOf(n: Node): string {
  return n.k === "integer" ? "number" : n.k;
}

function kindAccepts(n: Node, v: unknown): boolean {
  const t = jsonTypeOf(v);
  const k = kindOf(n);
  if (k === "number") return t === "integer" || (t === "number" && n.k === "number");
  if (n.k === "string" && typeof v === "string") {
    const nfa = stringNfa(n);
    return nfa === undefined || languageHolds(nfa, v);
  }
  return k === t;
}

const nfas = new WeakMap<Node, Nfa | undefined>();

/**
 * The strings a string node may spell, as an NFA (a superset where a bound is too wide to unroll), or undefined
 * when it is not told (a format, or too large a pattern).
 */
function stringNfa(n: Node & { k: "string" }): Nfa | undefined {
  if (nfas.has(n)) return nfas.get(n);
  const nfa = n.format
    ? undefined
    : n.pattern
      ? languageNfa({ t: "pattern", pattern: n.pattern })
      : languageNfa({ t: "repeat", ranges: n.chars?.ranges ?? [[0, 0x10ffff]], min: n.chars?.min ?? n.minLength, max: n.chars ? n.chars.max : n.maxLength });
  nfas.set(n, nfa);
  return nfa;
}

/** A key equal for values deepEqual calls equal (object keys sorted), so de-duplication is linear. */
export function valueKey(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(valueKey).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${valueKey(o[k])}`).join(",")}}`;
  }
  return canonicalJson(v);
}
