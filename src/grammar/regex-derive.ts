// Owns: reading a parsed pattern one code point at a time (Brzozowski derivatives: the strings that may follow),
// the classes its next code point is judged by, and writing a parsed pattern back as pattern source. Used to
// build a pattern without a few words (pattern-except.ts) and a pattern after fixed prefixes (pattern-prefix.ts).

import { inRanges, type Re } from "./regex.js";
import type { CodeRange } from "./gbnf.js";

export const EPS: Re = { t: "seq", items: [] };
export const ANY: Re = { t: "rep", item: { t: "set", ranges: [[0, 0x10ffff]] }, min: 0, max: undefined };

export function nullable(re: Re): boolean {
  switch (re.t) {
    case "set":
      return false;
    case "seq":
      return re.items.every(nullable);
    case "alt":
      return re.items.some(nullable);
    case "rep":
      return re.min === 0 || nullable(re.item);
  }
}

export const seq = (items: Re[]): Re => {
  const flat = items.flatMap((i) => (i.t === "seq" ? i.items : [i]));
  return flat.length === 1 ? flat[0]! : { t: "seq", items: flat };
};

/** One alternative per distinct expression (an alternation of copies would spell one text many ways). */
export function alt(items: Re[]): Re | null {
  const seen = new Map<string, Re>();
  for (const i of items.flatMap((i) => (i.t === "alt" ? i.items : [i]))) seen.set(JSON.stringify(i), i);
  const out = [...seen.values()];
  return out.length === 0 ? null : out.length === 1 ? out[0]! : { t: "alt", items: out };
}

/** The strings `re` holds after code point `cp`: { v | cp v ∈ re } (null: none). */
export function derive(re: Re, cp: number): Re | null {
  switch (re.t) {
    case "set":
      return inRanges(re.ranges, cp) ? EPS : null;
    case "seq": {
      if (re.items.length === 0) return null;
      const [head, ...rest] = re.items as [Re, ...Re[]];
      const first = derive(head, cp);
      const options = first ? [seq([first, ...rest])] : [];
      if (nullable(head)) {
        const later = derive(seq(rest), cp);
        if (later) options.push(later);
      }
      return alt(options);
    }
    case "alt":
      return alt(re.items.map((i) => derive(i, cp)).filter((d): d is Re => d !== null));
    case "rep": {
      if (re.max === 0) return null;
      const d = derive(re.item, cp);
      if (!d) return null;
      // x{m,n} with x able to be empty holds what x{0,n} holds.
      const min = nullable(re.item) ? 0 : Math.max(re.min - 1, 0);
      return seq([d, { t: "rep", item: re.item, min, max: re.max === undefined ? undefined : re.max - 1 }]);
    }
  }
}

/** The classes `derive` consults for the first code point. */
export function firsts(re: Re): CodeRange[][] {
  switch (re.t) {
    case "set":
      return [re.ranges];
    case "seq": {
      const out: CodeRange[][] = [];
      for (const i of re.items) {
        out.push(...firsts(i));
        if (!nullable(i)) break;
      }
      return out;
    }
    case "alt":
      return re.items.flatMap(firsts);
    case "rep":
      return re.max === 0 ? [] : firsts(re.item);
  }
}

const cpText = (cp: number) => `\\u{${cp.toString(16)}}`;

/** `re` as pattern source the parser reads back. */
export function source(re: Re): string {
  switch (re.t) {
    case "set":
      return `[${re.ranges.map(([lo, hi]) => (lo === hi ? cpText(lo) : `${cpText(lo)}-${cpText(hi)}`)).join("")}]`;
    case "seq":
      return re.items.map((i) => (i.t === "alt" ? `(?:${source(i)})` : source(i))).join("");
    case "alt":
      return re.items.map(source).join("|");
    case "rep":
      return `(?:${source(re.item)}){${re.min},${re.max ?? ""}}`;
  }
}
