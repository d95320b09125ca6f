// Owns: a pattern narrowed to the strings of at least minLength code points, written as a pattern again: branches
// too short dropped, alternatives of different lengths spread into branches, the one repeated class of a branch
// made to repeat enough, or (minLength 1) the branch split by its first item that is not empty. Exact by
// construction; string-plan.ts proves the result is inside the pattern and never shorter than minLength.

import type { ParsedPattern, Re } from "./regex.js";

type Branch = ParsedPattern["branches"][number];

/** Most branches one branch is spread into. */
const MAX_SPREAD = 16;

const ANY: Re = { t: "rep", item: { t: "set", ranges: [[0, 0x10ffff]] }, min: 0, max: undefined };
const itemsOf = (re: Re): Re[] => (re.t === "seq" ? re.items : [re]);

/** Least and most code points `re` spells (most: Infinity when unbounded). */
function span(re: Re): [number, number] {
  switch (re.t) {
    case "set":
      return [1, 1];
    case "seq":
      return re.items.map(span).reduce(([a, b], [c, d]) => [a + c, b + d], [0, 0]);
    case "alt": {
      const s = re.items.map(span);
      return [Math.min(...s.map((x) => x[0])), Math.max(...s.map((x) => x[1]))];
    }
    case "rep": {
      const [a, b] = span(re.item);
      return [re.min * a, re.max === undefined ? (b === 0 ? 0 : Infinity) : re.max * b];
    }
  }
}

/** The item sequences a sequence spreads into, one per choice of its top-level alternatives (undefined past MAX_SPREAD). */
function spread(items: readonly Re[]): Re[][] | undefined {
  let out: Re[][] = [[]];
  for (const item of items) {
    const options = item.t === "alt" ? item.items : [item];
    if (out.length * options.length > MAX_SPREAD) return undefined;
    out = out.flatMap((prefix) => options.map((o) => [...prefix, ...itemsOf(o)]));
  }
  return out;
}

/** `items` (a whole branch, both ends anchored) at least `m` long, when one repeated class can carry the rest. */
function lengthen(items: Re[], m: number): Re[] | null | undefined {
  const spans = items.map(span);
  const least = spans.reduce((a, s) => a + s[0], 0);
  if (least >= m) return items;
  if (spans.reduce((a, s) => a + s[1], 0) < m) return null;
  const varying = spans.flatMap((s, i) => (s[0] === s[1] ? [] : [i]));
  if (varying.length !== 1) return undefined;
  const i = varying[0]!;
  const item = items[i]!;
  if (item.t !== "rep" || item.item.t !== "set") return undefined;
  const min = item.min + (m - least);
  return [...items.slice(0, i), { ...item, min }, ...items.slice(i + 1)];
}

function nullable(re: Re): boolean {
  return span(re)[0] === 0;
}

/** The non-empty strings of `re`, split by the first item that spells something (null: none; undefined: not told). */
function nonEmpty(re: Re): Re | null | undefined {
  switch (re.t) {
    case "set":
      return re;
    case "alt": {
      const options: Re[] = [];
      for (const o of re.items) {
        const n = nonEmpty(o);
        if (n === undefined) return undefined;
        if (n) options.push(n);
      }
      return options.length === 0 ? null : options.length === 1 ? options[0]! : { t: "alt", items: options };
    }
    case "rep": {
      if (re.max === 0) return null;
      if (nullable(re.item)) return span(re.item)[1] === 0 ? null : undefined;
      return { ...re, min: Math.max(re.min, 1) };
    }
    case "seq": {
      const options: Re[] = [];
      for (const [i, item] of re.items.entries()) {
        const n = nonEmpty(item);
        if (n === undefined) return undefined;
        if (n) options.push({ t: "seq", items: [n, ...re.items.slice(i + 1)] });
        // The items before the first that spells something spell nothing (they may: else no later one is first).
        if (!nullable(item)) break;
      }
      return options.length === 0 ? null : options.length === 1 ? options[0]! : { t: "alt", items: options };
    }
  }
}

/** `p` narrowed to its strings of at least `m` code points, or undefined when no rule above writes it. */
export function atLeastLength(p: ParsedPattern, m: number): ParsedPattern | undefined {
  const branches: Branch[] = [];
  for (const b of p.branches) {
    if (span(b.re)[0] >= m) {
      branches.push(b);
      continue;
    }
    // An open end spells any text there, which holds whatever an item that may be empty spells beside it.
    const own = itemsOf(b.re);
    let [from, to] = [0, own.length];
    if (!b.start) while (from < to && nullable(own[from]!)) from++;
    if (!b.end) while (to > from && nullable(own[to - 1]!)) to--;
    const items = [...(b.start ? [] : [ANY]), ...own.slice(from, to), ...(b.end ? [] : [ANY])];
    const ways = spread(items);
    const long = ways?.map((w) => lengthen(w, m));
    if (long && long.every((w) => w !== undefined)) {
      for (const w of long) if (w) branches.push({ re: { t: "seq", items: w }, start: true, end: true });
      continue;
    }
    if (m !== 1) return undefined;
    const n = nonEmpty({ t: "seq", items });
    if (n === undefined) return undefined;
    if (n) branches.push({ re: n, start: true, end: true });
  }
  return branches.length > 0 ? { branches } : undefined;
}
